"""Model providers: one import point for events, errors, providers, presets and reply assembly."""

from ..errors import ProviderError, ProviderErrorCode
from ..events import Finished, RefusalDelta, StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta, Usage
from ..offline import OfflineDemoProvider
from ..openai_compat import OpenAICompatibleProvider, to_openai_messages
from ..presets import PRESETS, Preset
from ..reply import ReplyBuilder
from ..sse import SSEDecoder, SSEEvent
from .protocol import ChatProvider

__all__ = [
    "ChatProvider", "Finished", "OfflineDemoProvider", "OpenAICompatibleProvider", "PRESETS", "Preset",
    "ProviderError", "ProviderErrorCode", "RefusalDelta", "ReplyBuilder", "SSEDecoder", "SSEEvent",
    "StreamEvent", "TextDelta", "ThinkingDelta", "ToolCallDelta", "Usage", "to_openai_messages",
]
