"""An MCP tool result (its ``content`` list) as the text a model reads, within pi's limits.

Text parts are kept as they are. Images, audio and binary embedded resources
are written whole under the chat's ``scratch/<sessionId>/tool-output/`` and
named by path with their type and size: base64 in a transcript would cost the
model tokens without showing it anything. A text resource is given with its
URI. ``structuredContent`` is shown as JSON when there is no text. The whole
text is then cut and spilled like any built-in tool's output (``tools.limits``).
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import uuid
from typing import Any

import orjson

from pidesktop.durable import atomic_write
from pidesktop.host.context import HostContext
from pidesktop.host.tools import limits


def _keep_binary(ctx: HostContext, session_id: str, data: str, mime: str, what: str) -> str:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"[{what} ({mime}) that was not valid base64; left out]"
    folder = ctx.data_root / "scratch" / session_id / "tool-output"
    folder.mkdir(parents=True, exist_ok=True)
    suffix = mimetypes.guess_extension(mime) or ".bin"
    path = folder / f"mcp-{uuid.uuid4().hex[:12]}{suffix}"
    atomic_write(path, raw, durable=False)
    return f"[{what}: {mime}, {len(raw):,} bytes, kept at {path}]"


def _part(ctx: HostContext, session_id: str, part: Any) -> str:
    if not isinstance(part, dict):
        return ""
    kind = part.get("type")
    if kind == "text":
        return str(part.get("text", ""))
    if kind in ("image", "audio"):
        mime = str(part.get("mimeType") or ("image/png" if kind == "image" else "audio/wav"))
        return _keep_binary(ctx, session_id, str(part.get("data", "")), mime, kind.capitalize())
    if kind == "resource":
        found = part.get("resource")
        resource: dict[str, Any] = found if isinstance(found, dict) else {}
        uri = str(resource.get("uri", ""))
        if "text" in resource:
            return f"[Resource {uri}]\n{resource.get('text', '')}"
        mime = str(resource.get("mimeType") or "application/octet-stream")
        return _keep_binary(ctx, session_id, str(resource.get("blob", "")), mime, f"Resource {uri}")
    if kind == "resource_link":
        name = part.get("name") or part.get("uri")
        return f"[Resource link {name}: {part.get('uri', '')}]"
    return f"[A {kind or 'content'} part this app cannot show]"


def as_text(ctx: HostContext, session_id: str, content: list[Any], structured: Any, tool: str) -> str:
    """The model's text for a result: its parts in order, cut and spilled when too long."""
    parts = [text for text in (_part(ctx, session_id, part) for part in content) if text]
    if not any(isinstance(p, dict) and p.get("type") == "text" for p in content) and structured is not None:
        parts.append(orjson.dumps(structured, option=orjson.OPT_INDENT_2).decode())
    text = "\n\n".join(parts) if parts else "(the tool returned nothing)"
    return limits.limited(ctx, session_id, text, tool.replace("/", "_"))
