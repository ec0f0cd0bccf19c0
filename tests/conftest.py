"""Shared fixtures: an isolated home, a temporary data root, real hosts, a started window.

Every test runs with HOME and XDG_CONFIG_HOME inside its own temporary folder,
so nothing reads or writes the real installation anchor or ~/.pi-desktop.
Only fixtures live here (pytest finds them by name); the helpers tests import
are in ``tests/support/``.
"""

from __future__ import annotations

import asyncio
import gc
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pidesktop import paths
from pidesktop.bus import HostClient
from tests.support.clock import TickingClock
from tests.support.event_loop import QasyncTestLoop
from tests.support.fuzz_budget import load_suite_profile
from tests.support.hosts import InProcessHost, LoopHosts, StdioHost
from tests.support.windows import started_window

# Fixtures that live beside their helpers: the Workflows state (clock, path, store, flow) and the
# loopback HTTP server of the provider tests (sse_server).
load_suite_profile()  # property tests are timed by nothing but their examples, and repeat in CI as here

pytest_plugins = [
    "tests.support.workflows_support",
    "tests.support.sse_server",
    "tests.support.s3_server",
    "tests.support.settings_dialog",
    "tests.support.disks",
    "tests.support.x_display",
]


@pytest.fixture(autouse=True)
def light_theme_again(request):
    """A test that switched the application to the dark theme (a window applying its setting, a dialog's
    theme choice) leaves it light again: the next test in this worker paints, and counts pixels, in light."""
    yield
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None and app.property("pidesktopTheme") not in (None, "light"):
        from pidesktop.ui.kit import theme as themes

        themes.apply(app, themes.LIGHT)


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


@pytest.fixture
def host(location):
    running = InProcessHost(location)
    yield running
    running.stop()


@pytest.fixture
def ticking_host(location):
    """A real host thread whose clock moves on at every reading: no two of its stamps are equal."""
    running = InProcessHost(location, clock=TickingClock())
    yield running
    running.stop()


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
    loop = QasyncTestLoop(qapp)
    asyncio.set_event_loop(loop)
    yield loop
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.close()
    asyncio.set_event_loop(None)


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


@pytest.fixture
def chat(keep_running, qtbot, qloop, host_client):
    """A started main window on its own host thread, answering with the offline demo.

    Closing it at the end must not quit the application: the quit would end the loop that lets the
    test's unfinished tasks wind down (``qloop``), and the test would error at teardown."""
    from pidesktop.agent.runner import TurnRunner

    win = started_window(qtbot, qloop, host_client, runner=TurnRunner(host_client, offline_delay=0.0))
    yield win
    win.close()


@pytest.fixture
def scripted_window(qtbot, qloop, host_client, sse_server):
    """A started main window whose runner asks the loopback server the test scripts (``sse_server``)."""
    from pidesktop.agent.runner import ProviderChoice, TurnRunner

    runner = TurnRunner(host_client, override=ProviderChoice(base_url=sse_server.base_url, model="m"))
    win = started_window(qtbot, qloop, host_client, runner=runner)
    yield win
    win.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where a test saves its screenshots: inside its tmp_path, or $PIDESKTOP_SHOTS to keep them."""
    folder = Path(os.environ.get("PIDESKTOP_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def shot(shots):
    """``shot(widget, name)``: the widget as drawn, saved to ``shots`` as ``name``.png for a person to look at."""
    from PySide6.QtWidgets import QApplication

    def save(widget, name: str) -> None:
        QApplication.processEvents()  # pending layout changes land first
        image = widget.grab()
        assert not image.isNull()
        assert image.save(str(shots / f"{name}.png"))

    return save


@pytest.fixture(params=["light", "dark"])
def theme(request, qapp):
    """Each theme in turn, applied to the application; light again afterwards."""
    from pidesktop.ui.kit import theme as themes

    chosen = themes.LIGHT if request.param == "light" else themes.DARK
    themes.apply(qapp, chosen)
    yield chosen
    themes.apply(qapp, themes.LIGHT)


@pytest.fixture
def keep_running(qapp):
    """A dialog that deletes itself on close must not end the test's event loop as the last window."""
    before = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(before)
