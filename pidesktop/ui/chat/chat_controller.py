"""What a person does to chats and their messages, and what a running reply shows.

The main window is the shell; this controller is the chat logic behind it:
new chat, rename, delete, fork, sending (with edit-and-resend), the per-message
actions of the transcript, per-chat drafts, and the turn runner's progress.
Every host call is an operation (``ops``); mutations are applied from the
host's ``session.changed`` event, so a reply is used only for what the event
does not say (which chat to select).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from shiboken6 import isValid

from pidesktop.agent import context as budget
from pidesktop.bus import HostError
from pidesktop.ui.chat import too_long
from pidesktop.ui.chat.reply_edit_dialog import ReplyEditDialog
from pidesktop.ui.chat.saved_drafts import SavedDrafts
from pidesktop.ui.kit.dialog_style import style_message_box
from pidesktop.ui.kit.ops import host_op, report, task_op
from pidesktop.ui.kit.session_rows import display_title, is_blank, is_native_id
from pidesktop.ui.kit.tasks import spawn

if TYPE_CHECKING:
    from pidesktop.ui.window.main_window import MainWindow

Draft = tuple[str, list[dict]]
# Message actions after which the keyboard goes back to the composer (edit puts it there itself; fork and delete
# open a chat or a question that take it).
KEYBOARD_BACK_TO_COMPOSER = ("copy", "regenerate", "show-full", "revision-prev", "revision-next")
MCP_NOTE_MS = 15_000  # how long the sentence about a failed MCP server stays
DRAFTS_SAVE_MS = 1_000  # unsent text reaches its file this long after the last change (a crash loses no more)


@dataclass
class Editing:
    """An earlier prompt being edited for a resend, in one chat."""

    session_id: str
    message: dict
    before: Draft = field(default=("", []))  # what the composer held when the edit began
    typed: Draft = field(default=("", []))  # the edited text, kept while its chat is not shown


def joined(first: Draft, second: Draft) -> Draft:
    """Two drafts as one, nothing dropped."""
    texts = [text for text in (first[0], second[0]) if text.strip()]
    return "\n\n".join(texts), [*first[1], *second[1]]


class ChatController(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.client = window.client
        self.runner = window.runner
        self.editing: Editing | None = None
        self.drafts: dict[str | None, Draft] = {}  # per chat, kept while the window is open
        self.carry_new_chat_draft_to: str | None = None  # the chat a send from the new-chat composer is making
        self.parked_edits: dict[str, Editing] = {}  # an edit left behind in its chat, taken up on coming back
        self.pending_changes: dict = {}  # model, thinking or mode picked before the chat exists
        self.confirm_box: QMessageBox | None = None
        self.too_long_box: QMessageBox | None = None  # a prompt that does not fit: compact, trim or edit
        self.reply_dialog: ReplyEditDialog | None = None  # Edit on an assistant reply
        self._reload_when_idle: set[str] = set()
        if self.runner is not None:
            self.runner.listeners.append(self.on_turn)
        prefs_path = window.prefs.path
        self.saved_drafts = SavedDrafts(prefs_path.parent if prefs_path is not None else None)
        self._save_drafts_soon = QTimer(self)
        self._save_drafts_soon.setSingleShot(True)
        self._save_drafts_soon.setInterval(DRAFTS_SAVE_MS)
        self._save_drafts_soon.timeout.connect(self.save_drafts)
        window.composer.edit.textChanged.connect(self._save_drafts_soon.start)

    # -- unsent text, kept across a quit ---------------------------------------------------
    def restore_saved_drafts(self) -> None:
        """The drafts the window closed with: each chat's waits for it, the new chat's is in the box (before
        anything typed while the window was being built)."""
        saved = self.saved_drafts.load()
        new_chat = saved.pop(None, "")
        for session_id, text in saved.items():
            self.drafts[session_id] = joined((text, []), self.drafts.get(session_id, ("", [])))
        if new_chat and self.window.current_session_id is None:
            typed = self.window.composer.take_draft()
            self.window.composer.put_draft(*joined((new_chat, []), typed))
        elif new_chat:
            self.drafts[None] = joined((new_chat, []), self.drafts.get(None, ("", [])))

    def unsent_texts(self) -> dict[str | None, str]:
        """Every chat's unsent text as it stands: kept drafts, the box, and edits left in their chats."""
        texts = {session_id: draft[0] for session_id, draft in self.drafts.items()}
        shown: Draft = (self.window.composer.edit.toPlainText(), [])
        if self.editing is not None:  # the chat's own draft waits behind the edit; neither is lost
            shown = joined(self.editing.before, shown)
        current = self.window.current_session_id
        texts[current] = joined((texts.get(current, ""), []), shown)[0]
        for session_id, parked in self.parked_edits.items():  # its chat's own draft is already in ``drafts``
            texts[session_id] = joined((texts.get(session_id, ""), []), parked.typed)[0]
        return texts

    def save_drafts(self) -> None:
        self._save_drafts_soon.stop()
        if not isValid(self.window.composer.edit):  # its widgets already gone (a close after Qt deleted them)
            return  # the file keeps what the last change wrote; reading the box now would read freed memory
        self.saved_drafts.save(self.unsent_texts())

    # -- chats ---------------------------------------------------------------------
    def new_chat(self) -> None:
        """Ctrl+N: reuse a blank chat if there is one; otherwise the empty page, the chat is made on send."""
        w = self.window
        blank = next((s for s in w.model.shown_sessions() if is_blank(s)), None)
        if blank is not None:
            w.sidebar.select(blank["id"])
        else:
            w.sidebar.select_none()
            self.switch_to(None)
            w.chat_view.show_no_session()
        w.composer.focus_prompt()

    async def create_session(self) -> str | None:
        params = {k: v for k, v in self.pending_changes.items() if v}
        result = await host_op(
            self.client,
            "session.create",
            params,
            parent=self.window,
            busy=(self.window.new_chat_action, self.window.sidebar.new_chat_button),
        )
        if result is None:
            return None
        self.pending_changes = {}
        session_id = result["session"]["id"]
        if self.window.current_session_id is None:  # typed on after Enter: it goes on in the chat the send made
            self.carry_new_chat_draft_to = session_id
        self.window.sidebar.select(session_id)  # the row is there: the event came before the reply
        if self.window.current_session_id != session_id:  # its row was already current, or not laid out yet
            self.window.chat_view.open_summary(self.window.model.session(session_id) or result["session"])
        return session_id

    def rename(self, session_id: str, title: str) -> None:
        host_op(self.client, "session.rename", {"sessionId": session_id, "title": title}, parent=self.window).run()

    def confirm_delete(self, session_id: str) -> None:
        """Ask first; the box is window-modal and opened with ``open()``, not ``exec()``."""
        session = self.window.model.session(session_id)
        if session is None:
            return
        # every chat goes to the Trash first
        detail = self.tr("It moves to the Trash (in the ⋯ menu), where you can restore it or delete it for good.")
        self._confirm(
            self.tr("Delete chat"),
            self.tr("Delete “%1”?").replace("%1", display_title(session)),
            detail,
            lambda: host_op(self.client, "session.delete", {"sessionId": session_id}, parent=self.window).run(),
        )

    def fork(self, session_id: str, through_message_id: str | None = None) -> None:
        """A copy of the chat (up to a message) as a new one, opened at once."""
        params = {"sessionId": session_id}
        if is_native_id(session_id):
            params.update(self.window.native.fork_params(session_id))  # the pi branch on screen
        if through_message_id:
            params["throughMessageId"] = through_message_id
        host_op(self.client, "session.fork", params, parent=self.window, success=self._open_fork).run()

    def _open_fork(self, result: dict) -> None:
        """Select the new chat; a pi fork's row comes with the reply, before the file watcher tells."""
        if self.window.model.session(result["session"]["id"]) is None:
            self.window.model.upsert(result["session"])
        self.window.sidebar.select(result["session"]["id"])

    def compact(self, session_id: str | None) -> Awaitable[None] | None:
        """Compact now: the runner summarises the earlier messages; the divider shows where (a started task)."""
        if session_id is None or self.runner is None or not hasattr(self.runner, "compact"):
            return None
        return spawn(self._compact(session_id), name="compact")

    async def _compact(self, session_id: str) -> None:
        w = self.window
        busy = (w.compact_action, w.sidebar.compact_action)
        if session_id == w.current_session_id:
            w.composer.show_status(self.tr("Summarising earlier messages…"))

        def refused(error: HostError) -> None:
            if isinstance(error.data, dict) and error.data.get("nothingToCompact"):  # not a failure: said plainly
                w.show_note(self.tr("Nothing to compact yet: this chat is still short enough to keep whole."))
            else:
                report(w, error)

        result = await task_op(
            lambda: self.runner.compact(session_id), parent=w, name="compact", busy=busy, failure=refused
        )
        if session_id != w.current_session_id:
            return
        w.composer.show_status("")
        if result is not None:
            w.show_note(self.tr("Earlier messages summarised"))
            await w.chat_view.open_transcript(session_id)

    def show_pending_choices(self) -> None:
        """The empty page's chips show what the next chat will be made with: what was picked there, else the
        defaults. Not the chat shown before: its Plan mode or its "Allow edits" would be shown and not applied."""
        w = self.window
        project = w.projects.by_path(self.pending_changes.get("projectPath"))
        w.chat_view.show_choices({**self.pending_changes, "projectId": project["id"] if project else None})

    def change_session(self, params: dict) -> None:
        """A model, thinking level or mode picked in the composer: stored on the chat for its next turns."""
        session_id = self.window.current_session_id
        if session_id is None:
            self.pending_changes.update(params)  # applied to the chat the next prompt creates
            return
        if is_native_id(session_id):  # a pi session keeps no app settings: the pick lasts while the window is open
            self.window.native.choose(params)
            return
        host_op(self.client, "session.update", {"sessionId": session_id, **params}, parent=self.window).run()

    # -- switching chats: drafts and edit mode stay with their chat ------------------------
    def switch_to(self, session_id: str | None) -> None:
        """The window moves from its current chat to ``session_id``."""
        w = self.window
        previous = w.current_session_id
        if previous == session_id and w.current_session_id is not None:
            return
        draft = w.composer.take_draft()
        if self.editing is not None:  # the edit stays with its chat, as typed; the chat's own draft waits behind it
            self.editing.typed = draft
            self.parked_edits[self.editing.session_id] = self.editing
            draft = self.editing.before
            self.editing = None
            w.composer.set_editing(None)
        carried = previous is None and session_id is not None and session_id == self.carry_new_chat_draft_to
        self.carry_new_chat_draft_to = None
        if carried:
            self.drafts.pop(None, None)
        elif draft[0].strip() or draft[1]:
            self.drafts[previous] = draft
        else:
            self.drafts.pop(previous, None)
        w.composer.show_status("")
        w.current_session_id = session_id
        text, attachments = self.drafts.pop(session_id, ("", []))
        if carried:
            text, attachments = joined((text, attachments), draft)
        parked = self.parked_edits.pop(session_id, None) if session_id is not None else None
        if parked is not None:
            parked.before = (text, attachments)
            self.editing = parked
            w.composer.set_editing(*parked.typed, focus=False)
        else:
            w.composer.put_draft(text, attachments)
        self._save_drafts_soon.start()

    # -- sending ----------------------------------------------------------------------
    async def send_prompt(self, text: str, attachments: list[dict] | None = None) -> None:
        """Send what the composer held; if it cannot be sent, it goes back into the composer with the reason."""
        w = self.window
        attachments = attachments or []
        if self.runner is None:
            return
        if is_native_id(w.current_session_id):  # continue the pi session in its own file
            await w.native.send(text, attachments)
            return
        editing = self.editing if self.editing and self.editing.session_id == w.current_session_id else None

        def not_sent(error: HostError) -> None:
            if session_id == w.current_session_id:
                # the line above the composer says why, once; this says what became of the message
                w.composer.give_back(
                    text, attachments, self.tr("Not sent. Your message is kept here: send it again once that is fixed.")
                )
            else:  # the person moved to another chat meanwhile: the message waits in its own chat's draft
                self.drafts[session_id] = joined((text, attachments), self.drafts.get(session_id, ("", [])))
            w.report_error(error)

        session_id = w.current_session_id
        # nothing is stored (not even a new chat) and the edit goes on when the prompt cannot go out
        if not await task_op(lambda: self._ready(session_id), parent=w, name="send-check", failure=not_sent):
            return
        if session_id != w.current_session_id:  # another chat was picked meanwhile: the prompt waits in its draft
            self.drafts[session_id] = joined((text, attachments), self.drafts.get(session_id, ("", [])))
            return
        if not await self._fits(session_id, text, attachments, not_sent):
            return
        if session_id is None:
            session_id = await self.create_session()
        if session_id is None:
            w.composer.give_back(text, attachments, self.tr("Not sent: the chat could not be created."))
            return
        if w.transcript_model.session_id != session_id:
            await w.chat_view.open_transcript(session_id)
        if editing is not None:
            self.end_edit(restore=False)
            w.composer.put_draft(*editing.before)
        w.composer.set_running(True)

        async def deliver() -> dict:
            if editing is None:
                return await self.runner.send(session_id, text, attachments=attachments)
            # edit and resend: cut from the old prompt (kept as a revision), then send in its family
            await self.client.call(
                "session.truncateFrom", {"sessionId": session_id, "messageId": editing.message["id"]}
            )
            family = (editing.message.get("meta") or {}).get("revisionRootId") or editing.message["id"]
            return await self.runner.send(session_id, text, attachments=attachments, revision_root_id=family)

        result = await task_op(deliver, parent=w, name="send-prompt", failure=not_sent)
        if session_id == w.current_session_id:
            w.composer.set_running(self.runner.is_running(session_id))
            w.composer.focus_prompt()
        if result and result.get("error"):  # stored, but the provider failed: the reply says so, once
            error = result["error"]
            w.notices.record_error(
                HostError(
                    error["code"], error["message"], {k: v for k, v in error.items() if k not in ("code", "message")}
                )
            )

    async def steer_prompt(self, text: str, attachments: list[dict] | None = None) -> None:
        """Send what the composer held into the running reply (a plain send when none runs)."""
        w = self.window
        session_id = w.current_session_id
        if self.runner is None or not session_id or is_native_id(session_id) or self.editing is not None:
            await self.send_prompt(text, attachments)
            return
        attachments = attachments or []

        def not_sent(error: HostError) -> None:
            if session_id == w.current_session_id:  # as a refused send: the reason above, the message kept here
                w.composer.give_back(
                    text, attachments, self.tr("Not sent. Your message is kept here: send it again once that is fixed.")
                )
            else:
                self.drafts[session_id] = joined((text, attachments), self.drafts.get(session_id, ("", [])))
            w.report_error(error)

        result = await task_op(
            lambda: self.runner.steer(session_id, text, attachments=attachments),
            parent=w,
            name="steer-prompt",
            failure=not_sent,
        )
        if result and "steering" in result and session_id == w.current_session_id:
            w.composer.show_status(self.tr("Sent into the running reply; the model reads it at its next step."))

    async def _fits(
        self, session_id: str | None, text: str, attachments: list[dict], not_sent: Callable[[HostError], None]
    ) -> bool:
        """A prompt the budget says cannot fit is not sent: it goes back into the composer, with a question."""
        w = self.window
        fit = await task_op(
            lambda: self.runner.prompt_fit(session_id, dict(self.pending_changes), text, attachments),
            parent=w,
            name="send-fit",
            failure=not_sent,
        )
        if fit is None:
            return False
        if fit["tokens"] <= fit["budget"]:
            return True
        if session_id == w.current_session_id:
            w.composer.give_back(text, attachments, self.tr("Not sent: too long for the model’s context window."))
            self.too_long_box = too_long.ask(
                w, fit, len(attachments), lambda choice: self._too_long_chosen(choice, session_id, fit)
            )
        else:  # another chat was picked meanwhile: the prompt waits in its own chat's draft
            self.drafts[session_id] = joined((text, attachments), self.drafts.get(session_id, ("", [])))
        return False

    def _too_long_chosen(self, choice: str, session_id: str | None, fit: dict) -> None:
        self.too_long_box = None
        if session_id != self.window.current_session_id:
            return
        if choice == too_long.COMPACT and session_id is not None:
            spawn(self._compact_then_send(session_id), name="compact-then-send")
        elif choice == too_long.TRIM:
            self._trim_attachments(fit["budget"] - fit["history"])

    async def _compact_then_send(self, session_id: str) -> None:
        await self._compact(session_id)
        if session_id == self.window.current_session_id:
            text, attachments = self.window.composer.take_draft()
            await self.send_prompt(text, attachments)

    def _trim_attachments(self, room: int) -> None:
        """The largest attachments out of the composer until the prompt fits; the text always stays."""
        composer = self.window.composer
        text, attachments = composer.take_draft()
        kept, removed = budget.trimmed([{"type": "text", "text": text}, *attachments], room)
        composer.put_draft(text, [block for block in kept if block.get("type") == "attachment"])
        names = ", ".join(str(block.get("name") or "") for block in removed)
        if budget.message_tokens({"blocks": kept}) > room:
            composer.show_status(
                self.tr("Removed %1. The text alone is still too long: shorten it.").replace("%1", names)
            )
        else:
            composer.show_status(self.tr("Removed %1 so the message fits. Press Enter to send.").replace("%1", names))
        composer.focus_prompt()

    async def _ready(self, session_id: str | None) -> bool:
        if session_id is None:
            await self.runner.check_ready(dict(self.pending_changes))  # the chat the prompt would create
        else:
            await self.runner.check_session(session_id)
        return True

    # -- edit mode ---------------------------------------------------------------------
    def _edit(self, session_id: str, message: dict) -> None:
        """A prompt is edited in the composer and resent; a reply in a dialog, into a fork of the chat."""
        if message.get("role") != "assistant":
            self.start_edit(session_id, message)
            return
        if self.client is None:
            return
        self.reply_dialog = ReplyEditDialog(self.client, session_id, message, self._open_fork, self.window)
        self.reply_dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.reply_dialog.open()

    def start_edit(self, session_id: str, message: dict) -> None:
        composer = self.window.composer
        before = self.editing.before if self.editing is not None else composer.take_draft()
        self.editing = Editing(session_id, message, before)
        blocks = message.get("blocks", [])
        composer.set_editing(
            "".join(b.get("text", "") for b in blocks if b.get("type") == "text"),
            [b for b in blocks if b.get("type") == "attachment"],
        )

    def end_edit(self, restore: bool = True) -> None:
        """Esc or Cancel: the composer goes back to what it held before the edit began."""
        if self.editing is None:
            return
        before, self.editing = self.editing.before, None
        composer = self.window.composer
        composer.set_editing(None)
        if restore:
            composer.take_draft()
            composer.put_draft(*before)
        composer.focus_prompt()

    # -- per-message actions -------------------------------------------------------------
    def message_action(self, action: str, message_id: str) -> Awaitable[None]:
        """Copy, edit, regenerate, fork, delete, or page revisions of one message (a started task)."""
        return spawn(self.run_message_action(action, message_id), name=f"message-{action}")

    async def run_message_action(self, action: str, message_id: str) -> None:
        session_id = self.window.current_session_id
        if session_id is None:
            return
        if action.startswith("revert:"):  # a write or edit's Revert: its snapshot, not the message
            await self.window.file_changes.reviews.revert(session_id, action.removeprefix("revert:"))
            return
        handler: Callable[[str, dict], Awaitable[None] | None] | None = {
            "copy": self._copy,
            "edit": self._edit,
            "regenerate": self._regenerate,
            "show-full": lambda _sid, message: self.window.transcript_model.show_full(message),
            "fork": lambda sid, message: self.fork(sid, message["id"]),
            "delete": lambda sid, message: self.confirm_delete_message(sid, message["id"]),
            "revision-prev": lambda sid, message: self._page_revision(sid, message, -1),
            "revision-next": lambda sid, message: self._page_revision(sid, message, 1),
        }.get(action)
        if handler is None:
            return
        if action in KEYBOARD_BACK_TO_COMPOSER:  # a click in the transcript took the keyboard: what is typed next
            self.window.composer.focus_prompt()  # is the next prompt, never lost in the message list
        message = await host_op(
            self.client,
            "session.get",
            {"sessionId": session_id, "messageAround": message_id, "messageLimit": 1},
            parent=self.window,
        )
        if message is None or session_id != self.window.current_session_id:
            return
        done = handler(session_id, message["messages"][0])  # the stored message, uncapped
        if done is not None:
            await done

    def _copy(self, _session_id: str, message: dict) -> None:
        text = "\n\n".join(b.get("text", "") for b in message.get("blocks", []) if b.get("type") == "text")
        QApplication.clipboard().setText(text)
        self.window.show_note(self.tr("Copied to the clipboard"))

    async def _regenerate(self, session_id: str, message: dict) -> None:
        if self.runner is None:
            return
        composer = self.window.composer
        composer.set_running(True)
        await task_op(lambda: self.runner.regenerate(session_id, message["id"]), parent=self.window, name="regenerate")
        if session_id == self.window.current_session_id:
            composer.set_running(self.runner.is_running(session_id))
        # the transcript reloads from the host's "history"/"revision" events (history_changed), once

    async def _page_revision(self, session_id: str, message: dict, step: int) -> None:
        meta = message.get("meta") or {}
        await host_op(
            self.client,
            "session.activateRevision",
            {
                "sessionId": session_id,
                "rootUserId": meta.get("revisionRootId") or message["id"],
                "revisionIndex": meta["activeRevision"] + step,
            },
            parent=self.window,
        )  # reloads from its event

    def confirm_delete_message(self, session_id: str, message_id: str) -> None:
        self._confirm(
            self.tr("Delete message"),
            self.tr("Delete this message?"),
            self.tr("It is removed from the conversation. A reply it started is kept as a revision."),
            lambda: host_op(
                self.client,
                "session.deleteMessage",
                {"sessionId": session_id, "messageId": message_id},
                parent=self.window,
            ).run(),
        )

    def _confirm(self, title: str, text: str, detail: str, on_yes: Callable[[], object]) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Cancel, self.window)
        box.setObjectName("confirmBox")
        box.setInformativeText(detail)
        delete_button = box.addButton(self.tr("Delete"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        style_message_box(box)

        def finished(_result: int) -> None:
            self.confirm_box = None
            if box.clickedButton() is delete_button:
                on_yes()

        box.finished.connect(finished)
        self.confirm_box = box
        box.open()

    # -- a running reply -----------------------------------------------------------------
    def on_turn(self, session_id: str, phase: str, message: dict | None) -> None:
        w = self.window
        if phase == "idle" and session_id in self._reload_when_idle:
            self._reload_when_idle.discard(session_id)
            if session_id == w.current_session_id:  # history changed while the reply ran (edit, revisions)
                spawn(w.chat_view.open_transcript(session_id), name="transcript-reload")
        if phase == "withdrawn" and message is not None:
            self._take_back(session_id, message)
        if session_id != w.current_session_id:
            return
        if phase == "steered":
            w.composer.show_status("")
        if phase == "tool_output" and message is not None:  # a running command's output, as it comes
            w.transcript_model.add_tool_output(str(message.get("callId")), str(message.get("chunk") or ""))
        elif phase == "tool_done" and message is not None:
            w.transcript_model.finish_tool(str(message.get("callId")), bool(message.get("ok")), message.get("result"))
        elif phase == "mcp_failure" and message is not None:
            w.show_note(str(message.get("message", "")), MCP_NOTE_MS)  # a server that failed: one sentence
        elif phase in ("started", "delta") and message is not None:
            w.transcript_model.set_live(message)
            w.composer.set_running(True)
            w.queue_strip.set_running(True)
        elif phase == "finished" and message is None:
            w.transcript_model.drop_live()  # nothing was stored: the partial row goes
        elif phase == "finished":
            w.transcript_model.settle_live()
        elif phase == "idle":
            w.composer.set_running(False)
            w.queue_strip.set_running(False)
            w.chat_view.refresh_context_meter(session_id)

    def _take_back(self, session_id: str, draft: dict) -> None:
        """Stop took back prompts no reply answered: into that chat's composer, before anything typed since."""
        text, attachments = str(draft.get("text") or ""), list(draft.get("attachments") or [])
        if session_id == self.window.current_session_id:
            self.window.composer.give_back(
                text, attachments, self.tr("Stopped before an answer: your message is back here to edit or send.")
            )
            self.window.composer.focus_prompt()
        else:
            self.drafts[session_id] = joined((text, attachments), self.drafts.get(session_id, ("", [])))

    def history_changed(self, session_id: str) -> None:
        """The transcript was rewritten (edit, delete, revisions): reload now, or when its reply ends."""
        if self.runner is not None and self.runner.is_running(session_id):
            self._reload_when_idle.add(session_id)
        else:
            spawn(self.window.chat_view.open_transcript(session_id), name="transcript-reload")

    def stop_reply(self) -> None:
        if self.window.native.stop(self.window.current_session_id):
            return
        if self.runner is not None and self.window.current_session_id:
            self.runner.stop(self.window.current_session_id)

    def resume_queue(self) -> None:
        """Send the prompts that waited through a restart, one turn at a time."""
        session_id = self.window.current_session_id
        if session_id and self.runner is not None:
            task_op(lambda: self.runner.resume(session_id), parent=self.window, name="resume-queue").run()
