"""How an MCP server's tool is named to the model: ``mcp__<server>__<tool>``.

Function names must match ``[A-Za-z0-9_-]{1,64}`` for OpenAI-compatible
servers, so other characters become ``_`` and a name that would be longer is
cut and given a short hash of the real name, which keeps it unique.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def model_name(server: str, tool: str, *, hashed: bool = False) -> str:
    """The name the model calls; ``hashed`` forces the hash (two servers' tools that would read the same)."""
    name = f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME and _UNSAFE.sub("_", tool) == tool and not hashed:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"
