"""The application bootstrap: the one module that wires a host to a UI.

Phased start-up: resolve the data root and take the installation lock, start
the host thread, create the window, show it, then ask the host for data.
Quitting (Ctrl+Q, closing the window, a restart after a data move) is an
ordered shutdown on the still-running event loop: flush the reply outbox,
close it, close the window, then stop the host thread (drain, close the
database, join).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from . import logs, paths
from .bus import HostClient, HostThread
from .host.core import opener
from .locks import FileLock, LockHeld
from .storage import recovery

log = logging.getLogger("pidesktop.app")

INSTANCE_LOCK = "instance.lock"


def run_gui(data_dir: str | None = None, screenshot: str | None = None, session_id: str | None = None,
            theme: str | None = None) -> int:
    from PySide6.QtWidgets import QApplication

    try:
        location = paths.resolve(data_dir=data_dir)
    except paths.StorageLocationError as exc:
        return _refuse(str(exc))
    instance_lock = None
    if location.uses_installation_lock and screenshot is None:
        try:
            paths.ensure_private_dir(paths.anchor_dir())
            instance_lock = FileLock(paths.anchor_dir() / INSTANCE_LOCK, "pidesktop GUI").acquire()
        except LockHeld as exc:
            return _refuse(f"pidesktop is already running ({exc.holder}). Switch to its window instead.")
    try:
        # A pending data-folder move (scheduled in Settings, or interrupted by a crash) is finished before any
        # host opens a root, in a progress window; a missing default root asks what to do. None: the person quit.
        if screenshot is None and _needs_startup_window(location):
            from .ui import startup_progress

            _qt_application()  # created now, reused by the main window
            location = startup_progress.prepare(location, theme)
        else:
            location = recovery.before_host_start(location)
    except recovery.RecoveryError as exc:
        if instance_lock is not None:
            instance_lock.release()
        return _refuse(str(exc))
    if location is None:
        if instance_lock is not None:
            instance_lock.release()
        return 0
    try:
        paths.prepare_data_root(location)
        logs.configure(location.data_root, "app")
    except OSError as exc:
        log.warning("cannot prepare %s: %s", location.data_root, exc)  # the host reports it to the UI

    _route_qt_messages_to_the_log()
    app = _qt_application()
    try:
        return _run(app, location, screenshot, session_id, theme)
    finally:
        if instance_lock is not None:
            instance_lock.release()


def _run(app, location: paths.StorageLocation, screenshot: str | None, session_id: str | None,
         theme_name: str | None) -> int:
    import qasync

    from .ui import theme as themes
    from .ui.main_window import MainWindow
    from .ui.resources import app_icon

    from .ui import i18n
    from .ui.prefs import Preferences

    app.setApplicationName("pidesktop")
    app.setWindowIcon(app_icon())
    prefs = Preferences(location.ui_root)
    # Widgets read their texts when built, before the host's settings arrive: the language comes from the
    # copy of the setting the window keeps in its preferences (the system's language until there is one).
    i18n.install(app, prefs.data["window"].get("language"))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    host = HostThread(opener(location, role="pidesktop GUI")).start()
    client = HostClient(host, loop)
    theme = themes.pick(theme_name)
    themes.apply(app, theme)
    from .agent.outbox import Outbox, dead_letter_file
    from .agent.runner import TurnRunner

    outbox = Outbox(client, dead_letter_file(location.ui_root))
    runner = TurnRunner(client, outbox=outbox)
    window = MainWindow(client, theme, runner, prefs)
    window.forced_theme = theme_name
    runner.watched = lambda session_id: window.isActiveWindow() and window.current_session_id == session_id
    done = asyncio.Event()
    # Qt ends its event loop on the first quit request; the shutdown below needs it running.
    app.quit_requested = done.set
    exit_code = 0

    async def main() -> None:
        nonlocal exit_code
        if screenshot is not None:
            window.resize(1280, 800)  # the documented size, whatever the saved geometry says
        window.show()
        await window.start()
        if screenshot is not None:
            if session_id:
                window.sidebar.select(session_id)
                for _ in range(200):  # the newest page, laid out, scrolled to its end
                    if window.transcript_model.session_id == session_id and not window.transcript_model.loading:
                        break
                    await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)  # let the first paint and the remaining rows settle
            exit_code = 0 if window.grab().save(screenshot) else 1
            return  # the loop stops when main() returns
        await done.wait()
        await outbox.flush(5)
        await outbox.aclose()
        window.close()  # already closed by Ctrl+Q; still open when a restart asked to quit

    try:
        with loop:
            loop.run_until_complete(main())
    finally:
        app.quit_requested = None
        # Destroy the widgets while Qt is still whole, not at interpreter shutdown.
        window.close()
        window.deleteLater()
        app.processEvents()
        client.close()
        host.stop()
    return exit_code


def _qt_application():
    """The one QApplication; quit requests made to it wait for the ordered shutdown (see ``_run``)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    class Application(QApplication):
        # While set, Qt's quit requests (the last window closed, QApplication.quit()) call this instead of
        # ending the event loop at once; the shutdown then runs on the live loop and ends it by returning.
        quit_requested = None

        def event(self, event) -> bool:
            if event.type() == QEvent.Type.Quit and self.quit_requested is not None:
                self.quit_requested()
                return True
            return super().event(event)

    app = QApplication.instance()
    if app is None:
        app = Application(sys.argv[:1])
    return app


def _needs_startup_window(location: paths.StorageLocation) -> bool:
    """A move is pending or the default data root has gone missing (never for a pinned root).

    Only with a screen a person can answer on: offscreen or without a display the
    same work runs with progress on stderr, and a failure is a refusal with its reason.
    """
    if location.source == "env" or not _interactive_screen():
        return False
    return recovery.pending() is not None or recovery.check_default_root().state == "missing"


def _interactive_screen() -> bool:
    headless = os.environ.get("QT_QPA_PLATFORM") in ("offscreen", "minimal")
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and not headless


def _route_qt_messages_to_the_log() -> None:
    """Qt's own warnings go to logs/app, not the terminal."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    levels = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
              QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
              QtMsgType.QtFatalMsg: logging.CRITICAL}
    qt_log = logging.getLogger("pidesktop.qt")
    qInstallMessageHandler(lambda kind, _context, message: qt_log.log(levels.get(kind, logging.WARNING), message))


def _refuse(message: str) -> int:
    """Say why we stop: on stderr always, in a dialog when there is a screen."""
    print(f"pidesktop: {message}", file=sys.stderr)
    if _interactive_screen():
        from PySide6.QtWidgets import QApplication, QMessageBox

        app = QApplication.instance() or QApplication(sys.argv[:1])
        QMessageBox.critical(None, "pidesktop", message)
        del app
    return 2
