"""The request planner: which provider and model a chat's next request goes to, and what it carries.

A turn reads only the newest checkpoint and the messages after it, through
windowed ``session.get`` calls, never the whole transcript (``Prepared``);
the provider is the chat's own (or the stored default, the offline demo, or
an explicit ``ProviderChoice``), set up with the model's settings.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pidesktop.agent import compaction, model_settings, modes, project_notes, workspace_tools
from pidesktop.agent import context as budget
from pidesktop.agent.offline import OfflineDemoProvider
from pidesktop.agent.provider import ChatProvider
from pidesktop.bus import ErrorCode, HostClient, HostError
from pidesktop.bus.native_sessions import names_a_pi_session

log = logging.getLogger("pidesktop.agent.runner")

FIRST_PAGE = 200  # the newest messages; usually reaches back to the active checkpoint
READ_PAGE = 1000  # each further page read backwards

OFFLINE_ID, OFFLINE_MODEL = "offline", "offline-demo"


@dataclass
class ProviderChoice:
    """An explicit provider for one run (``pidesktop chat --base-url``), bypassing the stored default."""

    base_url: str
    model: str
    api_key: str | None = None
    label: str = "custom"


@dataclass
class Prepared:
    """A request built and ready to send: what the model sees, and what the budget knows about it."""

    session: dict[str, Any]
    provider: ChatProvider | None  # None only for a size estimate (``RequestPlanner.read``), which sends nothing
    provider_id: str
    model_id: str
    window: int
    compact_at: float | None
    checkpoint: dict[str, Any] | None  # the active (newest) checkpoint
    generation: int  # how many checkpoints the chat holds
    messages: list[
        dict[str, Any]
    ]  # model-visible messages after the checkpoint (or the newest part read), oldest first
    tokens: list[int]  # the estimate of each of ``messages``
    complete: bool  # ``messages`` reach back to the checkpoint, or to the chat's start
    total: int  # every message line of the transcript
    notes: dict[str, Any] | None = None  # the project's memory as the person's own notes (``project_notes``)
    workspace: dict[str, Any] | None = None  # ``tools.workspace``: the folder the tools work in, the permission mode
    system_prompt: str = ""  # the model's system prompt (Settings > Providers, ``model_settings``)

    def context(self) -> list[dict[str, Any]]:
        """The checkpoint's summary first, then the kept messages; the chat's mode instruction in front,
        the model's system prompt after it, then the workspace note and the project notes."""
        head = [compaction.summary_message(self.checkpoint)] if self.checkpoint else []
        context = modes.with_mode(head + self.messages, self.session.get("mode"))
        context = project_notes.placed(context, model_settings.system_message(self.system_prompt))
        if self.workspace is not None:
            note = workspace_tools.workspace_note(str(self.workspace["workspace"]), bool(self.workspace["scratch"]))
            context = project_notes.placed(context, note)
        return project_notes.placed(context, self.notes)

    def summary(self) -> str:
        return str((self.checkpoint or {}).get("summary") or "")

    def sender(self) -> ChatProvider:
        """The provider this request goes to (a prepared request always has one)."""
        assert self.provider is not None, "a size estimate sends nothing"
        return self.provider

    def after(self, record: dict[str, Any]) -> Prepared:
        """The same request once ``record`` (just appended) is the active checkpoint."""
        ids = [message["id"] for message in self.messages]
        start = ids.index(record["firstKeptMessageId"])
        return Prepared(
            self.session,
            self.provider,
            self.provider_id,
            self.model_id,
            self.window,
            self.compact_at,
            record,
            self.generation + 1,
            self.messages[start:],
            self.tokens[start:],
            True,
            self.total,
            self.notes,
            self.workspace,
            self.system_prompt,
        )


