"""The application bootstrap: the one module that wires a host to a UI.

Phased start-up: resolve the data root and take the installation lock, show
the window's first frame (``ui.first_frame``: its layout in the theme's
colours, painted before the rest of the UI is even imported), then the
composer's text box in it and the sidebar with the newest chats (read from the
database read-only, ``storage.newest_chats``), then import and build the rest
of the widgets while the host thread imports its modules and opens the
database, then ask the host for data. What the window needs later (providers,
markdown, the dialogs) is imported after the session list is in
(``ui.warm_up``).
Quitting (Ctrl+Q, closing the window, a restart after a data move) is an
ordered shutdown on the still-running event loop: flush the reply outbox,
close it, close the window, then stop the host thread (drain, close the
database, join).
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import time
from collections.abc import Sequence

from pidesktop import crash_dumps, logs, paths
from pidesktop.locks import FileLock, LockHeld
from pidesktop.storage import recovery
from pidesktop.ui.startup import gc_pauses

log = logging.getLogger("pidesktop.app")

INSTANCE_LOCK = "instance.lock"


def run_gui(
    data_dir: str | None = None, screenshot: str | None = None, session_id: str | None = None, theme: str | None = None
) -> int:
    _route_qt_messages_to_the_log()  # before the first QApplication: it is what fails without the xcb libraries
    try:
        resolved = paths.resolve(data_dir=data_dir)
    except paths.StorageLocationError as exc:
        return _refuse(str(exc))
    instance_lock = None
    if resolved.uses_installation_lock and screenshot is None:
        try:
            paths.ensure_private_dir(paths.anchor_dir())
            instance_lock = FileLock(paths.anchor_dir() / INSTANCE_LOCK, "pidesktop GUI").acquire()
        except LockHeld as exc:
            return _refuse(f"pidesktop is already running ({exc.holder}). Switch to its window instead.")
    notes: list[str] = []  # shown by the main window once it is up (where a migration's backup is)
    try:
        # A pending data-folder move (scheduled in Settings, or interrupted by a crash) is finished before any
        # host opens a root, in a progress window; a missing default root asks what to do; an older database
        # is updated (a newer one refused) with its progress shown. None: the person quit.
        location: paths.StorageLocation | None
        if screenshot is None and _needs_startup_window(resolved):
            from pidesktop.ui.startup import prepare

            gc_pauses.resume()  # paused for a quick start (cli); a move or an update is not one
            _qt_application()  # created now, reused by the main window
            location = prepare.prepare(resolved, theme, notes)
        else:
            location = recovery.before_host_start(resolved)
            if screenshot is None and _database_needs_update(location):
                # no screen: the same update, its progress or refusal on stderr
                from pidesktop.storage import schema_update

                gc_pauses.resume()
                if migrated := schema_update.migrate_on_stderr(location):
                    from pidesktop.ui.startup.migration_window import migration_note

                    notes.append(migration_note(migrated))
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
        crash_dumps.arm(location.data_root)
    except OSError as exc:
        log.warning("cannot prepare %s: %s", location.data_root, exc)  # the host reports it to the UI

    app = _qt_application()
    try:
        return _run(app, location, screenshot, session_id, theme, notes)
    finally:
        if instance_lock is not None:
            instance_lock.release()


def _run(
    app,
    location: paths.StorageLocation,
    screenshot: str | None,
    session_id: str | None,
    theme_name: str | None,
    notes: Sequence[str] = (),
) -> int:
    from pidesktop.ui.kit import theme as themes
    from pidesktop.ui.kit.prefs import Preferences
    from pidesktop.ui.window.main_window import BUILD_MODULES, MainWindow

    app.setApplicationName("pidesktop")
    prefs = Preferences(location.ui_root)
    # The theme the window last closed with (its setting, once the host answers, can still change it): the
    # first frame is painted in it, and the system's colour scheme is not asked for before that paint.
    remembered = prefs.data["window"].get("theme")
    theme = themes.pick(theme_name or (remembered if remembered in ("light", "dark") else None))
    window = MainWindow(None, theme, prefs=prefs)
    if screenshot is not None:
        window.resize(1280, 800)  # the documented size, whatever the saved geometry says
    window.show()
    painted_at = _paint_first_frame(window)
    if screenshot is None:
        window.first_frame.take_typing()
    if painted_at is not None:  # logged once typing is taken: the log's first file and imports come after both
        log.info("first frame painted", extra={"fields": {"paintedAt": painted_at}})  # bench/installed.py
    # From here on, input is let in between the steps of the start: letters typed appear in the frame's text
    # box at once (Enter, Esc and shortcuts wait for the built window, see ui/startup/early_prompt.py).
    let_input_in = app.processEvents
    let_input_in()
    from pidesktop.ui.kit import i18n

    # Widgets read their texts when built, before the host's settings arrive: the language comes from the
    # copy of the setting the window keeps in its preferences (the system's language until there is one).
    i18n.install(app, prefs.data["window"].get("language"))
    themes.apply(app, theme)
    if screenshot is None:
        _show_chats_early(window, location)
        let_input_in()

    import asyncio

    import qasync

    let_input_in()
    from pidesktop.bus import HostClient, HostThread
    from pidesktop.ui.kit.resources import app_icon

    app.setWindowIcon(app_icon())
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    host = HostThread(_host_opener(location, "pidesktop GUI"))
    client = HostClient(host, loop)
    early_events: list[tuple[str, dict]] = []  # what the host tells before the window listens, for the window
    stop_keeping = client.subscribe(lambda topic, payload: early_events.append((topic, payload)))
    # The host imports its modules and opens the database (its boot pass) while the widgets are built: its SQLite
    # and file work runs beside them (outside the interpreter lock), and it is open when the window asks for the
    # first page of chats. Events it sends meanwhile are kept for the window.
    host.start()
    try:
        let_input_in()
        from pidesktop.agent.mcp.pool import McpPool
        from pidesktop.agent.outbox import Outbox, dead_letter_file
        from pidesktop.agent.runner import TurnRunner

        for name in BUILD_MODULES:  # one at a time, the input let in between
            let_input_in()
            if window.close_requested:
                break
            importlib.import_module(name)
        let_input_in()
        if window.close_requested:  # closed while starting: nothing more is built; the host stops below
            log.info("closed before the window was built")
            return 0
        outbox = Outbox(client, dead_letter_file(location.ui_root))
        mcp = McpPool(client)  # MCP servers start when a chat first needs their tools, and stop at quit
        runner = TurnRunner(client, outbox=outbox, mcp=mcp)
        window.build(client, runner)
        stop_keeping()
        for topic, payload in early_events:
            window.on_host_event(topic, payload)
        gc_pauses.start_done()
        window.forced_theme = theme_name
        runner.watched = lambda session_id: window.isActiveWindow() and window.current_session_id == session_id
        from pidesktop.agent.scheduler import Scheduler

        # Automations run while the window is open, through the window's runner (so a run's chat shows it
        # streaming, queues what a person types there, and Stop stops it), each turn unattended: Plan/Goal
        # are refused, never approved.
        scheduler = Scheduler(client, runner)
        scheduler.listeners.append(window.tray.announce_run)
        window.scheduler = scheduler
        done = asyncio.Event()
        # Qt ends its event loop on the first quit request; the shutdown below needs it running.
        app.quit_requested = done.set
        exit_code = 0
        warming = None

        async def main() -> None:
            nonlocal exit_code, warming
            started = await _started_unless_closed(window.start(), done)
            if not started:  # nothing is begun that the shutdown below would have to stop again
                log.info("closed while the window was asking for its chats")
            elif screenshot is None:
                scheduler.start()  # due runs, and the runs missed while the app was closed (once each)
                from pidesktop.ui.kit.tasks import spawn
                from pidesktop.ui.startup.warm_up import warm_up

                warming = spawn(warm_up(), name="warm-up")  # what the first paint did not need, before it is asked for
            if started:
                from pidesktop.ui.data.storage_wizard import completed_move_notice

                moved = completed_move_notice(location) if screenshot is None else None
                for note in [moved, *notes]:  # after a data move: where the data is now; after a migration: the backup
                    if note:
                        window.show_note(note, 30_000)
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
            log.info("quitting: stopping the scheduler, MCP servers and the reply outbox")
            if warming is not None and not warming.done():
                warming.cancel()  # a quit right after the start: the imports left do not matter any more
            await scheduler.stop()  # a run in progress is stopped (its reply kept) and its run row closed
            await mcp.aclose()  # no MCP server process outlives the app
            await outbox.flush(5)
            await outbox.aclose()
            window.close()  # already closed by Ctrl+Q; still open when a restart asked to quit

        # A logout, a shutdown or ``kill`` sends SIGTERM: the same ordered shutdown as Ctrl+Q, not an abrupt
        # end that leaves the host's lock and the window's state behind.
        import signal  # here, not before the first paint

        loop.add_signal_handler(signal.SIGTERM, window.quit_unattended)
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


async def _started_unless_closed(start, done) -> bool:
    """Run the window's ``start`` unless the person quits first (then it is cancelled): a close while the
    host is still opening or listing chats ends the app then, not once every chat is read."""
    import asyncio
    import contextlib

    starting = asyncio.ensure_future(start)
    quitting = asyncio.ensure_future(done.wait())
    await asyncio.wait({starting, quitting}, return_when=asyncio.FIRST_COMPLETED)
    quitting.cancel()
    if starting.done():
        starting.result()  # its failure, if any, is the start's (the window has shown it)
        return True
    starting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await starting
    return False


def _show_chats_early(window, location: paths.StorageLocation) -> None:
    """The sidebar with the newest chats, before the rest of the window and before the host has opened: read
    from the database read-only (the host's boot pass and its imports take longer than the window's build);
    the host's own list replaces them when it answers. Nothing when they cannot be read at once."""
    if window.first_frame is None or window.first_frame.sidebar_part is None:
        return  # the sidebar is hidden
    from pidesktop.storage.newest_chats import newest_chats
    from pidesktop.ui.window.main_window import FIRST_PAGE

    sessions = newest_chats(location, FIRST_PAGE)
    if sessions:
        window.show_chats_early(sessions)


