"""The main window: sidebar | conversation, with a status line for host errors.

Every host call is awaited on the qasync loop; nothing here touches disk.
Views change in response to host events (``session.changed``), so a change
made elsewhere (another view, the stdio host of a test) shows up the same way.
"""

from __future__ import annotations

import asyncio
import logging

from PySide6.QtCore import QByteArray, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QFrame, QHBoxLayout, QLabel, QMainWindow, QMessageBox, QPushButton,
                               QSplitter, QStackedWidget, QStatusBar, QSystemTrayIcon, QVBoxLayout, QWidget)

from ..bus import HostClient, HostError
from . import theme as themes
from .resources import app_icon
from .composer import Composer, local_files
from .error_details import ErrorDetailsDialog, ErrorLog
from .queue_strip import QueueStrip
from .inbox import BellButton, InboxPanel
from .search_dialog import SearchDialog
from .settings_dialog import SettingsDialog
from .prefs import Preferences
from .session_model import SessionTreeModel, display_title
from .sidebar import Sidebar
from .tasks import spawn
from .transcript_model import TranscriptModel
from .transcript_view import TranscriptView

log = logging.getLogger("pidesktop.ui")

SIDEBAR_WIDTH = 264
PAGE_SIZE = 100
FIRST_PAGE = 100
COMPOSER_WIDTH = 808


