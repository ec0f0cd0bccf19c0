"""``import.scan`` and ``import.run``: other agents' sessions become Desktop chats (spec 004, sections 4.5 and 11).

Both are host jobs (``data_commands.Jobs``): the command answers ``{job, kind}``
at once and the job reports ``data.progress`` and one ``data.finished``.
The job thread does what is slow and touches nothing of the data root:
finding the files, reading them and turning them into Desktop messages (the
pure readers in ``importers``). Each session's writes are handed back to the
host thread (``HostContext.post``), so the single-writer rule holds: the
transcript file first, then one transaction with the session row, its index
rows and its ``session_import_origins`` row; a failed transaction removes the
file.

Idempotence, keyed by (plugin, source, external id):

- the source file has the size and modification time recorded, or the same
  content hash: unchanged, nothing is written;
- the chat still holds exactly what was imported (same messages, compared by
  a fingerprint) and the source only grew: the new messages are appended;
  otherwise the source was rewritten (another branch, a finished tool call)
  and the chat is rewritten to match;
- the chat was changed here since it was imported (a prompt sent, a message
  deleted or edited): it is never overwritten. The source is imported again
  as a new chat, which takes over the origin row; the summary counts it as
  ``copied``;
- a chat in the trash is left alone.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import apsw
import orjson

from pidesktop.bus import topics
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.formats.index.sql_rows import one_row
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext, Post
from pidesktop.host.data.commands import JobProgress, jobs_of
from pidesktop.host.imports import (
    PLUGIN_ID,
    READERS,
    SOURCES,
    ImportedSession,
    ReadFailure,
    TooManyFiles,
    claude_code,
    find,
)
from pidesktop.host.json_values import object_at
from pidesktop.host.params import Params, invalid
from pidesktop.host.projects import commands as projects
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions import history, message_index
from pidesktop.host.titles import cut_at_word

log = logging.getLogger("pidesktop.host.imports.commands")

SCAN_KIND = "importScan"
RUN_KIND = "import"
MAX_FILE_BYTES = 512 << 20  # a session file larger than this is reported, not read
MAX_PATHS = 1000
WAIT_STEP = 0.05  # seconds between two cancellation checks while the host thread writes


# -- what the job thread prepares --------------------------------------------------------------------
@dataclass
class Plan:
    """One read source file, ready to be written by the host thread."""

    source: str
    path: str
    size: int
    mtime_ns: int
    source_hash: str
    session: ImportedSession
    prefixes: list[str]  # prefixes[k]: fingerprint of the first k messages

    def origin(self, title: str) -> dict[str, Any]:
        s = self.session
        return {
            "path": self.path,
            "size": self.size,
            "mtimeNs": self.mtime_ns,
            "sourceHash": self.source_hash,
            "fingerprint": self.prefixes[-1],
            "messageCount": len(s.messages),
            "compactionCount": len(s.compactions),
            "projectPath": s.cwd,
            "modelId": s.model_id,
            "providerId": s.provider_id,
            "title": title,
        }


def fingerprints(messages: list[dict[str, Any]]) -> list[str]:
    """Fingerprints of every prefix of ``messages`` (key order does not matter)."""
    running = hashlib.blake2b(digest_size=16)
    out = [running.hexdigest()]
    for message in messages:
        running.update(orjson.dumps(message, option=orjson.OPT_SORT_KEYS))
        running.update(b"\n")
        out.append(running.hexdigest())
    return out


def prepare(
    source: str, path: Path, data: bytes, size: int, mtime_ns: int, subagents: dict[str, bytes] | None = None
) -> Plan:
    """Read one file's bytes (job thread); ``ReadFailure`` when it holds no session.

    ``subagents``: a Claude Code session's subagent files (agent id -> bytes), read with it.
    """
    digest = hashlib.blake2b(data, digest_size=16)
    if subagents:
        session = claude_code.read_with_subagents(data, str(path), subagents)
        for agent in sorted(subagents):
            digest.update(b"\0" + agent.encode() + b"\0" + subagents[agent])
    else:
        session = READERS[source](data, str(path))
    return Plan(source, str(path), size, mtime_ns, digest.hexdigest(), session, fingerprints(session.messages))


def subagent_files(path: Path) -> dict[str, bytes]:
    """A Claude Code session's ``<session>/subagents/agent-<id>.jsonl`` files, by agent id.

    Unreadable ones are left out.
    """
    folder = path.with_suffix("") / "subagents"
    found: dict[str, bytes] = {}
    try:
        entries = sorted(folder.iterdir()) if folder.is_dir() else []
    except OSError:
        return found
    for entry in entries:
        agent = claude_code.subagent_id(entry.name)
        if agent is None:
            continue
        try:
            if entry.is_file() and entry.stat().st_size <= MAX_FILE_BYTES:
                found[agent] = entry.read_bytes()
        except OSError:
            continue
    return found


# -- what the host thread writes ---------------------------------------------------------------------
def apply(ctx: HostContext, plan: Plan) -> dict[str, Any]:
    """Write one plan; ``{outcome, sessionId}`` with outcome imported | updated | unchanged | copied."""
    row = ctx.conn.execute(
        "SELECT o.session_id, o.origin_json, s.deleted_at FROM session_import_origins o "
        "JOIN sessions s ON s.id = o.session_id WHERE o.plugin_id = ? AND o.source_id = ? AND o.external_id = ?",
        (PLUGIN_ID, plan.source, plan.session.external_id),
    ).fetchone()
    if row is None:
        adopted = _adopt_orphan(ctx, plan)
        return {"outcome": "imported", "sessionId": adopted or _create(ctx, plan)}
    session_id, origin_json, deleted_at = row
    origin = _loads(origin_json)
    if origin.get("sourceHash") == plan.source_hash:
        seen = {"path": plan.path, "size": plan.size, "mtimeNs": plan.mtime_ns}
        if any(origin.get(key) != value for key, value in seen.items()):
            # Same bytes, new time or place (touched, restored, moved): remember it, so the next
            # scan skips the file by its size and time instead of reading and hashing it again.
            with ctx.conn:
                ctx.conn.execute(
                    "UPDATE session_import_origins SET origin_json = ? WHERE plugin_id = ? "
                    "AND source_id = ? AND external_id = ?",
                    (orjson.dumps(origin | seen).decode(), PLUGIN_ID, plan.source, plan.session.external_id),
                )
        return {"outcome": "unchanged", "sessionId": session_id}
    if deleted_at is not None:
        return {"outcome": "unchanged", "sessionId": session_id, "inTrash": True}
    count = origin.get("messageCount")
    if not isinstance(count, int) or _current_fingerprint(ctx, session_id) != (count, origin.get("fingerprint")):
        return {"outcome": "copied", "sessionId": _create(ctx, plan), "editedSessionId": session_id}
    if len(plan.prefixes) > count and plan.prefixes[count] == origin.get("fingerprint"):
        _append(ctx, plan, session_id, count, origin)
    else:
        _rewrite(ctx, plan, session_id)
    return {"outcome": "updated", "sessionId": session_id}


def _loads(raw: str | None) -> dict[str, Any]:
    try:
        value = orjson.loads(raw or "{}")
    except orjson.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _stored(session_id: str, local: dict[str, Any]) -> dict[str, Any]:
    """A reader's message or checkpoint with ids made unique to this chat."""
    record = dict(local)
    record["id"] = f"{session_id}:{local['id']}"
    for key in ("throughMessageId", "firstKeptMessageId"):
        if isinstance(record.get(key), str):
            record[key] = f"{session_id}:{record[key]}"
    return record