def _paint_first_frame(window) -> float | None:
    """Wait until the shown window has painted its first frame (at most 300 ms: a window manager that
    never exposes it does not hold the start); when it did, the time it did (``time.time()``). Keys and
    clicks wait in the queue for the built window."""
    from PySide6.QtCore import QEventLoop, QTimer

    waiting = QEventLoop()
    seen: list[float] = []

    def painted() -> None:
        seen.append(time.time())
        waiting.quit()

    window.first_frame.painted = painted
    QTimer.singleShot(300, waiting.quit)
    waiting.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
    window.first_frame.painted = None
    return seen[0] if seen else None


def _host_opener(location: paths.StorageLocation, role: str):
    """The host thread's opener; the host's modules are imported there, not before the window's first paint."""

    def open_host(emit):
        from pidesktop.host.core import opener

        return opener(location, role=role)(emit)

    return open_host


def _database_needs_update(location: paths.StorageLocation) -> bool:
    """Whether the database is older or newer than this pidesktop (or cannot be read to say).

    The usual answer, "current", comes from its version number alone, read without waiting (nor the migration
    engine's modules imported before the first paint); anything else, and a database that cannot be read at once,
    goes on to ``storage.schema`` (which then names what is wrong).
    """
    from pidesktop.storage import current_schema

    if current_schema.is_current(location):
        return False
    from pidesktop.storage import schema

    try:
        state = schema.schema_state(location)
    except Exception:
        return True
    version, supported = state.get("version"), state.get("supported")
    return bool(state.get("needsMigration")) or (version is not None and supported is not None and version > supported)


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
    """A move is pending or the default data root has gone missing (never for a pinned root), or the
    database needs an update (any root).

    Only with a screen a person can answer on: offscreen or without a display the
    same work runs with progress on stderr, and a failure is a refusal with its reason.
    """
    if not _interactive_screen():
        return False
    if location.source != "env" and (
        recovery.pending() is not None or recovery.check_default_root().state == "missing"
    ):
        return True
    if not _database_needs_update(location):
        return False
    from pidesktop.storage import schema_update

    return schema_update.schema_check(location) is not None  # a database older or newer than this pidesktop


