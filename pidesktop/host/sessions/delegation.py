"""Delegation settlement snapshots (spec 004, preface).

A completed ``Task`` tool call may still describe a running delegate: its
block carries ``delegation: {id, status}``. A later snapshot of the same
message (same session and id, the same ``callId`` and delegation ``id``)
whose delegation status is terminal replaces only that block's result and
display (``result``, ``status``, ``delegation``, ``details``); the message's
other blocks, its metadata, its place and its index row stay. A running
replay, another delegation's result, or any replay once the stored snapshot
is terminal changes nothing. No schema or transcript format change.
"""

from __future__ import annotations

from typing import Any

RUNNING = frozenset({"running", "pending", "queued", "starting"})
SETTLED_KEYS = ("result", "status", "delegation", "details")


def delegation_of(block: object) -> tuple[str, str] | None:
    """``(delegation id, status)`` of a tool-call block that carries a delegation, else None."""
    if not isinstance(block, dict) or block.get("type") != "tool_call":
        return None
    delegation = block.get("delegation")
    if not isinstance(delegation, dict):
        return None
    delegation_id, status = delegation.get("id"), delegation.get("status")
    if not isinstance(delegation_id, str) or not delegation_id or not isinstance(status, str):
        return None
    return delegation_id, status


def settle(stored: dict[str, Any], replay: dict[str, Any]) -> dict[str, Any] | None:
    """``stored`` with every running delegation that ``replay`` settles replaced; None when nothing changes."""
    incoming: dict[tuple[object, str], dict[str, Any]] = {}
    for block in replay.get("blocks") or []:
        found = delegation_of(block)
        if found is not None and found[1] not in RUNNING:
            incoming[(block.get("callId"), found[0])] = block
    if not incoming:
        return None
    blocks = list(stored.get("blocks") or [])
    changed = False
    for position, block in enumerate(blocks):
        found = delegation_of(block)
        if found is None or found[1] not in RUNNING:
            continue  # no delegation, or already settled: never overwritten
        terminal = incoming.get((block.get("callId"), found[0]))
        if terminal is None:
            continue  # another delegation's result
        updated = {key: value for key, value in block.items() if key not in SETTLED_KEYS}
        updated.update({key: terminal[key] for key in SETTLED_KEYS if key in terminal})
        blocks[position] = updated
        changed = True
    return {**stored, "blocks": blocks} if changed else None
