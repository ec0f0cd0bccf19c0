"""The provider protocol: ``ChatProvider`` is what the turn runner may rely on, whichever provider it holds."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any, Protocol, runtime_checkable

from pidesktop.agent.events import StreamEvent


@runtime_checkable
class ChatProvider(Protocol):
    label: str

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        thinking_level: str = "off",
        tools: list[dict[str, Any]] | None = None,
        cancel: asyncio.Event | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        """Yield events ending with ``Finished``, raise ``ProviderError``, or stop quietly once ``cancel`` is set."""
        ...

    async def list_models(self) -> list[dict[str, Any]]: ...

    async def aclose(self) -> None: ...
