"""How long the UI thread stalls during everyday work, offscreen.

A 1 ms QTimer heartbeat runs on the UI thread; every gap between its ticks
beyond 1 ms is a stall a person would feel as a frozen window. For each
scenario this prints p50, p99 and max stall (target p99 <= 8 ms, max <= 33 ms):

- opening a chat of --messages (100k) messages (newest window);
- scrolling back 2,000 messages (40 older pages);
- streaming a reply at 100 tokens/s for 5 s;
- a ``bash`` call streaming its output into its (opened) tool row: 200 long
  lines/s for 5 s from a real command, through the agent's ``WorkspaceCalls``
  and the chat controller's ``tool_output`` events, as a turn runs it;
- the sidebar loading 10,000 chats;

and, as the baseline in the same run, loading the whole 100k transcript into
the model at once (what apps without windowed reads do).

Between the sidebar and the rest the bench runs the app's own warm-up
(``ui.warm_up``: markdown, pygments and the dialogs, loaded once the session
list is in), as a person opening a chat after start-up finds it done.

Beside each scenario's wall-clock p99 the bench prints the p99 of the UI
thread's own CPU time per tick (``time.thread_time``): on a loaded machine a
tick's wall time includes waiting for a core and for the interpreter lock,
its CPU time is the window's own work.

Each stall gets an owner: a thread samples the UI thread's Python stack every
millisecond, and the slowest ticks of each scenario are printed with what the
samples inside them were running (the innermost pidesktop frames; "Qt" when no
pidesktop code was on the stack, e.g. layout or paint called by Qt itself).
Sampling takes the GIL a thousand times a second, so stalls read a little
longer than without it. A garbage collector pass (generation 1 or 2) inside a
slow tick is named too: it holds the GIL and shows no Python frame.

    QT_QPA_PLATFORM=offscreen python bench/ui.py [--messages 100000] [--sessions 10000]
        [--only sidebar open scroll stream tool baseline]
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
from machine import load
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from quick import add_quick
from transcripts import write_session
from transcripts_files import text_pool

from pidesktop import paths
from pidesktop.agent.tool_calls import WorkspaceCalls
from pidesktop.bus import HostClient, HostThread
from pidesktop.host.core import opener
from pidesktop.ui.chat.transcript_model import message_row
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.startup.warm_up import warm_up
from pidesktop.ui.window.main_window import MainWindow

PACKAGE = str(Path(__file__).resolve().parent.parent / "pidesktop")


DEEPEST = 64  # frames walked per sample: the two pidesktop frames are near the top of any stack here


def owner(frame) -> str:
    """The innermost two pidesktop frames of a stack, or "Qt" when none is on it."""
    names = []
    depth = 0
    while frame is not None and len(names) < 2 and depth < DEEPEST:
        code = frame.f_code
        if code.co_filename.startswith(PACKAGE):
            names.append(f"{code.co_filename[len(PACKAGE) + 1 :]}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
        depth += 1
    return " < ".join(names) if names else "Qt (no pidesktop frame)"


def owner_or_none(frame) -> str | None:
    """``owner`` of a frame another thread may be leaving meanwhile; None when the walk met a torn frame.

    The frames come from one ``sys._current_frames()`` snapshot, but the
    thread they belong to keeps running (the sampler lets the lock go between
    its own bytecodes), so a frame can be finished under the walk: such a
    sample is skipped and counted, never allowed to end the sampler."""
    try:
        return owner(frame)
    except (AttributeError, ValueError, RuntimeError, SystemError):
        return None


class Sampler(threading.Thread):
    """Samples what the UI thread runs, and the host thread beside it, every millisecond, to name the stalls.

    The host shares the interpreter lock with the window: a stall with no pidesktop frame on the UI thread
    ("Qt") is often the UI thread waiting for the lock while the host works, which its samples show."""

    def __init__(self, ident: int) -> None:
        super().__init__(daemon=True)
        self.watched = ident
        self.samples: list[tuple[float, str, str]] = []
        self.skipped = 0  # samples dropped because a frame was torn under the walk
        self.running = threading.Event()

    def run(self) -> None:
        host = None
        while True:
            self.running.wait()
            if host is None:
                host = next((t.ident for t in threading.enumerate() if t.name == "pidesktop-host"), None)
            frames = sys._current_frames()
            ui = owner_or_none(frames.get(self.watched))
            busy = host_owner(frames.get(host)) if host is not None else ""
            del frames
            if ui is None or busy is None:
                self.skipped += 1
            else:
                self.samples.append((time.perf_counter(), ui, busy))
            time.sleep(0.001)

    def between(self, start: float, end: float) -> tuple[Counter, Counter]:
        inside = [(ui, host) for at, ui, host in self.samples if start < at < end]
        return Counter(ui for ui, _host in inside), Counter(host for _ui, host in inside if host)


def host_owner(frame) -> str | None:
    """The host thread's innermost pidesktop frames, "" while it waits for a command, None for a torn frame."""
    if frame is None:
        return ""
    name = owner_or_none(frame)
    if name is None:
        return None
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
        self.cpu: list[float] = []  # the UI thread's own CPU time in each gap (ms): its work without the waits
        self.ticks: list[tuple[float, float]] = []
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self.timer = QTimer()
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._tick)
        self.sampler = Sampler(threading.get_ident())
        self.sampler.start()
        self.collections = Collections()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.gaps.append(max(0.0, (now - self._last) * 1000 - 1))
        self.cpu.append((cpu - self._last_cpu) * 1000)
        self.ticks.append((self._last, now))
        self._last, self._last_cpu = now, cpu

    def start(self) -> None:
        self.gaps.clear()
        self.cpu.clear()
        self.ticks.clear()
        self.sampler.samples.clear()
        self.sampler.skipped = 0
        self.collections.passes.clear()
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self.sampler.running.set()
        self.timer.start()

    def stop(self) -> dict:
        self.timer.stop()
        self.sampler.running.clear()
        gaps = sorted(self.gaps) or [0.0]
        cpu = sorted(self.cpu) or [0.0]
        slowest = sorted(zip(self.gaps, self.cpu, self.ticks), reverse=True)[: self.SLOWEST]
        return {
            "p50": statistics.median(gaps),
            "p99": gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))],
            "cpu99": cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))],
            "max": gaps[-1],
            "ticks": len(gaps),
            "skipped": self.sampler.skipped,
            "slowest": [
                (gap, used, *self.sampler.between(*span), self.collections.between(*span))
                for gap, used, span in slowest
            ],
        }


