"""The pi coding agent's session file format, read without any I/O.

A pi session is JSONL: a ``session`` header line, then entries. Format
version 3 (and 2) entries form a tree through ``id``/``parentId``; the
current branch is the path from the file's last entry back to the root (a
missing parent ends it, as pi does). Version 1 files have no ids: entries
are a list, migrated here in memory the way pi migrates them (each entry the
child of the one before; ``firstKeptEntryIndex`` becomes an id), with ids
``v1-<n>`` that are stable for a given file. Version 2 named custom messages
``hookMessage``; they read as ``custom``.

Everything here is pure: bytes in, values out. The host's cache
(``native/index.py``) stores the light ``Meta`` of each entry with its byte
offset and parses only the entries a window needs; an importer can use
``parse`` and ``read_branch`` on a whole file.

Projection to the app's ``UiMessage`` shape (spec 004 section 4.7 blocks):
user/assistant messages keep their role; a ``toolCall`` block and its
``toolResult`` message become one ``tool_call`` block; a ``bashExecution``
message is an assistant ``tool_call`` named ``bash``; ``custom_message`` and
``branch_summary`` entries are ``system`` messages marked in
``meta.native``; compactions go to the ``compactions`` list; labels become
``meta.labels`` of their target.

A ``context_edit`` entry (pi 0.87.1: ``targetId`` and ``replacement``, either
``null`` or ``{content}``) on the branch changes only what the model is shown
of its target, never the history: the target's UiMessage carries
``meta.contextEdit`` (``{"omitted": true}`` or ``{"blocks": [...]}``), or for
a tool result folded into its call, the ``tool_call`` block carries
``contextEdit`` (``{"omitted": true}`` or ``{"result": text}``). The latest
edit of a target on the branch wins; edits on other branches do not apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import orjson

from pidesktop.formats.transcript.records import parse_rfc3339, rfc3339
from pidesktop.host.json_values import object_at
from pidesktop.host.titles import cut_at_word

CURRENT_VERSION = 3
PREVIEW_CHARS = 160

# Meta.kind values that become a UiMessage of their own (a toolResult may fold into one).
MESSAGE_KINDS = frozenset({"user", "assistant", "toolResult", "bash", "custom", "custom_message", "branch_summary"})


# -- lines ------------------------------------------------------------------------------------
def split_lines(data: bytes, base: int = 0) -> tuple[list[tuple[int, bytes]], int]:
    """Complete lines of ``data`` as ``(offset, line without its newline)`` and the offset just past the last one.

    Bytes after the last newline are a torn tail (a writer mid-line): they are
    not returned, and the returned end offset stops before them.
    """
    lines: list[tuple[int, bytes]] = []
    start = 0
    find = data.find
    while True:
        end = find(b"\n", start)
        if end < 0:
            break
        lines.append((base + start, data[start:end]))
        start = end + 1
    return lines, base + start


def parse_line(raw: bytes) -> dict[str, Any] | None:
    """A line's JSON object, or None for a blank line, garbage or any other JSON value."""
    if not raw.strip():
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def is_header(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict) and value.get("type") == "session" and isinstance(value.get("id"), str)


def version_of(header: dict[str, Any]) -> int:
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


# -- entry metadata -----------------------------------------------------------------------------
class Meta:
    """What the tree and the listing need of one entry, without its content."""

    __slots__ = (
        "id",
        "parent",
        "kind",
        "ts",
        "call_id",
        "target",
        "label",
        "name",
        "model",
        "provider",
        "preview",
        "ordinal",
        "thinking",
        "edit",
    )

    def __init__(self, id: str, parent: str | None, kind: str, ordinal: int):
        self.id = id
        self.parent = parent
        self.kind = kind
        self.ordinal = ordinal
        self.ts: int | None = None
        self.call_id: str | None = None
        self.target: str | None = None
        self.label: str | None = None
        self.name: str | None = None
        self.model: str | None = None
        self.provider: str | None = None
        self.preview: str | None = None
        self.thinking: str | None = None
        self.edit: dict[str, Any] | None = None  # a context_edit's replacement (None: omit the target)


