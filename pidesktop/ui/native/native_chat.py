"""A pi session open in the window: read-only banner, branch switcher, live following, Fork and Continue.

The host reads the pi coding agent's session files in place (docs/rpc.md,
"Native pi sessions"); the app's own chat commands are refused on them, so
the window turns those actions off instead of letting them fail. What a
person can do:

- read any branch of the session's tree (the header's branch menu reads the
  chosen leaf with ``session.get {leafId}``);
- follow it live while pi writes it in a terminal: ``session.changed`` for the
  open session reads the new entries, and the view keeps scrolling with them
  when the reader was at the bottom;
- Fork it (a new pi session file beside it, opened at once);
- Continue it in pidesktop: the composer stays usable; a prompt is answered
  by the app's provider and both are appended to the file
  (``agent.native_continue``). A refusal gives the prompt back with the reason.
"""

from __future__ import annotations

import asyncio
import html
import logging
import uuid
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMenu, QMessageBox, QPushButton, QToolButton

from pidesktop.agent.native_continue import continue_session
from pidesktop.bus import ErrorCode, HostError, topics
from pidesktop.clock import now_ms
from pidesktop.ui.chat.chat_controller import joined
from pidesktop.ui.kit import counts, plain_errors
from pidesktop.ui.kit.ops import host_op, task_op
from pidesktop.ui.kit.session_rows import is_native, is_native_id
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.kit.timefmt import relative
from pidesktop.ui.native.native_trust import ask_trust

if TYPE_CHECKING:
    from pidesktop.ui.window.main_window import MainWindow

log = logging.getLogger("pidesktop.ui.native")

LIST_SETTLE_MS = 250  # pi files appearing in a burst (a fork, a sync) reload the list once
CHANGE_SETTLE_MS = 100
PREVIEW_CHARS = 60
# The host's refusals of a pi session say exactly what to do; its sentence beats the generic one.
HOST_SENTENCE_CODES = (ErrorCode.CONFLICT, ErrorCode.PERMISSION_DENIED, ErrorCode.NOT_FOUND)