def _interactive_screen() -> bool:
    headless = os.environ.get("QT_QPA_PLATFORM") in ("offscreen", "minimal")
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and not headless


# The exit status of a start Qt refused (instead of its abort): the reason is on stderr already.
QT_FAILED = 2
# Said by the offscreen platform (tests, screenshots, benches) each time a window is shown or resized; it
# names nothing wrong with the app, and logging it made the first paint wait for the log file.
OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints()"


def _route_qt_messages_to_the_log() -> None:
    """Qt's own messages go to logs/app (but ``OFFSCREEN_NOISE``); its critical and fatal ones reach stderr too,
    with their reasons.

    A fatal message is the last thing Qt says before it aborts the process, so
    it is printed at once, after the platform messages (``qt.qpa.*``) that led
    to it, and, when the platform plugin is what failed, a hint naming the
    system packages that plugin needs.
    """
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    levels = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }
    qt_log = logging.getLogger("pidesktop.qt")
    platform_lines: list[str] = []  # what the platform plugin said so far: the reason behind a fatal message

    def handle(kind, context, message: str) -> None:
        if message == OFFSCREEN_NOISE:
            return
        level = levels.get(kind, logging.WARNING)
        category = getattr(context, "category", None) or ""
        if category.startswith("qt.qpa") and level >= logging.INFO:
            platform_lines[:] = [*platform_lines[-9:], f"{category}: {message}"]
        if level >= logging.ERROR:
            _print_qt_failure(message, platform_lines)
        qt_log.log(level, message)
        if kind == QtMsgType.QtFatalMsg:
            # Qt aborts after a fatal message; its reason is printed and logged, so end with a plain exit status
            # instead of "Aborted" (and a core dump) under it.
            for handler in logging.getLogger().handlers:
                handler.flush()
            os._exit(QT_FAILED)

    qInstallMessageHandler(handle)