def entry_id(entry: dict[str, Any], ordinal: int, version: int) -> tuple[str, str | None]:
    """``(id, parentId)`` of an entry; version 1 entries get ``v1-<n>`` chained to the previous one."""
    if version < 2:
        return f"v1-{ordinal}", (f"v1-{ordinal - 1}" if ordinal > 0 else None)
    raw_id, parent = entry.get("id"), entry.get("parentId")
    return (
        raw_id if isinstance(raw_id, str) else f"line-{ordinal}",
        parent if isinstance(parent, str) and parent != raw_id else None,
    )


_ROLE_KINDS = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "toolResult",
    "bashExecution": "bash",
    "custom": "custom",
    "hookMessage": "custom",
}
_ENTRY_KINDS = frozenset(
    {
        "custom_message",
        "branch_summary",
        "compaction",
        "label",
        "session_info",
        "model_change",
        "thinking_level_change",
        "context_edit",
    }
)


def describe(entry: dict[str, Any], ordinal: int, version: int) -> Meta:
    """The ``Meta`` of an entry (``ordinal``: its 0-based position among the file's entries)."""
    mid, parent = entry_id(entry, ordinal, version)
    kind = entry.get("type")
    meta = Meta(mid, parent, "other", ordinal)
    if kind == "message":
        message = object_at(entry, "message")
        role = message.get("role")
        meta.kind = _ROLE_KINDS.get(role, "other") if isinstance(role, str) else "other"
        stamp = message.get("timestamp")
        meta.ts = stamp if isinstance(stamp, int) and not isinstance(stamp, bool) else iso_ms(entry.get("timestamp"))
        if meta.kind == "toolResult":
            meta.call_id = _str(message.get("toolCallId"))
        elif meta.kind == "user":
            meta.preview = _preview(content_text(message.get("content")))
        elif meta.kind == "assistant":
            meta.model, meta.provider = _str(message.get("model")), _str(message.get("provider"))
    else:
        meta.ts = iso_ms(entry.get("timestamp"))
        if kind in _ENTRY_KINDS:
            meta.kind = kind
        if kind == "label":
            meta.target, meta.label = _str(entry.get("targetId")), _str(entry.get("label"))
        elif kind == "session_info":
            name = entry.get("name")
            meta.name = name.strip() if isinstance(name, str) and name.strip() else None
        elif kind == "model_change":
            meta.model, meta.provider = _str(entry.get("modelId")), _str(entry.get("provider"))
        elif kind == "thinking_level_change":
            meta.thinking = _str(entry.get("thinkingLevel"))
        elif kind == "context_edit":
            meta.target = _str(entry.get("targetId"))
            replacement = entry.get("replacement")
            meta.edit = replacement if isinstance(replacement, dict) and "content" in replacement else None
    return meta


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _preview(text: str) -> str:
    return " ".join(text.split())[:PREVIEW_CHARS]


def iso_ms(value: Any) -> int | None:
    return parse_rfc3339(value)


def content_text(content: Any) -> str:
    """The text of a pi message content (a string, or blocks whose ``text`` blocks are joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


# -- the tree -----------------------------------------------------------------------------------
class Tree:
    """Entries by id, in file order; grows by ``add`` as a file is appended to."""

    def __init__(self) -> None:
        self.metas: list[Meta] = []
        self.by_id: dict[str, Meta] = {}
        self.parents: set[str] = set()
        self.labels: dict[str, str] = {}

    def add(self, meta: Meta) -> None:
        self.metas.append(meta)
        self.by_id[meta.id] = meta  # a repeated id: the later entry wins, as in pi's index
        if meta.parent is not None:
            self.parents.add(meta.parent)
        if meta.kind == "label" and meta.target is not None:
            if meta.label:
                self.labels[meta.target] = meta.label
            else:
                self.labels.pop(meta.target, None)

    @property
    def leaf(self) -> str | None:
        """The current leaf: the file's last entry."""
        return self.metas[-1].id if self.metas else None

    def leaves(self) -> list[Meta]:
        """Every entry no other entry names as its parent, in file order."""
        return [m for m in self.metas if m.id not in self.parents and self.by_id.get(m.id) is m]

    def branch(self, leaf_id: str | None = None) -> list[Meta]:
        """Root-to-leaf path ending at ``leaf_id`` (default: the current leaf); a missing parent ends it."""
        start = self.leaf if leaf_id is None else leaf_id
        path: list[Meta] = []
        seen: set[str] = set()
        current = self.by_id.get(start) if start is not None else None
        while current is not None and current.id not in seen:
            seen.add(current.id)
            path.append(current)
            current = self.by_id.get(current.parent) if current.parent is not None else None
        path.reverse()
        return path


