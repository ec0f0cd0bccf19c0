"""``session.fork``: an independent copy of a session's active transcript (spec 004, sections 4.5 and 5).

The child gets the source's configuration, a transcript with fresh message
and tool-call ids (remapped consistently, so a result still pairs with its
call), the checkpoints whose boundary it includes, and its own copies of the
pasted inputs and visualization fragments the copied messages reference. The
source transcript and its revisions are only read. No queue, approval, todo or
revision rows are copied: the child is a new session, not a navigation tree.
"""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.transcript.records import session_header
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.native import reading as native_reading
from pidesktop.host.native import writing as native_writing
from pidesktop.host.params import Params
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions import history, message_index, session_info
from pidesktop.host.sessions.revisions import PAGER_FIELDS

FORK_SUFFIX = " (fork)"
# Revision stamps describe the source's branch archive, which the child does not have.
_DROPPED_META = (*PAGER_FIELDS, "revisionRootId")
_CALL_KEYS = ("callId", "toolCallId")


@command("session.fork", emits=[topics.SESSION_CHANGED, topics.SESSION_LIST_CHANGED])
def fork(ctx: HostContext, p: Params) -> dict[str, Any]:
    source_id = sessions.session_id_param(p)
    if native_reading.is_native(source_id):
        return native_writing.fork(ctx, p)  # a new pi file beside the parent
    through = p.text("throughMessageId", required=False, nonempty=True)
    child_id = copy_session(ctx, source_id, through)
    return {"session": announce_fork(ctx, child_id, source_id)}


def announce_fork(ctx: HostContext, child_id: str, source_id: str) -> dict[str, Any]:
    session = sessions.summary(ctx.conn, child_id)
    ctx.emit(
        topics.SESSION_CHANGED,
        {"sessionId": child_id, "reason": "created", "forkedFrom": source_id, "session": session},
    )
    return session


def copy_session(ctx: HostContext, source_id: str, through: str | None) -> str:
    """The child session (row, transcript, index, copied files), not announced yet; returns its id."""
    row = ctx.conn.execute(
        "SELECT title, title_source, project_id, provider_id, model_id, mode, thinking_level, "
        "permission_mode, fast_mode FROM sessions WHERE id = ?",
        (source_id,),
    ).fetchone()
    if row is None:
        raise HostError(ErrorCode.NOT_FOUND, f"There is no session with id {source_id!r}.")
    _header, records, messages = history.read(ctx, source_id)
    if through is not None:
        cut = history.position(messages, through)
        if cut is None:
            raise HostError(ErrorCode.NOT_FOUND, f"Session {source_id} has no message {through!r}.")
        messages = messages[: cut + 1]

    child_id = str(uuid.uuid4())
    ids = Remap({m["id"]: str(uuid.uuid4()) for m in messages})
    calls = Remap()
    copied = [_remap_record(record, ids, calls) for record in history.place_checkpoints(messages, records)]
    files = ScratchCopies(ctx.data_root, source_id, child_id)
    copied = files.rewrite(copied)
    now = ctx.clock()
    title, title_source = _fork_title(row[0], row[1])
    info = {  # the child's row in its own transcript, so a rebuild finds it (session_info.py)
        "type": session_info.INFO,
        "title": title,
        "titleSource": title_source,
        "projectPath": session_info.project_path(ctx.conn, row[2]),
        "providerId": row[3],
        "modelId": row[4],
        "mode": row[5],
        "thinkingLevel": row[6],
        "permissionMode": row[7],
        "fastMode": bool(row[8]),
        "at": message_index.rfc3339(now),
    }
    try:
        files.copy()
        ctx.transcripts.rewrite(child_id, [info, *copied], session_header(child_id, message_index.rfc3339(now)))
        with ctx.conn:
            ctx.conn.execute(
                "INSERT INTO sessions(id, title, title_source, project_id, provider_id, model_id, mode, "
                "thinking_level, permission_mode, fast_mode, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (child_id, title, title_source, *row[2:], now, now),
            )
            message_index.rebuild(
                ctx.conn, child_id, [history.strip_type(r) for r in copied if r.get("type") == "message"], now
            )
    except BaseException:
        ctx.transcripts.delete(child_id)
        files.remove()
        raise
    return child_id


def _fork_title(title: str, source: str) -> tuple[str, str]:
    """``"<title> (fork)"`` within the title limit; manual stays manual, anything else is replaceable."""
    kind = "manual" if source == "manual" else "default"
    if not title.strip():
        return "", kind
    room = sessions.TITLE_MAX - len(FORK_SUFFIX)
    return title.strip()[:room].rstrip() + FORK_SUFFIX, kind


# -- id remapping ---------------------------------------------------------------------------
class Remap(dict[str, str]):
    """Old id -> new id; unknown ids get a fresh one on first sight (used for tool calls)."""

    def fresh(self, old: str) -> str:
        if old not in self:
            self[old] = str(uuid.uuid4())
        return self[old]


def _remap_record(record: dict[str, Any], ids: Remap, calls: Remap) -> dict[str, Any]:
    if record.get("type") == "compaction":
        copy = dict(record)
        for key in ("throughMessageId", "firstKeptMessageId"):
            if isinstance(copy.get(key), str):
                copy[key] = ids.get(copy[key], copy[key])
        if isinstance(copy.get("retainedTail"), list):
            copy["retainedTail"] = [
                _remap_message(m, ids, calls) if isinstance(m, dict) else m for m in copy["retainedTail"]
            ]
        return copy
    return _remap_message(record, ids, calls)