class ReadOnlyBanner(QFrame):
    """At the top of a pi session: what it is, that it is read from pi's file, and what can be done."""

    forkRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("nativeBanner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(12)
        self.text = QLabel()
        self.text.setObjectName("nativeBannerText")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.fork_button = QPushButton(self.tr("Fork"))
        self.fork_button.setObjectName("nativeFork")
        self.fork_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.fork_button.setToolTip(self.tr("Copy this branch into a new pi session beside it"))
        self.fork_button.clicked.connect(self.forkRequested)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.fork_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()

    def show_session(self, session: dict) -> None:
        heading = html.escape(self.tr("pi session"), quote=False)
        folder = session.get("cwd") or ""
        where = f' · <span style="font-family: monospace;">{html.escape(folder, quote=False)}</span>' if folder else ""
        body = html.escape(
            self.tr(
                "Read in place from pi’s file. Fork makes a copy; what you send is added to the file, as pi would."
            ),
            quote=False,
        )
        self.text.setText(f"<b>{heading}</b>{where}<br><span>{body}</span>")
        self.text.setToolTip(folder)


class BranchSwitcher(QToolButton):
    """A compact header menu of the session tree's leaves: preview, message count, age; current marked."""

    branchChosen = Signal(object)  # the leaf id to read, or None for the file's current branch

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("branchSwitcher")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(self.tr("This pi session has branches: pick the one to read"))
        self.setMenu(QMenu(self))
        self.branches: list[dict] = []
        self.shown_leaf: str | None = None
        self.hide()

    def set_branches(self, branches: list[dict], shown_leaf: str | None) -> None:
        """``branches`` as ``session.get`` lists them; ``shown_leaf``: the branch the transcript shows."""
        self.branches = [b for b in branches if isinstance(b, dict) and b.get("leafId")]
        self.shown_leaf = shown_leaf
        menu = self.menu()
        menu.clear()  # deletes the actions; their group is replaced too, or one would pile up per pi write
        old = getattr(self, "_group", None)
        if old is not None:
            old.deleteLater()
        group = self._group = QActionGroup(menu)
        group.setExclusive(True)
        now = now_ms()
        number = 0
        for position, branch in enumerate(self.branches, 1):
            action = menu.addAction(self._label(branch, now))
            action.setCheckable(True)
            action.setChecked(branch["leafId"] == shown_leaf)
            action.setToolTip(str(branch.get("preview") or ""))
            action.setData(branch["leafId"])
            group.addAction(action)
            leaf = None if branch.get("current") else branch["leafId"]
            action.triggered.connect(lambda _=False, leaf=leaf: self.branchChosen.emit(leaf))
            if branch["leafId"] == shown_leaf:
                number = position
        current = next((b for b in self.branches if b["leafId"] == shown_leaf), None)
        if current is not None and current.get("current"):
            text = self.tr("Current branch · %1 of %2")
        else:
            text = self.tr("Branch %1 of %2")
        self.setText(text.replace("%1", str(number or 1)).replace("%2", str(len(self.branches))) + "  ▾")
        self.setVisible(len(self.branches) > 1)

    def _label(self, branch: dict, now: int) -> str:
        preview = " ".join(str(branch.get("preview") or self.tr("(no messages)")).split())
        if len(preview) > PREVIEW_CHARS:
            preview = preview[: PREVIEW_CHARS - 1] + "…"
        listed = branch.get("messageCount")
        count = listed if isinstance(listed, int) else 0
        facts = [counts.messages(count)]
        if isinstance(branch.get("updatedAt"), int):
            facts.append(relative(branch["updatedAt"], now))
        if branch.get("current"):
            facts.append(self.tr("current"))
        return f"{preview}  —  {' · '.join(facts)}"


class NativeChat(QObject):
    """The window's pi-session behaviour; the window calls ``show``, ``handle_event`` and the actions."""

    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.client = window.client
        self.banner = ReadOnlyBanner()
        self.banner.forkRequested.connect(self.fork_shown_branch)
        window.banner_holder.addWidget(self.banner)
        self.switcher = BranchSwitcher()
        self.switcher.branchChosen.connect(self.read_branch)
        window.header_layout.insertWidget(1, self.switcher)
        window.transcript_model.pageLoaded.connect(self._page_loaded)
        self.picks: dict[str, dict] = {}  # per pi session: the model and thinking level picked in the composer
        self.continuing: dict[str, asyncio.Event] = {}  # pi sessions with a reply being written, and its Stop
        self.trust_box: QMessageBox | None = None  # asking whether to trust a pi session's folder
        self._changed: set[str] = set()
        self._placeholder: str | None = None  # the composer's own hint, back on the app's chats
        self._list_timer = _single_shot(self, LIST_SETTLE_MS, self._reload_list)
        self._changed_timer = _single_shot(self, CHANGE_SETTLE_MS, self._refresh_changed)

    # -- what the window shows -------------------------------------------------------------
    def show(self, session: dict) -> None:
        """The window shows ``session``: banner, pickers and actions as a pi session allows."""
        w = self.window
        native = is_native(session)
        self.banner.setVisible(native)
        if self._placeholder is None:
            self._placeholder = w.composer.edit.placeholderText()
        w.composer.edit.setPlaceholderText(
            self.tr("Continue this pi session in pidesktop…  (Enter to send)") if native else self._placeholder
        )
        if native:
            self.banner.show_session(session)
            pick = self.picks.get(session["id"], {})
            w.composer.show_model(pick.get("providerId"), pick.get("modelId"))
            w.composer.set_thinking(pick.get("thinkingLevel") or "off")
            w.composer.set_mode("agent")
        else:
            self.switcher.hide()
        # Plan/Goal and attachments have no place in a pi file (not offered); compaction is pi's own.
        w.composer.mode_picker.setVisible(not native)
        w.composer.permission_picker.setVisible(not native)  # pi runs its own tools
        w.composer.attach_button.setVisible(not native)
        w.compact_action.setEnabled(not native)
        picker = getattr(w, "project_picker", None)  # a pi session's project follows its folder, never a pick
        if picker is not None:
            picker.setEnabled(not native)

    def _page_loaded(self, reason: str) -> None:
        model = self.window.transcript_model
        if reason == "open":
            if model.read_only and is_native_id(model.session_id):
                self.switcher.set_branches(model.branches, model.leaf_id)
            else:
                self.switcher.hide()
            self.banner.fork_button.setToolTip(self.tr("Copy this branch into a new pi session beside it"))

    def read_branch(self, leaf_id: str | None) -> None:
        """Show another branch of the open pi session (None: the file's current one)."""
        w = self.window
        session_id = w.transcript_model.session_id
        if not is_native_id(session_id):
            return
        params = {"leafId": leaf_id} if leaf_id else {}
        task_op(lambda: w.transcript_model.open(session_id, read_params=params), parent=w, name="native-branch").run()

    def reading_other_branch(self) -> bool:
        model = self.window.transcript_model
        shown = next((b for b in model.branches if b.get("leafId") == model.leaf_id), None)
        return bool(model.read_params.get("leafId")) and not (shown or {}).get("current")

    # -- events --------------------------------------------------------------------------
    def handle_event(self, topic: str, payload: dict) -> None:
        if topic == topics.SESSION_LIST_CHANGED:
            self._list_timer.start()
        elif topic == topics.SESSION_CHANGED and is_native_id(payload.get("sessionId")) and "session" not in payload:
            self._changed.add(payload["sessionId"])
            self._changed_timer.start()

    def _reload_list(self) -> None:
        task_op(self.window.refresh_sessions, parent=self.window, name="native-list").run()

    def _refresh_changed(self) -> None:
        changed, self._changed = self._changed, set()
        for session_id in changed:
            spawn(self._refresh(session_id), name="native-changed")

    async def _refresh(self, session_id: str) -> None:
        """A pi file grew: its sidebar row moves on; the open transcript reads what was added."""
        w = self.window
        model = w.transcript_model
        shown = model.session_id == session_id and w.current_session_id == session_id
        params = {"sessionId": session_id, "messageLimit": 1, **(model.read_params if shown else {})}
        try:
            newest = await self.client.call("session.get", params)
        except HostError as error:  # gone: the list change that follows removes it
            if error.code != ErrorCode.NOT_FOUND:
                w.report_error(error)
            return
        if w.model.session(session_id) is not None:
            w.model.upsert(newest["session"])  # it moves up its group; the sidebar keeps it selected
        if not shown or session_id in self.continuing or model.session_id != session_id:
            return
        w.chat_view.show_session(newest["session"])  # its title (pi's session name) and, once it has any, its messages
        self.switcher.set_branches(newest.get("branches") or [], newest.get("leafId"))
        await task_op(lambda: self.follow(session_id), parent=w, name="native-follow")

    async def follow(self, session_id: str) -> None:
        """Read what the branch gained: appended below when it only grew (the view keeps scrolling
        with it when the reader was at the bottom), the newest page afresh when the branch moved."""
        model = self.window.transcript_model
        if model.has_more_after:  # reading further up: "Jump to latest" brings the rest
            return
        last = next((r["key"] for r in reversed(model.rows) if r["kind"] == "message" and not r["live"]), None)
        if last is not None and model.end > 0:
            window = await self.client.call(
                "session.get",
                {"sessionId": session_id, "messageEnd": model.end - 1, "messageLimit": 1, **model.read_params},
            )
            if [m["id"] for m in window["messages"]] == [last]:
                await model.load_newer("tail")
                return
        await model.open(session_id)  # the leaf moved to another branch: its newest page

    # -- actions -------------------------------------------------------------------------
    def fork_shown_branch(self) -> None:
        """Fork the branch on screen into a new pi session."""
        session_id = self.window.current_session_id
        if is_native_id(session_id):
            self.window.chats.fork(session_id)

    def fork_params(self, session_id: str) -> dict:
        """What ``session.fork`` needs besides the id: the branch on screen when it is not the current one."""
        model = self.window.transcript_model
        if session_id == model.session_id and self.reading_other_branch():
            return {"leafId": model.read_params["leafId"]}
        return {}

    def choose(self, params: dict) -> None:
        """A model or thinking level picked for a pi session: kept here for its next answers, never stored."""
        session_id = self.window.current_session_id
        if session_id:
            self.picks.setdefault(session_id, {}).update(params)

    def stop(self, session_id: str | None) -> bool:
        cancel = self.continuing.get(session_id or "")
        if cancel is None:
            return False
        cancel.set()
        return True

    async def send(self, text: str, attachments: list[dict]) -> None:
        """Continue the open pi session with ``text``; a refusal puts it back in the composer with why."""
        w = self.window
        session_id = w.current_session_id
        composer = w.composer
        if session_id is None:
            return
        if attachments:
            composer.give_back(
                text,
                attachments,
                self.tr("Not sent: files can’t be added to a pi session. Remove them, then send the text."),
            )
            return
        if self.reading_other_branch():
            composer.give_back(
                text,
                [],
                self.tr(
                    "Not sent: you are reading another branch. Switch to the current "
                    "branch to continue it, or fork this one."
                ),
            )
            return
        if session_id in self.continuing:
            composer.give_back(text, [], self.tr("Not sent: wait for the answer being written to finish."))
            return
        model = w.transcript_model
        # Marked before any wait, so a second Enter meanwhile is told to wait instead of starting twice.
        cancel = self.continuing[session_id] = asyncio.Event()
        composer.set_running(True)
        if model.session_id != session_id:
            await w.chat_view.open_transcript(session_id)

        def shows() -> bool:
            return w.current_session_id == session_id and model.session_id == session_id

        if shows():
            model.set_live(
                {"id": f"pending-{uuid.uuid4()}", "role": "user", "blocks": [{"type": "text", "text": text}]}
            )

        def update(snapshot: dict) -> None:
            if shows():
                model.set_live(snapshot)

        def refused(error: HostError) -> None:
            if shows():
                model.drop_live()
            if error.data.get("reason") == "trust" and w.current_session_id == session_id:
                self._ask_trust(session_id, text, str(error.data.get("cwd") or ""))
                return
            if w.current_session_id == session_id:
                composer.give_back(
                    text,
                    [],
                    self.tr("Not added to the pi session: %1").replace(
                        "%1", error.message if error.code in HOST_SENTENCE_CODES else plain_errors.sentence(error)
                    ),
                )
            else:  # the person moved on: the prompt waits in that chat's draft, never lost
                w.chats.drafts[session_id] = joined(w.chats.drafts.get(session_id, ("", [])), (text, []))
            w.report_error(error)

        pick = self.picks.get(session_id, {})

        async def answer() -> dict:
            try:
                return await continue_session(
                    self.client,
                    w.runner,
                    session_id,
                    text,
                    provider_id=pick.get("providerId"),
                    model_id=pick.get("modelId"),
                    thinking_level=pick.get("thinkingLevel") or "off",
                    cancel=cancel,
                    on_update=update,
                )
            except (HostError, asyncio.CancelledError):
                raise
            except Exception as exc:  # a fault here must not eat the prompt: it goes back like a refusal
                log.exception("continuing pi session %s failed", session_id)
                raise HostError(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}") from exc

        try:
            result = await task_op(answer, parent=w, name="native-continue", failure=refused)
        finally:
            self.continuing.pop(session_id, None)
            if w.current_session_id == session_id:
                composer.set_running(False)
        if result is not None and shows():
            model.drop_live()
            await task_op(lambda: self.follow(session_id), parent=w, name="native-follow")
            composer.focus_prompt()

    # -- a folder not trusted yet ---------------------------------------------------------
    def _ask_trust(self, session_id: str, text: str, cwd: str) -> None:
        """The prompt waits in the question: trusted, it is sent again; declined, it goes back to the composer."""

        def declined() -> None:
            self.trust_box = None
            self._give_back(session_id, text, self.tr("Not sent: the pi session's folder is not trusted."))

        def trusted() -> None:
            self.trust_box = None
            spawn(self._trust_then_send(session_id, text, cwd), name="native-trust")

        self.trust_box = ask_trust(self.window, cwd, trusted, declined)

    async def _trust_then_send(self, session_id: str, text: str, cwd: str) -> None:
        def failed(error: HostError) -> None:
            self._give_back(session_id, text, plain_errors.sentence(error))

        if self.client is None:  # no host to keep the answer: the prompt goes back, never lost
            self._give_back(session_id, text, "")
            return
        done = await host_op(self.client, "native.trust", {"cwd": cwd}, parent=self.window, failure=failed)
        if done is None:
            return
        if self.window.current_session_id == session_id:
            await self.send(text, [])
        else:
            self._give_back(session_id, text, "")

    def _give_back(self, session_id: str, text: str, why: str) -> None:
        """The prompt back where it was typed: the composer if its pi session shows, else that chat's draft."""
        w = self.window
        if w.current_session_id == session_id:
            w.composer.give_back(text, [], why)
        else:
            w.chats.drafts[session_id] = joined(w.chats.drafts.get(session_id, ("", [])), (text, []))


def _single_shot(parent: QObject, ms: int, slot) -> QTimer:
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(ms)
    timer.timeout.connect(slot)
    return timer
