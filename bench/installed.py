"""The installed app: start to first paint of the bundle (the .deb's /opt/pidesktop, else the tarball in dist/)
next to the same from the checkout's .venv, and the installed size.

Each start is a fresh process on the same data folder with 10,000 chats, offscreen, alternating the two;
the time runs from just before the process is started to the paint time the app's "first frame painted"
log line gives (logs/app/app.ndjson), after which the process is ended. An uncounted first start of each fills
the caches. Target: the bundle within 1.2x of the .venv. Without a bundle (no `make dist` yet) it says so
and measures nothing.

    python bench/installed.py [--sessions 10000] [--runs 5] [--quick]
"""

from __future__ import annotations

import argparse
import calendar
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from quick import add_quick
from startup import seed

from pidesktop import __version__

REPO = Path(__file__).resolve().parent.parent
INSTALLED = Path("/opt/pidesktop/pidesktop")
TARBALL = REPO / "dist" / f"pidesktop-{__version__}-linux-x86_64.tar.gz"
TARGET = 1.2
PAINTED = "first frame painted"


def bundle(scratch: Path) -> tuple[Path, str] | None:
    """The bundle's program and where it came from: the installed .deb's, else the tarball unpacked in scratch."""
    if INSTALLED.is_file():
        return INSTALLED, "installed .deb (/opt/pidesktop)"
    if TARBALL.is_file():
        with tarfile.open(TARBALL) as archive:
            archive.extractall(scratch, filter="tar")
        return scratch / f"pidesktop-{__version__}" / "pidesktop", f"{TARBALL.name} unpacked"
    return None


def paints(root: Path) -> list[float]:
    """The wall-clock times of every "first frame painted" line in the app's log so far."""
    log = root / "logs" / "app" / "app.ndjson"
    found = []
    for line in log.read_bytes().splitlines() if log.is_file() else []:
        entry = orjson.loads(line)
        if entry.get("msg") == PAINTED:
            if isinstance(entry.get("paintedAt"), float):  # the paint's own time (the line is written later)
                found.append(entry["paintedAt"])
                continue
            stamp, millis = entry["ts"].rstrip("Z").split(".")
            found.append(calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S")) + int(millis) / 1000)
    return found


def start_to_paint(command: list[str], root: Path, env: dict[str, str]) -> float:
    seen = len(paints(root))
    started = time.time()
    process = subprocess.Popen(
        [*command, "--data-dir", str(root)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 120
        while len(paints(root)) <= seen:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{command[0]} never painted (exit status {process.poll()})")
            time.sleep(0.02)
        return paints(root)[seen] - started
    finally:
        process.terminate()
        process.wait(30)


def folder_size(folder: Path) -> int:
    return sum(path.lstat().st_size for path in folder.rglob("*") if not path.is_dir())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    add_quick(parser, sessions=1_000, runs=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pidesktop-installed-") as tmp:
        scratch = Path(tmp)
        found = bundle(scratch)
        if found is None:
            print(f"no bundle to measure: `make dist` builds {TARBALL.relative_to(REPO)} (skipped)")
            return 0
        program, origin = found
        root = scratch / "data"
        env = {
            **os.environ,
            "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
            "HOME": str(scratch / "home"),
            "XDG_CONFIG_HOME": str(scratch / "home" / ".config"),
        }
        seed(root, args.sessions)
        commands = {"venv": [sys.executable, "-m", "pidesktop"], "bundle": [str(program)]}
        for command in commands.values():  # uncounted: the file cache, bytecode, the app's first-run work
            start_to_paint(command, root, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(start_to_paint(command, root, env))
        size = folder_size(program.parent)
    venv, frozen = (statistics.median(times[name]) * 1e3 for name in ("venv", "bundle"))
    print(f"start to first paint, {args.sessions:,} chats, medians of {args.runs} fresh processes each")
    print(f"  from the checkout's .venv (python -m pidesktop)   {venv:8.0f} ms")
    print(
        f"  from the bundle, {origin:<32} {frozen:8.0f} ms  ({frozen / venv:.2f}x, target <= {TARGET}x) "
        f"{'OK' if frozen <= TARGET * venv else 'MISSED'}"
    )
    print(f"  the bundle's installed size: {size / 1e6:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