# -- messages on a branch -------------------------------------------------------------------------
@dataclass
class Group:
    """The entries of a branch that make one UiMessage: usually one, an assistant plus its tool results."""

    metas: list[Meta]

    @property
    def id(self) -> str:
        return self.metas[0].id


@dataclass
class BranchView:
    """A branch as UiMessage groups, with its compaction entries and where each sits."""

    groups: list[Group]
    # (compaction meta, index of the last group before it or -1, index of the first kept group or None)
    compactions: list[tuple[Meta, int, str | None]] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)  # entry id -> group index

    @property
    def total(self) -> int:
        return len(self.groups)


def view(branch: list[Meta]) -> BranchView:
    """Group a branch into UiMessages: a tool result folds into the assistant message just before it."""
    groups: list[Group] = []
    compactions: list[tuple[Meta, int, str | None]] = []
    positions: dict[str, int] = {}
    for meta in branch:
        if meta.kind == "compaction":
            compactions.append((meta, len(groups) - 1, None))
            continue
        if meta.kind not in MESSAGE_KINDS:
            continue
        if meta.kind == "toolResult" and groups and groups[-1].metas[0].kind == "assistant":
            groups[-1].metas.append(meta)
        else:
            groups.append(Group([meta]))
        positions[meta.id] = len(groups) - 1
    return BranchView(groups, compactions, positions)


def first_kept_group(branch_view: BranchView, branch: list[Meta], first_kept_entry: str | None) -> str | None:
    """The UiMessage id where a compaction's kept tail starts (the first message at or after that entry)."""
    if first_kept_entry is None:
        return None
    started = False
    for meta in branch:
        if meta.id == first_kept_entry:
            started = True
        if started and meta.id in branch_view.positions:
            return branch_view.groups[branch_view.positions[meta.id]].id
    return None


# -- projection to UiMessage ------------------------------------------------------------------------
OMIT = "omit"  # a context edit that takes its target out of the model's view


def context_edits(branch: list[Meta]) -> dict[str, Any]:
    """target id -> its replacement ``{content}`` or ``OMIT``, from the ``context_edit`` entries on ``branch``."""
    edits: dict[str, Any] = {}
    for meta in branch:
        if meta.kind == "context_edit" and meta.target is not None:
            edits[meta.target] = meta.edit if meta.edit is not None else OMIT
    return edits


