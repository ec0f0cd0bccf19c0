"""``session.export``: the host writes a chat's export file in one streamed pass over its transcript.

The same bytes as paging through ``session.get`` and formatting on the other
side of the bus (``pidesktop.agent.export``), without a page's checks, message
shapes and hand-over per window: the transcript is read a batch of lines at a
time (``TranscriptStore.stream_messages``) and each batch is formatted and
written before the next is read. The file is written beside its destination
and moved into place when complete, so a failed export never leaves half a
file where the old one was; a destination inside the data folder is refused
(the host's own files are not to be overwritten by an export).
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.chat_export import (
    FORMATS,
    MESSAGE_END,
    READ_KEYS,
    Cleaner,
    compaction_markdown,
    json_head,
    json_tail,
    markdown_head,
    message_markdown,
    message_parts,
)
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.native import reading as native_reading
from pidesktop.host.params import Params, invalid
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions.messages import live_compactions, session_get
from pidesktop.host.transcripts import TranscriptChanged, collector

# Bytes of lines an export reads, formats and writes at a time. Small enough that a batch's records stay
# in the processor's caches while they are formatted: 4 MiB batches took 1.9x a bare parse to read,
# 64-256 KiB ones 1.3x (10,000 messages).
EXPORT_BLOCK = 128 << 10
NATIVE_PAGE = 1000  # a pi session is read a window at a time, as session.get serves it
_MESSAGE_END = MESSAGE_END.encode()
_NOT_STORED = ("type", *READ_KEYS)  # a stored message's keys that are not exported


class _Chat:
    """What an export reads: the chat's row, its message count, its live checkpoints, then its messages."""

    def __init__(
        self,
        session: dict[str, Any],
        total: int,
        compactions: list[dict[str, Any]],
        batches: Iterator[list[dict[str, Any]]],
    ) -> None:
        self.session = session
        self.total = total
        self.compactions = compactions
        self.batches = batches  # the messages, oldest first, a batch at a time


