"""Start-up: process start to the main window's first paint with 10,000 chats, next to a bare Qt window.

Each run is a fresh Python process, so imports count. The time runs from just
before the process is started to the first paint event of the main window (its
first frame, ``pidesktop/ui/startup/first_frame.py``), then to the window taking
typing (a letter typed to the window's focused widget as soon as the frame's
text box is there, seen in a paint of that box), then to the first paint of
the sidebar's list once it holds chats (the newest, which the start reads from
the database before the host has opened and shows before the rest of the
window is built), then to its first paint with its widgets built, then to the
sidebar's first paint with the host's own first page in it, as the child
reports them on stdout; the child then ends at once. The
baseline, run alternately with it: a script that imports PySide6, makes a
QApplication and shows an empty QMainWindow of the same size. Targets (issue
36): first paint <= 1.35x the bare window, typing <= 1.5x, the sidebar with
its chats <= 2x. Also printed: how many modules the app had imported at its first
paint, and the largest ones by import time (``-X importtime``), to see what the
first paint waits for.

Both run as a start after the first one does: with their bytecode cached (a
cache folder of this run's own, filled by a first run of each that is not
counted, whatever ``PYTHONDONTWRITEBYTECODE`` says), so the figures are
imports and work, not compiling sources; and the app with the preferences its
first run kept when it quit (window geometry, theme). Each is measured twice:
with the data folder warm in the OS page cache, and cold (its files dropped
from the page cache before each start with ``POSIX_FADV_DONTNEED``, which
needs no root; the program's own files stay cached, as after any earlier
start).

    python bench/startup.py [--sessions 10000] [--runs 5] [--quick]
"""

from __future__ import annotations

import importlib
import os
import sys
import time

FIRST_PAINT = "-- first paint --"


# The children run before this file imports anything else (argparse, statistics, subprocess...), so neither
# side pays for the bench's own modules. Each notices its first paint from a paintEvent of its own window (the
# bare one's, the app's first frame): a Python event filter on the whole application, as this bench used
# before, costs the side with more widgets ~30 ms by itself (PySide makes a Python type for each new kind of
# event it hands to Python). The app's later paints are watched by such a filter, installed once it is built.
def _first_paint() -> None:
    print(f"window {time.time()!r} modules {len(sys.modules)}", flush=True)
    print(FIRST_PAINT, file=sys.stderr, flush=True)  # for -X importtime: what came before


def _watch_the_sidebar(label: str) -> None:
    """Print ``label`` when the sidebar first paints a chat's row: a hook on its row painter's class, not a filter
    on the list's viewport (asking a view for its viewport from Python makes PySide build the types of every
    widget class, 5-15 ms the app itself does not pay there)."""
    from pidesktop.ui.sidebar.sidebar import SessionDelegate

    paint = SessionDelegate.paint

    def painted(self, painter, option, index):
        if not getattr(SessionDelegate, "seen", False):
            SessionDelegate.seen = True
            print(f"{label} {time.time()!r}", flush=True)
        paint(self, painter, option, index)

    SessionDelegate.paint = painted