async def settle(seconds: float = 0.05) -> None:
    await asyncio.sleep(seconds)


class ScenarioFailed(Exception):
    """A scenario did not do what it measures (nothing opened, nothing paged): its figures would be empty."""


async def until(condition, what: str, seconds: float = 120) -> None:
    """Wait, a tick at a time, for ``condition``; fail the run naming ``what`` if it never holds."""
    deadline = time.perf_counter() + seconds
    while not condition():
        if time.perf_counter() > deadline:
            raise ScenarioFailed(f"{what}: still not so after {seconds:.0f} s")
        await asyncio.sleep(0.001)


def newest_page_in(model) -> bool:
    """The open is over: every message of the window the host sent is a row (the first rows go in at once,
    the rest over the next ticks, laid out a budget at a time)."""
    if "open" in model.loading or model.end <= model.start:
        return False
    return sum(1 for row in model.rows if row["kind"] == "message") >= model.end - model.start


SCENARIOS = ("sidebar", "open", "scroll", "stream", "tool", "baseline")

# What the bench's command prints: TOOL_LINES lines of about 180 characters at TOOL_RATE lines a second,
# paced on the clock (not by sleeps that drift under load), flushed line by line as a test run's output is.
TOOL_RATE, TOOL_LINES = 200, 1000
TOOL_COMMAND = (
    "python3 -u -c 'import time\n"
    "start = time.monotonic()\n"
    f"for n in range({TOOL_LINES}):\n"
    f"    time.sleep(max(0.0, start + n / {TOOL_RATE} - time.monotonic()))\n"
    '    print(f"tests/test_module_{n % 97:02d}.py::test_case_{n:04d} PASSED " + "details " * 20, flush=True)\''
)


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
    if window.model.session_count() < 2:
        raise ScenarioFailed(f"sidebar: {window.model.session_count()} chats listed")
    if keep("sidebar", f"sidebar loads {window.model.session_count()} chats", beat.stop()):
        return results
    await warm_up()  # what the app loads once the session list is in (markdown among it), unmeasured

    beat.start()
    started = time.perf_counter()
    window.sidebar.select(big)
    await until(lambda: model.session_id == big, "open: the chat selected in the sidebar to open")
    await until(lambda: newest_page_in(model), "open: the newest page to be in")
    opened = time.perf_counter() - started
    await until(lambda: view.verticalScrollBar().maximum() > 0, "open: the transcript to scroll")
    await settle()
    size = f"{model.total // 1000}k" if model.total >= 1000 else str(model.total)
    if keep("open", f"open {size} chat (newest {model.rowCount()} in {opened * 1000:.0f} ms)", beat.stop()):
        return results

    beat.start()
    first = model.start
    target = max(0, first - 2000)
    pages = 0
    while model.start > target:
        bar = view.verticalScrollBar()
        if bar.maximum() <= 0:
            raise ScenarioFailed(f"scroll: the view cannot scroll ({model.rowCount()} rows loaded)")
        before = model.start
        bar.setValue(min(bar.maximum(), 300))  # a reader drags up near the top...
        bar.setValue(0)  # ...and reaches it
        await until(
            lambda: model.start < before or "older" in model.loading,
            f"scroll: an older page asked for at the top (start {before}, {pages} pages so far)",
            seconds=10,
        )
        await until(lambda: "older" not in model.loading, "scroll: the older page to go in")
        if model.start >= before:
            raise ScenarioFailed(f"scroll: an older page brought nothing (start stays {model.start})")
        pages += 1
    await settle()
    scrolled = first - model.start
    label = f"scroll back {scrolled:,} messages ({pages} pages, {model.rowCount()} rows loaded)"
    if keep("scroll", label, beat.stop()):
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
    if model.row_of("bench-live") < 0:
        raise ScenarioFailed("stream: the streamed reply never became a row")
    model.drop_live()
    if keep("stream", "stream a reply at 100 tokens/s", stream_stats):
        return results

    if keep(
        "tool",
        f"stream a bash call's output, {TOOL_RATE} lines/s (row open)",
        await tool_output(window, client, big, beat),
    ):
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
    if model.rowCount() < len(window_all["messages"]) // 2:
        raise ScenarioFailed(f"baseline: {model.rowCount()} rows for {len(window_all['messages'])} messages")
    keep("baseline", f"BASELINE: whole transcript into the model ({whole:.1f} s)", beat.stop())
    return results


