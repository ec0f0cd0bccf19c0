"""The chat export file: Markdown (to read) or JSON (lossless, to keep or load back), a piece at a time.

Pure formatting, no reading or writing: the host's ``session.export`` streams a
chat through these, and ``pidesktop.agent.export`` (windowed ``session.get``
pages) gives the same bytes.

Markdown: a heading per message, its text as written (code blocks kept),
thinking and tool calls folded in ``<details>``, attachments listed by name,
and each compaction summary folded where it was made.

JSON: ``{format, version, exportedAt, session, messages, compactions}`` with the
stored messages exactly as ``session.replaceMessages`` takes them back (only
the read positions ``seq``/``index`` are left out). Never in either: secrets
(keys such as ``apiKey`` are dropped wherever they appear) and the absolute
path of the data folder (written as ``<data>``).
"""

from __future__ import annotations

import html
import re
import time
from typing import Any

import orjson

from pidesktop.sizes import human_size

FORMATS = ("md", "json")
FORMAT_NAME = "pidesktop-chat-export"
VERSION = 1
DATA_ROOT_MARK = "<data>"
SECRET_KEYS = frozenset(
    {"apikey", "api_key", "authorization", "password", "secret", "accesstoken", "refreshtoken", "x-api-key"}
)
READ_KEYS = ("seq", "index")  # read positions of a window, not part of the stored message


def _secret_key_pattern(key: str) -> bytes:
    # "k" also as the Kelvin sign, the one other character whose lowercase is an ASCII letter.
    return b"".join(b"(?:k|\xe2\x84\xaa)" if c == "k" else re.escape(c.encode()) for c in key)


# A key whose lowercase is a secret key, as compact JSON writes it: ``"apiKey":``, in any case. Searched in
# the text's ASCII lowercase (what IGNORECASE matches in bytes, found by a case-sensitive pattern sooner).
_SECRET_KEY_IN_JSON = re.compile(b'"(?:%s)":' % b"|".join(_secret_key_pattern(key) for key in sorted(SECRET_KEYS)))


class Cleaner:
    """Drops secret keys and writes the data folder's absolute path as ``<data>``, at any depth."""

    def __init__(self, data_root: str | None):
        root = (data_root or "").rstrip("/\\")
        self.roots = [r for r in {root, root.replace("\\", "/")} if len(r) > 1]
        # JSON escapes character by character: a string holding a root holds its escaped form once written.
        self._written_roots = [orjson.dumps(r)[1:-1] for r in self.roots]

    def text(self, value: str) -> str:
        for root in self.roots:
            if root in value:
                value = value.replace(root, DATA_ROOT_MARK)
        return value

    def dumps(self, value: Any) -> str:
        """``dumps(self.value(value))``: see :meth:`json_bytes`."""
        return self.json_bytes(value).decode()

    def json_bytes(self, value: Any) -> bytes:
        """``orjson.dumps(self.value(value))``, without walking every key and string of the many values with
        nothing to clean: their JSON shows no data folder and no secret key, and is written as it is."""
        text = orjson.dumps(value)
        return orjson.dumps(self.value(value)) if self.finds_in_json(text) else text

    def finds_in_json(self, text: bytes) -> bool:
        """Whether the compact JSON ``text`` (one value, or several joined) may hold a secret key or the data
        folder: False only when :meth:`value` would change nothing in it."""
        return any(root in text for root in self._written_roots) or (
            _SECRET_KEY_IN_JSON.search(text.lower()) is not None
        )

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k): self.value(v) for k, v in value.items() if k.lower() not in SECRET_KEYS}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


def stored(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k not in READ_KEYS}


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


# -- JSON ---------------------------------------------------------------------------------------
def json_head(session: dict[str, Any], cleaner: Cleaner) -> str:
    """Everything before the first message: the format, the time, the chat, and the messages' opening."""
    head = {"format": FORMAT_NAME, "version": VERSION, "exportedAt": _now_rfc3339(), "session": cleaner.value(session)}
    return dumps(head)[:-1] + ',"messages":['


def json_tail(compactions: list[dict[str, Any]], cleaner: Cleaner) -> str:
    return '],"compactions":' + dumps(cleaner.value(compactions)) + "}\n"


# -- Markdown -----------------------------------------------------------------------------------
ROLE_HEADINGS = {"user": "You", "assistant": "Assistant", "system": "System", "tool": "Tool"}


def markdown_head(session: dict[str, Any], total: int, cleaner: Cleaner) -> str:
    title = session.get("title") or "New chat"
    lines = [f"# {html.escape(_one_line(title), quote=False)}", ""]  # a title's "<b>" is text, not a tag
    created = _ms_rfc3339(session.get("createdAt"))
    if created:
        lines.append(f"- Started: {created}")
    if session.get("modelId"):
        lines.append(f"- Model: {session.get('providerId') or ''}/{session['modelId']}".replace(": /", ": "))
    if session.get("projectPath"):
        lines.append(f"- Project: {cleaner.text(session['projectPath'])}")
    lines.append(f"- Messages: {total}")
    lines.append(f"- Exported: {_now_rfc3339()}")
    return "\n".join(lines) + "\n\n"


