"""Importing other agents' sessions (``import.run``), next to a bare parse of the same files.

Generates N session files from the shapes of the recorded fixtures in tests/fixtures/ (Claude Code
project JSONL, Codex rollouts, pi v3 files; each copy with ids of its own, so
every one becomes a chat of its own) and runs the host's import job on an
in-process host thread over them, as ``pidesktop import`` does. Prints per
session, in the same run:

- ``import``: reading, turning into Desktop messages, the transcript written
  and fsynced, the session row, index rows and origin row committed;
- ``again``: the second run over the same unchanged files (nothing written);
- the baseline ``parse``: reading each file and ``orjson.loads`` of every
  line, the least any importer must read;
- the floor ``write``: the same bytes written durably once per session (a
  temp file, fsync, rename, folder fsync), the least any importer that keeps
  a session safe before it is listed must write.

    python bench/imports.py [--sessions 1000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from quick import add_quick

from pidesktop import paths
from pidesktop.bus import HostClient, HostThread
from pidesktop.host.core import opener

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"  # the recorded sessions the tests use


def shapes(fixtures: Path) -> list[tuple[str, Path, str]]:
    """(source, fixture file, the id to replace in each copy); pi's large v1 file is left out."""
    found = []
    for path in sorted((fixtures / "claude-code").glob("*.jsonl")):
        found.append(("claude-code", path, path.stem))
    for path in sorted((fixtures / "codex").rglob("*.jsonl")):
        found.append(("codex", path, "11111111-1111-4111-8111-111111111111"))
    for path in sorted((fixtures / "pi-native" / "sessions").rglob("*.jsonl")):
        header = orjson.loads(path.read_bytes().split(b"\n", 1)[0])
        found.append(("pi", path, header["id"]))
    return found


def generate(fixtures: Path, target: Path, count: int) -> dict[str, list[Path]]:
    """``count`` session files, round-robin over the fixture shapes, each with a fresh id."""
    files: dict[str, list[Path]] = {"claude-code": [], "codex": [], "pi": []}
    by_source = {source: [k for k in shapes(fixtures) if k[0] == source] for source in files}
    for number in range(count):
        kinds = by_source[list(files)[number % len(files)]]  # a third of each source
        source, path, old_id = kinds[(number // len(files)) % len(kinds)]
        new_id = str(uuid.uuid4())
        data = path.read_bytes().replace(old_id.encode(), new_id.encode())
        if source == "claude-code" and old_id == "representative_messages":
            data = data.replace(b"test_session", new_id.encode())
        folder = target / source / f"{number // 200:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        out = folder / (f"{new_id}.jsonl" if source != "codex" else f"rollout-2026-01-02T03-04-05-{new_id}.jsonl")
        out.write_bytes(data)
        files[source].append(out)
    return files


def bare_parse(files: list[Path]) -> float:
    started = time.perf_counter()
    for path in files:
        for line in path.read_bytes().split(b"\n"):
            if line:
                orjson.loads(line)
    return time.perf_counter() - started


def durable_writes(files: list[Path], target: Path) -> float:
    target.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for number, path in enumerate(files):
        temp, final = target / f".{number}.tmp", target / f"{number}.jsonl"
        with open(temp, "wb") as out:
            out.write(path.read_bytes())
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, final)
        paths.fsync_dir(target)
    return time.perf_counter() - started


def run_import(client: HostClient, finished: dict, source: str, folder: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    job = client.call_blocking("import.run", {"source": source, "paths": [str(folder)]})["job"]
    while True:
        with finished["lock"]:
            done = finished["jobs"].pop(job, None)
        if done is not None:
            break
        time.sleep(0.002)
    elapsed = time.perf_counter() - started
    assert done["status"] == "done", done
    return elapsed, done["result"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    add_quick(parser, sessions=100)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="pidesktop-bench-imports-"))
    try:
        files = generate(FIXTURES, scratch / "sources", args.sessions)
        host = HostThread(opener(paths.resolve(data_dir=scratch / "data"), role="bench")).start()
        client = HostClient(host)
        finished = {"lock": threading.Lock(), "jobs": {}}

        def on_event(topic: str, payload: dict) -> None:
            if topic == "data.finished":
                with finished["lock"]:
                    finished["jobs"][payload["job"]] = payload

        client.subscribe(on_event)
        host.wait_ready(30)
        print(
            f"imports: {args.sessions} sessions generated from the fixtures' shapes "
            f"({', '.join(f'{len(v)} {k}' for k, v in files.items())})"
        )
        print(
            f"{'source':<12} {'sessions':>8} {'import ms/s':>12} {'again ms/s':>11} {'parse ms/s':>11} "
            f"{'import/parse':>13} {'write ms/s':>11} {'import/write':>13}"
        )
        totals = {"import": 0.0, "again": 0.0, "parse": 0.0, "write": 0.0, "n": 0}
        for source, paths_of in files.items():
            if not paths_of:
                continue
            parse = bare_parse(paths_of)
            write = durable_writes(paths_of, scratch / "floor" / source)
            first, result = run_import(client, finished, source, scratch / "sources" / source)
            again, repeat = run_import(client, finished, source, scratch / "sources" / source)
            assert result["imported"] == len(paths_of) and repeat["unchanged"] == len(paths_of), (result, repeat)
            n = len(paths_of)
            print(
                f"{source:<12} {n:>8} {first / n * 1000:>12.2f} {again / n * 1000:>11.3f} "
                f"{parse / n * 1000:>11.3f} {first / parse:>12.1f}x {write / n * 1000:>11.2f} "
                f"{first / write:>12.2f}x"
            )
            totals["import"] += first
            totals["write"] += write
            totals["again"] += again
            totals["parse"] += parse
            totals["n"] += n
        n = totals["n"]
        print(
            f"{'all':<12} {n:>8} {totals['import'] / n * 1000:>12.2f} {totals['again'] / n * 1000:>11.3f} "
            f"{totals['parse'] / n * 1000:>11.3f} {totals['import'] / totals['parse']:>12.1f}x "
            f"{totals['write'] / n * 1000:>11.2f} {totals['import'] / totals['write']:>12.2f}x"
        )
        client.close()
        host.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
