"""What a person reads when something fails: one sentence in their language, no codes.

The code, the host's own (English, technical) message and any data stay in the
error itself, which the window keeps behind Details and writes to the log.
Covers the bus's ``ErrorCode`` values and the runtime's provider error codes.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from pidesktop.bus import ErrorCode, HostError


def _tr(text: str) -> str:
    return QCoreApplication.translate("PlainErrors", text)


# Marked for translation here (lupdate reads QT_TRANSLATE_NOOP), translated when asked for. The stubs
# type QT_TRANSLATE_NOOP as returning object; it returns the text it marks.
_MARKED: dict[str, object] = {
    ErrorCode.NOT_FOUND: QT_TRANSLATE_NOOP(
        "PlainErrors", "That chat or message is no longer there; it may have been deleted elsewhere."
    ),
    ErrorCode.INVALID_PARAMS: QT_TRANSLATE_NOOP(
        "PlainErrors", "That was not accepted, and nothing was changed. Details says which value."
    ),
    ErrorCode.INVALID_REQUEST: QT_TRANSLATE_NOOP(
        "PlainErrors", "That was not accepted, and nothing was changed. Details says why."
    ),
    ErrorCode.CONFLICT: QT_TRANSLATE_NOOP(
        "PlainErrors", "Something else changed this at the same moment. Nothing was lost; try again."
    ),
    ErrorCode.IDEMPOTENCY_CONFLICT: QT_TRANSLATE_NOOP(
        "PlainErrors", "Something else changed this at the same moment. Nothing was lost; try again."
    ),
    ErrorCode.LIMIT_EXCEEDED: QT_TRANSLATE_NOOP(
        "PlainErrors", "That is more than the app takes at once. Nothing was changed; Details names the limit."
    ),
    ErrorCode.PERMISSION_DENIED: QT_TRANSLATE_NOOP(
        "PlainErrors", "Your data folder refused the change. Check its permissions; Details names the file."
    ),
    ErrorCode.STORAGE_UNAVAILABLE: QT_TRANSLATE_NOOP(
        "PlainErrors", "Your data folder can’t be reached right now. Check that its disk is attached, then try again."
    ),
    ErrorCode.STORAGE_FULL: QT_TRANSLATE_NOOP(
        "PlainErrors", "Your disk is full: free some space; nothing you wrote is lost."
    ),
    ErrorCode.SCHEMA_INCOMPATIBLE: QT_TRANSLATE_NOOP(
        "PlainErrors", "Your data was written by a different version of pidesktop, which this one can’t open."
    ),
    ErrorCode.METHOD_NOT_FOUND: QT_TRANSLATE_NOOP(
        "PlainErrors", "This part of the app is not available in this version."
    ),
    ErrorCode.INTERNAL: QT_TRANSLATE_NOOP(
        "PlainErrors", "Something unexpected went wrong. Nothing was changed; Details has the report."
    ),
    # the runtime's provider failures (agent.errors.ProviderErrorCode)
    "auth_failed": QT_TRANSLATE_NOOP(
        "PlainErrors", "The provider rejected the API key. Check it in Settings > Providers."
    ),
    "model_not_found": QT_TRANSLATE_NOOP(
        "PlainErrors",
        "The provider does not know this model. Pick another one in the composer or in Settings > Providers.",
    ),
    "rate_limited": QT_TRANSLATE_NOOP("PlainErrors", "The provider is limiting requests. Try again in a moment."),
    "provider_unavailable": QT_TRANSLATE_NOOP(
        "PlainErrors", "The provider is having trouble right now. Try again in a moment."
    ),
    "bad_request": QT_TRANSLATE_NOOP("PlainErrors", "The provider refused the request. Details has its reason."),
    "connection_failed": QT_TRANSLATE_NOOP(
        "PlainErrors", "Could not reach the provider. Check its address in Settings > Providers and that it is running."
    ),
    "timeout": QT_TRANSLATE_NOOP("PlainErrors", "The provider took too long to answer. Try again."),
    "bad_response": QT_TRANSLATE_NOOP("PlainErrors", "The provider sent an answer the app could not read."),
    "provider_error": QT_TRANSLATE_NOOP(
        "PlainErrors", "The provider stopped the reply with an error. Details has its reason."
    ),
    "stream_cut": QT_TRANSLATE_NOOP("PlainErrors", "The connection dropped before the reply was finished."),
    "compaction_failed": QT_TRANSLATE_NOOP(
        "PlainErrors", "The chat's older part could not be summarised to make room, so nothing was sent. Try again."
    ),
    "context_too_large": QT_TRANSLATE_NOOP(
        "PlainErrors",
        "The newest message is too long for this model's context window. Shorten it or pick another model.",
    ),
    "aborted_by_crash": QT_TRANSLATE_NOOP(
        "PlainErrors", "The reply was cut off because pidesktop quit or crashed while it was being written."
    ),
}
_BY_CODE: dict[str, str] = {code: str(text) for code, text in _MARKED.items()}
# PERMISSION_DENIED naming a pi session is not the data folder's permissions: the session is pi's own file
_PI_READ_ONLY = QT_TRANSLATE_NOOP(
    "PlainErrors", "This is a pi session, so it can’t be changed here. Fork it or continue it in pidesktop."
)


def sentence_for_code(code: str | None, fallback: str = "") -> str:
    """The sentence for a known code; ``fallback`` (or a general sentence) for any other."""
    text = _BY_CODE.get(str(code)) if code else None
    if text is not None:
        return _tr(text)
    return fallback or _tr(_BY_CODE[ErrorCode.INTERNAL])


def sentence(error: HostError) -> str:
    """One sentence for the status line, the inbox, a dialog."""
    if error.code == ErrorCode.PERMISSION_DENIED and isinstance(error.data, dict) and error.data.get("native"):
        return _tr(str(_PI_READ_ONLY))
    return sentence_for_code(error.code, error.message)
