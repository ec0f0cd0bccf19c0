"""What ``read``, ``write``, ``edit``, ``ls``, ``find`` and ``grep`` do, given a resolved path.

Pure file work: no database, no permission checks (``commands`` does both).
A problem the model can fix (no such file, an ``oldText`` found twice) is a
``Failed`` with a plain sentence; it never raises anything else for it.
"""

from __future__ import annotations

import codecs
import difflib
import fnmatch
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pidesktop.host.tools import gitignore

READ_DEFAULT_LIMIT = 2000
LIST_DEFAULT_LIMIT = 500
FIND_DEFAULT_LIMIT = 1000
GREP_DEFAULT_LIMIT = 100
GREP_TIMEOUT_S = 30
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".tox"})
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"})


class Failed(Exception):
    """A call the model can correct: the message is its result."""


@dataclass(frozen=True)
class Change:
    """A write or edit worked out but not yet made: the bytes before (None: a new file) and after."""

    before: bytes | None
    after: bytes
    op: str  # write | edit
    summary: str  # the result's first line


def read_text(path: Path, shown: str, offset: int | None, limit: int | None) -> tuple[str, int, int]:
    """Numbered lines from ``offset`` (1-based); ``(text, first line, total lines)``."""
    if not path.exists():
        raise Failed(f"{shown} does not exist.")
    if path.is_dir():
        raise Failed(f"{shown} is a folder; use ls to list it.")
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        what = "an image" if path.suffix.lower() in IMAGE_SUFFIXES else "a binary file"
        raise Failed(f"{shown} is {what} ({len(data)} bytes); it cannot be read as text.")
    lines = data.decode("utf-8", errors="replace").splitlines()
    start = max(offset or 1, 1)
    if lines and start > len(lines):
        raise Failed(f"{shown} has {len(lines)} lines; offset {start} is past its end.")
    count = limit if limit is not None else READ_DEFAULT_LIMIT
    chosen = lines[start - 1 : start - 1 + count]
    text = "".join(f"{number:>6}\t{line}\n" for number, line in enumerate(chosen, start))
    return text, start, len(lines)


def plan_write(path: Path, shown: str, content: str) -> Change:
    if path.is_dir():
        raise Failed(f"{shown} is a folder; write needs a file path.")
    before = path.read_bytes() if path.exists() else None
    after = content.encode()
    if before is None:
        return Change(None, after, "write", f"Created {shown} ({len(after)} bytes).")
    return Change(before, after, "write", f"Replaced {shown} ({len(before)} -> {len(after)} bytes).")


