"""What each chat's next request holds, and keeping it inside the model's context window.

Per chat: the estimated size of the context (the meter in the window's
header, ``context_usage``), the correction learned from the provider's own
counts (``context.Correction``), and compaction: when a request would pass
the ``compactAt`` share of the window, the older part is summarised first with
one model call and a checkpoint is appended (``fit``); ``compact`` does the
same on demand. No request is ever larger than the window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pidesktop.agent import compaction
from pidesktop.agent import context as budget
from pidesktop.agent.errors import ProviderError
from pidesktop.agent.events import Usage
from pidesktop.agent.prompt_blocks import prompt_blocks
from pidesktop.agent.request_plan import Prepared, RequestPlanner
from pidesktop.bus import ErrorCode, HostClient

Notify = Callable[[str, str, dict[str, Any] | None], None]  # (session id, phase, message snapshot)


class ContextKeeper:
    def __init__(
        self, client: HostClient, planner: RequestPlanner, notify: Notify, is_deleted: Callable[[str], bool]
    ) -> None:
        self.client = client
        self._planner = planner
        self._notify = notify
        self._is_deleted = is_deleted
        self.correction = budget.Correction()  # per chat: reported prompt tokens / estimated
        self.usage: dict[str, dict[str, Any]] = {}  # per chat: the context size the last turn or compaction left

    def estimate(self, session_id: str, prepared: Prepared) -> int:
        return self.correction.apply(session_id, budget.estimate(prepared.context()))

    async def fit(self, session_id: str, prepared: Prepared, cancel: asyncio.Event) -> Prepared:
        """``prepared``, compacted first when it passes ``compactAt`` of the window; never over the window."""
        window = prepared.window
        if self.estimate(session_id, prepared) > budget.compact_threshold(window, prepared.compact_at):
            record = await self.compact(session_id, prepared, cancel, manual=False)
            if record is not None:
                prepared = prepared.after(record)
        needed = self.estimate(session_id, prepared)
        if needed > budget.input_budget(window):
            raise ProviderError(
                ErrorCode.CONTEXT_TOO_LARGE,
                f"The newest messages need about {needed:,} tokens, more than the model's context "
                f"window of {window:,} tokens leaves for a request "
                f"({budget.input_budget(window):,}). Shorten the message or pick a model with "
                f"a larger context window.",
            )
        return prepared

    async def compact(
        self, session_id: str, prepared: Prepared, cancel: asyncio.Event, *, manual: bool
    ) -> dict[str, Any] | None:
        """Summarise what must go with one model call and append the checkpoint; None if nothing can go."""
        factor = self.correction.factor(session_id)
        tokens = [max(1, round(t * factor)) for t in prepared.tokens]
        known = sum(tokens) + budget.tokens_for_chars(len(prepared.summary()))
        if not prepared.complete and prepared.messages:  # the first compaction of a long chat: extrapolated
            known = round(known * max(1.0, prepared.total / len(prepared.messages)))
        room = int(prepared.window / max(1.0, factor))  # the summary request is estimated, so corrected too
        plan = compaction.plan(
            prepared.messages,
            tokens,
            window=prepared.window,
            request_window=room,
            previous_summary=prepared.summary(),
            complete=prepared.complete,
            tokens_before=known,
            last_exchange=manual,
        )
        if plan is None:
            return None
        self._notify(session_id, "compacting", None)
        request = compaction.request(plan, prepared.summary(), room)
        if self.correction.apply(session_id, budget.estimate(request)) > budget.input_budget(prepared.window):
            raise ProviderError(
                ErrorCode.COMPACTION_FAILED, "The summary request would not fit in the model's context window."
            )
        summary = await compaction.summarise(prepared.sender(), request, cancel)
        record = compaction.checkpoint(
            plan,
            summary,
            generation=prepared.generation + 1,
            provider_id=prepared.provider_id,
            model_id=prepared.model_id,
            window=prepared.window,
            manual=manual,
        )
        if self._is_deleted(session_id):
            raise compaction.CompactionAborted()
        await self.client.call("session.appendCompaction", {"sessionId": session_id, "compaction": record})
        stored = {**record}
        after = prepared.after(record)
        self.usage[session_id] = {"tokens": self.estimate(session_id, after), "window": prepared.window}
        self._notify(session_id, "compacted", stored)
        return stored

    async def prompt_fit(
        self, session_id: str | None, choice: dict[str, Any], text: str, attachments: list[dict[str, Any]] | None = None
    ) -> dict[str, int]:
        """Whether a prompt of ``text`` and ``attachments`` fits the next request, asked before it is stored.

        ``{"tokens", "prompt", "history", "budget", "window"}``: the chat's context as the meter shows it
        plus the prompt's own estimate, which no correction learned from earlier replies shrinks (a large
        paste is not like the conversation before it), against what the window leaves for a request.
        ``choice`` names the provider and model of a chat not made yet.
        """
        if session_id is not None:
            usage = await self.context_usage(session_id)
            history, window = int(usage["tokens"]), int(usage["window"])
        else:
            provider_id, model_id = await self._planner.model_of(choice)
            history, window = 0, await self._planner.window(provider_id, model_id)
        prompt = budget.message_tokens({"blocks": prompt_blocks(text, attachments)})
        return {
            "tokens": history + prompt,
            "prompt": prompt,
            "history": history,
            "budget": budget.input_budget(window),
            "window": window,
        }

    async def context_usage(self, session_id: str) -> dict[str, Any]:
        """``{"tokens", "window"}``: the estimated size of the next request's context (summary + kept tail)."""
        known = self.usage.get(session_id)
        if known is not None:
            return dict(known)
        prepared = await self._planner.sized(session_id)
        usage = {"tokens": self.estimate(session_id, prepared), "window": prepared.window}
        self.usage[session_id] = usage
        return dict(usage)

    def remember(
        self, session_id: str, prepared: Prepared, sent_estimate: int, reported: Usage | None, final: dict[str, Any]
    ) -> None:
        """Learn the correction from the provider's count, and keep the context size for ``context_usage``."""
        if reported is not None and sent_estimate:
            self.correction.observe(session_id, sent_estimate, reported.input_tokens)
        if reported is not None and reported.input_tokens > 0:
            tokens = reported.input_tokens + max(reported.output_tokens, 0)
        else:
            tokens = self.estimate(session_id, prepared) + self.correction.apply(
                session_id, budget.message_tokens(final)
            )
        self.usage[session_id] = {"tokens": int(tokens), "window": prepared.window}