def _local(session_id: str, stored: dict[str, Any]) -> dict[str, Any]:
    record = {k: v for k, v in stored.items() if k != "type"}
    prefix = f"{session_id}:"
    if isinstance(record.get("id"), str) and record["id"].startswith(prefix):
        record["id"] = record["id"][len(prefix) :]
    return record


def _current_fingerprint(ctx: HostContext, session_id: str) -> tuple[int, str]:
    """The chat's messages now, as (count, fingerprint), comparable with what was imported."""
    transcript = ctx.transcripts.read_all(session_id)
    messages = [_local(session_id, record) for _position, record in transcript.messages]
    return len(messages), fingerprints(messages)[-1]


def _records(session_id: str, session: ImportedSession) -> list[dict[str, Any]]:
    """Messages with each checkpoint right after the message it summarises up to, as transcript lines."""
    after: dict[str, list[dict[str, Any]]] = {}
    for compaction in session.compactions:
        after.setdefault(compaction["throughMessageId"], []).append(compaction)
    records: list[dict[str, Any]] = []
    for message in session.messages:
        records.append({"type": "message", **_stored(session_id, message)})
        for compaction in after.get(message["id"], []):
            records.append({"type": "compaction", **_stored(session_id, compaction)})
    return records


def _title(session: ImportedSession) -> tuple[str, str]:
    """The source's own title (trimmed to what a rename allows), else the first prompt's."""
    if session.title and session.title.strip():
        return cut_at_word(session.title, sessions.TITLE_MAX), "generated"  # what a rename allows
    first = next((m for m in session.messages if m["role"] == "user" and _is_prompt(m)), None)
    first = first or next((m for m in session.messages if m["role"] == "user"), None)
    title = sessions.fallback_title(first) if first is not None else ""
    return title, "default"