@command("session.export", emits=[])
def session_export(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    fmt = p.text("format")
    if fmt not in FORMATS:
        raise invalid(f"Unknown export format {fmt!r}; use md or json.", "format")
    target = _target(ctx, p.text("path", nonempty=True))
    chat = _native_chat(ctx, session_id) if native_reading.is_native(session_id) else _chat(ctx, session_id)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise _refused(target, exc) from exc
    try:
        with os.fdopen(handle, "wb") as out:
            count = _write(chat, fmt, Cleaner(str(ctx.data_root)), out)
            written = out.tell()
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # an ordinary file, not mkstemp's owner-only one
        os.replace(temporary, target)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise _refused(target, exc) from exc
    except TranscriptChanged:
        Path(temporary).unlink(missing_ok=True)
        raise HostError(ErrorCode.CONFLICT, "The chat changed while it was being exported; export it again.") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return {"path": str(target), "bytes": written, "messages": count}


def _target(ctx: HostContext, path: str) -> Path:
    if "\x00" in path:
        raise invalid("The export's file name holds a NUL character; give another name.", "path")
    target = Path(path)
    if not target.is_absolute():
        raise invalid(f"Give the export's file as an absolute path, not {path!r}.", "path")
    try:
        if target.is_dir():
            raise invalid(f"{path} is a folder; give a file name for the export.", "path")
        if not target.parent.is_dir():
            raise invalid(f"The folder {target.parent} does not exist; pick another folder.", "path")
        if target.exists() and not target.is_file():  # a device, a pipe: never replaced by a file
            raise invalid(f"{path} is not an ordinary file; give another file name for the export.", "path")
        inside = target.resolve().is_relative_to(Path(ctx.data_root).resolve())
    except OSError as exc:  # a name too long for the file system, a loop of links
        raise invalid(f"The export cannot be written to {path}: {exc.strerror or exc}.", "path") from None
    if inside:
        raise invalid(
            f"{path} is inside the data folder, where an export could overwrite the app's files; pick another folder.",
            "path",
        )
    return target


def _refused(target: Path, exc: OSError) -> HostError:
    code = ErrorCode.STORAGE_FULL if exc.errno == errno.ENOSPC else ErrorCode.PERMISSION_DENIED
    message = f"Could not write the export to {target}: {exc.strerror or exc}. Pick another folder."
    return HostError(code, message, {"path": str(target)})


def _chat(ctx: HostContext, session_id: str) -> _Chat:
    session = sessions.summary(ctx.conn, session_id)
    # The count and the checkpoints, as a page has them; from the newest line, where no id index is built
    # to find which lines a later one hides (one from the oldest built it: 130 MB at a million lines).
    head = ctx.transcripts.window(session_id, limit=1)
    compactions = live_compactions(ctx, session_id, head.compactions)
    return _Chat(session, head.total, compactions, _streamed(ctx, session_id) if head.total else iter(()))


def _streamed(ctx: HostContext, session_id: str) -> Iterator[list[dict[str, Any]]]:
    for batch in ctx.transcripts.stream_messages(session_id, EXPORT_BLOCK):
        yield [record for _position, record in batch]


def _native_chat(ctx: HostContext, session_id: str) -> _Chat:
    def window(start: int) -> dict[str, Any]:
        params = {"sessionId": session_id, "messageStart": start, "messageLimit": NATIVE_PAGE}
        return session_get(ctx, Params("session.get", params))

    first = window(0)

    def batches() -> Iterator[list[dict[str, Any]]]:
        page = first
        while True:
            yield page["messages"]
            if not page["hasMoreAfter"] or page["messageEnd"] <= page["messageStart"]:
                return
            page = window(page["messageEnd"])

    return _Chat(first["session"], first["totalMessages"], first.get("compactions") or [], batches())


def _write(chat: _Chat, fmt: str, cleaner: Cleaner, out: BinaryIO) -> int:
    """Write the export a batch at a time (one join and one write per batch); the number of messages."""
    count = 0
    if fmt == "json":
        out.write(json_head(chat.session, cleaner).encode())
        for batch in chat.batches:
            if batch:
                out.write(b"," if count else b"")
                with collector.paused():  # the batch's records are all alive until it is written
                    out.write(_json_messages(batch, cleaner))
                count += len(batch)
        out.write(json_tail(chat.compactions, cleaner).encode())
        return count
    summaries: dict[Any, list[dict[str, Any]]] = {}
    for record in chat.compactions:
        summaries.setdefault(record.get("throughMessageId"), []).append(record)
    out.write(markdown_head(chat.session, chat.total, cleaner).encode())
    for batch in chat.batches:
        with collector.paused():  # the batch's records are all alive until it is written
            out.write(_markdown_messages(batch, summaries, cleaner))
        count += len(batch)
    return count


def _markdown_messages(
    batch: list[dict[str, Any]], summaries: dict[Any, list[dict[str, Any]]], cleaner: Cleaner
) -> bytes:
    parts = []
    clean = cleaner.text
    # Each paragraph cleaned alone is the message cleaned whole unless the data folder's path could span a
    # paragraph's end (it holds a line end) or lie in the closing rule: then the message is cleaned whole.
    whole = any("\n" in root or root in MESSAGE_END for root in cleaner.roots)
    for message in batch:
        # Encoded a paragraph at a time: a heading's "·" would make the whole text one that encodes
        # character by character, where an ASCII paragraph is copied as it is.
        if whole:
            parts.append(clean(message_markdown(message)).encode())
        else:
            parts.append(b"\n\n".join([clean(part).encode() for part in message_parts(message)]))
            parts.append(_MESSAGE_END)
        if summaries:
            for record in summaries.get(message.get("id"), ()):
                parts.append(clean(compaction_markdown(record)).encode())
    return b"".join(parts)


def _json_messages(batch: list[dict[str, Any]], cleaner: Cleaner) -> bytes:
    """The batch's stored messages as ``session.get`` shows them (no ``type``, no read positions), cleaned,
    as JSON joined by commas. Most batches hold nothing to clean: one look over the joined text tells.

    The batch's records are the export's own (parsed from the file, or a page built for it) and lose those
    keys in place: the rest keep their order, so each is written as ``stored`` would copy it, and the
    whole batch is one ``dumps``."""
    for record in batch:
        for key in _NOT_STORED:
            record.pop(key, None)
    joined = orjson.dumps(batch)[1:-1]  # a list's JSON is its items' joined by commas, in brackets
    if not cleaner.finds_in_json(joined):
        return joined
    return b",".join([cleaner.json_bytes(record) for record in batch])