async def tool_output(window: MainWindow, client: HostClient, big: str, beat: Heartbeat) -> dict:
    """A turn's ``bash`` call, run for real by the agent's ``WorkspaceCalls``: its output reaches the window as
    the runner's listeners get it (``ChatController.on_turn``: ``tool_output`` chunks, then ``tool_done``), into
    the live reply's tool row, which the reader opened to watch it."""
    model, view = window.transcript_model, window.transcript
    await client.call("session.update", {"sessionId": big, "permissionMode": "auto"})
    workspace = await client.call("tools.workspace", {"sessionId": big})
    calls = WorkspaceCalls(
        client,
        big,
        "bench-turn",
        asyncio.Event(),
        workspace,
        asker=None,
        notify=window.chats.on_turn,
        confirm_unconfined=False,
    )
    call = {
        "type": "tool_call",
        "callId": "bench-call",
        "name": "bash",
        "args": {"command": TOOL_COMMAND},
        "status": "pending",
    }
    reply = {
        "id": "bench-tool-reply",
        "role": "assistant",
        "blocks": [{"type": "text", "text": "Running the test suite."}, call],
        "meta": {"status": "streaming"},
    }
    if model.has_more_after:  # scrolling back left older pages loaded: a turn runs at the chat's newest page
        view.jump_to_latest()
        await until(lambda: not model.has_more_after and newest_page_in(model), "tool: the newest page to be back")
    view.scroll_to_end()
    window.chats.on_turn(big, "started", reply)
    await until(lambda: model.row_of(reply["id"]) >= 0, "tool: the reply with the call to become a row")
    view.toggle(f"tool:{reply['id']}:0")  # the reader opens the running command to watch it
    await settle()
    beat.start()
    done = await calls.run(call)
    window.chats.on_turn(
        big, "tool_done", {"callId": call["callId"], "tool": "bash", "ok": done.ok, "result": done.text}
    )
    last = f"test_case_{TOOL_LINES - 1:04d}"

    def shown() -> dict:
        row = model.row_of(reply["id"])
        return model.rows[row]["message"]["blocks"][1] if row >= 0 else {}

    await until(lambda: "liveResult" in shown(), "tool: the call's end to reach its row")
    await settle()
    stats = beat.stop()
    if not done.ok or last not in str(shown().get("liveOutput")):
        raise ScenarioFailed(f"tool: the command's last line never reached its row (ok {done.ok}; {done.text[-300:]})")
    model.drop_live()
    return stats


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
        seed.wait_ready()  # the first start indexes the big chat; a command's 60 s deadline must not include that
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
        failed = None
        try:
            results = loop.run_until_complete(scenarios(window, client, "big", beat, only))
        except ScenarioFailed as error:
            failed, results = error, []
        finally:
            window.close()
            window.deleteLater()
            app.processEvents()
            host.stop()
            loop.close()  # joins the warm-up's worker thread (a QThread left running aborts the exit)
        if failed is not None:
            print(f"FAILED, nothing measured: {failed}", file=sys.stderr)
            raise SystemExit(1)
        print("UI-thread stalls (ms) beyond a 1 ms heartbeat; target p99 <= 8, max <= 33 (two frames)")
        print(f"{load()}; baseline: the last row (the whole transcript into the model at once)")
        print(
            f"{'scenario':<66} {'p50':>7} {'p99':>7} {'max':>8} {'ticks':>7} {'met':>4} {'skipped':>8} {'cpu p99':>8}"
        )
        for name, r in results:
            met = "-" if name.startswith("BASELINE") else "yes" if r["p99"] <= 8 and r["max"] <= 33 else "NO"
            print(
                f"{name:<66} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['max']:>8.1f} {r['ticks']:>7} {met:>4} "
                f"{r['skipped']:>8} {r['cpu99']:>8.2f}"
            )
        print("(skipped: stack samples dropped because a frame ended under the walk)")
        print("(cpu p99: the UI thread's own CPU time per tick, p99: its work without waiting for a core or the lock)")
        print("\nthe slowest ticks of each scenario and what the UI thread ran in them (samples, 1 per ms):")
        for name, r in results:
            print(f"  {name}")
            for gap, used, owners, host, collected in r["slowest"]:
                ran = (
                    "; ".join(collected + [f"{who} ({count})" for who, count in owners.most_common(3)])
                    or "no sample (C++ holding the GIL)"
                )
                print(f"    {gap:7.1f} ms (cpu {used:.1f})  {ran}")
                if host:
                    print(
                        "               host thread: "
                        + "; ".join(f"{who} ({count})" for who, count in host.most_common(2))
                    )


if __name__ == "__main__":
    main()
