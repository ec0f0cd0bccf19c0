"""Which fields of which records carry paths, as a list of changes for :mod:`jsonsplice`.

Each function walks a parsed record and fills ``values`` (path -> new string)
and ``keys`` (member path -> new key) for the fields it owns; nothing else is
ever touched. Narrative text (``text`` and ``thinking`` blocks of user and
assistant messages) is never rewritten, even when it names the old root.
"""

from __future__ import annotations

from typing import Any

from pidesktop.storage.jsonsplice import JsonPath
from pidesktop.storage.pathmap import PathMap

# Blocks whose content is narrative, never a path.
_NARRATIVE_BLOCKS = ("text", "thinking", "redacted_thinking")
# Blocks that carry a tool's inputs and outputs.
_TOOL_BLOCKS = ("tool_call", "tool_result")
_TOOL_FIELDS = ("args", "arguments", "input", "result", "output", "content", "details", "text")
# Path fields of attachment, image, file and other content blocks.
_BLOCK_PATH_FIELDS = ("ref", "path", "filePath", "localPath", "uri", "url")


class Changes:
    def __init__(self, paths: PathMap):
        self.paths = paths
        self.values: dict[JsonPath, str] = {}
        self.keys: dict[JsonPath, str] = {}

    def __bool__(self) -> bool:
        return bool(self.values or self.keys)

    def path_field(self, value: Any, at: JsonPath) -> None:
        if isinstance(value, str):
            new = self.paths.whole(value)
            if new is not None:
                self.values[at] = new

    def tool_payload(self, value: Any, at: JsonPath) -> None:
        """Every string inside a tool's payload, keys excluded."""
        if isinstance(value, str):
            new = self.paths.embedded(value)
            if new is not None:
                self.values[at] = new
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.tool_payload(item, (*at, index))
        elif isinstance(value, dict):
            for key, item in value.items():
                self.tool_payload(item, (*at, key))

    def every_path_value(self, value: Any, at: JsonPath, *, keys_too: bool = False) -> None:
        """For documents that are configuration: any string (and optionally key) that is a path under the old root."""
        if isinstance(value, str):
            self.path_field(value, at)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.every_path_value(item, (*at, index), keys_too=keys_too)
        elif isinstance(value, dict):
            for key, item in value.items():
                if keys_too:
                    new = self.paths.whole(key)
                    if new is not None and new not in value:
                        self.keys[(*at, key)] = new
                self.every_path_value(item, (*at, key), keys_too=keys_too)

    # -- transcripts -----------------------------------------------------------------
    def message(self, message: Any, at: JsonPath = ()) -> None:
        if not isinstance(message, dict) or not isinstance(message.get("blocks"), list):
            return
        role = message.get("role")
        for index, block in enumerate(message["blocks"]):
            if not isinstance(block, dict):
                continue
            here = (*at, "blocks", index)
            kind = block.get("type")
            if kind in _TOOL_BLOCKS:
                for name in _TOOL_FIELDS:
                    if name in block:
                        self.tool_payload(block[name], (*here, name))
            elif kind in _NARRATIVE_BLOCKS:
                if role == "tool" and kind == "text":  # a tool's output, not anyone's prose
                    self.tool_payload(block.get("text"), (*here, "text"))
            else:
                for name in _BLOCK_PATH_FIELDS:
                    if name in block:
                        self.path_field(block[name], (*here, name))

    def transcript_line(self, record: Any) -> None:
        """One line of ``<id>.jsonl`` or ``<id>.revisions.jsonl``."""
        if not isinstance(record, dict):
            return
        kind = record.get("type")
        if kind == "message":
            self.message(record)
        elif kind == "compaction" and isinstance(record.get("retainedTail"), list):
            for index, message in enumerate(record["retainedTail"]):
                self.message(message, ("retainedTail", index))
        elif kind == "revision" and isinstance(record.get("messages"), list):
            for index, message in enumerate(record["messages"]):
                self.message(message, ("messages", index))
        elif kind == "session_info":
            # The chat's project folder, which repair reads back into the index: it moves with projects.path.
            self.path_field(record.get("projectPath"), ("projectPath",))

    def inflight(self, record: Any) -> None:
        """``<id>.inflight.json``: ``{..., "message": {...}}``."""
        if isinstance(record, dict):
            self.message(record.get("message"), ("message",))

    def dead_letters(self, records: Any) -> None:
        """The outbox quarantine: a list of ``{sessionId, message, ...}``."""
        if isinstance(records, list):
            for index, record in enumerate(records):
                if isinstance(record, dict):
                    self.message(record.get("message"), (index, "message"))

    def preferences(self, prefs: Any) -> None:
        """Sidebar project paths are keys of ``projectMeta`` and items of ``openProjectPaths``."""
        sidebar = prefs.get("sidebar") if isinstance(prefs, dict) else None
        if not isinstance(sidebar, dict):
            return
        meta = sidebar.get("projectMeta")
        if isinstance(meta, dict):
            for key in meta:
                new = self.paths.whole(key)
                if new is not None and new not in meta:
                    self.keys[("sidebar", "projectMeta", key)] = new
        open_paths = sidebar.get("openProjectPaths")
        if isinstance(open_paths, list):
            for index, value in enumerate(open_paths):
                self.path_field(value, ("sidebar", "openProjectPaths", index))


def apply(value: Any, values: dict[JsonPath, str], keys: dict[JsonPath, str], at: JsonPath = ()) -> Any:
    """The parsed document as the spliced text must parse: the check that splicing did what was meant."""
    if at in values:
        return values[at]
    if isinstance(value, list):
        return [apply(item, values, keys, (*at, index)) for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {keys.get((*at, key), key): apply(item, values, keys, (*at, key)) for key, item in value.items()}
    return value