_SLASH_COMMAND = re.compile(r"^/[\w:.-]+$")


def _is_prompt(message: dict[str, Any]) -> bool:
    """Something the person asked: not a shell command they ran, nor a bare slash command such as ``/mode``."""
    meta = object_at(message, "meta")
    if meta.get("localCommand") or meta.get("bashExecution") or meta.get("native"):
        return False
    text = message_index.extract_text(message) or ""
    return bool(text.strip()) and not _SLASH_COMMAND.match(text.strip())


# Session ids of first imports are derived from the origin key, so a chat whose import was cut off
# between its transcript and its transaction (restored by the boot pass as a chat without origin)
# is found again and adopted instead of imported twice. Copies get random ids.
IMPORT_NAMESPACE = uuid.UUID("6f6a1f2e-3c1b-4d59-9a57-1c8a8a1f0b2d")


def stable_id(plan: Plan) -> str:
    return str(uuid.uuid5(IMPORT_NAMESPACE, f"{PLUGIN_ID}/{plan.source}/{plan.session.external_id}"))


def _new_id(ctx: HostContext, plan: Plan) -> str:
    stable = stable_id(plan)
    taken = ctx.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (stable,)).fetchone() is not None
    if taken or sessions.was_deleted(ctx.conn, stable) or ctx.transcripts.exists(stable):
        return str(uuid.uuid4())
    return stable


