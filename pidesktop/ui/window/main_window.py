"""The main window: the shell around sidebar | conversation.

It builds the widgets and the actions, routes host events to the views, runs
the start (the session list, the first settings) and the close, and keeps the
window's preferences. Showing a chat lives in ``chat_view``; what went wrong
and the notices in ``notices``; the inbox, search, settings and automations
openers and the settings applied in ``dialogs``; what a person does to chats
in ``chat_controller``; the conversation column in ``workbench``; the tray in
``tray``. Views change in response to host events (``session.changed``), so a
change made elsewhere (another view, the stdio host of a test) shows up the
same way. Nothing here touches disk.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, Signal
from PySide6.QtWidgets import QMainWindow

from pidesktop.bus import HostError, topics
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.prefs import Preferences
from pidesktop.ui.kit.resources import APP_NAME
from pidesktop.ui.startup.first_frame import SIDEBAR_WIDTH, FirstFrame

if TYPE_CHECKING:
    from pidesktop.agent.scheduler import Scheduler
    from pidesktop.bus import HostClient
    from pidesktop.ui.search.search_dialog import SearchDialog
    from pidesktop.ui.settings.settings_dialog import SettingsDialog
    from pidesktop.ui.sidebar.session_model import SessionTreeModel
    from pidesktop.ui.sidebar.sidebar import Sidebar
    from pidesktop.ui.startup.index_progress_window import IndexProgressWindow
    from pidesktop.ui.window.workbench import Workbench

log = logging.getLogger("pidesktop.ui")

PAGE_SIZE = 100
FIRST_PAGE = 100
# The next page of the session list is asked for this long after one went in: the window relays out and
# paints it in a tick of its own, not sharing the interpreter lock with the host preparing the next page.
PAGE_PAUSE_S = 0.004
REFRESH_PAGE = 500  # read in the background, merged at once: fewer, larger pages


# What ``build`` imports: start-up imports them one at a time before it, letting typing in between (app.py).
BUILD_MODULES = (
    "pidesktop.ui.kit.error_details",
    "pidesktop.ui.chat.transcript_model",
    "pidesktop.ui.sidebar.session_model",
    "pidesktop.ui.sidebar.sidebar",
    "pidesktop.ui.chat.composer",
    "pidesktop.ui.chat.transcript_view",
    "pidesktop.ui.window.workbench",
    "pidesktop.ui.chat.chat_controller",
    "pidesktop.ui.chat.file_changes",
    "pidesktop.ui.inbox.tray",
    "pidesktop.ui.native.native_chat",
    "pidesktop.ui.sidebar.import_actions",
    "pidesktop.ui.sidebar.project_actions",
    "pidesktop.ui.window.quit_question",
    "pidesktop.ui.window.chat_view",
    "pidesktop.ui.window.notices",
    "pidesktop.ui.window.dialogs",
)


DEFAULT_SIZE = (1280, 800)
FRAME_ALLOWANCE = 64  # the window manager's title bar and borders, and a panel, are not in a widget's size


def _first_size(window: QMainWindow) -> tuple[int, int]:
    """The size a first start opens at: the design's 1280x800, shrunk to fit the screen's free area with its
    frame (on a 1280x800 screen the title bar would push the composer off the bottom)."""
    screen = window.screen()
    if screen is None:
        return DEFAULT_SIZE
    free = screen.availableGeometry()
    width = min(DEFAULT_SIZE[0], free.width() - FRAME_ALLOWANCE // 4)
    height = min(DEFAULT_SIZE[1], free.height() - FRAME_ALLOWANCE)
    return (max(width, 640), max(height, 480))


class MainWindow(QMainWindow):
    ready = Signal()  # sessions listed (or the host's failure shown)

    def __init__(self, client: HostClient | None, theme: themes.Theme, runner=None, prefs: Preferences | None = None):
        """The window; without a client, only its first frame (``build`` makes the rest, see ``first_frame``)."""
        super().__init__()
        self.client = client
        self.theme = theme
        self._index_progress: IndexProgressWindow | None = None  # made at the host's first index.progress
        self.runner = runner
        self.prefs = prefs or Preferences(None)
        self.built = False
        self._close_when_built = False
        self._early_sidebar: tuple[SessionTreeModel, Sidebar] | None = None  # see show_chats_early
        self.setWindowTitle(APP_NAME)
        self.resize(*_first_size(self))
        state = self.prefs.data["window"]
        geometry = state.get("geometry")
        if isinstance(geometry, str):
            try:
                self.restoreGeometry(QByteArray.fromBase64(geometry.encode()))
            except (TypeError, ValueError):
                pass
        sidebar_width = 0 if state.get("sidebarHidden") == 1 else (self._saved_splitter() or [SIDEBAR_WIDTH])[0]
        self.first_frame = FirstFrame(theme, sidebar_width)
        self.setCentralWidget(self.first_frame)
        if client is not None:
            self.build(client, runner)

    def show_chats_early(self, sessions: list[dict]) -> None:
        """The sidebar with these chats (the newest, start-up reads them while the host opens), in the first
        frame's column before the rest of the window is built. The built window keeps it and the host's list
        replaces its rows; clicks on it and its shortcuts wait for the built window (a row clicked earlier would open
        nothing)."""
        if self.built or self.first_frame is None or self.first_frame.sidebar_part is None:
            return
        from PySide6.QtCore import Qt

        from pidesktop.ui.sidebar.session_model import SessionTreeModel
        from pidesktop.ui.sidebar.sidebar import Sidebar

        model = SessionTreeModel(self.prefs, self)
        sidebar = Sidebar(model, self.theme)
        sidebar.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        for action in sidebar.tree.actions():  # its shortcuts (F2, Delete...) wait too, as the early box's keys do
            action.setEnabled(False)
        model.reset(sessions)
        self._early_sidebar = (model, sidebar)
        self.first_frame.show_sidebar(sidebar)

    def _saved_splitter(self) -> list[int] | None:
        """The sidebar's and the conversation's widths as the window last closed, if they were kept whole."""
        sizes = self.prefs.data["window"].get("splitter")
        if isinstance(sizes, list) and len(sizes) == 2 and all(isinstance(n, int) and n >= 0 for n in sizes):
            return sizes
        return None

    def build(self, client: HostClient, runner=None) -> None:
        """The widgets, in place of the first frame.

        Imported here, not at the top: start-up paints the first frame from this module before any view is
        loaded (asyncio, the ``Qt`` namespace and the views make up most of a start's import time). The other
        methods import what they use for the same reason; once built, an import is a dictionary lookup.
        """
        from PySide6.QtCore import Qt, QTimer
        from PySide6.QtWidgets import QSplitter

        from pidesktop.ui.chat.chat_controller import ChatController
        from pidesktop.ui.chat.file_changes import FileChanges
        from pidesktop.ui.chat.transcript_model import TranscriptModel
        from pidesktop.ui.inbox.tray import TrayNotifier
        from pidesktop.ui.kit.resources import app_icon
        from pidesktop.ui.native.native_chat import NativeChat
        from pidesktop.ui.sidebar import import_actions
        from pidesktop.ui.sidebar.project_actions import ProjectActions
        from pidesktop.ui.sidebar.session_model import SessionTreeModel
        from pidesktop.ui.sidebar.sidebar import Sidebar
        from pidesktop.ui.window.chat_view import ChatView
        from pidesktop.ui.window.dialogs import Dialogs
        from pidesktop.ui.window.notices import Notices
        from pidesktop.ui.window.quit_question import QuitQuestion

        self.client = client
        self.runner = runner if runner is not None else self.runner
        self.settings: dict = {}
        self.forced_theme: str | None = None  # --theme on the command line wins over the setting
        self.search_dialog: SearchDialog | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.scheduler: Scheduler | None = None  # the app's automation scheduler (pidesktop.app); Run now needs it
        self.current_session_id: str | None = None
        self.notices = Notices(self)  # what went wrong: the notice line, the error log behind Details
        self.chat_view = ChatView(self)  # which chat is shown, and showing it
        self.dialogs = Dialogs(self)  # the inbox, search, settings and automations; the settings applied
        self.setWindowIcon(app_icon())

        self.transcript_model = TranscriptModel(client, self)
        self.transcript_model.failed.connect(self.report_error)
        if self._early_sidebar is not None:  # shown with the newest chats while the rest was built
            self.model, self.sidebar = self._early_sidebar
            self._early_sidebar = None
            self.sidebar.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, False)
            for action in self.sidebar.tree.actions():
                action.setEnabled(True)
        else:
            self.model = SessionTreeModel(self.prefs, self)
            self.sidebar = Sidebar(self.model, self.theme)
        self.sidebar.sessionActivated.connect(self.chat_view.open_session)
        self.sidebar.tree.clicked.connect(self.chat_view.session_clicked)
        self.sidebar.tree.activated.connect(self.chat_view.session_clicked)
        self.conversation = self._build_conversation()
        self.chats = ChatController(self)
        self.file_changes = FileChanges(self)  # review snapshots, Revert and the "Files changed" window
        self.header_layout.insertWidget(1, self.file_changes.button)
        self.projects = ProjectActions(self)  # projects and groups: the sidebar's headers, the picker, Ctrl+N
        self.native = NativeChat(self)  # pi sessions: read-only banner, branches, live following, Continue
        self.tray = TrayNotifier(self, self.chat_view.open_chat)
        self.quit_question = QuitQuestion(self)  # closing while a reply is written asks first
        self.model.renameRequested.connect(self.chats.rename)
        self.sidebar.newChatRequested.connect(self.projects.new_chat)
        self._connect_projects()
        import_actions.install(self)  # Import chats… and Trash
        self.sidebar.deleteRequested.connect(self.chats.confirm_delete)
        self.sidebar.forkRequested.connect(self.chats.fork)
        self.sidebar.compactRequested.connect(self.chats.compact)
        self.sidebar.automationsRequested.connect(self.dialogs.open_automations)
        self.sidebar.settingsRequested.connect(self.dialogs.open_settings)
        self.sidebar.searchRequested.connect(self.dialogs.open_search)
        self._connect_composer()

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(self.conversation)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([SIDEBAR_WIDTH, 1280 - SIDEBAR_WIDTH])
        self.splitter.setHandleWidth(1)
        early = self.first_frame.prompt if self.first_frame is not None else None
        held = early.hand_over(self.composer.edit) if early is not None else []  # what was typed stays, once
        self.setCentralWidget(self.splitter)  # the first frame goes (Qt deletes it)
        self.first_frame = None
        self.setAcceptDrops(True)
        self._restore_window_state()
        self._build_actions()
        self._unsubscribe = client.subscribe(self._on_event)
        self.built = True
        self.composer.focus_prompt()  # keys typed while the window was being built land here
        if held:
            from pidesktop.ui.startup.early_prompt import replay

            for event in held:  # Enter, Esc, a shortcut typed early, and the keys after it, in order
                replay(event, self.composer.edit, self)
        self.chats.restore_saved_drafts()  # what was typed and not sent when the window last closed
        if self._close_when_built:
            QTimer.singleShot(0, self.close)  # after the layout, so the splitter's sizes kept are the real ones

    # -- building ------------------------------------------------------------
    def _build_conversation(self) -> Workbench:
        from pidesktop.ui.window.workbench import Workbench

        area = Workbench(self.client, self.runner, self.theme, self.transcript_model, self.report_error)
        header = area.header
        # The parts by the names the controllers and views use (``window.composer``, ``window.bell``, ...).
        self.header_layout = header.row
        self.header_title = header.title
        self.project_picker = header.project_picker
        self.model_chip = header.model_chip
        self.context_meter = header.context_meter
        self.compact_action = header.compact_action
        self.bell = header.bell
        self.banner, self.banner_text, self.banner_holder = area.banner, area.banner_text, area.banner_holder
        self.pages, self.empty_page, self.transcript = area.pages, area.empty_page, area.transcript
        self.session_page = self.transcript
        self.composer, self.queue_strip, self.notice = area.composer, area.queue_strip, area.notice
        self.plans, self.permission_card, self.inbox = area.plans, area.permission_card, area.inbox
        header.compactRequested.connect(lambda: self.chats.compact(self.current_session_id))
        header.title.renameRequested.connect(self._rename_shown)
        dialogs = self.dialogs
        self.bell.clicked.connect(dialogs.toggle_inbox)
        self.model_chip.clicked.connect(lambda: dialogs.open_settings("Providers"))
        self.transcript.codeCopied.connect(lambda: self.show_note(self.tr("Code copied to the clipboard")))
        self.notice.detailsRequested.connect(self.notices.open_error_details)
        self.inbox.openSession.connect(dialogs.open_from_inbox)
        # Closed (a row opened, Esc, ×, the bell): the keyboard goes back to the composer, not to whichever
        # widget comes first in the focus chain.
        self.inbox.closeRequested.connect(self.composer.focus_prompt)
        self.plans.pending.openSession.connect(dialogs.open_from_inbox)
        self.plans.pending.countChanged.connect(lambda _count: dialogs.unread_changed(self.inbox.model.unread_count))
        self.inbox.model.unreadChanged.connect(dialogs.unread_changed)
        return area

    def _connect_composer(self) -> None:
        from pidesktop.ui.kit.tasks import spawn

        chats = self.chats
        self.transcript.actionTriggered.connect(chats.message_action)
        self.composer.sendRequested.connect(
            lambda text, attachments: spawn(chats.send_prompt(text, attachments), name="send-prompt")
        )
        self.composer.steerRequested.connect(
            lambda text, attachments: spawn(chats.steer_prompt(text, attachments), name="steer-prompt")
        )
        self.composer.stopRequested.connect(chats.stop_reply)
        self.composer.escapePressed.connect(self.escape)
        self.composer.editCancelled.connect(chats.end_edit)
        self.composer.thinkingChanged.connect(lambda level: chats.change_session({"thinkingLevel": level}))
        self.composer.modeChanged.connect(lambda mode: chats.change_session({"mode": mode}))
        self.composer.permissionChanged.connect(lambda mode: chats.change_session({"permissionMode": mode}))
        self.composer.modelChanged.connect(
            lambda provider, model: chats.change_session({"providerId": provider or None, "modelId": model or None})
        )  # "" goes back to the default model
        self.queue_strip.resumeRequested.connect(chats.resume_queue)

    def _connect_projects(self) -> None:
        from PySide6.QtGui import QAction

        projects = self.projects
        self.sidebar.newChatInProjectRequested.connect(
            lambda path: projects.by_path(path) and projects.new_chat_in(projects.by_path(path))
        )
        self.sidebar.projectMenuRequested.connect(projects.fill_menu)
        self.sidebar.groupMenuRequested.connect(projects.fill_group_menu)
        self.sidebar.projectPinToggled.connect(projects.set_pinned)
        self.sidebar.exportRequested.connect(self.export_chat)
        self.project_picker.picked.connect(projects.move_chat)
        self.project_picker.newProjectRequested.connect(projects.choose_folder)
        self.new_project_action = QAction(self.tr("New project…"), self)
        self.new_project_action.setToolTip(self.tr("Add a folder as a project; its chats get its memory"))
        self.new_project_action.triggered.connect(projects.choose_folder)
        view_menu = self.sidebar.view_button.menu()
        first = view_menu.actions()[0] if view_menu.actions() else None
        view_menu.insertAction(first, self.new_project_action)
        view_menu.insertSeparator(first)

    def export_chat(self, session_id: str) -> None:
        """Export…: a save dialog for Markdown or JSON, then the chat is written there."""
        session = self.model.session(session_id)
        if session is not None:
            from pidesktop.ui.chat import export_dialog

            self.export_dialog = export_dialog.ask(self.client, session, self)

    def _build_actions(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtGui import QAction, QKeySequence

        self.new_chat_action = QAction(self.tr("New chat"), self)
        self.new_chat_action.setShortcut(QKeySequence.StandardKey.New)
        self.new_chat_action.triggered.connect(self.projects.new_chat)  # in the current project, if any
        self.toggle_sidebar_action = QAction(self.tr("Toggle sidebar"), self)
        self.toggle_sidebar_action.setShortcut(QKeySequence("Ctrl+B"))
        self.toggle_sidebar_action.triggered.connect(lambda: self.sidebar.setVisible(not self.sidebar.isVisible()))
        self.quit_action = QAction(self.tr("Quit"), self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.search_action = QAction(self.tr("Search chats"), self)
        self.search_action.setShortcut(QKeySequence("Ctrl+K"))
        self.search_action.triggered.connect(self.dialogs.open_search)
        self.inbox_action = QAction(self.tr("Inbox"), self)
        self.inbox_action.setShortcut(QKeySequence("Ctrl+Shift+I"))
        self.inbox_action.triggered.connect(self.dialogs.toggle_inbox)
        self.automations_action = QAction(self.tr("Automations…"), self)
        self.automations_action.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.automations_action.triggered.connect(self.dialogs.open_automations)
        self.settings_action = QAction(self.tr("Settings…"), self)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.triggered.connect(lambda: self.dialogs.open_settings())
        self.stop_action = QAction(
            self.tr("Close the inbox, stop editing, deny the tool call waiting, or stop the reply"), self
        )
        self.stop_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.stop_action.triggered.connect(self.escape)
        self.new_chat_action.setToolTip(self.tr("New chat (Ctrl+N)"))
        for action in (
            self.new_chat_action,
            self.toggle_sidebar_action,
            self.quit_action,
            self.search_action,
            self.inbox_action,
            self.settings_action,
            self.stop_action,
            self.automations_action,
        ):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(action)

    # -- start-up ----------------------------------------------------------------
    async def start(self) -> None:
        """Phase two of start-up: ask the host for the session list."""
        from pidesktop.ui.kit.ops import task_op

        async def load() -> None:
            hello = await self.client.call("app.handshake", {"protocolVersion": 1})
            self.notices.tell_interrupted(hello.get("interruptedReplies") or [])
            self.notices.tell_rebuilt(hello.get("rebuilt"))
            await self.load_sessions()
            self._reopen_last_chat()
            await self.projects.refresh()
            await self.dialogs.apply_settings((await self.client.call("settings.get", {}))["settings"])
            await self.inbox.refresh()
            await self.plans.refresh()
            await self.dialogs.refresh_model_chip()

        await task_op(load, parent=self, name="start")
        self.composer.focus_prompt()
        self.ready.emit()

    def _reopen_last_chat(self) -> None:
        """The chat shown when the window last closed is shown again, if it is still in the list."""
        last = self.prefs.data["window"].get("lastSession")
        if isinstance(last, str) and self.current_session_id is None and self.model.session(last) is not None:
            self.sidebar.select(last)

    async def load_sessions(self) -> None:
        """The newest chats at once, the rest a page at a time (no single long stall)."""
        import asyncio

        from pidesktop.ui.startup import gc_pauses

        gc_pauses.freeze("window")  # start-up's modules: no full collector pass walks them during the load
        page = await self.client.call("session.list", {"limit": FIRST_PAGE})
        self.model.reset(page["sessions"])
        self.chat_view.refresh_empty_state()
        cursor = page["nextCursor"]
        while cursor:
            page = await self.client.call("session.list", {"limit": PAGE_SIZE, "cursor": cursor})
            self.model.extend(page["sessions"])
            cursor = page["nextCursor"]
            await asyncio.sleep(PAGE_PAUSE_S)

    async def refresh_sessions(self) -> None:
        """The list read again (pi's files came or went, an automation's chats came back) and merged into
        the sidebar without a reset, so the reader's place and the selection stay; a large change reloads it."""
        sessions, params = [], {"limit": REFRESH_PAGE}
        while True:
            page = await self.client.call("session.list", params)
            sessions += page["sessions"]
            if not page["nextCursor"]:
                break
            params = {"limit": REFRESH_PAGE, "cursor": page["nextCursor"]}
        if not self.model.merge(sessions):
            await self.load_sessions()
            return
        self.chat_view.refresh_empty_state()

    # -- events and view state --------------------------------------------------
    def _index_progress_window(self) -> IndexProgressWindow:
        """The window that follows a start's rebuild of the chat index (made at its first event)."""
        if self._index_progress is None:
            from pidesktop.ui.startup.index_progress_window import IndexProgressWindow  # only when a rebuild runs

            self._index_progress = IndexProgressWindow(self.theme, self)
        return self._index_progress

    def on_host_event(self, topic: str, payload: dict) -> None:
        """An event the host sent before the window was built and listened (start-up keeps them for it)."""
        self._on_event(topic, payload)

    def _on_event(self, topic: str, payload: dict) -> None:
        from PySide6.QtCore import QTimer

        from pidesktop.ui.kit.tasks import spawn

        self.projects.handle_event(topic, payload)
        self.native.handle_event(topic, payload)
        self.inbox.handle_event(topic, payload)
        self.queue_strip.handle_event(topic, payload)
        self.plans.handle_event(topic, payload)
        self.file_changes.reviews.handle_event(topic, payload)
        if topic == topics.NOTIFICATION_CREATED:
            self.tray.announce(payload["notification"])
        if topic == topics.DATA_DAILY_BACKUP and not payload.get("ok"):
            self.notices.tell_backup_failed(payload)
        if topic == topics.DATA_REPAIRED:  # Settings > Data > Repair rebuilt the database or brought chats back
            from pidesktop.ui.kit.tasks import spawn as start

            start(self.refresh_sessions(), name="repaired-list")
        if topic == topics.INDEX_PROGRESS:
            self._index_progress_window().handle_event(topic, payload)
        if topic in (topics.PROVIDERS_CHANGED, topics.MODELS_CHANGED):
            spawn(self.dialogs.refresh_model_chip(), name="model-chip")
            # a new context window: measured after the runner forgot the old
            QTimer.singleShot(0, self.chat_view.refresh_context_meter)
        if topic != topics.SESSION_CHANGED:
            return
        session_id = payload["sessionId"]
        reason = payload.get("reason")
        if reason == "deleted":
            self.chat_view.forget(session_id)
            return
        if "session" in payload:
            self.model.upsert(payload["session"])
        if session_id != self.current_session_id:
            return
        if "session" in payload:
            self.chat_view.show_session(payload["session"])
        if self.transcript_model.session_id != session_id:
            return
        if reason == "message":
            spawn(self.chat_view.show_new_message(payload["messageId"]), name="transcript-tail")
        elif reason in ("history", "revision", "compaction"):
            self.chats.history_changed(session_id)  # a compaction: its divider goes in where it belongs

    def _rename_shown(self, title: str) -> None:
        if self.current_session_id is not None:
            self.chats.rename(self.current_session_id, title)

    def escape(self) -> None:
        """Esc: close the inbox if it is open, else end an edit, else deny the tool call waiting on the
        permission card (the reply goes on, the model told no), else stop the reply."""
        if self.inbox.isVisible():
            self.inbox.dismiss()
            self.composer.focus_prompt()
        elif self.chats.editing is not None:
            self.chats.end_edit()
        elif self.permission_card.deny_shown():
            self.composer.focus_prompt()
        else:
            self.chats.stop_reply()

    def changeEvent(self, event) -> None:
        from PySide6.QtCore import QEvent

        if self.built and event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            self.chat_view.mark_read(self.current_session_id)
        super().changeEvent(event)

    # -- what went wrong: the notices say it; ops.report finds the window's report_error ------
    def report_error(self, error: HostError, sentence: str = "") -> None:
        self.notices.report_error(error, sentence)

    def show_note(self, text: str, ms: int | None = None) -> None:
        self.notices.show_note(text, ms)

    # -- the window's state --------------------------------------------------------
    def _restore_window_state(self) -> None:
        """The splitter and the sidebar as they were (the geometry was restored with the first frame)."""
        state = self.prefs.data["window"]
        sizes = self._saved_splitter()
        if sizes is not None:
            self.splitter.setSizes(sizes)
        if state.get("sidebarHidden") == 1:
            self.sidebar.hide()

    def _save_window_state(self) -> None:
        language = self.prefs.data["window"].get("language")
        self.prefs.data["window"] = {
            "geometry": bytes(self.saveGeometry().toBase64()).decode(),
            "splitter": self.splitter.sizes(),
            "sidebarHidden": int(self.sidebar.isHidden()),
            "theme": self.theme.name,  # the next start's first frame is painted in it
            **({"lastSession": self.current_session_id} if self.current_session_id else {}),
            **({"language": language} if isinstance(language, str) else {}),
        }
        self.prefs.save()

    # -- files dropped anywhere on the window go to the composer ---------------------
    def dragEnterEvent(self, event) -> None:
        from pidesktop.ui.chat.composer import local_files

        if local_files(event.mimeData()) or event.mimeData().hasImage():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        self.composer.dropEvent(event)

    @property
    def close_requested(self) -> bool:
        """Closed before it was built (the close waits for the build, or start-up skips the build)."""
        return self._close_when_built

    def quit_unattended(self) -> None:
        """The system asks pidesktop to quit (SIGTERM: a logout, a shutdown, ``kill``): as Ctrl+Q, without a
        question nobody is there to answer; a reply being written is stopped and kept as far as it got."""
        log.info("the system asked pidesktop to quit")
        if self.built and self.quit_question.running():
            self.quit_question.stop_and_quit()
        else:
            self.close()

    def closeEvent(self, event) -> None:
        log.info("window close asked%s", "" if self.built else " before it was built")  # a quit's trail in the log
        if not self.built:  # closed while the window is being built: once it is
            self._close_when_built = True
            event.ignore()
            return
        if not self.quit_question.may_close():  # a reply is being written: asked, or waited for
            event.ignore()
            return
        self._save_window_state()
        self.chats.save_drafts()
        self._unsubscribe()
        super().closeEvent(event)