def plan_edit(path: Path, shown: str, old: str, new: str) -> Change:
    """Replace the one exact occurrence of ``old``; the file keeps its line endings and byte order mark."""
    if not path.exists():
        raise Failed(f"{shown} does not exist; use write to create it.")
    if path.is_dir():
        raise Failed(f"{shown} is a folder; edit needs a file path.")
    if not old:
        raise Failed("oldText is empty; give the exact text to replace.")
    before = path.read_bytes()
    bom = before.startswith(codecs.BOM_UTF8)
    try:
        text = before[len(codecs.BOM_UTF8) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError:
        raise Failed(f"{shown} is not UTF-8 text, so it cannot be edited here.") from None
    crlf = "\r\n" in text
    plain = text.replace("\r\n", "\n") if crlf else text
    old_plain, new_plain = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    found = plain.count(old_plain)
    if found == 0:
        raise Failed(f"oldText was not found in {shown}. Read the file and copy the text exactly, spaces included.")
    if found > 1:
        raise Failed(
            f"oldText was found {found} times in {shown}; it must be unique. Include more of the lines around it."
        )
    changed = plain.replace(old_plain, new_plain, 1)
    if crlf:
        changed = changed.replace("\n", "\r\n")
    after = (codecs.BOM_UTF8 if bom else b"") + changed.encode("utf-8")
    return Change(before, after, "edit", f"Edited {shown}: replaced 1 occurrence.")


def unified_diff(shown: str, before: bytes | None, after: bytes, context: int = 3) -> str:
    old = before.decode("utf-8", errors="replace").splitlines(keepends=True) if before is not None else []
    new = after.decode("utf-8", errors="replace").splitlines(keepends=True)
    origin = f"a/{shown}" if before is not None else "/dev/null"
    lines = difflib.unified_diff(old, new, origin, f"b/{shown}", n=context)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def list_dir(path: Path, shown: str, limit: int | None) -> str:
    if not path.exists():
        raise Failed(f"{shown} does not exist.")
    if not path.is_dir():
        raise Failed(f"{shown} is a file, not a folder; use read to see it.")
    entries = sorted(path.iterdir(), key=lambda entry: entry.name.lower())
    cap = limit or LIST_DEFAULT_LIMIT
    names = [entry.name + ("/" if entry.is_dir() else "") for entry in entries[:cap]]
    if not names:
        return f"{shown} is empty."
    more = f"\n[{len(entries) - cap} more entries not shown; raise limit to see them.]" if len(entries) > cap else ""
    return "\n".join(names) + more


def _walk(root: Path) -> list[Path]:
    """Files under ``root``, skipping version-control and dependency folders, and in a Git repository what
    its ``.gitignore`` files ignore (as ripgrep does); sorted for stable output."""
    found: list[Path] = []
    rules = gitignore.outer_rules(root) if gitignore.in_repository(root) else None
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(name for name in dirs if name not in SKIPPED_DIRS)
        if rules is None:
            found.extend(Path(folder, name) for name in sorted(files))
            continue
        here = Path(folder).relative_to(root).as_posix()
        base = "" if here == "." else here
        if ".gitignore" in files:
            rules = [*rules, *gitignore.read(Path(folder, ".gitignore"), base)]
        prefix = f"{base}/" if base else ""  # rules of a .gitignore further down apply only below it
        dirs[:] = [name for name in dirs if not gitignore.ignored(rules, prefix + name, True)]
        found.extend(Path(folder, name) for name in sorted(files) if not gitignore.ignored(rules, prefix + name, False))
    return found


def find_files(root: Path, shown: str, pattern: str, limit: int | None) -> str:
    if not root.is_dir():
        raise Failed(f"{shown} is not a folder.")
    cap = limit or FIND_DEFAULT_LIMIT
    matcher = _glob_matcher(pattern)
    hits = [file.relative_to(root).as_posix() for file in _walk(root)]
    hits = [hit for hit in hits if matcher(hit)]
    if not hits:
        return f"No files match {pattern!r} in {shown}."
    more = (
        f"\n[{len(hits) - cap} more matches not shown; raise limit or narrow the pattern.]" if len(hits) > cap else ""
    )
    return "\n".join(hits[:cap]) + more


def _glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A glob over relative paths: ``*`` within a name, ``**`` across folders; a pattern without ``/`` matches names."""
    if "/" not in pattern:
        return lambda rel: fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], pattern)
    parts = []
    for piece in re.split(r"(\*\*/?|\*|\?)", pattern):
        if piece in ("**", "**/"):
            parts.append("(?:.*/)?" if piece == "**/" else ".*")
        elif piece == "*":
            parts.append("[^/]*")
        elif piece == "?":
            parts.append("[^/]")
        else:
            parts.append(re.escape(piece))
    compiled = re.compile("".join(parts) + r"\Z")
    return lambda rel: compiled.match(rel) is not None


@dataclass(frozen=True)
class GrepQuery:
    pattern: str
    glob: str | None
    ignore_case: bool
    literal: bool
    limit: int


def grep(root: Path, shown: str, query: GrepQuery) -> str:
    """``path:line:text`` lines; ripgrep when installed, else a Python walk with the same skips."""
    if not root.exists():
        raise Failed(f"{shown} does not exist.")
    if not query.literal:
        try:
            re.compile(query.pattern)
        except re.error as exc:
            raise Failed(
                f"The pattern is not a valid regular expression ({exc}); set literal to true to search the text as is."
            ) from None
    rg = shutil.which("rg")
    lines = _ripgrep(rg, root, query) if rg else _python_grep(root, query)
    if not lines:
        return f"No matches for {query.pattern!r} in {shown}."
    more = ""
    if len(lines) > query.limit:
        more = (
            f"\n[More than {query.limit} matching lines; only the first {query.limit} are shown. "
            f"Narrow the search or raise limit.]"
        )
    return "\n".join(lines[: query.limit]) + more


def _ripgrep(rg: str, root: Path, query: GrepQuery) -> list[str]:
    argv = [rg, "--line-number", "--no-heading", "--color", "never", "--with-filename", "--max-columns", "500"]
    if query.ignore_case:
        argv.append("--ignore-case")
    if query.literal:
        argv.append("--fixed-strings")
    if query.glob:
        argv += ["--glob", query.glob]
    argv += ["--", query.pattern, "."] if root.is_dir() else ["--", query.pattern, root.name]
    cwd = root if root.is_dir() else root.parent
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=GREP_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise Failed(f"The search took longer than {GREP_TIMEOUT_S} s and was stopped; narrow path or glob.") from None
    if done.returncode not in (0, 1):
        raise Failed(f"ripgrep failed: {done.stderr.decode(errors='replace').strip()[:500]}")
    out = done.stdout.decode(errors="replace").splitlines()
    return [line[2:] if line.startswith("./") else line for line in out[: query.limit + 1]]


def _python_grep(root: Path, query: GrepQuery) -> list[str]:
    flags = re.IGNORECASE if query.ignore_case else 0
    regex = re.compile(re.escape(query.pattern) if query.literal else query.pattern, flags)
    walked = root.is_dir()
    files = _walk(root) if walked else [root]
    base = root if walked else root.parent
    matcher = _glob_matcher(query.glob) if query.glob else None
    hits: list[str] = []
    for file in files:
        rel = file.relative_to(base).as_posix()
        if walked and any(part.startswith(".") for part in rel.split("/")):
            continue  # hidden files and folders, which ripgrep leaves out too (a file asked for by name is read)
        if matcher is not None and not matcher(rel):
            continue
        try:
            data = file.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if regex.search(line):
                hits.append(f"{rel}:{number}:{line[:500]}")
                if len(hits) > query.limit:
                    return hits
    return hits
