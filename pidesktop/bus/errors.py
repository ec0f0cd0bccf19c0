"""The one vocabulary of error codes, and the one exception type that crosses the bus.

Every code the host, the bus or the agent runtime reports is a member of
``ErrorCode``; the window's sentence for each lives in ``ui/kit/plain_errors.py``
(a test keeps the two equal). Host codes are upper case, the runtime's own
(a provider's failure, a turn that could not be sent or saved) lower case:
both are stored in turns, runs and notifications, so a value never changes.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    # the host and the bus
    PARSE_ERROR = "PARSE_ERROR"
    INVALID_REQUEST = "INVALID_REQUEST"
    METHOD_NOT_FOUND = "METHOD_NOT_FOUND"
    INVALID_PARAMS = "INVALID_PARAMS"
    INTERNAL = "INTERNAL"
    NOT_FOUND = "NOT_FOUND"
    CONFLICT = "CONFLICT"
    IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    PLAN_REQUIRES_INTERACTIVE_SESSION = "PLAN_REQUIRES_INTERACTIVE_SESSION"
    STORAGE_UNAVAILABLE = "STORAGE_UNAVAILABLE"
    STORAGE_FULL = "STORAGE_FULL"
    SCHEMA_INCOMPATIBLE = "SCHEMA_INCOMPATIBLE"
    # a provider call (agent.errors.ProviderError)
    AUTH_FAILED = "auth_failed"
    MODEL_NOT_FOUND = "model_not_found"
    RATE_LIMITED = "rate_limited"
    PROVIDER_UNAVAILABLE = "provider_unavailable"
    BAD_REQUEST = "bad_request"
    CONNECTION_FAILED = "connection_failed"
    TIMEOUT = "timeout"
    BAD_RESPONSE = "bad_response"
    PROVIDER_ERROR = "provider_error"
    STREAM_CUT = "stream_cut"
    # the runtime's turn
    NOT_READY = "not_ready"  # a send that cannot go out (agent.send_check); its message names the provider
    TOOL_ROUNDS_EXCEEDED = "tool_rounds_exceeded"
    COMPACTION_FAILED = "compaction_failed"
    CONTEXT_TOO_LARGE = "context_too_large"
    OUTBOX_FULL = "outbox_full"
    NO_ANSWER = "no_answer"  # a Plan/Goal proposal nobody answered before a window-less run ended (pidesktop chat)
    # a scheduled run cut off: pidesktop quit while it ran (stored by the host's boot pass in task_runs)
    INTERRUPTED = "interrupted"
    # why a Plan/Goal proposal expired (stored in plan_approvals): a newer one took its place, or its deadline passed
    SUPERSEDED = "superseded"
    EXPIRED = "expired"


# JSON-RPC 2.0 numeric codes: the reserved ones where the meaning matches,
# the -32000..-32099 server range for the rest.
JSONRPC_CODES: dict[str, int] = {
    ErrorCode.PARSE_ERROR: -32700,
    ErrorCode.INVALID_REQUEST: -32600,
    ErrorCode.METHOD_NOT_FOUND: -32601,
    ErrorCode.INVALID_PARAMS: -32602,
    ErrorCode.INTERNAL: -32603,
    ErrorCode.NOT_FOUND: -32004,
    ErrorCode.CONFLICT: -32009,
    ErrorCode.IDEMPOTENCY_CONFLICT: -32008,
    ErrorCode.LIMIT_EXCEEDED: -32005,
    ErrorCode.PERMISSION_DENIED: -32003,
    ErrorCode.PLAN_REQUIRES_INTERACTIVE_SESSION: -32012,
    ErrorCode.STORAGE_UNAVAILABLE: -32010,
    ErrorCode.SCHEMA_INCOMPATIBLE: -32011,
    ErrorCode.STORAGE_FULL: -32013,
}


class HostError(Exception):
    """A failed command: a stable ``code`` and a message a person can act on."""

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None):
        super().__init__(f"{code}: {message}")
        self.code = str(code)
        self.message = message
        self.data = data or {}

    def to_jsonrpc(self) -> dict[str, Any]:
        return {
            "code": JSONRPC_CODES.get(self.code, -32000),
            "message": f"{self.code}: {self.message}",
            "data": {**self.data, "code": self.code},
        }

    @classmethod
    def from_jsonrpc(cls, error: dict[str, Any]) -> HostError:
        data = dict(error.get("data") or {})
        code = data.pop("code", ErrorCode.INTERNAL)
        message = str(error.get("message", ""))
        prefix = f"{code}: "
        return cls(code, message[len(prefix) :] if message.startswith(prefix) else message, data)