def _watch_the_built_window(app, window, close_at_end: bool) -> None:
    """Print when the built window first paints, then when the sidebar paints with the host's list (its first
    page, asked for once the window is built); then end the process (``close_at_end``: by closing the window, so
    the app quits as a person's would and keeps its preferences for the next start)."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    listed = []
    reset = window.model.reset

    def host_list(sessions):  # the window's first page from the host (load_sessions)
        reset(sessions)
        listed.append(True)

    window.model.reset = host_list

    class Watch(QObject):
        built = False

        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and obj.isWidgetType() and obj.window() is window:
                if not self.built:
                    self.built = True
                    print(f"built {time.time()!r}", flush=True)
                tree = window.sidebar.tree
                if obj is tree.viewport() and listed and tree.model().rowCount() > 0:
                    print(f"sidebar {time.time()!r}", flush=True)  # if the start showed no chats before
                    print(f"listed {time.time()!r}", flush=True)
                    if not close_at_end:
                        os._exit(0)
                    app.removeEventFilter(self)
                    QTimer.singleShot(0, window.close)
            return False

    app._bench_watch = Watch()
    app.installEventFilter(app._bench_watch)


def _type_and_watch(box) -> None:
    """Type a letter into the window as soon as its text box is there, and print when a paint of that box first
    shows it: the window takes typing.

    The letter goes to the window's widget with the focus (offscreen no window is ever made active) when the app
    next looks at its events, as a key pressed now would. It arrives as an input method's commit (what an input
    method or an on-screen keyboard sends for a letter): any key event made from Python (QKeyEvent, QTest) needs
    a ``Qt.KeyboardModifier``, and the first use of any ``Qt`` enum makes PySide build the whole namespace's
    types, 13-20 ms (182 enum types with QTest) that a key pressed on a keyboard does not cost the app."""
    from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
    from PySide6.QtGui import QInputMethodEvent
    from PySide6.QtWidgets import QWidget

    class Watch(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and "x" in box.toPlainText():
                print(f"typing {time.time()!r}", flush=True)
                obj.removeEventFilter(self)
            return False

    def type_a_letter():
        focus = box.window().focusWidget()
        if focus is not box:
            print(f"the text box has no focus: {focus!r}", file=sys.stderr, flush=True)
            return
        letter = QInputMethodEvent("", [])
        letter.setCommitString("x")
        QCoreApplication.sendEvent(focus, letter)

    box._bench_watch = Watch()
    # The viewport found by its name: ``box.viewport()`` (or ``children()``) from Python makes PySide work out the
    # Python type of a pointer it has not seen, building the types of every widget (or QObject) class on the way
    # (80-180 enum types, 6-18 ms), which the app itself does not pay there.
    viewport = box.findChild(QWidget, "qt_scrollarea_viewport")
    viewport.installEventFilter(box._bench_watch)
    QTimer.singleShot(0, type_a_letter)


def child_bare() -> None:
    from PySide6.QtWidgets import QApplication, QMainWindow

    class BareWindow(QMainWindow):
        def paintEvent(self, event):
            _first_paint()
            os._exit(0)

    app = QApplication(sys.argv[:1])
    window = BareWindow()
    window.resize(1280, 800)
    window.show()
    app.exec()


def child_app(root: str, close_at_end: bool) -> None:
    # In the order of the app's own start (the collector paused, pidesktop.app, then Qt), so the hooks below
    # change nothing it pays for.
    from pidesktop.commands import cli
    from pidesktop.ui.startup import gc_pauses

    gc_pauses.pause_start()
    importlib.import_module("pidesktop.app")
    from pidesktop.ui.startup.first_frame import FirstFrame
    from pidesktop.ui.window.main_window import MainWindow

    paint_frame, build, take_typing = FirstFrame.paintEvent, MainWindow.build, FirstFrame.take_typing
    show_chats_early = MainWindow.show_chats_early

    def frame_painted(self, event):
        paint_frame(self, event)
        if not getattr(FirstFrame, "seen", False):
            FirstFrame.seen = True
            _first_paint()

    def built(self, *args):
        build(self, *args)
        from PySide6.QtWidgets import QApplication

        _watch_the_built_window(QApplication.instance(), self, close_at_end)

    def typing_taken(self):
        prompt = take_typing(self)
        _type_and_watch(prompt.edit)
        return prompt

    def chats_shown(self, sessions):
        if self.first_frame is not None and self.first_frame.sidebar_part is not None:
            _watch_the_sidebar("sidebar")
        show_chats_early(self, sessions)

    FirstFrame.paintEvent, MainWindow.build, FirstFrame.take_typing = frame_painted, built, typing_taken
    MainWindow.show_chats_early = chats_shown
    sys.exit(cli.main(["--data-dir", root]))


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    child_bare() if sys.argv[2] == "bare" else child_app(sys.argv[3], close_at_end=sys.argv[4:5] == ["close"])
    raise SystemExit(0)

import argparse
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import machine
from quick import add_quick

TARGETS = {"window": 1.35, "typing": 1.5, "sidebar": 2.0}


def seed(root: Path, sessions: int) -> None:
    from pidesktop import paths
    from pidesktop.bus import HostClient, HostThread
    from pidesktop.host.core import opener

    host = HostThread(opener(paths.resolve(data_dir=root), role="bench")).start()
    client = HostClient(host)
    try:
        for i in range(sessions):
            client.call_blocking(
                "session.create",
                {"title": f"Chat number {i}", **({"projectPath": f"/work/p{i % 40}"} if i % 3 else {})},
            )
    finally:
        client.close()
        host.stop()


def run_child(args: list[str], env: dict) -> dict[str, float]:
    started = time.time()
    out = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=120)
    found = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if parts and parts[0] in ("window", "typing", "built", "sidebar", "listed"):
            found.setdefault(parts[0], float(parts[1]) - started)  # the first time each is seen
            if len(parts) > 3 and parts[2] == "modules":
                found["modules"] = int(parts[3])
    if "window" not in found:
        raise SystemExit(f"the child never painted: {out.stderr[-2000:]}")
    return found


def slowest_imports(root: Path, env: dict, top: int = 12) -> list[tuple[float, str]]:
    """Cumulative import time (ms) of the app's top-level heavy modules finished before its first paint,
    from ``-X importtime`` (the host thread's, begun when the window shows, can be among them)."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", __file__, "--child", "app", str(root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    rows = []
    for line in out.stderr.splitlines():
        if line == FIRST_PAINT:
            break
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", line)
        if match and len(match.group(2)) <= 2:  # imported by the program itself or one level down
            rows.append((int(match.group(1)) / 1000, match.group(3)))
    return sorted(rows, reverse=True)[:top]


def measure(root: Path, env: dict, runs: int, verbose: bool, cold: bool) -> tuple[list[dict], list[dict]]:
    """``runs`` starts of the app and of the bare window, in turn; with ``cold``, the data folder's files are
    dropped from the OS page cache before each app start (the bare window reads no data folder)."""
    app, bare = [], []
    for _ in range(runs):
        bare.append(run_child([__file__, "--child", "bare"], env))
        if cold:
            drop_from_page_cache(root)
        app.append(run_child([__file__, "--child", "app", str(root)], env))
        if verbose:
            print(
                f"  run {len(app)}{' (cold)' if cold else ''}: bare {bare[-1]['window'] * 1e3:.0f} ms, app "
                + ", ".join(
                    f"{key} {app[-1][key] * 1e3:.0f} ms"
                    for key in ("window", "typing", "built", "sidebar", "listed")
                    if key in app[-1]
                )
            )
    return app, bare


def drop_from_page_cache(root: Path) -> None:
    """Every file under ``root`` written out and dropped from the page cache (``POSIX_FADV_DONTNEED``), so the
    next start reads it from the disk: a data folder gone cold, without root's ``drop_caches``."""
    for path in root.rglob("*"):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def report(label: str, app: list[dict], bare: list[dict]) -> None:
    def med(rows, key):
        return statistics.median(r[key] for r in rows if key in r) * 1e3

    baseline = med(bare, "window")
    print(f"  {label}:")
    print(f"  bare QMainWindow (PySide6 import, QApplication, show)   {baseline:8.0f} ms")
    for key, name in (
        ("window", "first paint (the first frame)"),
        ("typing", "takes typing (a letter typed shows in the box)"),
        ("built", "window built (its widgets painted)"),
        ("sidebar", "sidebar painted with chats"),
        ("listed", "sidebar painted with the host's list"),
    ):
        figure = med(app, key)
        target = TARGETS.get(key)
        verdict = f", target <= {target}x {'OK' if figure <= target * baseline else 'MISSED'}" if target else ""
        print(f"  pidesktop {name:47} {figure:8.0f} ms  ({figure / baseline:.2f}x{verdict})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--verbose", action="store_true", help="print each run's figures")
    add_quick(parser, sessions=1_000, runs=3)
    args = parser.parse_args()
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    with tempfile.TemporaryDirectory(prefix="pidesktop-startup-") as tmp:
        root = Path(tmp) / "data"
        env["HOME"] = tmp  # no saved window state or installation anchor of this user
        env["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a person's second start finds its bytecode cached
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        seed(root, args.sessions)
        # Uncounted: warm the OS file cache and the bytecode for both, and quit the app as a person would, so
        # the counted runs start as every start after the first does (its preferences kept: geometry, theme).
        run_child([__file__, "--child", "app", str(root), "close"], env)
        run_child([__file__, "--child", "bare"], env)
        warm = measure(root, env, args.runs, args.verbose, cold=False)
        cold = measure(root, env, args.runs, args.verbose, cold=True)
        imports = slowest_imports(root, env)

    print(f"start-up, {args.sessions:,} chats, medians of {args.runs} fresh processes each; {machine.load()}")
    report("data folder warm", *warm)
    report("data folder cold (its files dropped from the page cache before each start)", *cold)
    app = warm[0] + cold[0]
    bare = warm[1] + cold[1]
    print(
        f"  modules imported at the first paint: {statistics.median(r['modules'] for r in app):.0f} "
        f"(bare window: {statistics.median(r['modules'] for r in bare):.0f})"
    )
    print("  largest imports of the app before its first paint (cumulative ms, -X importtime):")
    for ms, name in imports:
        print(f"    {ms:8.1f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
