"""How long the UI thread stalls during everyday work, offscreen.

A 1 ms QTimer heartbeat runs on the UI thread; every gap between its ticks
beyond 1 ms is a stall a person would feel as a frozen window. For each
scenario this prints p50, p99 and max stall (target p99 <= 8 ms, max <= 33 ms):

- opening a chat of --messages (100k) messages (newest window);
- scrolling back 2,000 messages (40 older pages);
- streaming a reply at 100 tokens/s for 5 s;
- the sidebar loading 10,000 chats;

and, as the baseline in the same run, loading the whole 100k transcript into
the model at once (what apps without windowed reads do).

Between the sidebar and the rest the bench runs the app's own warm-up
(``ui.warm_up``: markdown, pygments and the dialogs, loaded once the session
list is in), as a person opening a chat after start-up finds it done.

Each stall gets an owner: a thread samples the UI thread's Python stack every
millisecond, and the slowest ticks of each scenario are printed with what the
samples inside them were running (the innermost pidesktop frames; "Qt" when no
pidesktop code was on the stack, e.g. layout or paint called by Qt itself).
Sampling takes the GIL a thousand times a second, so stalls read a little
longer than without it. A garbage collector pass (generation 1 or 2) inside a
slow tick is named too: it holds the GIL and shows no Python frame.

    QT_QPA_PLATFORM=offscreen python bench/ui.py [--messages 100000] [--sessions 10000]
        [--only sidebar open scroll stream baseline]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import qasync
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from quick import add_quick
from transcripts import write_session
from transcripts_files import text_pool

from pidesktop import paths
from pidesktop.bus import HostClient, HostThread
from pidesktop.host.core import opener
from pidesktop.ui import theme as themes
from pidesktop.ui.main_window import MainWindow
from pidesktop.ui.transcript_model import message_row
from pidesktop.ui.warm_up import warm_up

PACKAGE = str(Path(__file__).resolve().parent.parent / "pidesktop")


def owner(frame) -> str:
    """The innermost two pidesktop frames of a stack, or "Qt" when none is on it."""
    names = []
    while frame is not None and len(names) < 2:
        code = frame.f_code
        if code.co_filename.startswith(PACKAGE):
            names.append(f"{code.co_filename[len(PACKAGE) + 1 :]}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
    return " < ".join(names) if names else "Qt (no pidesktop frame)"


class Sampler(threading.Thread):
    """Samples what the UI thread runs, and the host thread beside it, every millisecond, to name the stalls.

    The host shares the interpreter lock with the window: a stall with no pidesktop frame on the UI thread
    ("Qt") is often the UI thread waiting for the lock while the host works, which its samples show."""

    def __init__(self, ident: int) -> None:
        super().__init__(daemon=True)
        self.watched = ident
        self.samples: list[tuple[float, str, str]] = []
        self.running = threading.Event()

    def run(self) -> None:
        host = None
        while True:
            self.running.wait()
            if host is None:
                host = next((t.ident for t in threading.enumerate() if t.name == "pidesktop-host"), None)
            frames = sys._current_frames()
            frame = frames.get(self.watched)
            if frame is not None:
                busy = frames.get(host)
                self.samples.append((time.perf_counter(), owner(frame), host_owner(busy)))
            del frame, frames
            time.sleep(0.001)

    def between(self, start: float, end: float) -> tuple[Counter, Counter]:
        inside = [(ui, host) for at, ui, host in self.samples if start < at < end]
        return Counter(ui for ui, _host in inside), Counter(host for _ui, host in inside if host)


def host_owner(frame) -> str:
    """The host thread's innermost pidesktop frames, or "" while it waits for a command."""
    if frame is None:
        return ""
    name = owner(frame)
    return "" if name.startswith("bus/inprocess.py") and " _run" in name.split(" < ")[0] else name


class Collections:
    """The garbage collector's passes (they hold the GIL and show no Python frame), for naming stalls."""

    def __init__(self) -> None:
        self.passes: list[tuple[float, float, int]] = []  # start, end, generation
        self._started = 0.0
        gc.callbacks.append(self._note)

    def _note(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif info["generation"] > 0:
            self.passes.append((self._started, time.perf_counter(), info["generation"]))

    def between(self, start: float, end: float) -> list[str]:
        return [
            f"gc generation {generation} pass {(stop - began) * 1000:.1f} ms"
            for began, stop, generation in self.passes
            if began < end and stop > start
        ]


class Heartbeat:
    SLOWEST = 3

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self.ticks: list[tuple[float, float]] = []
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._tick)
        self.sampler = Sampler(threading.get_ident())
        self.sampler.start()
        self.collections = Collections()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(max(0.0, (now - self._last) * 1000 - 1))
        self.ticks.append((self._last, now))
        self._last = now

    def start(self) -> None:
        self.gaps.clear()
        self.ticks.clear()
        self.sampler.samples.clear()
        self.collections.passes.clear()
        self._last = time.perf_counter()
        self.sampler.running.set()
        self.timer.start()

    def stop(self) -> dict:
        self.timer.stop()
        self.sampler.running.clear()
        gaps = sorted(self.gaps) or [0.0]
        slowest = sorted(zip(self.gaps, self.ticks), reverse=True)[: self.SLOWEST]
        return {
            "p50": statistics.median(gaps),
            "p99": gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))],
            "max": gaps[-1],
            "ticks": len(gaps),
            "slowest": [(gap, *self.sampler.between(*span), self.collections.between(*span)) for gap, span in slowest],
        }


async def settle(seconds: float = 0.05) -> None:
    await asyncio.sleep(seconds)


SCENARIOS = ("sidebar", "open", "scroll", "stream", "baseline")