def _adopt_orphan(ctx: HostContext, plan: Plan) -> str | None:
    """The chat of an import cut off before its transaction, if the boot pass restored one: it becomes this import."""
    session_id = stable_id(plan)
    row = ctx.conn.execute(
        "SELECT o.session_id FROM sessions s LEFT JOIN session_import_origins o ON o.session_id = s.id WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    if row is None or row[0] is not None:
        return None
    header = ctx.transcripts.header(session_id) or {}
    if header.get("importedFrom") != {"source": plan.source, "externalId": plan.session.external_id}:
        return None
    title, title_source = _title(plan.session)
    now = ctx.clock()

    def in_transaction(conn: apsw.Connection) -> None:
        project_id = _project(ctx, plan, now)
        conn.execute(
            "UPDATE sessions SET source = ?, title = ?, title_source = ?, project_id = ?, created_at = ? WHERE id = ?",
            (
                plan.source,
                title,
                title_source,
                project_id,
                plan.session.created_at if plan.session.created_at is not None else now,
                session_id,
            ),
        )
        _insert_origin(ctx, plan, session_id, title, now)
        _touch(ctx, plan, session_id)

    records = _records(session_id, plan.session)
    history.rewrite(
        ctx,
        session_id,
        header,
        [r for r in records if r["type"] == "message"],
        [r for r in records if r["type"] == "compaction"],
        now,
        in_transaction,
    )
    log.info("adopted the chat %s left by an interrupted import of %s", session_id, plan.path)
    return session_id


def _project(ctx: HostContext, plan: Plan, now: int) -> int | None:
    cwd = plan.session.cwd
    return projects.upsert(ctx.conn, cwd, now, opened=False) if cwd and projects.normalise_path(cwd) else None


def _insert_origin(ctx: HostContext, plan: Plan, session_id: str, title: str, now: int) -> None:
    ctx.conn.execute(
        "INSERT INTO session_import_origins(plugin_id, source_id, external_id, session_id, source_label, "
        "origin_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(plugin_id, source_id, external_id) DO UPDATE SET session_id = excluded.session_id, "
        "source_label = excluded.source_label, origin_json = excluded.origin_json",
        (
            PLUGIN_ID,
            plan.source,
            plan.session.external_id,
            session_id,
            plan.path,
            orjson.dumps(plan.origin(title)).decode(),
            now,
        ),
    )


def _create(ctx: HostContext, plan: Plan) -> str:
    session = plan.session
    session_id = _new_id(ctx, plan)
    now = ctx.clock()
    created = session.created_at if session.created_at is not None else now
    updated = max(session.updated_at if session.updated_at is not None else created, created)
    title, title_source = _title(session)
    header = {
        "type": "session",
        "schema": 2,
        "sessionId": session_id,
        "createdAt": message_index.rfc3339(created),
        "importedFrom": {"source": plan.source, "externalId": session.external_id},
    }
    records = _records(session_id, session)
    ctx.transcripts.rewrite(session_id, records, header)
    try:
        with ctx.conn:
            project_id = _project(ctx, plan, now)
            ctx.conn.execute(
                "INSERT INTO sessions(id, title, title_source, project_id, source, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, title, title_source, project_id, plan.source, created, updated),
            )
            message_index.rebuild(ctx.conn, session_id, [_stored(session_id, m) for m in session.messages], now)
            _insert_origin(ctx, plan, session_id, title, now)
    except BaseException:
        ctx.transcripts.delete(session_id)
        raise
    return session_id


def _save_origin(ctx: HostContext, plan: Plan, session_id: str) -> None:
    title = one_row(ctx.conn.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)))[0]
    ctx.conn.execute(
        "UPDATE session_import_origins SET origin_json = ?, source_label = ? WHERE session_id = ?",
        (orjson.dumps(plan.origin(title)).decode(), plan.path, session_id),
    )


def _touch(ctx: HostContext, plan: Plan, session_id: str) -> None:
    """The chat's place in the recent list is the source's last activity (never before the chat began)."""
    if plan.session.updated_at is not None:
        ctx.conn.execute(
            "UPDATE sessions SET updated_at = max(created_at, ?) WHERE id = ?", (plan.session.updated_at, session_id)
        )


def _append(ctx: HostContext, plan: Plan, session_id: str, count: int, origin: dict[str, Any]) -> None:
    """The source grew: only its new messages (and new checkpoints) go to the end of the chat."""
    session = plan.session
    new_messages = session.messages[count:]
    known_checkpoints = origin.get("compactionCount") if isinstance(origin.get("compactionCount"), int) else 0
    new_checkpoints = session.compactions[known_checkpoints:]
    now = ctx.clock()
    for message in new_messages:
        ctx.transcripts.append(session_id, {"type": "message", **_stored(session_id, message)})
    for compaction in new_checkpoints:
        ctx.transcripts.append(session_id, {"type": "compaction", **_stored(session_id, compaction)})
    with ctx.conn:
        for message in new_messages:
            message_index.insert(ctx.conn, session_id, _stored(session_id, message), None, now)
        _touch(ctx, plan, session_id)
        _save_origin(ctx, plan, session_id)


def _rewrite(ctx: HostContext, plan: Plan, session_id: str) -> None:
    """The source changed in place and the chat holds only what was imported: the chat follows it."""
    records = _records(session_id, plan.session)
    messages = [r for r in records if r["type"] == "message"]
    checkpoints = [r for r in records if r["type"] == "compaction"]

    def in_transaction(conn: apsw.Connection) -> None:
        _touch(ctx, plan, session_id)
        _save_origin(ctx, plan, session_id)

    history.rewrite(
        ctx, session_id, ctx.transcripts.header(session_id), messages, checkpoints, ctx.clock(), in_transaction
    )


