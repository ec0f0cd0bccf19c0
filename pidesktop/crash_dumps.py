"""Crash dumps (spec 004, section 2: ``crash-dumps/`` and ``crash-dumps.json``): kept here, never uploaded.

Each process writes Python's ``faulthandler`` report (the stack of every
thread) into ``crash-dumps/<UTC time>-<pid>.txt`` when it dies of a fatal
signal (a crash in Qt or another native library, an abort). The file is
opened at start, because nothing can be opened safely once the process is
crashing; a clean exit removes it again while it is empty, and the next start
removes the empty files of processes that no longer run (killed outright), so
only real reports stay.

``crash-dumps.json`` holds ``{"lastReportedMtime": float}``: the newest dump
the person was already told about (best effort; a lost marker only means a
dump is mentioned again). Settings > Data lists the dumps and removes them
through the host (``data.crashDumps``, ``data.removeCrashDumps``).
"""

from __future__ import annotations

import atexit
import contextlib
import faulthandler
import logging
import os
import time
from pathlib import Path
from typing import IO, Any

from pidesktop import small_json
from pidesktop.paths import ensure_private_dir

FOLDER, MARKER = "crash-dumps", "crash-dumps.json"
SUFFIX = ".txt"

log = logging.getLogger("pidesktop.crash_dumps")

_armed: dict[str, Any] = {}  # this process's open dump file: {"file": IO, "path": Path}


def arm(data_root: Path) -> Path | None:
    """Write this process's fatal-error report into ``crash-dumps/``; the dump file's path, or None."""
    disarm()
    folder = data_root / FOLDER
    try:
        ensure_private_dir(folder)
        sweep_empty(folder)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        path = folder / f"{stamp}-{os.getpid()}{SUFFIX}"
        handle: IO[str] = open(path, "w", encoding="utf-8")  # open for the whole run: written when it dies
    except OSError as exc:  # no dumps is better than no app
        log.warning("crash dumps are off: %s", exc)
        return None
    faulthandler.enable(file=handle, all_threads=True)
    _armed.update(file=handle, path=path)
    return path


def disarm() -> None:
    """Stop writing dumps; this run's file goes if nothing was written to it."""
    handle, path = _armed.pop("file", None), _armed.pop("path", None)
    if handle is None or path is None:
        return
    with contextlib.suppress(RuntimeError):
        faulthandler.disable()
    with contextlib.suppress(OSError):
        handle.close()
        if path.stat().st_size == 0:
            path.unlink()


atexit.register(disarm)


def sweep_empty(folder: Path) -> None:
    """Remove the empty dump files of processes that no longer run (killed: no report was written)."""
    for path in _files(folder):
        pid = _pid_of(path)
        with contextlib.suppress(OSError):
            if path.stat().st_size == 0 and pid != os.getpid() and not _alive(pid):
                path.unlink()


def dumps(data_root: Path) -> list[dict[str, Any]]:
    """The reports kept (empty files left out), newest first: ``{name, size, mtime}``."""
    found = []
    for path in _files(data_root / FOLDER):
        with contextlib.suppress(OSError):
            stat = path.stat()
            if stat.st_size > 0:
                found.append({"name": path.name, "size": stat.st_size, "mtime": stat.st_mtime})
    return sorted(found, key=lambda dump: dump["mtime"], reverse=True)


def last_reported(data_root: Path) -> float:
    try:
        value = small_json.loads((data_root / MARKER).read_bytes()).get("lastReportedMtime")
    except (OSError, small_json.DecodeError, AttributeError):
        return 0.0
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def mark_reported(data_root: Path, mtime: float) -> None:
    """Remember that dumps up to ``mtime`` were shown (temp file + rename; a failure is only logged)."""
    target = data_root / MARKER
    temporary = target.with_name(target.name + ".tmp")
    try:
        temporary.write_bytes(small_json.dumps({"lastReportedMtime": mtime}))
        os.replace(temporary, target)
    except OSError as exc:
        log.warning("could not write %s: %s", MARKER, exc)


def remove(data_root: Path) -> int:
    """Remove every report (never this run's own open file); how many went."""
    own = _armed.get("path")
    removed = 0
    for dump in dumps(data_root):
        path = data_root / FOLDER / dump["name"]
        if path == own:
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed += 1
    return removed


def _files(folder: Path) -> list[Path]:
    try:
        return [path for path in folder.iterdir() if path.suffix == SUFFIX and path.is_file()]
    except OSError:
        return []


def _pid_of(path: Path) -> int | None:
    tail = path.stem.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _alive(pid: int | None) -> bool:
    """Whether ``pid`` still runs; unknown counts as alive, so a file that may be in use is kept."""
    if pid is None or os.name == "nt":
        return pid is not None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