def _print_qt_failure(message: str, platform_lines: list[str]) -> None:
    lines = [f"pidesktop: Qt: {message.strip()}"]
    if "platform plugin" in message:
        lines += [f"  {line}" for line in platform_lines]
        said = "\n".join([message, *platform_lines])
        if "xcb" in said:
            lines += _xcb_libraries_advice()
        if "could not connect to display" in said:
            lines.append(
                f"pidesktop: no X display could be opened (DISPLAY={os.environ.get('DISPLAY', '')!r}); "
                "without one, use `pidesktop chat` or `pidesktop data`."
            )
    try:
        print("\n".join(lines), file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass  # no terminal to tell; the log still has it


def _xcb_libraries_advice() -> list[str]:
    """Which libraries of Qt's xcb plugin are missing here (ldd says), and the packages to install for them."""
    from pathlib import Path

    from PySide6.QtCore import QLibraryInfo

    from pidesktop import system_libraries  # only when Qt failed: start-up does not import what it does not need

    plugin = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms" / "libqxcb.so"
    missing = system_libraries.missing_for(plugin) if plugin.is_file() else None
    if missing is None:  # ldd could not tell: every package the plugin may need
        return [
            "pidesktop: the window needs Qt's xcb platform plugin and the system libraries it loads:",
            *(f"  {system}: {command}" for system, command in system_libraries.install_commands().items()),
        ]
    if not missing:
        return ["pidesktop: every system library Qt's xcb plugin loads is installed (ldd finds each one)."]
    named = ", ".join(f"{soname} ({why})" for soname, why in missing.items())
    lines = [f"pidesktop: the window cannot open: Qt's xcb plugin cannot load {named}. Install:"]
    lines += [f"  {system}: {command}" for system, command in system_libraries.install_commands(list(missing)).items()]
    unknown = [soname for soname in missing if soname not in {lib.soname for lib in system_libraries.XCB_LIBRARIES}]
    if unknown:
        lines.append(f"  and the package of your system that provides {', '.join(unknown)}")
    return lines


def _refuse(message: str) -> int:
    """Say why we stop: on stderr always, in a dialog when there is a screen."""
    print(f"pidesktop: {message}", file=sys.stderr)
    if _interactive_screen():
        from PySide6.QtWidgets import QApplication, QMessageBox

        app = QApplication.instance() or QApplication(sys.argv[:1])
        QMessageBox.critical(None, "pidesktop", message)
        del app
    return 2
