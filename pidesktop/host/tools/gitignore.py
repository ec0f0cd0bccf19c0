"""The ``.gitignore`` rules the built-in file walk follows when ripgrep is not installed.

ripgrep (and pi's ``find``, fd) leave out what a repository's ``.gitignore``
files ignore, but only inside a Git repository; the Python walk does the same
so ``grep`` and ``find`` answer alike with or without ripgrep. The common
subset of gitignore(5): comments, ``!`` negation (the last matching rule
wins), a trailing ``/`` for folders only, a ``/`` inside a pattern anchoring
it to its ``.gitignore``'s folder, ``*``, ``?``, ``[...]`` and ``**``. A folder
that is ignored is not entered, so nothing inside it can be taken back.
Global excludes and ``.git/info/exclude`` are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FILE_MAX = 256 * 1024  # a larger .gitignore is not read: a generated file, not rules a person keeps


@dataclass(frozen=True)
class Rule:
    base: str  # the folder of its .gitignore, relative to the walk's root ("" for the root itself)
    regex: re.Pattern[str]
    negated: bool
    folders_only: bool
    above: str = ""  # a .gitignore above the root: the root's path relative to its folder


def in_repository(folder: Path) -> bool:
    """Whether ``folder`` is inside a Git work tree (a ``.git`` folder or file in it or a parent)."""
    return any((parent / ".git").exists() for parent in (folder, *folder.parents))


def outer_rules(root: Path) -> list[Rule]:
    """The rules of the ``.gitignore`` files above ``root`` up to its repository's top, as seen from ``root``."""
    rules: list[Rule] = []
    chain = []
    for parent in root.parents:
        chain.append(parent)
        if (parent / ".git").exists():
            break
    else:
        return []
    for parent in reversed(chain):
        above = root.relative_to(parent).as_posix()
        rules.extend(Rule("", r.regex, r.negated, r.folders_only, above) for r in read(parent / ".gitignore", ""))
    return rules


def read(path: Path, base: str) -> list[Rule]:
    """The rules of one ``.gitignore`` in the folder ``base`` (relative to the walk's root)."""
    try:
        if not path.is_file() or path.stat().st_size > FILE_MAX:
            return []
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\"):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = _translate(line.lstrip("/"))
        pattern = body if anchored else f"(?:.*/)?{body}"
        rules.append(Rule(base, re.compile(pattern + r"\Z"), negated, folders_only))
    return rules


def _translate(pattern: str) -> str:
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            inner = pattern[i + 1 : end]
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            out.append("[" + inner.replace("\\", "\\\\") + "]")
            i = end + 1
        elif pattern[i] == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


def ignored(rules: list[Rule], rel: str, is_folder: bool) -> bool:
    """Whether the entry at ``rel`` (relative to the walk's root) is ignored: the last rule that matches decides."""
    verdict = False
    for rule in rules:
        if rule.folders_only and not is_folder:
            continue
        if rule.base:
            if not rel.startswith(rule.base + "/"):
                continue
            target = rel[len(rule.base) + 1 :]
        else:
            target = f"{rule.above}/{rel}" if rule.above else rel
        if rule.regex.match(target):
            verdict = not rule.negated
    return verdict
