"""A prompt's blocks as they are stored: its text, then the attachment blocks that name its files."""

from __future__ import annotations

import uuid
from typing import Any

from pidesktop.bus import ErrorCode, HostError

QUEUED_PROMPT_IDS = uuid.UUID("9a1f7c64-3a55-4c1e-8f53-2f0d6b1b8e21")
STORED_ATTACHMENT_KEYS = frozenset({"type", "kind", "name", "ref", "mimeType", "size", "text"})


def queued_user_id(entry: dict[str, Any]) -> str:
    """The user message id of a queued prompt: the same on every try, so a retry never stores it twice."""
    return entry.get("userMessageId") or str(uuid.uuid5(QUEUED_PROMPT_IDS, entry["id"]))


def prompt_blocks(text: str, attachments: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """A prompt's blocks: its text (unless blank), then its attachment blocks, or INVALID_PARAMS."""
    if attachments is not None and not isinstance(attachments, list):
        raise HostError(
            ErrorCode.INVALID_PARAMS,
            f"attachments must be a list of attachment blocks, not {type(attachments).__name__}.",
        )
    attached = [_attachment_block(number, block) for number, block in enumerate(attachments or [])]
    if not text.strip() and not attached:
        raise HostError(ErrorCode.INVALID_PARAMS, "The prompt is empty: type a message or attach a file.")
    return ([{"type": "text", "text": text}] if text.strip() else []) + attached


def queued_prompt(entry: dict[str, Any]) -> dict[str, Any]:
    """The user message of a queue entry, as it is stored when the entry is sent."""
    blocks = prompt_blocks(entry["content"], entry.get("attachments") or None)
    return {"id": queued_user_id(entry), "role": "user", "blocks": blocks}


def _attachment_block(number: int, block: Any) -> dict[str, Any]:
    if not isinstance(block, dict) or block.get("type") != "attachment":
        raise HostError(ErrorCode.INVALID_PARAMS, f'attachments[{number}] must be an object with type "attachment".')
    if not isinstance(block.get("ref"), str) or not block["ref"]:
        raise HostError(ErrorCode.INVALID_PARAMS, f"attachments[{number}].ref must be a non-empty string.")
    # A prompt stores only what names the attachment (spec 004, 4.7): content fetched
    # for the model (``inline``) is transient, and the digest is already in the ref.
    return {key: value for key, value in block.items() if key in STORED_ATTACHMENT_KEYS}