async def scenarios(
    window: MainWindow, client: HostClient, big: str, beat: Heartbeat, only: set[str] | None = None
) -> list[tuple[str, dict]]:
    """Each scenario in order; ``only`` keeps the named ones and stops after the last of them.

    The ones left out still run unmeasured when a later one needs them (each
    scenario starts where the one before left the window).
    """
    results = []
    model = window.transcript_model
    view = window.transcript
    last = max(SCENARIOS.index(name) for name in only) if only else len(SCENARIOS) - 1

    def keep(name: str, label: str, stats: dict) -> bool:
        if only is None or name in only:
            results.append((label, stats))
        return SCENARIOS.index(name) >= last

    await settle(0.3)  # the window's first paint is start-up's (bench/startup.py), not the sidebar's
    beat.start()
    await window.load_sessions()
    await settle()
    if keep("sidebar", f"sidebar loads {window.model.session_count()} chats", beat.stop()):
        return results
    await warm_up()  # what the app loads once the session list is in (markdown among it), unmeasured

    beat.start()
    started = time.perf_counter()
    window.sidebar.select(big)
    while model.session_id != big:
        await asyncio.sleep(0.001)
    await settle()
    opened = time.perf_counter() - started
    size = f"{model.total // 1000}k" if model.total >= 1000 else str(model.total)
    if keep("open", f"open {size} chat (newest {model.rowCount()} in {opened * 1000:.0f} ms)", beat.stop()):
        return results

    beat.start()
    target = model.start - 2000
    deadline = time.perf_counter() + 120
    while model.start > max(0, target) and time.perf_counter() < deadline:
        bar = view.verticalScrollBar()
        bar.setValue(min(bar.maximum(), 300))  # a reader drags up near the top...
        bar.setValue(0)  # ...and reaches it
        before = model.start
        while model.start == before and model.has_more_before and time.perf_counter() < deadline:
            await asyncio.sleep(0.001)
        while "older" in model.loading:
            await asyncio.sleep(0.001)
    await settle()
    if keep("scroll", f"scroll back 2,000 messages ({model.rowCount()} rows loaded)", beat.stop()):
        return results

    view.scroll_to_end()
    beat.start()
    message = {
        "id": "bench-live",
        "role": "assistant",
        "blocks": [{"type": "text", "text": ""}],
        "meta": {"status": "streaming"},
    }
    words = "streaming tokens arrive one by one and the view keeps up with them".split()
    for i in range(500):  # 100 tokens/s for 5 s
        message = {
            **message,
            "blocks": [{"type": "text", "text": message["blocks"][0]["text"] + words[i % len(words)] + " "}],
        }
        model.set_live(message)
        await asyncio.sleep(0.01)
    await settle()
    stream_stats = beat.stop()
    model.drop_live()
    if keep("stream", "stream a reply at 100 tokens/s", stream_stats):
        return results

    beat.start()
    started = time.perf_counter()
    window_all = await client.call("session.get", {"sessionId": big, "contentLimit": 20000})
    model.beginResetModel()
    model.rows = [message_row(m) for m in window_all["messages"]]
    model.endResetModel()
    view.scroll_to_end()
    await settle()
    whole = time.perf_counter() - started
    keep("baseline", f"BASELINE: whole transcript into the model ({whole:.1f} s)", beat.stop())
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument(
        "--only", nargs="+", choices=SCENARIOS, metavar="SCENARIO", help=f"measure only these ({', '.join(SCENARIOS)})"
    )
    add_quick(parser, messages=10_000, sessions=1_000)
    args = parser.parse_args()
    only = set(args.only) if args.only else None
    with tempfile.TemporaryDirectory(prefix="pidesktop-uibench-") as tmp:
        root = Path(tmp) / "data"
        rng = random.Random(7)
        write_session(root, "big", args.messages, rng, text_pool(rng))
        location = paths.resolve(data_dir=root)
        seed = HostThread(opener(location)).start()
        seeder = HostClient(seed)
        for i in range(args.sessions - 1):
            seeder.call_blocking(
                "session.create",
                {"title": f"Chat number {i}", **({"projectPath": f"/work/p{i % 40}"} if i % 3 else {})},
            )
        seed.stop()

        app = QApplication.instance() or QApplication([])
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        host = HostThread(opener(location)).start()
        client = HostClient(host, loop)
        themes.apply(app, themes.LIGHT)
        window = MainWindow(client, themes.LIGHT)
        window.resize(1280, 800)
        window.show()
        beat = Heartbeat()
        try:
            results = loop.run_until_complete(scenarios(window, client, "big", beat, only))
        finally:
            window.close()
            window.deleteLater()
            app.processEvents()
            host.stop()
            loop.close()  # joins the warm-up's worker thread (a QThread left running aborts the exit)
        print("UI-thread stalls (ms) beyond a 1 ms heartbeat; target p99 <= 8, max <= 33 (two frames)")
        print(f"{'scenario':<62} {'p50':>7} {'p99':>7} {'max':>8} {'ticks':>7}")
        for name, r in results:
            print(f"{name:<62} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['max']:>8.1f} {r['ticks']:>7}")
        print("\nthe slowest ticks of each scenario and what the UI thread ran in them (samples, 1 per ms):")
        for name, r in results:
            print(f"  {name}")
            for gap, owners, host, collected in r["slowest"]:
                ran = (
                    "; ".join(collected + [f"{who} ({count})" for who, count in owners.most_common(3)])
                    or "no sample (C++ holding the GIL)"
                )
                print(f"    {gap:7.1f} ms  {ran}")
                if host:
                    print(
                        "               host thread: "
                        + "; ".join(f"{who} ({count})" for who, count in host.most_common(2))
                    )


if __name__ == "__main__":
    main()