class MainWindow(QMainWindow):
    ready = Signal()  # sessions listed (or the host's failure shown)

    def __init__(self, client: HostClient, theme: themes.Theme, runner=None, prefs: Preferences | None = None):
        super().__init__()
        self.client = client
        self.theme = theme
        self.runner = runner
        self.prefs = prefs or Preferences(None)
        self.settings: dict = {}
        self.forced_theme: str | None = None  # --theme on the command line wins over the setting
        self.search_dialog: SearchDialog | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.tray: QSystemTrayIcon | None = None
        self.tray_session_id: str | None = None
        self.editing: dict | None = None  # the prompt being edited for a resend
        self.pending_changes: dict = {}  # model, thinking or mode picked before the chat exists
        self.current_session_id: str | None = None
        self.host_error: HostError | None = None
        self.error_log = ErrorLog()
        self.error_dialog: ErrorDetailsDialog | None = None
        self.confirm_box: QMessageBox | None = None
        self.setWindowTitle("pidesktop")
        self.setWindowIcon(app_icon())
        self.resize(1280, 800)

        self.transcript_model = TranscriptModel(client, self)
        self.transcript_model.failed.connect(self.show_host_error)
        self.model = SessionTreeModel(self.prefs, self)
        self.model.renameRequested.connect(lambda sid, title: spawn(self.rename_session(sid, title)))
        self.sidebar = Sidebar(self.model, theme)
        self.sidebar.newChatRequested.connect(lambda: spawn(self.create_session()))
        self.sidebar.sessionActivated.connect(self._open_session)
        self.sidebar.deleteRequested.connect(self.confirm_delete)
        self.sidebar.forkRequested.connect(lambda sid: spawn(self.fork_session(sid), name="fork-session"))
        self.conversation = self._build_conversation()

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(self.conversation)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([SIDEBAR_WIDTH, 1280 - SIDEBAR_WIDTH])
        self.splitter.setHandleWidth(1)
        self.setCentralWidget(self.splitter)
        self.setAcceptDrops(True)
        self.setStatusBar(QStatusBar())
        self.details_button = QPushButton(self.tr("Details…"))
        self.details_button.setObjectName("statusDetails")
        self.details_button.setFlat(True)
        self.details_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.details_button.setToolTip(self.tr("Show what went wrong, in full"))
        self.details_button.clicked.connect(self.open_error_details)
        self.statusBar().addPermanentWidget(self.details_button)
        self.details_button.hide()
        self._restore_window_state()
        self._build_actions()
        self._unsubscribe = client.subscribe(self._on_event)
        if runner is not None:
            runner.listeners.append(self._on_turn)

    # -- building ------------------------------------------------------------
    def _build_conversation(self) -> QWidget:
        area = QWidget()
        area.setObjectName("conversation")
        area.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        header = QWidget()
        header.setObjectName("header")
        header_layout = QHBoxLayout(header)
        header_layout.setContentsMargins(24, 12, 24, 12)
        self.header_title = QLabel("")
        self.header_title.setObjectName("headerTitle")
        self.model_chip = QLabel("")
        self.model_chip.setObjectName("chip")
        self.model_chip.setToolTip(self.tr("The model that answers in this chat (Settings > Providers)"))
        self.bell = BellButton(self.theme)
        self.bell.clicked.connect(self.toggle_inbox)
        header_layout.addWidget(self.header_title, 1)
        header_layout.addWidget(self.model_chip)
        header_layout.addSpacing(8)
        header_layout.addWidget(self.bell)

        self.banner = QFrame()
        self.banner.setObjectName("banner")
        banner_layout = QHBoxLayout(self.banner)
        banner_layout.setContentsMargins(16, 12, 16, 12)
        self.banner_text = QLabel()
        self.banner_text.setWordWrap(True)
        self.banner_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        banner_layout.addWidget(self.banner_text)
        self.banner.hide()

        self.pages = QStackedWidget()
        self.empty_page = _centered_message(self.tr("Start a conversation"),
                                            self.tr("Type below, or press Ctrl+N for a new chat."))
        self.transcript = TranscriptView(self.transcript_model, self.theme)
        self.transcript.actionTriggered.connect(self._message_action)
        self.transcript.codeCopied.connect(
            lambda: self.statusBar().showMessage(self.tr("Code copied to the clipboard"), 3000))
        self.session_page = self.transcript
        self.pages.addWidget(self.empty_page)
        self.pages.addWidget(self.transcript)
        self.composer = Composer(self.client)
        self.composer.sendRequested.connect(lambda text, attachments: spawn(self.send_prompt(text, attachments),
                                                                            name="send-prompt"))
        self.composer.tray.failed.connect(self.show_host_error)
        self.composer.stopRequested.connect(self.stop_reply)
        self.composer.thinkingChanged.connect(lambda level: spawn(self.set_thinking(level), name="set-thinking"))
        self.composer.modeChanged.connect(lambda mode: spawn(self.set_mode(mode), name="set-mode"))
        self.composer.modelChanged.connect(lambda provider, model: spawn(self.set_model(provider, model),
                                                                         name="set-model"))
        self.queue_strip = QueueStrip(self.client)
        self.queue_strip.setMaximumWidth(COMPOSER_WIDTH)
        self.queue_strip.resumeRequested.connect(self.resume_queue)
        self.queue_strip.failed.connect(self.show_host_error)
        composer_column = QVBoxLayout()
        composer_column.setSpacing(0)
        composer_column.addWidget(self.queue_strip)
        composer_column.addWidget(self.composer)
        composer_row = QHBoxLayout()
        composer_row.setContentsMargins(24, 0, 24, 0)
        composer_row.addStretch(1)
        composer_row.addLayout(composer_column, 100)
        composer_row.addStretch(1)
        self.composer.setMaximumWidth(COMPOSER_WIDTH)

        layout = QVBoxLayout(area)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        banner_holder = QVBoxLayout()
        banner_holder.setContentsMargins(24, 12, 24, 0)
        banner_holder.addWidget(self.banner)
        layout.addLayout(banner_holder)
        layout.addWidget(self.pages, 1)
        layout.addLayout(composer_row)
        self.inbox = InboxPanel(self.client, self.theme, area)
        self.inbox.openSession.connect(self._open_from_inbox)
        self.inbox.model.unreadChanged.connect(self._unread_changed)
        return area

    def _build_actions(self) -> None:
        self.new_chat_action = QAction(self.tr("New chat"), self)
        self.new_chat_action.setShortcut(QKeySequence.StandardKey.New)
        self.new_chat_action.triggered.connect(lambda: spawn(self.create_session()))
        self.toggle_sidebar_action = QAction(self.tr("Toggle sidebar"), self)
        self.toggle_sidebar_action.setShortcut(QKeySequence("Ctrl+B"))
        self.toggle_sidebar_action.triggered.connect(lambda: self.sidebar.setVisible(not self.sidebar.isVisible()))
        self.quit_action = QAction(self.tr("Quit"), self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.triggered.connect(self.close)
        self.search_action = QAction(self.tr("Search chats"), self)
        self.search_action.setShortcut(QKeySequence("Ctrl+K"))
        self.search_action.triggered.connect(self.open_search)
        self.inbox_action = QAction(self.tr("Inbox"), self)
        self.inbox_action.setShortcut(QKeySequence("Ctrl+Shift+I"))
        self.inbox_action.triggered.connect(self.toggle_inbox)
        self.settings_action = QAction(self.tr("Settings…"), self)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.settings_action.triggered.connect(self.open_settings)
        self.stop_action = QAction(self.tr("Stop reply"), self)
        self.stop_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self.stop_action.triggered.connect(self.stop_reply)
        self.new_chat_action.setToolTip(self.tr("New chat (Ctrl+N)"))
        for action in (self.new_chat_action, self.toggle_sidebar_action, self.quit_action, self.search_action,
                       self.inbox_action, self.settings_action, self.stop_action):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(action)

    # -- host work -------------------------------------------------------------
    async def start(self) -> None:
        """Phase two of start-up: ask the host for the session list."""
        try:
            await self.client.call("app.handshake", {"protocolVersion": 1})
            await self.load_sessions()
            await self.apply_settings((await self.client.call("settings.get", {}))["settings"])
            await self.inbox.refresh()
            await self.refresh_model_chip()
        except HostError as exc:
            self.show_host_error(exc)
        finally:
            self.ready.emit()

    async def load_sessions(self) -> None:
        """The newest chats at once, the rest a page at a time (no single long stall)."""
        page = await self.client.call("session.list", {"limit": FIRST_PAGE})
        self.model.reset(page["sessions"])
        self._refresh_empty_state()
        cursor = page["nextCursor"]
        while cursor:
            page = await self.client.call("session.list", {"limit": PAGE_SIZE, "cursor": cursor})
            self.model.extend(page["sessions"])
            cursor = page["nextCursor"]
            await asyncio.sleep(0)  # let the window paint between pages

    async def create_session(self) -> str | None:
        self.new_chat_action.setEnabled(False)
        self.sidebar.new_chat_button.setEnabled(False)
        try:
            params = {k: v for k, v in self.pending_changes.items() if v}
            self.pending_changes = {}
            result = await self.client.call("session.create", params)
        except HostError as exc:
            self.show_host_error(exc)
            return None
        finally:
            self.new_chat_action.setEnabled(True)
            self.sidebar.new_chat_button.setEnabled(True)
        session = result["session"]
        self.model.upsert(session)
        self.sidebar.select(session["id"])
        return session["id"]

    async def rename_session(self, session_id: str, title: str) -> None:
        try:
            result = await self.client.call("session.rename", {"sessionId": session_id, "title": title})
        except HostError as exc:
            self.show_host_error(exc)
            return
        self.model.upsert(result["session"])

    async def delete_session(self, session_id: str) -> None:
        try:
            await self.client.call("session.delete", {"sessionId": session_id})
        except HostError as exc:
            self.show_host_error(exc)
            return
        self._forget(session_id)

    def confirm_delete(self, session_id: str) -> None:
        """Ask first; the dialog is window-modal and opened with ``open()``, not ``exec()``."""
        found = self.model.find(session_id)
        if found is None:
            return
        group, row = found
        title = display_title(group.sessions[row])
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Delete chat"),
                          self.tr("Delete “%1”?").replace("%1", title), QMessageBox.StandardButton.Cancel, self)
        box.setInformativeText(self.tr("Its messages and files are removed from this computer. "
                                       "This cannot be undone."))
        delete_button = box.addButton(self.tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def finished(_result: int) -> None:
            self.confirm_box = None
            if box.clickedButton() is delete_button:
                spawn(self.delete_session(session_id))

        box.finished.connect(finished)
        self.confirm_box = box
        box.open()

    # -- events and view state --------------------------------------------------
    def _on_event(self, topic: str, payload: dict) -> None:
        self.inbox.handle_event(topic, payload)
        self.queue_strip.handle_event(topic, payload)
        if topic == "notification.created":
            self._announce(payload["notification"])
        if topic in ("providers.changed", "models.changed"):
            spawn(self.refresh_model_chip(), name="model-chip")
        if topic != "session.changed":
            return
        session_id = payload["sessionId"]
        reason = payload.get("reason")
        if reason == "deleted":
            self._forget(session_id)
            return
        if "session" in payload:
            self.model.upsert(payload["session"])
        if session_id != self.current_session_id:
            return
        if "session" in payload:
            self._show_session(payload["session"])
        if self.transcript_model.session_id != session_id:
            return
        if reason == "message":
            spawn(self._show_new_message(payload["messageId"]), name="transcript-tail")
        elif reason in ("history", "revision") and not (self.runner is not None and self.runner.is_running(session_id)):
            spawn(self.open_transcript(session_id), name="transcript-reload")
        self._refresh_empty_state()

    async def _show_new_message(self, message_id: str) -> None:
        model = self.transcript_model
        if model.row_of(message_id) >= 0 and not model.rows[model.row_of(message_id)]["live"]:
            await model.refresh_message(message_id)
        elif not model.has_more_after:
            await model.load_newer("tail")

    # -- chatting ------------------------------------------------------------------
    async def send_prompt(self, text: str, attachments: list[dict] | None = None) -> None:
        if self.runner is None:
            return
        session_id = self.current_session_id or await self.create_session()
        if session_id is None:
            return
        if self.transcript_model.session_id != session_id:
            await self.open_transcript(session_id)
        editing, self.editing = self.editing, None
        self.composer.set_editing(None)
        self.composer.set_running(True)
        try:
            if editing is not None:  # edit and resend: cut from the old prompt, keep it as a revision
                await self.client.call("session.truncateFrom", {"sessionId": session_id, "messageId": editing["id"]})
                family = (editing.get("meta") or {}).get("revisionRootId") or editing["id"]
                result = await self.runner.send(session_id, text, attachments=attachments, revision_root_id=family)
            else:
                result = await self.runner.send(session_id, text, attachments=attachments)
        except HostError as exc:
            self.show_host_error(exc)
            result = None
        finally:
            if session_id == self.current_session_id:
                self.composer.set_running(self.runner.is_running(session_id))
        if result and result.get("error"):
            error = result["error"]
            self._announce_error(HostError(error["code"], error["message"]))

    def _message_action(self, action: str, message_id: str) -> None:
        spawn(self.message_action(action, message_id), name=f"message-{action}")

    async def message_action(self, action: str, message_id: str) -> None:
        """Copy, edit, regenerate, fork, delete, or page revisions of one message."""
        session_id = self.current_session_id
        if session_id is None:
            return
        try:
            message = await self._full_message(session_id, message_id)
            if action == "copy":
                text = "\n\n".join(b.get("text", "") for b in message.get("blocks", []) if b.get("type") == "text")
                QApplication.clipboard().setText(text)
                self.statusBar().showMessage(self.tr("Copied to the clipboard"), 3000)
            elif action == "edit":
                self.editing = message
                blocks = message["blocks"]
                self.composer.set_editing("".join(b.get("text", "") for b in blocks if b.get("type") == "text"),
                                          [b for b in blocks if b.get("type") == "attachment"])
            elif action == "regenerate" and self.runner is not None:
                self.composer.set_running(True)
                try:
                    await self.runner.regenerate(session_id, message_id)
                finally:
                    self.composer.set_running(False)
                await self.open_transcript(session_id)
            elif action == "show-full":
                self.transcript_model.show_full(message)
            elif action == "fork":
                forked = await self.client.call("session.fork", {"sessionId": session_id,
                                                                 "throughMessageId": message_id})
                self.model.upsert(forked["session"])
                self.sidebar.select(forked["session"]["id"])
            elif action == "delete":
                self.confirm_delete_message(session_id, message_id)
            elif action in ("revision-prev", "revision-next"):
                meta = message.get("meta") or {}
                step = -1 if action == "revision-prev" else 1
                await self.client.call("session.activateRevision", {
                    "sessionId": session_id, "rootUserId": meta.get("revisionRootId") or message_id,
                    "revisionIndex": meta["activeRevision"] + step})
                await self.open_transcript(session_id)
        except HostError as exc:
            self.show_host_error(exc)

    async def fork_session(self, session_id: str) -> None:
        """A copy of the whole chat as a new one, opened at once."""
        try:
            forked = await self.client.call("session.fork", {"sessionId": session_id})
        except HostError as exc:
            self.show_host_error(exc)
            return
        self.model.upsert(forked["session"])
        self.sidebar.select(forked["session"]["id"])

    async def _full_message(self, session_id: str, message_id: str) -> dict:
        """The stored message, uncapped (the view may hold a capped projection)."""
        window = await self.client.call("session.get", {"sessionId": session_id, "messageAround": message_id,
                                                        "messageLimit": 1})
        return window["messages"][0]

    def confirm_delete_message(self, session_id: str, message_id: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Delete message"), self.tr("Delete this message?"),
                          QMessageBox.StandardButton.Cancel, self)
        box.setInformativeText(self.tr("It is removed from the conversation. "
                                       "A reply it started is kept as a revision."))
        delete_button = box.addButton(self.tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)

        def finished(_result: int) -> None:
            self.confirm_box = None
            if box.clickedButton() is delete_button:
                spawn(self._delete_message(session_id, message_id), name="delete-message")

        box.finished.connect(finished)
        self.confirm_box = box
        box.open()

    async def _delete_message(self, session_id: str, message_id: str) -> None:
        try:
            full = await self.client.call("session.get", {"sessionId": session_id})
            kept = [{k: v for k, v in m.items() if k not in ("seq", "index")}
                    for m in full["messages"] if m["id"] != message_id]
            await self.client.call("session.replaceMessages", {"sessionId": session_id, "messages": kept})
        except HostError as exc:
            self.show_host_error(exc)

    def stop_reply(self) -> None:
        if self.runner is not None and self.current_session_id:
            self.runner.stop(self.current_session_id)

    def _on_turn(self, session_id: str, phase: str, message: dict | None) -> None:
        if session_id != self.current_session_id:
            return
        if phase in ("started", "delta") and message is not None:
            self.transcript_model.set_live(message)
            self.composer.set_running(True)
            self.queue_strip.set_running(True)
        elif phase == "finished" and message is None:
            self.transcript_model.drop_live()  # nothing was stored: the partial row goes
        elif phase == "finished":
            self.transcript_model.settle_live()
        elif phase == "idle":
            self.composer.set_running(False)
            self.queue_strip.set_running(False)

    # -- inbox, search, settings -------------------------------------------------------
    def toggle_inbox(self) -> None:
        if self.inbox.isVisible():
            self.inbox.dismiss()
        else:
            self.inbox.slide_in()

    def _open_from_inbox(self, session_id: str) -> None:
        self.sidebar.select(session_id)
        self.inbox.dismiss()

    def _unread_changed(self, count: int) -> None:
        self.bell.set_count(count)
        self.sidebar.delegate.unread = {row["sessionId"] for row in self.inbox.model.rows if row["readAt"] is None}
        self.sidebar.tree.viewport().update()

    def _announce(self, notification: dict) -> None:
        """A system tray message when the window is not in front (UX: tell what finished)."""
        if self.isActiveWindow() or not QSystemTrayIcon.isSystemTrayAvailable():
            return
        if self.tray is None:
            self.tray = QSystemTrayIcon(app_icon(), self)
            self.tray.messageClicked.connect(self._raise_window)
            self.tray.show()
        title = notification.get("sessionTitle") or self.tr("Untitled task")
        failed = notification["kind"] == "task.failed"
        self.tray_session_id = notification["sessionId"]
        self.tray.showMessage(self.tr("Task failed") if failed else self.tr("Task finished"), title,
                              QSystemTrayIcon.MessageIcon.Warning if failed else QSystemTrayIcon.MessageIcon.Information)

    def _raise_window(self) -> None:
        self.showNormal()
        self.raise_()
        self.activateWindow()
        if self.tray_session_id:
            self.sidebar.select(self.tray_session_id)

    def open_search(self) -> None:
        if self.search_dialog is None:
            self.search_dialog = SearchDialog.ask(self.client, self.theme, self)
            self.search_dialog.chosen.connect(self._open_search_hit)
        self.search_dialog.open()

    def _open_search_hit(self, session_id: str, message_id: str) -> None:
        self.sidebar.select(session_id)
        if message_id:
            spawn(self.open_transcript(session_id, around=message_id), name="open-search-hit")

    def open_settings(self) -> None:
        if self.settings_dialog is not None:
            self.settings_dialog.raise_()
            return
        dialog = SettingsDialog.ask(self.client, self.theme, self)
        dialog.destroyed.connect(lambda: setattr(self, "settings_dialog", None))
        dialog.settingsChanged.connect(lambda settings: spawn(self.apply_settings(settings), name="apply-settings"))
        dialog.providersChanged.connect(lambda: spawn(self.refresh_model_chip(), name="model-chip"))
        self.settings_dialog = dialog
        dialog.open()

    async def apply_settings(self, settings: dict) -> None:
        """Theme and display settings take effect at once; the language at the next start."""
        self.settings = settings
        self._remember_language(settings.get("language"))
        theme = themes.pick(self.forced_theme or settings.get("theme"))
        if theme != self.theme:
            self.set_theme(theme)
        self.transcript.set_show_thinking(bool(settings.get("showThinking", True)))
        self.transcript.set_display_mode(settings.get("transcriptDisplayMode"))
        threshold = settings.get("largePasteThreshold")
        if isinstance(threshold, int) and threshold > 0:
            self.composer.edit.paste_threshold = threshold

    def set_theme(self, theme: themes.Theme) -> None:
        self.theme = theme
        app = QApplication.instance()
        if app is not None:
            themes.apply(app, theme)
        self.sidebar.set_theme(theme)
        self.transcript.set_theme(theme)
        self.inbox.set_theme(theme)
        self.bell.set_theme(theme)
        if self.search_dialog is not None:
            self.search_dialog.set_theme(theme)
        if self.settings_dialog is not None:
            self.settings_dialog.apply_theme(theme)

    async def refresh_model_chip(self) -> None:
        try:
            listed = await self.client.call("providers.list", {})
        except HostError:
            return
        provider_id = listed.get("defaultProviderId")
        if provider_id in (None, "offline"):
            self.model_chip.setText(self.tr("Offline demo (no AI)"))
        else:
            name = next((p["name"] for p in listed["providers"] if p["id"] == provider_id), provider_id)
            model = listed.get("defaultModelId")
            self.model_chip.setText(f"{name} · {model}" if model else name)
        await self._fill_model_picker(listed)

    async def _fill_model_picker(self, listed: dict) -> None:
        """Every enabled provider's known models, for the composer's model picker."""
        try:
            models = (await self.client.call("models.list", {}))["models"]
        except HostError:
            models = []
        names = {p["id"]: p["name"] for p in listed["providers"] if p.get("enabled", True)}
        choices = [(m["providerId"], m["modelId"], f"{names[m['providerId']]} · {m['displayName'] or m['modelId']}")
                   for m in models if m["providerId"] in names]
        for provider in listed["providers"]:  # a default model typed in Settings may not be in the catalog
            key = (provider["id"], provider.get("defaultModelId"))
            if provider["id"] in names and key[1] and key not in {(c[0], c[1]) for c in choices}:
                choices.append((key[0], key[1], f"{provider['name']} · {key[1]}"))
        self.composer.set_models(choices, self.model_chip.text())

    def _open_session(self, session_id: str) -> None:
        found = self.model.find(session_id)
        if found is None:
            return
        group, row = found
        changed = self.current_session_id != session_id
        self.current_session_id = session_id
        self._show_session(group.sessions[row])
        if changed:
            spawn(self.open_transcript(session_id), name="open-transcript")

    async def set_model(self, provider_id: str, model_id: str) -> None:
        """The model picked in the composer for this chat; "" goes back to the default model."""
        await self._change_session({"providerId": provider_id or None, "modelId": model_id or None})

    async def set_thinking(self, level: str) -> None:
        """The thinking level picked in the composer, stored on the chat for its next turns."""
        await self._change_session({"thinkingLevel": level})

    async def set_mode(self, mode: str) -> None:
        """Agent, Plan or Goal, picked in the composer, stored on the chat for its next turns."""
        await self._change_session({"mode": mode})

    async def _change_session(self, params: dict) -> None:
        if self.current_session_id is None:
            self.pending_changes.update(params)  # applied to the chat the next prompt creates
            return
        try:
            await self.client.call("session.update", {"sessionId": self.current_session_id, **params})
        except HostError as exc:
            self.show_host_error(exc)

    def _show_session(self, session: dict) -> None:
        self.composer.set_thinking(session.get("thinkingLevel", "off"))
        self.composer.set_mode(session.get("mode", "agent"))
        self.composer.show_model(session.get("providerId"), session.get("modelId"))
        self.header_title.setText(display_title(session))
        self.pages.setCurrentWidget(self.session_page)

    async def open_transcript(self, session_id: str, around: str | None = None) -> None:
        try:
            await self.transcript_model.open(session_id, around)
        except HostError as exc:
            self.show_host_error(exc)
            return
        running = self.runner is not None and self.runner.is_running(session_id)
        self.composer.set_running(running)
        self.queue_strip.set_running(running)
        await self.queue_strip.show_session(session_id)

    async def _resume_queue(self, session_id: str) -> None:
        if self.runner is not None:
            await self.runner.resume(session_id)

    def resume_queue(self) -> None:
        """Send the prompts that waited through a restart, one turn at a time."""
        if self.current_session_id:
            spawn(self._resume_queue(self.current_session_id), name="resume-queue")

    def _forget(self, session_id: str) -> None:
        self.model.remove(session_id)
        self.prefs.forget_session(session_id)
        if self.current_session_id == session_id:
            self.current_session_id = None
            self.header_title.setText("")
            self.transcript_model.clear()
            self.sidebar.tree.setCurrentIndex(QModelIndex())
        self._refresh_empty_state()

    def _refresh_empty_state(self) -> None:
        if self.current_session_id is None:
            self.pages.setCurrentWidget(self.empty_page)

    def show_host_error(self, error: HostError) -> None:
        self.host_error = error
        log.warning("host error shown: %s", error)
        if error.code in ("STORAGE_UNAVAILABLE", "SCHEMA_INCOMPATIBLE"):
            self.banner.setProperty("severity", "error")
            heading = _escape(self.tr("Your data can’t be opened."))
            self.banner_text.setText(f"<b>{heading}</b><br>{_escape(error.message)}")
            self.banner.show()
            self.new_chat_action.setEnabled(False)
            self.sidebar.new_chat_button.setEnabled(False)
        self._announce_error(error, f"{error.code}: {error.message}")

    def _announce_error(self, error: HostError, line: str | None = None) -> None:
        """One line in the status bar for a while; the whole error stays behind "Details"."""
        self.error_log.add(error)
        self.statusBar().showMessage(line or error.message, 15000)
        self.details_button.show()

    def open_error_details(self) -> None:
        self.details_button.hide()
        self.error_dialog = ErrorDetailsDialog(self.error_log, self)
        self.error_dialog.open()

    def _restore_window_state(self) -> None:
        state = self.prefs.data["window"]
        geometry = state.get("geometry")
        if isinstance(geometry, str):
            try:
                self.restoreGeometry(QByteArray.fromBase64(geometry.encode()))
            except (TypeError, ValueError):
                pass
        sizes = state.get("splitter")
        if isinstance(sizes, list) and len(sizes) == 2 and all(isinstance(n, int) and n >= 0 for n in sizes):
            self.splitter.setSizes(sizes)
        if state.get("sidebarHidden") == 1:
            self.sidebar.hide()

    def _save_window_state(self) -> None:
        language = self.prefs.data["window"].get("language")
        self.prefs.data["window"] = {
            "geometry": bytes(self.saveGeometry().toBase64()).decode(),
            "splitter": self.splitter.sizes(),
            "sidebarHidden": int(self.sidebar.isHidden()),
            **({"language": language} if isinstance(language, str) else {}),
        }
        self.prefs.save()

    def _remember_language(self, language) -> None:
        """Keep the language setting where start-up can read it before the host answers."""
        if not isinstance(language, str) or self.prefs.data["window"].get("language") == language:
            return
        self.prefs.data["window"]["language"] = language
        self.prefs.save()

    # -- files dropped anywhere on the window go to the composer ---------------------
    def dragEnterEvent(self, event) -> None:
        if local_files(event.mimeData()) or event.mimeData().hasImage():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        self.composer.dropEvent(event)

    def closeEvent(self, event) -> None:
        self._save_window_state()
        self._unsubscribe()
        super().closeEvent(event)


def _centered_message(title: str, hint: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.addStretch(1)
    heading = QLabel(title)
    heading.setObjectName("emptyTitle")
    heading.setAlignment(Qt.AlignmentFlag.AlignCenter)
    detail = QLabel(hint)
    detail.setObjectName("emptyHint")
    detail.setAlignment(Qt.AlignmentFlag.AlignCenter)
    detail.setWordWrap(True)
    layout.addWidget(heading)
    layout.addSpacing(8)
    layout.addWidget(detail)
    layout.addStretch(2)
    return page


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
