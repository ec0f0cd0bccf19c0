"""Attachment bytes for the model, fetched just before a request.

A stored attachment block holds only a ref (``attachments/<sha256>``) and
metadata. ``hydrate`` returns copies of the context messages where such blocks
carry a transient ``inline`` key: a data URL for an image, the decoded text of
a small text file. The copies go to the provider and nowhere else, so base64
never reaches the transcript, the database or the screen. Bytes are read from
the host in chunks, and every inline is capped, so one turn's memory stays
bounded however large the files are.
"""

from __future__ import annotations

import base64
import logging
from typing import Any

from pidesktop.bus import HostError

log = logging.getLogger("pidesktop.agent.attachments")

REF_PREFIX = "attachments/"
READ_CHUNK = 4 << 20  # the host's largest attachments.read
IMAGE_MAX = 20 << 20
TEXT_MAX = 256 << 10
CONTEXT_MAX = 64 << 20  # all inlined bytes of one request together, newest first
TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/x-python",
        "application/csv",
        "application/x-ndjson",
        "application/ld+json",
    }
)


def inline_cap(block: dict[str, Any]) -> int | None:
    """How many bytes of this block may be sent inline, or None when it is only ever named."""
    ref = block.get("ref")
    if block.get("type") != "attachment" or not isinstance(ref, str) or not ref.startswith(REF_PREFIX):
        return None
    mime = block.get("mimeType") or ""
    if block.get("kind") == "image" and mime.startswith("image/"):
        return IMAGE_MAX
    if is_text_type(mime):
        return TEXT_MAX
    return None


def is_text_type(mime: str) -> bool:
    mime = mime.split(";", 1)[0].strip().lower()
    return mime.startswith("text/") or mime in TEXT_APPLICATION_TYPES or mime.endswith(("+json", "+xml"))


async def hydrate(client: Any, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of ``messages`` with ``inline`` content on their user attachment blocks; the input is left as is."""
    budget = CONTEXT_MAX
    hydrated: list[dict[str, Any]] = list(messages)
    for index in range(len(messages) - 1, -1, -1):  # the newest prompt gets the budget first
        message = messages[index]
        if message.get("role") == "assistant":  # pictures a tool call (read) handed the model
            blocks, budget = await _hydrate_tool_pictures(client, message, budget)
            if blocks is not None:
                hydrated[index] = {**message, "blocks": blocks}
            continue
        if message.get("role") != "user":
            continue
        blocks = list(message.get("blocks") or [])
        changed = False
        for position, block in enumerate(blocks):
            inline, used = await _inline(client, block, budget) if isinstance(block, dict) else (None, 0)
            if inline is not None:
                blocks[position] = {**block, "inline": inline}
                budget -= used
                changed = True
        if changed:
            hydrated[index] = {**message, "blocks": blocks}
    return hydrated


async def _hydrate_tool_pictures(
    client: Any, message: dict[str, Any], budget: int
) -> tuple[list[dict[str, Any]] | None, int]:
    """Copies of the message's tool_call blocks with their ``attachments`` inlined; None when it has none."""
    blocks = list(message.get("blocks") or [])
    changed = False
    for position, block in enumerate(blocks):
        if not isinstance(block, dict) or block.get("type") != "tool_call" or not block.get("attachments"):
            continue
        attached = []
        for item in block["attachments"]:
            inline, used = await _inline(client, item, budget) if isinstance(item, dict) else (None, 0)
            attached.append({**item, "inline": inline} if inline is not None else item)
            budget -= used
        blocks[position] = {**block, "attachments": attached}
        changed = True
    return (blocks if changed else None), budget


async def _inline(client: Any, block: dict[str, Any], budget: int) -> tuple[dict[str, Any] | None, int]:
    cap = inline_cap(block)
    if cap is None:
        return None, 0
    cap = min(cap, budget)
    size = block.get("size")
    if cap <= 0 or (isinstance(size, int) and size > cap):
        return None, 0
    data = await read_capped(client, block["ref"], cap)
    if data is None:
        return None, 0
    if block.get("kind") == "image":
        mime = block.get("mimeType") or "application/octet-stream"
        return {"dataUrl": f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"}, len(data)
    return {"text": data.decode("utf-8", errors="replace")}, len(data)


async def read_capped(client: Any, ref: str, cap: int) -> bytes | None:
    """The blob's bytes if it holds at most ``cap`` of them, else None (so is a blob that cannot be read)."""
    data = bytearray()
    offset = 0
    while True:
        try:
            chunk = await client.call(
                "attachments.read", {"ref": ref, "offset": offset, "length": min(READ_CHUNK, cap - offset + 1)}
            )
        except HostError as exc:  # the model gets the file's name instead of its content
            log.warning("attachment %s could not be read: %s", ref, exc)
            return None
        if chunk["size"] > cap:
            return None
        data += base64.b64decode(chunk["data"])
        offset = len(data)
        if chunk["eof"] or not chunk["data"]:
            return bytes(data)


def _named_image(block: object) -> bool:
    """A stored picture of a prompt that goes to the model by name only (refused, or over the inline bound)."""
    return (
        isinstance(block, dict)
        and block.get("type") == "attachment"
        and block.get("kind") == "image"
        and isinstance(block.get("ref"), str)
        and not _carries_image(block)
    )


async def with_paths(client: Any, session_id: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies where every picture named instead of sent carries ``path``: a copy the model's tools can open.

    The host copies it into ``scratch/<sessionId>/replayed/`` (``attachments.replay``);
    a picture it cannot copy stays named only.
    """
    out = []
    for message in messages:
        blocks = message.get("blocks") or []
        if message.get("role") != "user" or not any(map(_named_image, blocks)):
            out.append(message)
            continue
        placed = []
        for block in blocks:
            if _named_image(block) and not block.get("path"):
                try:
                    params = {"sessionId": session_id, "ref": block["ref"], "name": str(block.get("name") or "")}
                    block = {**block, "path": (await client.call("attachments.replay", params))["path"]}
                except HostError as exc:
                    log.warning("no path for the picture %s: %s", block.get("name"), exc)
            placed.append(block)
        out.append({**message, "blocks": placed})
    return out


def _carries_image(block: object) -> bool:
    return isinstance(block, dict) and "dataUrl" in (block.get("inline") or {})


def _tool_pictures(block: object) -> list[Any]:
    if not isinstance(block, dict) or block.get("type") != "tool_call":
        return []
    return list(block.get("attachments") or [])


def has_images(messages: list[dict[str, Any]]) -> bool:
    """Whether some prompt, or some tool result, carries a picture inline (a data URL) for the model."""
    return any(
        _carries_image(block) or any(map(_carries_image, _tool_pictures(block)))
        for message in messages
        if message.get("role") in ("user", "assistant")
        for block in message.get("blocks") or []
    )


def _named(block: Any) -> Any:
    return {k: v for k, v in block.items() if k != "inline"} if _carries_image(block) else block


def without_images(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies with every picture named instead of sent (for a model that refused pictures)."""
    out = []
    for message in messages:
        blocks = message.get("blocks") or []
        if message.get("role") == "user" and any(map(_carries_image, blocks)):
            message = {**message, "blocks": [_named(b) for b in blocks]}
        elif message.get("role") == "assistant" and any(_tool_pictures(b) for b in blocks):
            blocks = [
                {**b, "attachments": [_named(item) for item in _tool_pictures(b)]} if _tool_pictures(b) else b
                for b in blocks
            ]
            message = {**message, "blocks": blocks}
        out.append(message)
    return out
