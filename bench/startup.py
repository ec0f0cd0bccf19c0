"""Start-up: process start to the main window's first paint with 10,000 chats, next to a bare Qt window.

Each run is a fresh Python process, so imports count. The time runs from just
before the process is started to the first paint event of the main window (and,
second, to the first paint of the sidebar's list once it holds chats), as the
child reports it on stdout; the child then ends at once. The baseline, run
alternately with it: a script that imports PySide6, makes a QApplication and
shows an empty QMainWindow of the same size. Target: first paint <= 1.5x the
bare window. Also printed: how many modules the app had imported at its first
paint, and the largest ones by import time (``-X importtime``), to see what the
first paint waits for.

Both run as a start after the first one does: with their bytecode cached (a
cache folder of this run's own, filled by a first run of each that is not
counted, whatever ``PYTHONDONTWRITEBYTECODE`` says), so the figures are
imports and work, not compiling sources.

    python bench/startup.py [--sessions 10000] [--runs 5] [--quick]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from quick import add_quick  # noqa: E402

TARGET = 1.5
FIRST_PAINT = "-- first paint --"


def _report_paints(app, want_sidebar: bool) -> None:
    """Print the time of the first main-window paint (and of the sidebar with rows), then end the process."""
    from PySide6.QtCore import QEvent, QObject

    seen: dict[str, float] = {}

    class Watch(QObject):
        def eventFilter(self, obj, event):  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint and obj.isWidgetType():
                window = obj.window()
                if "window" not in seen and type(window).__name__ in ("MainWindow", "QMainWindow"):
                    seen["window"] = time.time()
                    print(f"window {seen['window']!r} modules {len(sys.modules)}", flush=True)
                    print(FIRST_PAINT, file=sys.stderr, flush=True)  # for -X importtime: what came before
                    if not want_sidebar:
                        os._exit(0)
                tree = getattr(getattr(window, "sidebar", None), "tree", None)
                if want_sidebar and tree is not None and obj is tree.viewport() and tree.model().rowCount() > 0:
                    print(f"sidebar {time.time()!r}", flush=True)
                    os._exit(0)
            return False

    app._bench_watch = Watch()
    app.installEventFilter(app._bench_watch)


def child_bare() -> None:
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(sys.argv[:1])
    _report_paints(app, want_sidebar=False)
    window = QMainWindow()
    window.resize(1280, 800)
    window.show()
    app.exec()


def child_app(root: str) -> None:
    from pidesktop import app as bootstrap
    from pidesktop import cli

    make = bootstrap._qt_application

    def watched():
        app = make()
        if not hasattr(app, "_bench_watch"):
            _report_paints(app, want_sidebar=True)
        return app

    bootstrap._qt_application = watched
    sys.exit(cli.main(["--data-dir", root]))


def seed(root: Path, sessions: int) -> None:
    from pidesktop import paths
    from pidesktop.bus import HostClient, HostThread
    from pidesktop.host.core import opener

    host = HostThread(opener(paths.resolve(data_dir=root), role="bench")).start()
    client = HostClient(host)
    try:
        for i in range(sessions):
            client.call_blocking("session.create", {"title": f"Chat number {i}",
                                                    **({"projectPath": f"/work/p{i % 40}"} if i % 3 else {})})
    finally:
        client.close()
        host.stop()


def run_child(args: list[str], env: dict) -> dict[str, float]:
    started = time.time()
    out = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=120)
    found = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if parts and parts[0] in ("window", "sidebar"):
            found[parts[0]] = float(parts[1]) - started
            if len(parts) > 3 and parts[2] == "modules":
                found["modules"] = int(parts[3])
    if "window" not in found:
        raise SystemExit(f"the child never painted: {out.stderr[-2000:]}")
    return found


def slowest_imports(root: Path, env: dict, top: int = 12) -> list[tuple[float, str]]:
    """Cumulative import time (ms) of the app's top-level heavy modules finished before its first paint,
    from ``-X importtime`` (the host thread's, begun when the window shows, can be among them)."""
    out = subprocess.run([sys.executable, "-X", "importtime", __file__, "--child", "app", str(root)],
                         env=env, capture_output=True, text=True, timeout=120)
    rows = []
    for line in out.stderr.splitlines():
        if line == FIRST_PAINT:
            break
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if match and len(match.group(2)) <= 2:  # imported by the program itself or one level down
            rows.append((int(match.group(1)) / 1000, match.group(3)))
    return sorted(rows, reverse=True)[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    add_quick(parser, sessions=1_000, runs=3)
    args = parser.parse_args()
    if args.child:
        child_bare() if args.child[0] == "bare" else child_app(args.child[1])
        return 0
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    with tempfile.TemporaryDirectory(prefix="pidesktop-startup-") as tmp:
        root = Path(tmp) / "data"
        env["HOME"] = tmp  # no saved window state or installation anchor of this user
        env["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a person's second start finds its bytecode cached
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        seed(root, args.sessions)
        run_child([__file__, "--child", "app", str(root)], env)  # warm the OS file cache and the bytecode for both
        run_child([__file__, "--child", "bare"], env)
        app, bare = [], []
        for _ in range(args.runs):
            bare.append(run_child([__file__, "--child", "bare"], env))
            app.append(run_child([__file__, "--child", "app", str(root)], env))
        imports = slowest_imports(root, env)

    def med(rows, key):
        return statistics.median(r[key] for r in rows if key in r) * 1e3

    window, baseline = med(app, "window"), med(bare, "window")
    print(f"start-up to first paint, {args.sessions:,} chats, medians of {args.runs} fresh processes each")
    print(f"  bare QMainWindow (PySide6 import, QApplication, show)   {baseline:8.0f} ms")
    print(f"  pidesktop main window                                   {window:8.0f} ms  "
          f"({window / baseline:.2f}x the bare window, target <= {TARGET}x) {'OK' if window <= TARGET * baseline else 'MISSED'}")
    print(f"  pidesktop sidebar painted with chats                    {med(app, 'sidebar'):8.0f} ms")
    print(f"  modules imported at the first paint: {statistics.median(r['modules'] for r in app):.0f} "
          f"(bare window: {statistics.median(r['modules'] for r in bare):.0f})")
    print("  largest imports of the app before its first paint (cumulative ms, -X importtime):")
    for ms, name in imports:
        print(f"    {ms:8.1f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