def project_group(
    group: Group,
    entries: list[dict[str, Any]],
    labels: dict[str, str],
    index: int,
    edits: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The UiMessage of a group; ``entries`` are the parsed entries of ``group.metas`` in order."""
    head, first = group.metas[0], entries[0]
    message = object_at(first, "message")
    ui: dict[str, Any] = {"id": head.id, "role": "assistant", "blocks": [], "createdAt": _created(first, head)}
    meta: dict[str, Any] = {}
    kind = head.kind
    if kind == "user":
        ui["role"] = "user"
        ui["blocks"] = _content_blocks(message.get("content"))
    elif kind == "assistant":
        ui["blocks"] = _assistant_blocks(message.get("content"))
        meta.update(_assistant_meta(message))
        _fold_results(ui["blocks"], entries[1:])
    elif kind == "toolResult":  # a result whose call is not on this branch
        ui["blocks"] = [_result_call(message, head.id)]
    elif kind == "bash":
        ui["blocks"] = [_bash_call(message, head.id)]
        meta["native"] = {"type": "bashExecution"}
    elif kind == "custom":
        ui["role"] = "system"
        ui["blocks"] = _content_blocks(message.get("content"))
        meta["native"] = {
            "type": "custom_message",
            "customType": message.get("customType"),
            "display": message.get("display", True),
        }
    elif kind == "custom_message":
        ui["role"] = "system"
        ui["blocks"] = _content_blocks(first.get("content"))
        meta["native"] = {
            "type": "custom_message",
            "customType": first.get("customType"),
            "display": first.get("display", True),
        }
    elif kind == "branch_summary":
        ui["role"] = "system"
        ui["blocks"] = [{"type": "text", "text": first.get("summary") if isinstance(first.get("summary"), str) else ""}]
        meta["native"] = {"type": "branch_summary", "fromId": first.get("fromId")}
    if edits:
        _mark_context_edits(group, ui, meta, edits)
    chips = [labels[m.id] for m in group.metas if m.id in labels]
    if chips:
        meta["labels"] = chips
    if meta:
        ui["meta"] = meta
    ui["seq"] = index + 1
    ui["index"] = index
    return ui


def _mark_context_edits(group: Group, ui: dict[str, Any], meta: dict[str, Any], edits: dict[str, Any]) -> None:
    head = group.metas[0]
    if head.id in edits:
        edit = edits[head.id]
        if edit == OMIT:
            meta["contextEdit"] = {"omitted": True}
        else:
            content = edit.get("content")
            blocks = _assistant_blocks(content) if head.kind == "assistant" else _content_blocks(content)
            if isinstance(content, str) and head.kind == "assistant":
                blocks = [{"type": "text", "text": content}]
            meta["contextEdit"] = {"blocks": blocks}
    for result in group.metas[1:]:
        if result.id not in edits:
            continue
        edit = edits[result.id]
        for block in ui["blocks"]:
            if block.get("type") == "tool_call" and block.get("callId") == result.call_id:
                block["contextEdit"] = (
                    {"omitted": True} if edit == OMIT else {"result": content_text(edit.get("content"))}
                )


def _created(entry: dict[str, Any], meta: Meta) -> str | None:
    stamp = entry.get("timestamp")
    if isinstance(stamp, str):
        return stamp
    if meta.ts is not None:
        return rfc3339(meta.ts)
    return None


def _content_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            blocks.append({"type": "text", "text": block["text"]})
        elif block.get("type") == "image":
            blocks.append(_image(block))
    return blocks


def _image(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "image", "mimeType": block.get("mimeType"), "data": block.get("data")}


def _assistant_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            blocks.append({"type": "text", "text": block["text"]})
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            blocks.append({"type": "thinking", "text": block["thinking"]})
        elif kind == "toolCall":
            blocks.append(
                {
                    "type": "tool_call",
                    "callId": block.get("id"),
                    "name": block.get("name"),
                    "args": block.get("arguments", {}),
                    "status": "ok",
                }
            )
        elif kind == "image":
            blocks.append(_image(block))
    return blocks


def _assistant_meta(message: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {"modelId": message.get("model"), "providerId": message.get("provider")}
    if isinstance(message.get("usage"), dict):
        meta["usage"] = message["usage"]
    stop = message.get("stopReason")
    if stop is not None:
        meta["finishReason"] = stop
    if stop in ("aborted", "error"):
        meta["status"] = "aborted" if stop == "aborted" else "error"
        if isinstance(message.get("errorMessage"), str):
            meta["error"] = message["errorMessage"]
    return meta


def _fold_results(blocks: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
    calls = {b.get("callId"): b for b in blocks if b.get("type") == "tool_call"}
    for entry in results:
        message = object_at(entry, "message")
        call = calls.get(message.get("toolCallId"))
        if call is None:
            blocks.append(_result_call(message, str(message.get("toolCallId"))))
            continue
        _set_result(call, message)


def _result_call(message: dict[str, Any], fallback_id: str) -> dict[str, Any]:
    call: dict[str, Any] = {
        "type": "tool_call",
        "callId": message.get("toolCallId") or fallback_id,
        "name": message.get("toolName"),
        "args": {},
        "status": "ok",
    }
    _set_result(call, message)
    return call


def _set_result(call: dict[str, Any], message: dict[str, Any]) -> None:
    error = bool(message.get("isError"))
    call["result"] = content_text(message.get("content"))
    call["isError"] = error
    call["status"] = "error" if error else "ok"
    images = [_image(b) for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") == "image"]
    if images:
        call["images"] = images


def _bash_call(message: dict[str, Any], entry_id: str) -> dict[str, Any]:
    code = message.get("exitCode")
    error = (code is not None and code != 0) or bool(message.get("cancelled"))
    return {
        "type": "tool_call",
        "callId": entry_id,
        "name": "bash",
        "args": {"command": message.get("command")},
        "result": message.get("output") if isinstance(message.get("output"), str) else "",
        "isError": error,
        "status": "error" if error else "ok",
        "exitCode": code,
    }


def project_compaction(
    entry: dict[str, Any], meta: Meta, through: str | None, first_kept: str | None
) -> dict[str, Any]:
    """A compaction entry in the app's checkpoint shape (``throughMessageId``: the last message before it)."""
    tokens = entry.get("tokensBefore")
    return {
        "id": meta.id,
        "summary": entry.get("summary") if isinstance(entry.get("summary"), str) else "",
        "throughMessageId": through,
        "firstKeptMessageId": first_kept,
        "tokensBefore": tokens if isinstance(tokens, int) else None,
        "createdAt": entry.get("timestamp") if isinstance(entry.get("timestamp"), str) else None,
    }


def first_kept_entry(entry: dict[str, Any], version: int) -> str | None:
    """The entry id where a compaction's kept tail starts (v1: ``firstKeptEntryIndex`` counts the header)."""
    if version < 2:
        index = entry.get("firstKeptEntryIndex")
        return f"v1-{index - 1}" if isinstance(index, int) and index >= 1 else None
    return _str(entry.get("firstKeptEntryId"))


# -- whole files ------------------------------------------------------------------------------------
@dataclass
class Parsed:
    """A whole file: its header, its entries with their metadata, and what could not be read."""

    header: dict[str, Any] | None
    version: int
    entries: list[dict[str, Any]]
    metas: list[Meta]
    tree: Tree
    torn: bool  # bytes after the last newline
    garbage: int  # complete lines that are not JSON objects


def parse(data: bytes) -> Parsed:
    """Read a whole session file; ``header`` is None when it is not a pi session."""
    lines, end = split_lines(data)
    torn = end < len(data)
    header: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    metas: list[Meta] = []
    tree = Tree()
    garbage = 0
    version = CURRENT_VERSION
    for number, (_offset, raw) in enumerate(lines):
        value = parse_line(raw)
        if number == 0:
            if not is_header(value):
                return Parsed(None, 0, [], [], tree, torn, 0)
            header, version = value, version_of(value)
            continue
        if value is None:
            garbage += 1 if raw.strip() else 0
            continue
        meta = describe(value, len(entries), version)
        entries.append(value)
        metas.append(meta)
        tree.add(meta)
    return Parsed(header, version if header else 0, entries, metas, tree, torn, garbage)


def read_branch(parsed: Parsed, leaf_id: str | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The UiMessages and checkpoints of a branch of a whole parsed file (default: the current one)."""
    by_ordinal = {m.id: (m, parsed.entries[m.ordinal]) for m in parsed.metas}
    branch = parsed.tree.branch(leaf_id)
    branch_view = view(branch)
    edits = context_edits(branch)
    messages = [
        project_group(group, [by_ordinal[m.id][1] for m in group.metas], parsed.tree.labels, index, edits)
        for index, group in enumerate(branch_view.groups)
    ]
    return messages, checkpoints(branch_view, branch, lambda meta: by_ordinal[meta.id][1], parsed.version)


def checkpoints(
    branch_view: BranchView, branch: list[Meta], entry_of: Callable[[Meta], dict[str, Any]], version: int
) -> list[dict[str, Any]]:
    result = []
    for meta, before, _ in branch_view.compactions:
        entry = entry_of(meta)
        through = branch_view.groups[before].id if before >= 0 else None
        kept = first_kept_group(branch_view, branch, first_kept_entry(entry, version))
        result.append(project_compaction(entry, meta, through, kept))
    return result


TITLE_CHARS = 80


def session_title(name: str | None, first_user: str | None) -> str:
    """pi's own rule (the newest ``session_info`` name, else the first prompt), cut at a word near 80."""
    return cut_at_word(name or first_user or "", TITLE_CHARS)
