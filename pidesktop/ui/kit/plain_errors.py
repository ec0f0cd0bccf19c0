"""What a person reads when something fails: one sentence in their language, no codes.

The code, the host's own (English, technical) message and any data stay in the
error itself, which the window keeps behind Details and writes to the log.
Every ``ErrorCode`` has its sentence here and nothing else does
(``tests/test_error_vocabulary.py`` checks both ways).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from pidesktop.bus import ErrorCode, HostError


def _tr(text: str) -> str:
    return QCoreApplication.translate("PlainErrors", text)


# Marked for translation here (lupdate reads QT_TRANSLATE_NOOP), translated when asked for. The stubs
# type QT_TRANSLATE_NOOP as returning object; it returns the text it marks.
_MARKED: dict[ErrorCode, object] = {
    ErrorCode.PARSE_ERROR: QT_TRANSLATE_NOOP(
        "PlainErrors", "That was not accepted, and nothing was changed. Details says why."
    ),
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
        "PlainErrors", "That isn’t allowed here, so nothing was changed. Details says why."
    ),
    ErrorCode.PLAN_REQUIRES_INTERACTIVE_SESSION: QT_TRANSLATE_NOOP(
        "PlainErrors", "Plan and Goal need you to approve. Switch the task to Agent."
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
    # a provider call
    ErrorCode.AUTH_FAILED: QT_TRANSLATE_NOOP(
        "PlainErrors", "The provider rejected the API key. Check it in Settings > Providers."
    ),
    ErrorCode.MODEL_NOT_FOUND: QT_TRANSLATE_NOOP(
        "PlainErrors",
        "The provider does not know this model. Pick another one in the composer or in Settings > Providers.",
    ),
    ErrorCode.RATE_LIMITED: QT_TRANSLATE_NOOP(
        "PlainErrors", "The provider is limiting requests. Try again in a moment."
    ),
    ErrorCode.PROVIDER_UNAVAILABLE: QT_TRANSLATE_NOOP(
        "PlainErrors", "The provider is having trouble right now. Try again in a moment."
    ),
    ErrorCode.BAD_REQUEST: QT_TRANSLATE_NOOP(
        "PlainErrors", "The provider refused the request. Details has its reason."
    ),
    ErrorCode.CONNECTION_FAILED: QT_TRANSLATE_NOOP(
        "PlainErrors", "Could not reach the provider. Check its address in Settings > Providers and that it is running."
    ),
    ErrorCode.TIMEOUT: QT_TRANSLATE_NOOP("PlainErrors", "The provider took too long to answer. Try again."),
    ErrorCode.BAD_RESPONSE: QT_TRANSLATE_NOOP("PlainErrors", "The provider sent an answer the app could not read."),
    ErrorCode.PROVIDER_ERROR: QT_TRANSLATE_NOOP(
        "PlainErrors", "The provider stopped the reply with an error. Details has its reason."
    ),
    ErrorCode.STREAM_CUT: QT_TRANSLATE_NOOP("PlainErrors", "The connection dropped before the reply was finished."),
    # the runtime's turn
    ErrorCode.NOT_READY: QT_TRANSLATE_NOOP(
        "PlainErrors", "This chat can’t send yet: check its provider, model and API key in Settings > Providers."
    ),
    ErrorCode.TOOL_ROUNDS_EXCEEDED: QT_TRANSLATE_NOOP(
        "PlainErrors",
        "The model used tools many times without answering, so the reply was stopped. Send a message to go on.",
    ),
    ErrorCode.COMPACTION_FAILED: QT_TRANSLATE_NOOP(
        "PlainErrors", "The chat's older part could not be summarised to make room, so nothing was sent. Try again."
    ),
    ErrorCode.CONTEXT_TOO_LARGE: QT_TRANSLATE_NOOP(
        "PlainErrors",
        "The newest message is too long for this model's context window. Shorten it or pick another model.",
    ),
    ErrorCode.OUTBOX_FULL: QT_TRANSLATE_NOOP(
        "PlainErrors",
        "Too many replies were waiting to be saved, so this one is kept aside. It appears when pidesktop starts again.",
    ),
    ErrorCode.NO_ANSWER: QT_TRANSLATE_NOOP(
        "PlainErrors", "No answer was given, so the proposal was not carried out. Open the chat and choose Ask again."
    ),
    ErrorCode.INTERRUPTED: QT_TRANSLATE_NOOP("PlainErrors", "pidesktop quit while it ran."),
    ErrorCode.SUPERSEDED: QT_TRANSLATE_NOOP("PlainErrors", "A newer proposal took the place of this one."),
    ErrorCode.EXPIRED: QT_TRANSLATE_NOOP(
        "PlainErrors", "Nobody answered this proposal within a day, so it can no longer be approved."
    ),
}
SENTENCES: dict[str, str] = {code: str(text) for code, text in _MARKED.items()}
# PERMISSION_DENIED says where the refusal came from in its data: a pi session (pi's own file), or the
# disk under the data folder (``data.reason``, the system's words); anything else gets the general sentence.
_PI_READ_ONLY = QT_TRANSLATE_NOOP(
    "PlainErrors", "This is a pi session, so it can’t be changed here. Fork it or continue it in pidesktop."
)
_DATA_FOLDER_REFUSED = QT_TRANSLATE_NOOP(
    "PlainErrors", "Your data folder refused the change. Check its permissions; Details names the file."
)
# CONFLICT because this chat's reply still runs (regenerate, compact now): not a change made elsewhere.
_REPLY_RUNNING = QT_TRANSLATE_NOOP(
    "PlainErrors", "A reply is still running in this chat. Wait for it to finish, or stop it, then try again."
)
# STORAGE_UNAVAILABLE for a data folder the host could not open says why in ``data.cause`` (host/storage_errors.py):
# each cause has its own advice, where the general sentence would ask for a disk that is attached already.
_DATA_FOLDER_UNUSABLE = {
    "readOnly": QT_TRANSLATE_NOOP(
        "PlainErrors",
        "Your data folder is on a read-only disk, so pidesktop can’t save anything. "
        "Make it writable, or start pidesktop with --data-dir set to another folder.",
    ),
    "permission": QT_TRANSLATE_NOOP(
        "PlainErrors",
        "pidesktop may not write to your data folder. Give your user write access to it, "
        "or start pidesktop with --data-dir set to another folder.",
    ),
    "full": QT_TRANSLATE_NOOP(
        "PlainErrors",
        "The disk of your data folder is full, so pidesktop can’t start. Free some space, then start it again.",
    ),
}


# A provider call's failure. Its message is written for people by agent.errors and names the server and what
# to check ("... has no model list at .../models (404). Check the base URL in Settings > Providers."): the
# Providers page, where that is checked, shows it whole.
PROVIDER_CALL = frozenset(
    {
        ErrorCode.AUTH_FAILED,
        ErrorCode.MODEL_NOT_FOUND,
        ErrorCode.RATE_LIMITED,
        ErrorCode.PROVIDER_UNAVAILABLE,
        ErrorCode.BAD_REQUEST,
        ErrorCode.CONNECTION_FAILED,
        ErrorCode.TIMEOUT,
        ErrorCode.BAD_RESPONSE,
        ErrorCode.PROVIDER_ERROR,
        ErrorCode.STREAM_CUT,
    }
)


def sentence_for_code(code: str | None, fallback: str = "") -> str:
    """The sentence for a known code; ``fallback`` (or a general sentence) for any other."""
    text = SENTENCES.get(str(code)) if code else None
    if text is not None:
        return _tr(text)
    return fallback or _tr(SENTENCES[ErrorCode.INTERNAL])


def sentence(error: HostError) -> str:
    """One sentence for the status line, the inbox, a dialog."""
    if chat_refusal(error):
        return _tr(str(_CHAT_PICTURES[error.data["reason"]]))
    if error.code == ErrorCode.NOT_READY and error.message:
        return error.message  # the runtime's own sentence names the provider and what it lacks
    if error.code == ErrorCode.STORAGE_UNAVAILABLE and isinstance(error.data, dict):
        unusable = _DATA_FOLDER_UNUSABLE.get(str(error.data.get("cause")))
        if unusable is not None:
            return _tr(str(unusable))
    if error.code == ErrorCode.CONFLICT and isinstance(error.data, dict) and error.data.get("replyRunning"):
        return _tr(str(_REPLY_RUNNING))
    if error.code == ErrorCode.PERMISSION_DENIED and isinstance(error.data, dict):
        if error.data.get("native"):
            return _tr(str(_PI_READ_ONLY))
        if error.data.get("reason"):
            return _tr(str(_DATA_FOLDER_REFUSED))
    return sentence_for_code(error.code, error.message)


# One chat whose tool pictures (Pi Desktop's binaryStorage envelope) cannot be decoded is refused by itself
# (``data.reason``): the rest of the data folder is fine, so this is no reason to block the window.
_CHAT_PICTURES = {
    "unknownVersion": QT_TRANSLATE_NOOP(
        "PlainErrors",
        "This chat can’t be shown: a newer version stored its tool pictures. Update pidesktop to open it; "
        "nothing was changed.",
    ),
    "badReference": QT_TRANSLATE_NOOP(
        "PlainErrors",
        "This chat can’t be shown: its tool pictures are stored in a damaged form. Restore it from a backup; "
        "nothing was changed.",
    ),
}


def chat_refusal(error: HostError) -> bool:
    """``error`` refuses one chat's file, not the data folder (the window stays usable)."""
    return isinstance(error.data, dict) and error.data.get("reason") in _CHAT_PICTURES
