"""Which chat the window shows, and showing it: the sidebar's pick, the header, the transcript, Stop.

A chat is opened from its sidebar row, or by itself when the list leaves it out (an automation's run chat:
the Automations page, search, the inbox and the tray open it). What a person does to a chat lives in
``chat_controller``; this part only shows one. The window (``main_window``) keeps the chat shown as
``current_session_id``, which every controller reads.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from pidesktop.ui.kit.resources import APP_NAME
from pidesktop.ui.kit.session_rows import display_title, is_native_id

if TYPE_CHECKING:
    from PySide6.QtCore import QModelIndex

    from pidesktop.bus import HostError
    from pidesktop.ui.window.main_window import MainWindow

log = logging.getLogger("pidesktop.ui")


class ChatView(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window

    def open_chat(self, session_id: str, around: str | None = None, find: str = "") -> None:
        """Show a chat: its sidebar row when it has one, else by itself (an automation's run chat, which the
        list leaves out: the Automations page, search, the inbox and the tray open it). ``around``: the
        message to show (a search hit), ``find``: the words it was found by, scrolled to."""
        from pidesktop.ui.kit.ops import task_op
        from pidesktop.ui.kit.tasks import spawn

        w = self.window
        if w.model.session(session_id) is not None:
            w.sidebar.select(session_id)
            if around:
                spawn(self.open_transcript(session_id, around=around, find=find), name="open-search-hit")
            return

        async def fetch() -> dict:
            return (await w.client.call("session.get", {"sessionId": session_id, "messageLimit": 1}))["session"]

        def show(session: dict) -> None:
            w.sidebar.select_none()  # no row of the list is the chat shown
            self.open_summary(session)
            if around:
                spawn(self.open_transcript(session_id, around=around, find=find), name="open-search-hit")

        task_op(fetch, parent=w, name="open-chat", success=show).run()

    def open_session(self, session_id: str) -> None:
        session = self.window.model.session(session_id)
        if session is not None:
            self.open_summary(session)

    def open_summary(self, session: dict) -> None:
        from pidesktop.ui.kit.tasks import spawn

        w = self.window
        session_id = session["id"]
        changed = w.current_session_id != session_id
        if changed:
            w.chats.switch_to(session_id)
            self.show_running(session_id)  # Stop belongs to the chat shown, even while its transcript loads
            w.file_changes.show_session(session_id)
        self.show_session(session)
        if changed:
            spawn(self.open_transcript(session_id), name="open-transcript")
        self.mark_read(session_id)

    def session_clicked(self, index: QModelIndex) -> None:
        """A chat picked with the mouse or Enter: the cursor goes to the composer (arrow keys stay in the list)."""
        w = self.window
        if w.model.session_at(index) is not None:
            w.composer.focus_prompt()

    def show_no_session(self) -> None:
        from pidesktop.ui.kit.tasks import spawn

        w = self.window
        w.header_title.setText("")
        w.header_title.set_editable(False)
        w.file_changes.show_session(None)
        w.setWindowTitle(APP_NAME)
        w.projects.no_session_shown()
        w.context_meter.hide()
        spawn(w.plans.show_session(None), name="plan-area")
        w.permission_card.show_session(None)
        w.composer.set_running(False)  # a reply running in the chat shown before is not this page's to stop
        w.queue_strip.set_running(False)
        w.transcript_model.clear()
        w.chats.show_pending_choices()
        w.pages.setCurrentWidget(w.empty_page)

    def show_choices(self, chat: dict) -> None:
        """The composer's chips as ``chat`` has them: the chat shown, or what the next prompt's chat will get."""
        w = self.window
        w.composer.set_thinking(chat.get("thinkingLevel") or "off")
        w.composer.set_mode(chat.get("mode") or "agent")
        w.composer.set_permission(chat.get("permissionMode"))
        w.composer.show_model(chat.get("providerId"), chat.get("modelId"))
        if w.composer.mcp_chip is not None:
            w.composer.mcp_chip.show_for(chat)
        if w.composer.grants_chip is not None:
            w.composer.grants_chip.show_for(chat)

    def show_session(self, session: dict) -> None:
        w = self.window
        self.show_choices(session)
        w.header_title.setText(display_title(session))
        w.header_title.set_editable(not is_native_id(session["id"]))  # pi's own sessions are read in place
        w.setWindowTitle(f"{display_title(session)} — {APP_NAME}")  # the task bar names the chat too
        w.projects.session_shown(session)
        w.native.show(session)
        # a chat nobody has written in yet looks like the first start
        w.pages.setCurrentWidget(w.session_page if session.get("messageCount") else w.empty_page)

    async def open_transcript(self, session_id: str, around: str | None = None, find: str = "") -> None:
        from pidesktop.ui.kit.ops import task_op

        w = self.window

        async def open_it() -> bool:
            await w.transcript_model.open(session_id, around, find=find)
            return True

        if not await task_op(open_it, parent=w, name="open-transcript"):
            return
        if session_id != w.current_session_id:  # another chat was picked meanwhile: it shows its own
            return
        self.show_running(session_id)
        self.refresh_context_meter(session_id)
        await w.queue_strip.show_session(None if is_native_id(session_id) else session_id)  # pi has no queue
        if session_id != w.current_session_id:
            return
        w.permission_card.show_session(session_id)
        await w.plans.show_session(None if is_native_id(session_id) else session_id)

    async def show_new_message(self, message_id: str) -> None:
        model = self.window.transcript_model
        if model.row_of(message_id) >= 0 and not model.rows[model.row_of(message_id)]["live"]:
            await model.refresh_message(message_id)
        elif not model.has_more_after:
            await model.load_newer("tail")

    def show_running(self, session_id: str) -> None:
        """The composer offers Stop, and the queue strip waits, while ``session_id`` has a reply being written."""
        w = self.window
        running = (
            w.runner is not None and w.runner.is_running(session_id)
        ) or session_id in w.native.continuing  # a pi session's answer being written
        w.composer.set_running(running)
        w.queue_strip.set_running(running)

    def refresh_context_meter(self, session_id: str | None = None) -> None:
        """Ask the runner how full the chat's context is; the header's meter shows it."""
        import asyncio

        from pidesktop.ui.kit.ops import task_op

        w = self.window
        session_id = session_id or w.current_session_id
        usage = getattr(w.runner, "context_usage", None)
        if session_id is None or usage is None:
            w.context_meter.hide()
            return

        async def measure() -> dict:
            result = usage(session_id)
            return await result if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future) else result

        def show(result: dict) -> None:
            if session_id == w.current_session_id:
                self.show_context_usage(result)

        def unknown(error: HostError) -> None:
            log.info("context usage of %s unknown: %s", session_id, error)
            if session_id == w.current_session_id:
                w.context_meter.hide()

        task_op(measure, parent=w, name="context-usage", success=show, failure=unknown).run()

    def show_context_usage(self, usage: dict | None) -> None:
        """``{"tokens", "window"}``: "12.3k / 32k" in the header, amber from 80 %."""
        self.window.conversation.header.show_context_usage(usage)

    def mark_read(self, session_id: str | None) -> None:
        """Reading a chat (shown, window active) reads its notifications."""
        from pidesktop.ui.kit.ops import host_op

        w = self.window
        if session_id is None or not w.isActiveWindow() or session_id not in w.sidebar.delegate.unread:
            return
        host_op(w.client, "notifications.markAllRead", {"sessionId": session_id}, parent=w).run()

    def forget(self, session_id: str) -> None:
        w = self.window
        w.model.remove(session_id)
        w.prefs.forget_session(session_id)
        w.chats.drafts.pop(session_id, None)
        if w.current_session_id == session_id:
            w.chats.switch_to(None)
            self.show_no_session()
            w.sidebar.select_none()
        w.chats.parked_edits.pop(session_id, None)  # after the switch, which parks an edit in progress
        self.refresh_empty_state()

    def refresh_empty_state(self) -> None:
        w = self.window
        if w.current_session_id is None:
            w.pages.setCurrentWidget(w.empty_page)
