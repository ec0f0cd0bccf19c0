"""The only writes to pi's folders: a fork (one new file) and ``native.append`` (entries at the end).

Fork (spec 004, section 12): the branch is taken from the index of one open
snapshot of the parent, written in full to an exclusive temporary file
(``.<id>.pidesktop-fork.tmp``, not ``*.jsonl``, so nothing lists it) in the
parent's folder, checked (device, inode, size, hash), hard-linked to
``<timestamp>_<id>.jsonl`` (a link never replaces an existing file), checked
again, and only then listed. Cleanup removes only files that are still the
very ones this fork wrote (same device and inode, and the content written, or
a prefix of it for a partial write); the parent is never opened for writing.

Append: native v3 ``message`` entries chained from the current leaf, written
with one ``write`` on an ``O_APPEND`` descriptor, only after every check
passed: the token still matches the file (device, inode, size, hash of the
tail), the file is exact v3 (a version 3 header, every line an entry) and
ends with a newline, and no live writer holds it.

The advisory lease: pi itself takes no lock; it opens, appends one line and
closes for every entry. So (1) pidesktop writers take an exclusive ``flock``
on ``<runtime dir>/pidesktop-native-leases/<device>-<inode>.lock`` for the
length of an append (a second pidesktop is refused, never blocked), and (2) a
file that changed in the last ``LIVE_SECONDS`` by someone else than this host
is taken as being written by a live pi and refused. A pi that sits idle with
the session open and writes later does no harm to the file: its next entry
names its own leaf as parent, which pi reads as a branch.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.clock import now_ms
from pidesktop.durable import FILE_MODE
from pidesktop.formats.transcript.records import rfc3339
from pidesktop.host.context import HostContext
from pidesktop.host.native import pi_format
from pidesktop.host.native.catalog import is_native, native_id
from pidesktop.host.native.index import FileIndex, FileKey
from pidesktop.host.native.reading import catalog_of, open_session
from pidesktop.host.params import Params, invalid

log = logging.getLogger("pidesktop.host.native")

LIVE_SECONDS = 10.0
FORK_SUFFIX = " (fork)"
STOP_REASONS = ("stop", "length", "toolUse", "error", "aborted")
MAX_MESSAGES = 16
TEXT_MAX = 4 * 1024 * 1024


def conflict(sentence: str, reason: str) -> HostError:
    return HostError(ErrorCode.CONFLICT, sentence, {"reason": reason})


def now_iso() -> tuple[str, int]:
    ms = now_ms()
    return rfc3339(ms), ms


def new_entry_id(taken: dict[str, Any]) -> str:
    while True:
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            return candidate


# -- fork ----------------------------------------------------------------------------------------
def fork(ctx: HostContext, p: Params) -> dict[str, Any]:
    source_id = p.text("sessionId")
    through = p.text("throughMessageId", required=False, nonempty=True)
    leaf = p.text("leafId", required=False, nonempty=True)  # another branch than the current one
    index, fd = open_session(ctx, source_id)
    try:
        if leaf is not None and leaf not in index.tree.by_id:
            raise HostError(ErrorCode.NOT_FOUND, f"The pi session {source_id} has no entry {leaf!r}.")
        content, child_id, stamp = _child_content(index, fd, source_id, through, leaf)
    finally:
        os.close(fd)
    folder = os.path.dirname(index.path)
    final = os.path.join(folder, f"{stamp.replace(':', '-').replace('.', '-')}_{child_id}.jsonl")
    publish(folder, child_id, final, content)
    catalog = catalog_of(ctx)
    catalog.scan(ctx.conn)
    child = catalog.indexes.get(final)
    if child is None or native_id(final) not in catalog.by_id:
        raise HostError(ErrorCode.INTERNAL, "The fork was written but could not be listed; look in the log.")
    ctx.native_own_writes[final] = child.key
    session = catalog.row_of(ctx.conn, child)
    ctx.emit(topics.SESSION_LIST_CHANGED, {})
    ctx.emit(
        topics.SESSION_CHANGED,
        {"sessionId": session["id"], "reason": "created", "forkedFrom": source_id, "session": session},
    )
    return {"session": session}


def _child_content(
    index: FileIndex, fd: int, source_id: str, through: str | None, leaf: str | None = None
) -> tuple[bytes, str, str]:
    branch, branch_view = index.branch_view(None if leaf == index.tree.leaf else leaf)
    if through is not None:
        position = branch_view.positions.get(through)
        if position is None:
            raise HostError(ErrorCode.NOT_FOUND, f"Session {source_id} has no message {through!r}.")
        branch = index.tree.branch(branch_view.groups[position].metas[-1].id)
    # Label entries stay where they are in the chain: pi's own branch extraction drops them and
    # writes fresh ones at the end, which leaves the entry after a mid-branch label pointing at a
    # parent that is not in the file, so the child's branch would end there.
    kept = list(branch)
    stamp, _ms = now_iso()
    child_id = str(uuid.uuid4())
    header = {
        "type": "session",
        "version": pi_format.CURRENT_VERSION,
        "id": child_id,
        "timestamp": stamp,
        "cwd": (index.header or {}).get("cwd", ""),
        "parentSession": index.path,
    }
    lines = [orjson.dumps(header)]
    if index.version == pi_format.CURRENT_VERSION:
        lines += index.raw_lines(fd, kept)  # byte for byte, unknown fields included
    else:
        for meta, entry in zip(kept, index.read_entries(fd, kept)):
            lines.append(orjson.dumps(_upgraded(entry, meta, index.version)))
    taken = {meta.id: True for meta in kept}
    parent = kept[-1].id if kept else None
    # A label is file-wide in pi: one written on another branch still names an entry of this one.
    # Those come along as fresh label entries at the end, as pi's branch extraction writes them.
    in_chain: dict[str, str | None] = {}
    for meta in kept:
        if meta.kind == "label" and meta.target is not None:
            in_chain[meta.target] = meta.label or None
    for meta in kept:
        label = index.tree.labels.get(meta.id)
        if in_chain.get(meta.id) != label and (label or in_chain.get(meta.id)):
            entry_id = new_entry_id(taken)
            taken[entry_id] = True
            entry = {"type": "label", "id": entry_id, "parentId": parent, "timestamp": stamp, "targetId": meta.id}
            if label:  # without one, the entry clears a label the chain set and the file later removed
                entry["label"] = label
            lines.append(orjson.dumps(entry))
            parent = entry_id
    if index.title:
        name = index.title[: 80 - len(FORK_SUFFIX)].rstrip() + FORK_SUFFIX
        lines.append(
            orjson.dumps(
                {
                    "type": "session_info",
                    "id": new_entry_id(taken),
                    "parentId": parent,
                    "timestamp": stamp,
                    "name": name,
                }
            )
        )
    return b"\n".join(lines) + b"\n", child_id, stamp


def _upgraded(entry: dict[str, Any], meta: pi_format.Meta, version: int) -> dict[str, Any]:
    """A v1/v2 entry in v3 shape: ids as migrated in memory, ``hookMessage`` named ``custom``."""
    copy = {**entry, "id": meta.id, "parentId": meta.parent}
    if "firstKeptEntryIndex" in copy:
        del copy["firstKeptEntryIndex"]
        kept = pi_format.first_kept_entry(entry, version)
        if kept is not None:
            copy["firstKeptEntryId"] = kept
    message = copy.get("message")
    if isinstance(message, dict) and message.get("role") == "hookMessage":
        copy["message"] = {**message, "role": "custom"}
    return copy


def publish(folder: str, child_id: str, final: str, content: bytes) -> None:
    """Write ``content`` to a new file ``final`` through an exclusive temporary file and a hard link."""
    digest = hashlib.sha256(content).digest()
    staging = os.path.join(folder, f".{child_id}.pidesktop-fork.tmp")
    identity: tuple[int, int] | None = None
    linked = False
    try:
        fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, FILE_MODE)
        try:
            st = os.fstat(fd)
            identity = (st.st_dev, st.st_ino)
            _write_all(fd, content)
            os.fsync(fd)
        finally:
            os.close(fd)
        if not _is_ours(staging, identity, content, digest):
            raise HostError(
                ErrorCode.CONFLICT,
                "The fork's temporary file changed while it was written; nothing was published. Try again.",
                {"reason": "staging"},
            )
        os.link(staging, final)  # fails instead of replacing a file of that name
        linked = True
        if not _is_ours(final, identity, content, digest):
            raise HostError(
                ErrorCode.CONFLICT,
                "The forked file changed right after it was written; it was not listed. Try again.",
                {"reason": "published"},
            )
        _fsync_folder(folder)
    except HostError:
        _cleanup(staging, final if linked else None, identity, content, digest)
        raise
    except OSError as exc:
        _cleanup(staging, final if linked else None, identity, content, digest)
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot write the fork beside the pi session: {exc}") from exc
    _remove_if_ours(staging, identity, content, digest)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _is_ours(path: str, identity: tuple[int, int] | None, content: bytes, digest: bytes) -> bool:
    try:
        st = os.lstat(path)
        if identity is None or (st.st_dev, st.st_ino) != identity or st.st_size != len(content):
            return False
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read(len(content) + 1)).digest() == digest
    except OSError:
        return False


def _is_our_prefix(path: str, identity: tuple[int, int] | None, content: bytes) -> bool:
    try:
        st = os.lstat(path)
        if identity is None or (st.st_dev, st.st_ino) != identity or st.st_size > len(content):
            return False
        with open(path, "rb") as handle:
            return content.startswith(handle.read(len(content) + 1))
    except OSError:
        return False


def _remove_if_ours(path: str, identity: tuple[int, int] | None, content: bytes, digest: bytes) -> None:
    if _is_ours(path, identity, content, digest) or _is_our_prefix(path, identity, content):
        try:
            os.unlink(path)
        except OSError as exc:
            log.warning("could not remove %s after a fork: %s", path, exc)


def _cleanup(staging: str, final: str | None, identity: tuple[int, int] | None, content: bytes, digest: bytes) -> None:
    if final is not None:
        _remove_if_ours(final, identity, content, digest)
    _remove_if_ours(staging, identity, content, digest)


def _fsync_folder(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- native.append --------------------------------------------------------------------------------
def lease_folder() -> str:
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return os.path.join(base, f"pidesktop-native-leases-{os.getuid()}")


@contextmanager
def lease(key: FileKey) -> Iterator[None]:
    """An exclusive advisory lease on one pi session file among pidesktop writers; CONFLICT when taken."""
    folder = lease_folder()
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, f"{key.dev:x}-{key.ino:x}.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, FILE_MODE)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise conflict(
                "Another pidesktop is writing to this pi session right now. Try again in a moment.", "lease"
            ) from None
        yield
    finally:
        os.close(fd)  # closing drops the flock


def append(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = p.text("sessionId")
    if not is_native(session_id):
        raise HostError(
            ErrorCode.PERMISSION_DENIED,
            "native.append writes only to pi sessions (ids that start with native-pi:).",
            {"field": "sessionId"},
        )
    token = p.text("token", nonempty=True)
    messages = [_message_param(p, raw, number) for number, raw in enumerate(_messages_param(p))]
    index, fd = open_session(ctx, session_id)
    try:
        _check_appendable(index, token)
        assert index.key is not None  # open_session read the file's key
        with lease(index.key):
            _check_not_live(index, ctx.native_own_writes)
            lines, entry_ids = _entries(index, messages)
            _append_lines(index, b"".join(lines))
        index.refresh_fd(fd)
        ctx.native_own_writes[index.path] = index.key
    finally:
        os.close(fd)
    ctx.emit(topics.SESSION_CHANGED, {"sessionId": session_id, "reason": "native"})
    return {"sessionId": session_id, "entryIds": entry_ids, "token": index.token}


def _messages_param(p: Params) -> list[Any]:
    raw = p.raw.get("messages")
    if not isinstance(raw, list) or not raw:
        raise invalid("native.append: 'messages' must be a non-empty array.", "messages")
    if len(raw) > MAX_MESSAGES:
        raise invalid(f"native.append: at most {MAX_MESSAGES} messages at a time.", "messages")
    return raw


def _message_param(p: Params, raw: Any, number: int) -> dict[str, Any]:
    where = f"messages[{number}]"
    if not isinstance(raw, dict):
        raise invalid(f"native.append: '{where}' must be an object.", where)
    role = raw.get("role")
    if role not in ("user", "assistant"):
        raise invalid(f"native.append: '{where}.role' must be user or assistant; got {role!r}.", f"{where}.role")
    text = raw.get("text")
    if not isinstance(text, str) or len(text) > TEXT_MAX:
        raise invalid(
            f"native.append: '{where}.text' must be a string of at most {TEXT_MAX} characters.", f"{where}.text"
        )
    message = {"role": role, "text": text}
    if role == "user":
        return message
    thinking = raw.get("thinking")
    if thinking is not None and not isinstance(thinking, str):
        raise invalid(f"native.append: '{where}.thinking' must be a string.", f"{where}.thinking")
    for name in ("provider", "model"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise invalid(f"native.append: '{where}.{name}' must be a non-empty string.", f"{where}.{name}")
    usage = raw.get("usage")
    if not isinstance(usage, dict):
        raise invalid(f"native.append: '{where}.usage' must be an object with input and output.", f"{where}.usage")
    counts = {}
    for name in ("input", "output", "cacheRead", "cacheWrite", "totalTokens"):
        value = usage.get(name, None)
        if value is None and name in ("input", "output"):
            raise invalid(f"native.append: '{where}.usage.{name}' is required.", f"{where}.usage.{name}")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise invalid(
                f"native.append: '{where}.usage.{name}' must be a whole number >= 0.", f"{where}.usage.{name}"
            )
        counts[name] = value
    stop = raw.get("stopReason")
    if stop not in STOP_REASONS:
        raise invalid(
            f"native.append: '{where}.stopReason' must be one of {', '.join(STOP_REASONS)}.", f"{where}.stopReason"
        )
    return {
        **message,
        "thinking": thinking,
        "provider": raw["provider"],
        "model": raw["model"],
        "usage": counts,
        "stopReason": stop,
    }


def _check_appendable(index: FileIndex, token: str) -> None:
    if index.token != token:
        raise conflict(
            "This pi session changed since it was read (pi or another program wrote to it). "
            "Read it again, then send your message again.",
            "changed",
        )
    if index.key is not None and index.end != index.key.size:
        raise conflict(
            "This pi session does not end with a complete line (a writer may be in the middle of "
            "one). Wait a moment, then try again.",
            "newline",
        )
    if not index.exact_v3:
        raise conflict(
            "Only pi sessions in the current format (version 3) can be continued here. "
            "Open it once in pi to update it, or fork it.",
            "format",
        )


def _check_not_live(index: FileIndex, own_writes: dict[str, FileKey | None]) -> None:
    """CONFLICT when the file changed in the last ``LIVE_SECONDS`` by someone else than this host."""
    key = index.key
    if key is None or own_writes.get(index.path) == key:
        return
    if time.time() - key.mtime_ns / 1e9 < LIVE_SECONDS:
        raise conflict("pi is writing this session right now. Wait until it is idle, then try again.", "live")


def _entries(index: FileIndex, messages: list[dict[str, Any]]) -> tuple[list[bytes], list[str]]:
    taken = dict.fromkeys(index.tree.by_id, True)
    parent = index.tree.leaf
    lines, ids = [], []
    for message in messages:
        stamp, ms = now_iso()
        entry_id = new_entry_id(taken)
        taken[entry_id] = True
        lines.append(
            orjson.dumps(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": stamp,
                    "message": _pi_message(message, ms),
                }
            )
            + b"\n"
        )
        ids.append(entry_id)
        parent = entry_id
    return lines, ids


def _pi_message(message: dict[str, Any], ms: int) -> dict[str, Any]:
    if message["role"] == "user":
        return {"role": "user", "content": [{"type": "text", "text": message["text"]}], "timestamp": ms}
    content: list[dict[str, Any]] = []
    if message.get("thinking"):
        content.append({"type": "thinking", "thinking": message["thinking"]})
    content.append({"type": "text", "text": message["text"]})
    counts = message["usage"]
    usage = {
        "input": counts["input"],
        "output": counts["output"],
        "cacheRead": counts["cacheRead"] or 0,
        "cacheWrite": counts["cacheWrite"] or 0,
        "totalTokens": counts["totalTokens"]
        if counts["totalTokens"] is not None
        else counts["input"] + counts["output"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    return {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": message["provider"],
        "model": message["model"],
        "usage": usage,
        "stopReason": message["stopReason"],
        "timestamp": ms,
    }


def _append_lines(index: FileIndex, data: bytes) -> None:
    key = index.key
    try:
        fd = os.open(index.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise HostError(ErrorCode.NOT_FOUND, "The pi session's file was removed; nothing was written.") from None
    try:
        st = os.fstat(fd)
        if key is None or (st.st_dev, st.st_ino, st.st_size) != (key.dev, key.ino, key.size):
            raise conflict(
                "This pi session changed a moment ago. Read it again, then send your message again.", "changed"
            )
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError:
            _take_back(fd, key.size)
            raise
    finally:
        os.close(fd)


def _take_back(fd: int, size: int) -> None:
    """After a failed write (a full disk): cut what this append added, so pi never reads half a line."""
    try:
        os.ftruncate(fd, size)
    except OSError:
        log.exception("could not take back a failed append to a pi session")