class RequestPlanner:
    """Plans a chat's next request through the host: provider, model, window, and the messages it carries."""

    def __init__(
        self,
        client: HostClient,
        *,
        override: ProviderChoice | None = None,
        context_window: int | None = None,
        offline_delay: float = 0.02,
    ) -> None:
        self.client = client
        self.override = override
        self.context_window = context_window  # ``pidesktop chat --context-window``: overrides every model's
        self.offline_delay = offline_delay

    async def prepare(self, session_id: str) -> Prepared:
        """Build the next request without sending it: windowed reads from the active checkpoint on.

        The newest page usually reaches back to the checkpoint; otherwise pages
        are read backwards until it is found, or (a chat never compacted) until
        they hold about two windows' worth: the kept tail plus the most one
        summary request can carry. Older messages are never read. The caller
        closes ``provider``.
        """
        page = await self.client.call("session.get", {"sessionId": session_id, "messageLimit": FIRST_PAGE})
        provider, provider_id, model_id = await self.provider_for(page["session"])
        try:
            window, settings = await self._model(provider_id, model_id)
            for name, value in (("max_tokens", settings.max_output_tokens), ("temperature", settings.temperature)):
                if hasattr(provider, name):  # the demo takes none of them
                    setattr(provider, name, value)
            compact_at = await self.compact_at()
            prepared = await self.read(session_id, page, provider, provider_id, model_id, window, compact_at)
            await self._surround(prepared, session_id, settings.system_prompt, create=True)
            return prepared
        except BaseException:
            await provider.aclose()
            raise

    async def sized(self, session_id: str) -> Prepared:
        """The next request as ``prepare`` builds it, without a provider and without creating anything: what
        the context meter measures when a chat is opened."""
        page = await self.client.call("session.get", {"sessionId": session_id, "messageLimit": FIRST_PAGE})
        provider_id, model_id = await self.model_of(page["session"])
        window, settings = await self._model(provider_id, model_id)
        prepared = await self.read(session_id, page, None, provider_id, model_id or "", window, None)
        await self._surround(prepared, session_id, settings.system_prompt, create=False)
        return prepared

    async def _model(self, provider_id: str, model_id: str | None) -> tuple[int, model_settings.ModelSettings]:
        """The model's context window and its own settings (Settings > Providers)."""
        row = await self.model_row(provider_id, model_id)
        window = budget.window_for(model_id, row, self.context_window)
        return window, model_settings.read(row, await self.provider_config(provider_id), model_id)

    async def _surround(self, prepared: Prepared, session_id: str, system_prompt: str, *, create: bool) -> None:
        """What goes around the chat's messages: the project notes, the system prompt and the workspace note
        (``create``: the chat's scratch folder is made if it is its workspace)."""
        prepared.notes = await project_notes.read(self.client, prepared.session)
        prepared.system_prompt = system_prompt
        if names_a_pi_session(session_id):  # pi's own file: no workspace of ours, and the host refuses to name one
            return
        try:
            prepared.workspace = await self.client.call("tools.workspace", {"sessionId": session_id, "create": create})
        except HostError as exc:  # the chat answers without workspace tools rather than not at all
            (log.warning if create else log.info)("no workspace for session %s: %s", session_id, exc)

    async def read(
        self,
        session_id: str,
        page: dict[str, Any],
        provider: ChatProvider | None,
        provider_id: str,
        model_id: str,
        window: int,
        compact_at: float | None,
    ) -> Prepared:
        chain = page.get("compactions") or []
        checkpoint = chain[-1] if chain else None
        boundary = {checkpoint.get("firstKeptMessageId"), checkpoint.get("throughMessageId")} if checkpoint else set()
        want = 2 * window
        messages: list[dict[str, Any]] = list(page["messages"])
        more, start = page["hasMoreBefore"], page["messageStart"]
        tokens = budget.estimate(model_context(messages))
        while more and not boundary.intersection(m["id"] for m in messages) and tokens < want:
            older = await self.client.call(
                "session.get", {"sessionId": session_id, "messageLimit": READ_PAGE, "messageBefore": start}
            )
            messages = older["messages"] + messages
            more, start = older["hasMoreBefore"], older["messageStart"]
            tokens += budget.estimate(model_context(older["messages"]))
        complete = not more
        if checkpoint is not None:
            ids = [m["id"] for m in messages]
            if checkpoint.get("firstKeptMessageId") in ids:
                messages, complete = messages[ids.index(checkpoint["firstKeptMessageId"]) :], True
            elif checkpoint.get("throughMessageId") in ids:  # the first kept message was deleted since
                messages, complete = messages[len(ids) - ids[::-1].index(checkpoint["throughMessageId"]) :], True
        visible = model_context(messages)
        return Prepared(
            page["session"],
            provider,
            provider_id,
            model_id,
            window,
            compact_at,
            checkpoint,
            len(chain),
            visible,
            [budget.message_tokens(m) for m in visible],
            complete,
            page["totalMessages"],
        )

    async def window(self, provider_id: str, model_id: str | None) -> int:
        return budget.window_for(model_id, await self.model_row(provider_id, model_id), self.context_window)

    async def model_row(self, provider_id: str, model_id: str | None) -> dict[str, Any] | None:
        """The model's ``models.list`` row: its context window and most output tokens, when set."""
        if provider_id in (OFFLINE_ID, "custom") or not model_id:
            return None
        try:
            rows = (await self.client.call("models.list", {"providerId": provider_id}))["models"]
        except HostError:
            return None
        return next((r for r in rows if r.get("modelId") == model_id), None)

    async def provider_config(self, provider_id: str) -> dict[str, Any] | None:
        if provider_id in (OFFLINE_ID, "custom"):
            return None
        try:
            listed = (await self.client.call("providers.list", {}))["providers"]
        except HostError:
            return None
        return next((p.get("config") for p in listed if p.get("id") == provider_id), None)

    async def compact_at(self) -> float | None:
        try:
            compact_at: float | None = (await self.client.call("settings.get", {}))["settings"].get("compactAt")
            return compact_at
        except HostError:
            return None

    async def model_of(self, session: dict[str, Any]) -> tuple[str, str | None]:
        """``(provider id, model id)`` the chat's next request goes to (the model may still be unknown)."""
        if self.override is not None:
            return "custom", self.override.model
        provider_id, model_id = session.get("providerId"), session.get("modelId")
        if not provider_id:
            try:
                default = await self.client.call("providers.list", {})
                provider_id = default.get("defaultProviderId") or OFFLINE_ID
                model_id = model_id or default.get("defaultModelId")
            except HostError:
                provider_id = OFFLINE_ID
        if provider_id == OFFLINE_ID:
            return OFFLINE_ID, OFFLINE_MODEL
        return provider_id, model_id

    async def provider_for(self, session: dict[str, Any]) -> tuple[ChatProvider, str, str]:
        """A new provider for ``session`` (the caller closes it), with its provider id and model id."""
        # httpx comes with it: imported at the first real turn (or the warm-up after the window's first paint)
        from pidesktop.agent.openai_compat import OpenAICompatibleProvider

        if self.override is not None:
            choice = self.override
            return (
                OpenAICompatibleProvider(
                    base_url=choice.base_url,
                    api_key=choice.api_key,
                    model=choice.model,
                    label=choice.label,
                    proxy=await self.proxy(),
                ),
                "custom",
                choice.model,
            )
        provider_id, model_id = await self.model_of(session)
        if provider_id == OFFLINE_ID:
            return OfflineDemoProvider(delay=self.offline_delay), OFFLINE_ID, OFFLINE_MODEL
        creds = await self.client.call("providers.credentials", {"providerId": provider_id})
        model = model_id or creds.get("defaultModelId")
        if not model:
            raise HostError(
                ErrorCode.INVALID_PARAMS,
                f"No model is chosen for {creds.get('name', provider_id)}. Pick one in Settings > Providers.",
            )
        return (
            OpenAICompatibleProvider(
                base_url=creds["baseUrl"],
                api_key=creds.get("apiKey"),
                model=model,
                label=creds.get("name", provider_id),
                proxy=await self.proxy(),
            ),
            provider_id,
            model,
        )

    async def proxy(self) -> object:
        """``settings.networkProxy``; None (the system's proxy) when the settings cannot be read."""
        try:
            settings: dict[str, Any] = (await self.client.call("settings.get", {}))["settings"]
        except HostError:
            return None
        return settings.get("networkProxy")


def model_context(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the model sees: the stored conversation without delegate rows or internal system state."""
    context = []
    for message in messages:
        meta = message.get("meta") or {}
        if meta.get("parentToolCallId") or meta.get("modelSystem") is not None:
            continue
        if message.get("role") == "assistant" and meta.get("status") == "streaming":
            continue
        context.append({k: v for k, v in message.items() if k not in ("seq", "index")})
    return context