# -- the job ---------------------------------------------------------------------------------------
class Summary:
    def __init__(self, source: str):
        self.source = source
        self.counts = {"imported": 0, "updated": 0, "unchanged": 0, "copied": 0, "failed": 0, "empty": 0}
        self.failures: list[dict[str, str]] = []
        self.copies: list[dict[str, str]] = []
        self.skipped: dict[str, int] = {}
        self.messages = 0
        self.read = 0  # files whose bytes were read or known unchanged

    def fail(self, path: Path | str, reason: str) -> None:
        self.counts["failed"] += 1
        self.failures.append({"path": str(path), "reason": reason})

    def to_json(self, files: int) -> dict[str, Any]:
        return {
            "source": self.source,
            "files": files,
            **self.counts,
            "messages": self.messages,
            "skippedEntries": self.skipped,
            "failures": self.failures,
            "copies": self.copies,
        }


def _known_files(ctx: HostContext, source: str) -> dict[str, tuple[int, int]]:
    """Imported source files and the (size, mtime) they had, read on the host thread for the job."""
    known: dict[str, tuple[int, int]] = {}
    for (origin_json,) in ctx.conn.execute(
        "SELECT origin_json FROM session_import_origins WHERE plugin_id = ? AND source_id = ?", (PLUGIN_ID, source)
    ):
        origin = _loads(origin_json)
        if (
            isinstance(origin.get("path"), str)
            and isinstance(origin.get("size"), int)
            and isinstance(origin.get("mtimeNs"), int)
        ):
            known[origin["path"]] = (origin["size"], origin["mtimeNs"])
    return known


def _params(p: Params) -> tuple[str, list[str] | None]:
    source = p.choice("source", SOURCES, required=True)
    raw = p.raw.get("paths")
    if raw is None:
        return source, None
    if not isinstance(raw, list):
        raise invalid(f"{p.method}: 'paths' must be an array of absolute paths.", "paths")
    if len(raw) > MAX_PATHS:
        raise invalid(f"{p.method}: 'paths' may name at most {MAX_PATHS} files or folders.", "paths")
    paths = []
    for number, item in enumerate(raw):
        if not isinstance(item, str) or not item.strip() or "\0" in item:
            raise invalid(f"{p.method}: 'paths[{number}]' must be a non-empty path.", f"paths[{number}]")
        try:
            item.encode("utf-8")
        except UnicodeEncodeError:
            raise invalid(f"{p.method}: 'paths[{number}]' is not valid text.", f"paths[{number}]") from None
        if not os.path.isabs(os.path.expanduser(item)):
            raise invalid(f"{p.method}: 'paths[{number}]' must be an absolute path; got {item!r}.", f"paths[{number}]")
        paths.append(os.path.expanduser(item))
    return source, paths


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


@command("import.scan", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS])
def import_scan(ctx: HostContext, p: Params) -> dict[str, Any]:
    source, paths = _params(p)
    known = _known_files(ctx, source)

    def work(progress: JobProgress) -> dict[str, Any]:
        progress("find", 0, 1)
        files = _find(source, paths, progress)
        counts = {"new": 0, "changed": 0, "unchanged": 0}
        total_bytes = 0
        for number, path in enumerate(files):
            progress("scan", number, len(files))
            info = _stat(path)
            if info is None:
                continue
            total_bytes += info.st_size
            recorded = known.get(str(path))
            if recorded is None:
                counts["new"] += 1
            elif recorded == (info.st_size, info.st_mtime_ns):
                counts["unchanged"] += 1
            else:
                counts["changed"] += 1
        progress("scan", len(files), len(files))
        return {
            "source": source,
            "folders": [str(x) for x in _roots(source, paths)],
            "files": len(files),
            "bytes": total_bytes,
            **counts,
        }

    return jobs_of(ctx).start(SCAN_KIND, work)


def _find(source: str, paths: list[str] | None, progress: JobProgress) -> list[Path]:
    try:
        return find(source, paths, cancelled=lambda: progress("find", 0, 1))
    except TooManyFiles as exc:
        raise HostError(ErrorCode.LIMIT_EXCEEDED, f"{exc}.", {"field": "paths"}) from None