MESSAGE_END = "\n\n---\n\n"


def message_markdown(message: dict[str, Any]) -> str:
    """One message: a heading, then its blocks in order."""
    return "\n\n".join(message_parts(message)) + MESSAGE_END


def message_parts(message: dict[str, Any]) -> list[str]:
    """:func:`message_markdown`'s paragraphs (the heading, each block's, the status line), to be joined by
    blank lines: the heading's "·" need not make the whole message a text that encodes character by
    character."""
    role = message.get("role") or "message"
    heading = ROLE_HEADINGS.get(role, role.capitalize())
    meta = message.get("meta") or {}
    if role == "assistant" and message.get("model"):
        heading += f" · {message['model']}"
    when = _short_time(message.get("createdAt"))
    parts = [f"## {heading}" + (f" · {when}" if when else "")]
    attachments = []
    for block in message.get("blocks") or []:
        kind = block.get("type")
        if kind == "text":
            text = block.get("text") or ""
            if text.strip():
                parts.append(demote_headings(text.strip("\n")))
        elif kind == "thinking":
            text = (block.get("text") or "").strip("\n")
            if text.strip():
                parts.append(_details("Thinking", text))
        elif kind == "tool_call":
            parts.append(_tool_call(block))
        elif kind == "attachment":
            attachments.append(block)
        else:
            parts.append(_details(f"{kind or 'block'}", _fenced(_pretty(block), "json")))
    if attachments:
        parts.append("Attachments:\n\n" + "\n".join(f"- {_attachment_line(block)}" for block in attachments))
    status = meta.get("status")
    if role == "assistant" and status in ("aborted", "error"):
        error = (meta.get("error") or {}).get("message")
        parts.append(
            f"*(The reply {'was stopped' if status == 'aborted' else 'failed'}"
            f"{': ' + _one_line(error).rstrip('.') if error else ''}.)*"
        )
    return parts


def demote_headings(text: str) -> str:
    """Headings inside a message two levels down (``#`` becomes ``###``), so the message headings stay
    the outline; lines inside code fences are left exactly as written."""
    if "#" not in text:  # nothing to demote (most messages)
        return text
    out, fence = [], None
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        marker = stripped[:3]
        if fence is None and marker in ("```", "~~~") and len(line) - len(stripped) < 4:
            fence = stripped[: len(stripped) - len(stripped.lstrip(marker[0]))]
        elif fence is not None and stripped.startswith(fence) and not stripped[len(fence) :].strip(fence[0]).strip():
            fence = None
        elif fence is None and stripped.startswith("#") and len(line) - len(stripped) < 4:
            level = len(stripped) - len(stripped.lstrip("#"))
            if level <= 6 and (len(stripped) == level or stripped[level] in " \t"):
                line = "#" * min(6, level + 2) + stripped[level:]
        out.append(line)
    return "\n".join(out)


def _short_time(value: Any) -> str | None:
    """``2026-12-01T17:52:27.652Z`` as ``2026-12-01 17:52 UTC``; other spellings as given."""
    if not isinstance(value, str) or not value:
        return None
    if len(value) >= 16 and value[10] == "T" and value.endswith("Z"):
        return f"{value[:10]} {value[11:16]} UTC"
    return value


def _tool_call(block: dict[str, Any]) -> str:
    name = block.get("name") or "tool"
    body = ["Arguments:", _fenced(_pretty(block.get("args")), "json")]
    result = block.get("result")
    if result is not None:
        body += ["Result:", _fenced(result if isinstance(result, str) else _pretty(result), "")]
    return _details(f"Tool call: {html.escape(name, quote=False)}", "\n\n".join(body))


def compaction_markdown(record: dict[str, Any]) -> str:
    summary = (record.get("summary") or "").strip()
    return _details("Summary of the earlier messages (compaction)", summary or "(empty)") + "\n\n"


def _attachment_line(block: dict[str, Any]) -> str:
    name = block.get("name") or "attachment"
    size = block.get("size")
    facts = [f for f in (block.get("mimeType"), human_size(size) if isinstance(size, int) else None) if f]
    return f"{_one_line(name)}" + (f" ({', '.join(facts)})" if facts else "")


def _details(summary: str, body: str) -> str:
    # Blank lines around the body let Markdown inside <details> render (GitHub, most viewers).
    return f"<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>"


def _fenced(text: str, language: str) -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    fence = "```"
    while fence in text:  # a substring search per length, not a Python step per character (100 KB outputs)
        fence += "`"
    return f"{fence}{language}\n{text}\n{fence}"


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        text = value
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _ms_rfc3339(ms: Any) -> str | None:
    if not isinstance(ms, int):
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms / 1000))


def _now_rfc3339() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def suggested_name(session: dict[str, Any], fmt: str) -> str:
    """A file name for the export: the chat's title made safe for every file system."""
    title = _one_line(session.get("title") or "chat")
    safe = "".join(c if c.isalnum() or c in " -_.()" else "-" for c in title).strip(" .-")[:60] or "chat"
    return f"{safe}.{fmt}"
