"""pi's own tools for the workspace: ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find``, ``ls``.

Same names and arguments as the pi coding agent, so imported pi and Claude
Code history and pi's users feel at home. Agent mode offers all of them;
Plan and Goal (before approval) only the read-only four. ``workspace_note``
is the system message naming the folder they work in.
"""

from __future__ import annotations

from typing import Any

READ, WRITE, EDIT, BASH, GREP, FIND, LS = "read", "write", "edit", "bash", "grep", "find", "ls"
READ_ONLY = frozenset({READ, GREP, FIND, LS})
EDITING = frozenset({WRITE, EDIT})
ALL = READ_ONLY | EDITING | {BASH}

_PATH = {"type": "string", "description": "A path relative to the workspace (or absolute inside it)."}
_LIMIT = {"type": "integer", "minimum": 1, "description": "At most this many lines or entries."}


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


DEFINITIONS: dict[str, dict[str, Any]] = {
    READ: _tool(
        READ,
        "Read a text file, with line numbers, or look at a picture (PNG, JPEG, GIF, WebP). Output is cut "
        "at 2000 lines or 50 KB; use offset and limit to read a long file in parts.",
        {
            "path": _PATH,
            "offset": {"type": "integer", "minimum": 1, "description": "The first line to read (1-based)."},
            "limit": {"type": "integer", "minimum": 1, "description": "How many lines to read."},
        },
        ["path"],
    ),
    WRITE: _tool(
        WRITE,
        "Create a file or replace its whole content. Missing folders are created. Prefer edit for a change "
        "to part of an existing file.",
        {"path": _PATH, "content": {"type": "string", "description": "The whole new content."}},
        ["path", "content"],
    ),
    EDIT: _tool(
        EDIT,
        "Replace one exact piece of text in a file. oldText must occur exactly once (include enough "
        "surrounding lines to make it unique); the file keeps its line endings.",
        {
            "path": _PATH,
            "oldText": {"type": "string", "description": "The exact text to replace, whitespace included."},
            "newText": {"type": "string", "description": "The text to put in its place."},
        },
        ["path", "oldText", "newText"],
    ),
    BASH: _tool(
        BASH,
        "Run a shell command in the workspace folder (bash -c). stdout and stderr are returned together; "
        "long output keeps its last 2000 lines or 50 KB.",
        {
            "command": {"type": "string", "description": "The command line."},
            "timeout": {"type": "integer", "minimum": 1, "description": "Seconds before it is killed (default 120)."},
        },
        ["command"],
    ),
    GREP: _tool(
        GREP,
        "Search file contents for a regular expression (or literal text); returns path:line:text lines. "
        "Skips .git, dependency folders and what .gitignore ignores.",
        {
            "pattern": {"type": "string", "description": "A regular expression, or text when literal is true."},
            "path": {"type": "string", "description": "A folder or file to search (default: the workspace)."},
            "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.py or src/**/*.ts."},
            "ignoreCase": {"type": "boolean"},
            "literal": {"type": "boolean", "description": "Search the pattern as plain text."},
            "limit": _LIMIT,
        },
        ["pattern"],
    ),
    FIND: _tool(
        FIND,
        "Find files by glob pattern (e.g. *.md, src/**/*.py); returns paths relative to the folder searched.",
        {
            "pattern": {"type": "string", "description": "A glob; without a / it matches file names anywhere."},
            "path": {"type": "string", "description": "The folder to search (default: the workspace)."},
            "limit": _LIMIT,
        },
        ["pattern"],
    ),
    LS: _tool(
        LS,
        "List a folder's entries (folders end with /).",
        {"path": {"type": "string", "description": "The folder (default: the workspace)."}, "limit": _LIMIT},
        [],
    ),
}

_ORDER = (READ, WRITE, EDIT, BASH, GREP, FIND, LS)


def offered(mode: object) -> list[dict[str, Any]]:
    """Agent mode: every tool; Plan and Goal: the read-only ones."""
    names = _ORDER if mode not in ("plan", "goal") else tuple(name for name in _ORDER if name in READ_ONLY)
    return [DEFINITIONS[name] for name in names]


def workspace_note(workspace: str, scratch: bool) -> dict[str, Any]:
    """The system message that names the folder the tools work in."""
    if scratch:
        where = (
            f"This chat has no project folder; your workspace is a private scratch folder: {workspace}. "
            "Files you create there are kept with the chat."
        )
    else:
        where = f"Your workspace is the project folder {workspace}."
    text = (
        f"{where} The tools read, write, edit, bash, grep, find and ls work in it: relative paths start "
        "there and bash runs there. A path outside it is refused unless the person allows it."
    )
    return {
        "id": "workspace",
        "role": "system",
        "blocks": [{"type": "text", "text": text}],
        "meta": {"workspace": True},
    }
