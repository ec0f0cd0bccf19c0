"""Shared fixtures: an isolated home, a temporary data root, real hosts.

Every test runs with HOME and XDG_CONFIG_HOME inside its own temporary folder,
so nothing reads or writes the real installation anchor or ~/.pi-desktop.
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pidesktop import paths
from pidesktop.bus import HostClient, HostError, HostThread
from pidesktop.host.core import opener

# The Workflows state fixtures (clock, path, store, flow), shared by its test modules.
pytest_plugins = ["tests.workflows_support"]

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"  # recorded third-party data and the spec text (README there)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv(paths.ENV_DATA_DIR, raising=False)
    # pi's own session folder: a test never lists or watches the real ~/.pi
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / ".pi" / "agent"))
    return home


@pytest.fixture(autouse=True)
def collect_garbage_while_qt_lives():
    """Free each test's Qt wrappers while the QApplication still exists.

    Left to interpreter shutdown, PySide6 may release them after Qt is gone
    and crash the process after every test has passed.
    """
    yield
    from PySide6.QtCore import QCoreApplication, QEvent

    if QCoreApplication.instance() is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.fixture
def data_root(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def location(data_root) -> paths.StorageLocation:
    return paths.resolve(data_dir=data_root)


class InProcessHost:
    """A real host thread with a blocking client, and a record of its events."""

    def __init__(self, location: paths.StorageLocation):
        self.location = location
        self.thread = HostThread(opener(location, role="test host")).start()
        self.client = HostClient(self.thread)
        self.events: list[tuple[str, dict]] = []
        self._events_lock = threading.Lock()
        self.thread.subscribe(self._record)
        self.thread.wait_ready(30)

    def _record(self, topic: str, payload: dict) -> None:
        with self._events_lock:
            self.events.append((topic, payload))

    def call(self, method: str, params: dict | None = None) -> dict:
        return self.client.call_blocking(method, params or {})

    def error(self, method: str, params: dict | None = None) -> HostError:
        with pytest.raises(HostError) as info:
            self.call(method, params)
        return info.value

    def stop(self) -> None:
        self.client.close()
        self.thread.stop()


@pytest.fixture
def host(location):
    running = InProcessHost(location)
    yield running
    running.stop()


class StdioHost:
    """``pidesktop host --stdio`` in a real subprocess."""

    def __init__(self, data_root: Path, env: dict | None = None):
        self.data_root = data_root
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pidesktop", "host", "--stdio", "--data-dir", str(data_root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            cwd=REPO,
        )
        self._next_id = 0
        self.events: list[dict] = []
        self.raw_lines: list[bytes] = []

    def send_raw(self, line: bytes) -> None:
        self.proc.stdin.write(line if line.endswith(b"\n") else line + b"\n")
        self.proc.stdin.flush()

    def read_message(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise EOFError(f"host exited: {self.proc.stderr.read().decode(errors='replace')}")
        self.raw_lines.append(line)
        return orjson.loads(line)

    def reply_to(self, request_id) -> dict:
        """Read until the reply with ``request_id``, collecting events on the way."""
        while True:
            message = self.read_message()
            if message.get("method") == "event":
                self.events.append(message["params"])
                continue
            if message.get("id") == request_id:
                return message

    def request(self, method: str, params: dict | None = None) -> dict:
        self._next_id += 1
        body = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            body["params"] = params
        self.send_raw(orjson.dumps(body))
        return self.reply_to(self._next_id)

    def call(self, method: str, params: dict | None = None) -> dict:
        reply = self.request(method, params or {})
        if "error" in reply:
            raise HostError.from_jsonrpc(reply["error"])
        return reply["result"]

    def close(self, timeout: float = 30) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.raw_lines += [line + b"\n" for line in rest.splitlines()]
        code = self.proc.wait(timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(30)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


@pytest.fixture
def stdio_host(data_root):
    started: list[StdioHost] = []

    def start(root: Path | None = None, env: dict | None = None) -> StdioHost:
        host = StdioHost(root or data_root, env)
        started.append(host)
        return host

    yield start
    for host in started:
        if host.proc.poll() is None:
            host.kill()


@pytest.fixture
def qloop(qapp):
    """A qasync loop on the test's QApplication; run coroutines with ``qloop.run_until_complete``."""
    import qasync

    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    yield loop
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.close()
    asyncio.set_event_loop(None)


class LoopHosts:
    """Real host threads, each with a client on the test's qasync loop; all closed and stopped after the test."""

    def __init__(self, loop, location: paths.StorageLocation):
        self._loop = loop
        self._location = location
        self._started: list[tuple[HostThread, HostClient]] = []

    def start(self, location: paths.StorageLocation | None = None) -> HostClient:
        """A new host thread on ``location`` (the test's own by default) and a client for it."""
        thread = HostThread(opener(location or self._location, role="test GUI")).start()
        client = HostClient(thread, self._loop)
        self._started.append((thread, client))
        return client

    def thread_of(self, client: HostClient) -> HostThread:
        return next(thread for thread, started in self._started if started is client)

    def stop_all(self) -> None:
        for thread, client in reversed(self._started):
            client.close()
            thread.stop()
            assert not thread.alive
        self._started.clear()


@pytest.fixture
def loop_hosts(qloop, location):
    """Starts hosts on demand: for a test that seeds its data root first, or needs a second one."""
    hosts = LoopHosts(qloop, location)
    yield hosts
    hosts.stop_all()


@pytest.fixture
def host_client(loop_hosts) -> HostClient:
    """A client on the test's qasync loop for a host thread on the test's data root."""
    return loop_hosts.start()


def started_window(qtbot, qloop, client, theme=None, runner=None, prefs=None, size=(1100, 760)):
    """A main window on ``client``, shown (at ``size``; None keeps its own) and started: its list is in."""
    from pidesktop.ui import theme as themes
    from pidesktop.ui.main_window import MainWindow

    win = MainWindow(client, theme or themes.LIGHT, runner, prefs)
    qtbot.addWidget(win)
    if size is not None:
        win.resize(*size)
    win.show()
    qloop.run_until_complete(win.start())
    return win


@pytest.fixture
def chat(qtbot, qloop, host_client):
    """A started main window on its own host thread, answering with the offline demo."""
    from pidesktop.agent.runner import TurnRunner

    win = started_window(qtbot, qloop, host_client, runner=TurnRunner(host_client, offline_delay=0.0))
    yield win
    win.close()


async def wait_until(predicate, timeout: float = 10.0, interval: float = 0.01):
    """Poll ``predicate`` while the event loop keeps running."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(interval)


def spin_until(qloop, predicate, timeout: float = 15.0):
    """Run the qasync loop until ``predicate()`` is truthy (at most ``timeout`` s); returns its value."""
    return qloop.run_until_complete(wait_until(predicate, timeout))


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where a test saves its screenshots: inside its tmp_path, or $PIDESKTOP_SHOTS to keep them."""
    folder = Path(os.environ.get("PIDESKTOP_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def keep_running(qapp):
    """A dialog that deletes itself on close must not end the test's event loop as the last window."""
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(before)