def _roots(source: str, paths: list[str] | None) -> list[Path]:
    from pidesktop.host.imports import default_folders

    return [Path(x) for x in paths] if paths else default_folders(source)


@command("import.run", emits=[topics.DATA_FINISHED, topics.DATA_PROGRESS, topics.SESSION_CHANGED])
def import_run(ctx: HostContext, p: Params) -> dict[str, Any]:
    source, paths = _params(p)
    post = ctx.post
    if post is None:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE, "Importing needs the host's own thread; this host was opened without one."
        )
    known = _known_files(ctx, source)

    def work(progress: JobProgress) -> dict[str, Any]:
        summary = Summary(source)
        progress("find", 0, 1)
        files = _find(source, paths, progress)
        for number, path in enumerate(files):
            progress("import", number, len(files))
            _import_one(ctx, post, summary, source, path, known, partial(progress, "import", number, len(files)))
        progress("import", len(files), len(files))
        result = summary.to_json(len(files))
        result["nothingRead"] = bool(files) and summary.read == 0
        return result

    return jobs_of(ctx).start(RUN_KIND, work)


def _import_one(
    ctx: HostContext,
    post: Post,
    summary: Summary,
    source: str,
    path: Path,
    known: dict[str, tuple[int, int]],
    check_cancel: Callable[[], None],
) -> None:
    info = _stat(path)
    if info is None:
        summary.fail(path, "the file could not be opened")
        return
    if known.get(str(path)) == (info.st_size, info.st_mtime_ns):
        summary.counts["unchanged"] += 1
        summary.read += 1
        return
    if info.st_size > MAX_FILE_BYTES:
        summary.fail(path, f"the file is larger than {MAX_FILE_BYTES >> 20} MiB")
        return
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        summary.fail(path, exc.strerror or str(exc))
        return
    subagents = subagent_files(path) if source == "claude-code" else None
    try:
        plan = prepare(source, path, data, info.st_size, info.st_mtime_ns, subagents)
    except ReadFailure as exc:
        summary.fail(path, str(exc))
        return
    except Exception as exc:
        log.exception("reading %s failed", path)
        summary.fail(path, f"it could not be read ({type(exc).__name__})")
        return
    summary.read += 1
    for kind, lines in plan.session.skipped.items():
        summary.skipped[kind] = summary.skipped.get(kind, 0) + lines
    if not plan.session.messages:
        summary.counts["empty"] += 1
        return
    outcome = _on_host_thread(ctx, post, lambda: apply(ctx, plan), check_cancel)
    if "error" in outcome:
        summary.fail(path, outcome["error"])
        return
    summary.counts[outcome["outcome"]] += 1
    if outcome["outcome"] in ("imported", "updated", "copied"):
        summary.messages += len(plan.session.messages)
        ctx.emit(
            topics.SESSION_CHANGED,
            {
                "sessionId": outcome["sessionId"],
                "reason": "imported" if outcome["outcome"] != "updated" else "history",
                "session": outcome["session"],
            },
        )
    if outcome["outcome"] == "copied":
        summary.copies.append(
            {"path": str(path), "sessionId": outcome["sessionId"], "editedSessionId": outcome["editedSessionId"]}
        )


def _on_host_thread(
    ctx: HostContext, post: Post, work: Callable[[], dict[str, Any]], check_cancel: Callable[[], None]
) -> dict[str, Any]:
    """Run ``work`` on the host thread and wait for it; cancelling the job stops the wait (not a started write)."""
    done = threading.Event()
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome = work()
            outcome["session"] = sessions.summary(ctx.conn, outcome["sessionId"])
            box.update(outcome)
        except HostError as exc:
            box["error"] = exc.message
        except Exception as exc:
            log.exception("importing a session failed")
            box["error"] = f"it could not be stored ({type(exc).__name__}: {exc})"
        finally:
            done.set()

    if not post(run):
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, "The host is shutting down.")
    while not done.wait(WAIT_STEP):
        check_cancel()
    return box
