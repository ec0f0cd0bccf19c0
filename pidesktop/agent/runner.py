"""The turn runner: one prompt in, one stored reply out, in the order spec 004 section 5 requires.

1. the user line is appended (durable) before anything else;
2. ``session.startTurn`` opens the turn;
3. the provider streams; deltas only reach the screen, never storage, except
   an in-flight checkpoint at most every 1.5 s while content arrives;
4. at the end, one last checkpoint, then the final ``appendMessage``;
5. ``session.endTurn`` with ``createNotification`` false only when the person
   is looking at that very chat.

Stop cancels the stream and keeps what arrived (``aborted``, no inbox row).
A prompt sent while a turn runs waits in the host's queue and is sent after
the running turn ends, unless it was sent with ``steer``: then the turn's next
request round carries it (``steering.py``), and Stop before any answer takes
unanswered prompts back into the composer. A queued prompt leaves the queue in the same host step
that stores its user line (``appendMessage`` with ``queueEntryId``); a start
that fails before that keeps the entry, marked with its error, for Retry.

Deleting a chat (``session.changed {reason: "deleted"}`` from any client of
the host) stops its running turn and stores nothing more for it: no
checkpoint, no final append, no end of turn; the outbox drops what it holds.
Everything durable goes through the bus.

Long chats (``context`` and ``compaction``): a turn reads only the newest
checkpoint and the messages after it, through windowed ``session.get``
calls, never the whole transcript. When the request would pass the
``compactAt`` share of the model's context window (or not fit at all), the
older part is summarised first with one model call and a checkpoint is
appended; a failed or stopped summary fails the turn and stores no
checkpoint. No request is ever larger than the window. ``compact`` (and the
prompt ``/compact``) compacts on demand; ``context_usage`` tells the UI how
full the context is.

The parts: the ``RequestPlanner`` (``request_plan.py``) picks the provider
and model and reads what the request carries; a ``Turn`` (``turn.py``) runs
steps 1 to 5 for one prompt; the ``ContextKeeper`` (``context_keeper.py``)
knows how full each chat's context is and compacts it; this runner starts
each turn and keeps what outlives it (the running turns, the queue, the
answers "Allow for this chat").
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pidesktop.agent import compaction, permissions, send_check, tool_loop
from pidesktop.agent.context_keeper import ContextKeeper
from pidesktop.agent.errors import ProviderError
from pidesktop.agent.outbox import Outbox
from pidesktop.agent.prompt_blocks import prompt_blocks, queued_prompt
from pidesktop.agent.request_plan import Prepared, ProviderChoice, RequestPlanner
from pidesktop.agent.turn import ActiveTurn, Turn, is_deleted_error
from pidesktop.bus import ErrorCode, HostClient, HostError, topics

if TYPE_CHECKING:
    from pidesktop.agent.mcp.pool import McpPool

__all__ = ["CHECKPOINT_EVERY", "Listener", "ProviderChoice", "TurnRunner"]

log = logging.getLogger("pidesktop.agent.runner")

CHECKPOINT_EVERY = 1.5

Listener = Callable[[str, str, dict[str, Any] | None], None]  # (session id, phase, message snapshot)


class TurnRunner:
    def __init__(
        self,
        client: HostClient,
        *,
        checkpoint_every: float = CHECKPOINT_EVERY,
        offline_delay: float = 0.02,
        watched: Callable[[str], bool] = lambda session_id: False,
        override: ProviderChoice | None = None,
        outbox: Outbox | None = None,
        context_window: int | None = None,
        interactive: bool = True,
        asker: permissions.Asker | None = None,
        confirm_unconfined: bool = True,
        mcp: McpPool | None = None,
    ):
        self.client = client
        # The app's MCP servers (started when a chat first needs them); None: no MCP tools
        self.mcp = mcp
        # Who answers a tool call that needs the person's word; None: nobody, such calls are denied.
        self.asker = asker
        # False when the person already accepted that commands run without a sandbox (``pidesktop chat``'s flag)
        self.confirm_unconfined = confirm_unconfined
        self.tool_refusals: tool_loop.ToolRefusals = set()  # models whose server refused tools, for this runner's life
        # False for runs nobody watches (``pidesktop chat``, automations): Plan/Goal turns are refused.
        self.interactive = interactive
        self.outbox = outbox
        self.checkpoint_every = checkpoint_every
        self.watched = watched
        # which provider and model each request goes to, and what it carries
        self.planner = RequestPlanner(
            client, override=override, context_window=context_window, offline_delay=offline_delay
        )
        # per chat: how full the next request is, the correction learned, compaction before it would not fit
        self.contexts = ContextKeeper(client, self.planner, self.notify, self.is_deleted)
        self.listeners: list[Listener] = []
        self._active: dict[str, ActiveTurn] = {}
        self._deleted: set[str] = set()
        subscribe = getattr(client, "subscribe", None)
        self._unsubscribe = subscribe(self._on_event) if callable(subscribe) else None

    # The planner's choices, set on the runner as they always were (``pidesktop chat``, tests).
    @property
    def override(self) -> ProviderChoice | None:
        return self.planner.override

    @override.setter
    def override(self, choice: ProviderChoice | None) -> None:
        self.planner.override = choice

    @property
    def context_window(self) -> int | None:
        return self.planner.context_window

    @context_window.setter
    def context_window(self, window: int | None) -> None:
        self.planner.context_window = window

    @property
    def offline_delay(self) -> float:
        return self.planner.offline_delay

    @offline_delay.setter
    def offline_delay(self, delay: float) -> None:
        self.planner.offline_delay = delay

    # -- public -------------------------------------------------------------------------
    def is_running(self, session_id: str) -> bool:
        return session_id in self._active

    def running_sessions(self) -> list[str]:
        """The chats whose reply is being written now."""
        return list(self._active)

    def stop(self, session_id: str) -> None:
        active = self._active.get(session_id)
        if active is not None:
            active.cancel.set()

    def forget_session(self, session_id: str) -> None:
        """The chat was deleted: stop its turn, store nothing more for it, drop what the outbox holds."""
        self._deleted.add(session_id)
        self.stop(session_id)
        if self.outbox is not None:
            self.outbox.forget_session(session_id)

    def is_deleted(self, session_id: str) -> bool:
        """The chat was deleted while this runner ran: nothing more is stored for it."""
        return session_id in self._deleted

    def mark_deleted(self, session_id: str) -> None:
        self._deleted.add(session_id)

    def _on_event(self, topic: str, payload: dict[str, Any]) -> None:
        if topic == topics.SESSION_CHANGED and payload.get("reason") == "deleted" and payload.get("sessionId"):
            self.forget_session(str(payload["sessionId"]))
        elif topic == topics.SESSION_CHANGED and payload.get("reason") == "restored" and payload.get("sessionId"):
            self._deleted.discard(str(payload["sessionId"]))  # back from the trash: it can be written again
        elif topic in (topics.MODELS_CHANGED, topics.PROVIDERS_CHANGED):
            self.contexts.usage.clear()  # a model's context window may have changed: measured again when asked

    async def send(
        self,
        session_id: str,
        text: str,
        *,
        attachments: list[dict[str, Any]] | None = None,
        revision_root_id: str | None = None,
        interactive: bool | None = None,
        meta: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Run a turn for ``text`` and ``attachments``, or queue them if a turn is running in that chat.

        ``attachments`` are stored attachment blocks (``attachments.import``
        results); they follow the text in the prompt. ``revision_root_id``
        keeps an edited prompt in its original regenerate family
        (``meta.revisionRootId``), so the pager shows every variant.
        ``interactive=False`` makes this one turn unattended (an automation run
        through the window's runner, so the window sees it running and can stop it).
        ``meta`` goes into the stored prompt's ``meta`` (a queued prompt keeps only its text).
        """
        if text.strip() == compaction.COMMAND and not attachments:
            record = await self.compact(session_id)
            return {
                "status": "compacted",
                "compaction": record,
                "turn": None,
                "message": None,
                "stored": None,
                "error": None,
            }
        blocks = prompt_blocks(text, attachments)
        if self.is_running(session_id):
            params: dict[str, Any] = {"sessionId": session_id, "content": text, "idempotencyKey": str(uuid.uuid4())}
            attached = [block for block in blocks if block["type"] == "attachment"]
            if attached:
                params["attachments"] = attached
            result = await self.client.call("session.queuePush", params)
            return {"queued": result["entry"]}
        await self.check_session(session_id)  # nothing is stored for a prompt that cannot go out
        user: dict[str, Any] = {"id": str(uuid.uuid4()), "role": "user", "blocks": blocks}
        if meta or revision_root_id:
            user["meta"] = {**(meta or {}), **({"revisionRootId": revision_root_id} if revision_root_id else {})}
        return await self._turn(session_id, user, ActiveTurn(turn_id=str(uuid.uuid4()), interactive=interactive))

    async def check_ready(self, choice: dict[str, Any]) -> None:
        """Raise ``not_ready`` (``send_check``) when a chat with ``choice``'s provider and model cannot send."""
        if self.override is None:
            await send_check.check(self.client, choice)

    async def check_session(self, session_id: str) -> None:
        """``check_ready`` for a stored chat's own provider and model."""
        if self.override is None:
            session = (await self.client.call("session.get", {"sessionId": session_id, "messageLimit": 1}))["session"]
            await send_check.check(self.client, session)

    async def steer(
        self, session_id: str, text: str, *, attachments: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """Send ``text`` into the chat's running turn: its next request round carries it (``steering.py``).

        Returns ``{"steering": entry}``, the queue entry it waits in until then.
        A chat with no running turn simply gets it as a new prompt (``send``).
        """
        active = self._active.get(session_id)
        if active is None:
            return await self.send(session_id, text, attachments=attachments)
        blocks = prompt_blocks(text, attachments)
        params: dict[str, Any] = {"sessionId": session_id, "content": text, "idempotencyKey": str(uuid.uuid4())}
        attached = [block for block in blocks if block["type"] == "attachment"]
        if attached:
            params["attachments"] = attached
        entry = (await self.client.call("session.queuePush", params))["entry"]
        # If the turn ended meanwhile, the entry is an ordinary queued prompt and is sent next.
        active.steering.waiting.append(entry)
        return {"steering": entry}

    async def regenerate(self, session_id: str, reply_id: str) -> dict[str, Any]:
        """Answer the prompt before ``reply_id`` again; the old reply stays as a revision."""
        if self.is_running(session_id):
            raise reply_running()
        active = ActiveTurn(turn_id=str(uuid.uuid4()))
        self._active[session_id] = active  # from now on a prompt sent in this chat waits for the new reply
        try:
            await self.check_session(session_id)  # the old reply stays in place when the new one cannot be asked for
            await self.client.call("session.truncateFrom", {"sessionId": session_id, "messageId": reply_id})
        except BaseException:
            self._active.pop(session_id, None)
            self.notify(session_id, "idle", None)
            await self._drain_queue(session_id)
            raise
        return await self._turn(session_id, None, active)

    async def resume(self, session_id: str) -> None:
        """Send the waiting prompts of a chat, one turn at a time (nothing is replayed on its own).

        Also Retry for a prompt whose start failed: the error of a start that
        fails again is raised here (the entry stays, marked).
        """
        if not self.is_running(session_id):
            await self._drain_queue(session_id, raise_errors=True)

    # -- one turn --------------------------------------------------------------------
    async def _turn(
        self,
        session_id: str,
        user: dict[str, Any] | None,
        active: ActiveTurn | None = None,
        queue_entry_id: str | None = None,
    ) -> dict[str, Any]:
        active = active or ActiveTurn(turn_id=str(uuid.uuid4()))
        self._active[session_id] = active
        active.task = asyncio.current_task()
        try:
            result = await Turn(self, session_id, active, user).run(queue_entry_id)
        except HostError:
            if session_id not in self._deleted:
                raise
            result = self.dropped(session_id, None)  # deleted between two host calls of the turn
        finally:
            self._active.pop(session_id, None)
        self.notify(session_id, "idle", None)
        await self._drain_queue(session_id)
        return result

    # -- context budget and compaction ------------------------------------------------------
    async def prepare_request(self, session_id: str) -> Prepared:
        """The chat's next request, built and not sent (``RequestPlanner.prepare``); the caller closes its provider."""
        return await self.planner.prepare(session_id)

    async def compact(self, session_id: str) -> dict[str, Any]:
        """Compact now: the checkpoint appended, or HostError (nothing to compact, a failed or stopped summary).

        Keeps the newest exchange (at most a quarter of the window) word for
        word. Stop (``stop(session_id)``) cancels the summary call; nothing is
        stored then.
        """
        if self.is_running(session_id):
            raise reply_running()
        active = ActiveTurn(turn_id=str(uuid.uuid4()))
        self._active[session_id] = active
        active.task = asyncio.current_task()
        try:
            prepared = await self.planner.prepare(session_id)
            try:
                record = await self.contexts.compact(session_id, prepared, active.cancel, manual=True)
            finally:
                await prepared.sender().aclose()
        except compaction.CompactionAborted:
            raise HostError(
                ErrorCode.COMPACTION_FAILED, "Compaction was stopped; nothing was changed.", {"aborted": True}
            ) from None
        except ProviderError as exc:
            raise HostError(exc.code, exc.message) from exc
        finally:
            self._active.pop(session_id, None)
            self.notify(session_id, "idle", None)
        if record is None:
            raise HostError(
                ErrorCode.CONFLICT,
                "Nothing to compact yet: this chat is no longer than the part a compaction keeps word for word.",
                {"nothingToCompact": True},
            )
        return record

    async def prompt_fit(
        self, session_id: str | None, choice: dict[str, Any], text: str, attachments: list[dict[str, Any]] | None = None
    ) -> dict[str, int]:
        """Whether a prompt fits the next request, asked before it is stored (``ContextKeeper.prompt_fit``)."""
        return await self.contexts.prompt_fit(session_id, choice, text, attachments)

    async def context_usage(self, session_id: str) -> dict[str, Any]:
        """``{"tokens", "window"}``: the estimated size of the next request's context (summary + kept tail)."""
        return await self.contexts.context_usage(session_id)

    def dropped(self, session_id: str, final: dict[str, Any] | None) -> dict[str, Any]:
        """The chat was deleted during the turn: nothing of it is stored."""
        log.info("session %s was deleted during its turn; the reply is dropped", session_id)
        self.notify(session_id, "finished", None)
        return {"status": "aborted", "turn": None, "message": final, "stored": None, "error": None, "deleted": True}

    async def _drain_queue(self, session_id: str, *, raise_errors: bool = False) -> None:
        """After a terminal event (or on Resume/Retry), send the next waiting prompt (one at a time).

        The entry leaves the queue only with its stored user line. When the
        start fails before that, the entry stays and is marked with the error
        (``session.queueMarkFailed``); ``raise_errors`` then re-raises it.
        """
        if session_id in self._deleted:
            return
        try:
            entries = (await self.client.call("session.queueList", {"sessionId": session_id}))["entries"]
        except HostError:
            if raise_errors:
                raise
            return
        if not entries or self.is_running(session_id):
            return
        entry = entries[0]
        active = ActiveTurn(turn_id=str(uuid.uuid4()))
        try:
            user = queued_prompt(entry)
            await self._turn(session_id, user, active, queue_entry_id=entry["id"])
        except Exception as exc:
            if not active.user_stored and session_id not in self._deleted and not is_deleted_error(exc):
                await self._mark_failed(session_id, entry["id"], exc)
            if raise_errors or not isinstance(exc, (HostError, OSError)):
                raise
            log.warning("could not send the queued prompt %s of session %s: %s", entry["id"], session_id, exc)

    async def _mark_failed(self, session_id: str, entry_id: str, exc: BaseException) -> None:
        error = exc if isinstance(exc, HostError) else HostError(ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}")
        try:
            await self.client.call(
                "session.queueMarkFailed",
                {"sessionId": session_id, "entryId": entry_id, "error": {"code": error.code, "message": error.message}},
            )
        except HostError as failed:  # the entry is still queued; only its mark is missing
            log.warning("could not mark the queued prompt %s as failed: %s", entry_id, failed)

    def notify(self, session_id: str, phase: str, message: dict[str, Any] | None) -> None:
        for listener in list(self.listeners):
            try:
                listener(session_id, phase, message)
            except Exception:
                log.exception("turn listener failed")


def reply_running() -> HostError:
    """What regenerating or compacting a chat whose reply still runs is refused with (``replyRunning``: the
    window says so in the person's language)."""
    return HostError(
        ErrorCode.CONFLICT, "Wait for the running reply to finish (or stop it) first.", {"replyRunning": True}
    )