def _remap_message(message: dict[str, Any], ids: Remap, calls: Remap) -> dict[str, Any]:
    copy = dict(message)
    if isinstance(copy.get("id"), str):
        copy["id"] = ids.get(copy["id"], copy["id"])
    if isinstance(copy.get("toolCallId"), str):
        copy["toolCallId"] = calls.fresh(copy["toolCallId"])
    if isinstance(copy.get("blocks"), list):
        copy["blocks"] = [_remap_block(block, calls) for block in copy["blocks"]]
    if isinstance(copy.get("meta"), dict):
        copy["meta"] = _remap_meta(copy["meta"], ids, calls)
        if not copy["meta"]:
            del copy["meta"]
    return copy


def _remap_block(block: Any, calls: Remap) -> Any:
    if not isinstance(block, dict):
        return block
    copy = dict(block)
    for key in _CALL_KEYS:
        if isinstance(copy.get(key), str):
            copy[key] = calls.fresh(copy[key])
    return copy


def _remap_meta(meta: dict[str, Any], ids: Remap, calls: Remap) -> dict[str, Any]:
    copy = {k: v for k, v in meta.items() if k not in _DROPPED_META}
    if isinstance(copy.get("parentToolCallId"), str):
        copy["parentToolCallId"] = calls.fresh(copy["parentToolCallId"])
    system = copy.get("modelSystem")
    if isinstance(system, dict):
        # Anchors that survive the fork follow their message; the others go (spec 004, section 2.1).
        system = dict(system)
        for key in ("beforeMessageId", "afterMessageId"):
            if isinstance(system.get(key), str):
                if system[key] in ids:
                    system[key] = ids[system[key]]
                else:
                    del system[key]
        copy["modelSystem"] = system
    return copy


# -- referenced files -------------------------------------------------------------------------
_NAME = r"[^/\\\s\"'<>`|?*]+"
_TRAILING = ".,;:!)]}"


class ScratchCopies:
    """The source's pasted inputs and visualization fragments the copy references, and their new paths.

    A reference is recognised by the source id and the file name whatever the
    data-root prefix or separator spelling; it is rewritten to the child's
    folder even when the file has expired (no cross-session reference is left).
    """

    def __init__(self, data_root: Path, source_id: str, child_id: str) -> None:
        self.data_root = data_root
        self.child_id = child_id
        sid = re.escape(source_id)
        start = r"(?<![A-Za-z0-9_.-])"
        self._kinds: list[tuple[re.Pattern[str], Path, Path]] = [
            (
                re.compile(start + rf"(scratch[/\\]+){sid}([/\\]+pasted[/\\]+)({_NAME})"),
                data_root / "scratch" / source_id / "pasted",
                data_root / "scratch" / child_id / "pasted",
            ),
            (
                re.compile(start + rf"(visualizations[/\\]+){sid}([/\\]+)({_NAME})"),
                data_root / "visualizations" / source_id,
                data_root / "visualizations" / child_id,
            ),
        ]
        self._pending: dict[Path, Path] = {}
        self._created: list[Path] = []

    def rewrite(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [_map_strings(record, self._rewrite_text) for record in records]

    def _rewrite_text(self, text: str) -> str:
        for pattern, source_dir, child_dir in self._kinds:
            if pattern.search(text) is None:
                continue

            def swap(match: re.Match[str], source_dir: Path = source_dir, child_dir: Path = child_dir) -> str:
                self._note(match.group(3), source_dir, child_dir)
                return match.group(1) + self.child_id + match.group(2) + match.group(3)

            text = pattern.sub(swap, text)
        return text

    def _note(self, name: str, source_dir: Path, child_dir: Path) -> None:
        # Prose may follow a path with punctuation: try the name without it too.
        candidates = [name, name.rstrip(_TRAILING)]
        for candidate in candidates:
            if candidate in ("", ".", ".."):
                continue
            source = source_dir / candidate
            if source.is_file() and not source.is_symlink():
                self._pending[source] = child_dir / candidate
                return

    def copy(self) -> None:
        for source, target in self._pending.items():
            if _redirected(self.data_root, source.parent) or _redirected(self.data_root, target.parent):
                continue  # never copy through a symlinked base or session folder
            for folder in _missing_parents(target.parent, self.data_root):
                folder.mkdir(mode=0o700)
                self._created.append(folder)
            shutil.copy2(source, target)
            self._created.append(target)

    def remove(self) -> None:
        for created in reversed(self._created):
            try:
                created.rmdir() if created.is_dir() else created.unlink()
            except OSError:
                pass


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {key: _map_strings(item, change) for key, item in value.items()}
    return value


def _redirected(root: Path, folder: Path) -> bool:
    """True when ``folder`` or one of its parents below ``root`` is a symlink."""
    while folder != root and root in folder.parents:
        if folder.is_symlink():
            return True
        folder = folder.parent
    return False


def _missing_parents(folder: Path, root: Path) -> list[Path]:
    missing = []
    while not folder.exists() and folder != root:
        missing.append(folder)
        folder = folder.parent
    return list(reversed(missing))
