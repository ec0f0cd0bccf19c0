"""``pidesktop data verify``: is the data root consistent?

Checks, all read-only and safe beside a running host:

- the database passes ``integrity_check`` and ``foreign_key_check`` and has
  the schema version this build reads;
- every indexed message (a ``messages`` row) is a readable message line of
  its session's transcript, and every ``message_revisions`` row has its line
  in the session's revisions file. The index is read before the files, and a
  host writes a file before its index, so a concurrent append cannot cause a
  false report;
- a transcript without a session row is reported as *recoverable*, not as a
  problem: the next start restores its row and index from the file (spec 004,
  section 8).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import apsw
import orjson

from pidesktop.formats.index.schema import DB_NAME, SCHEMA_VERSION
from pidesktop.formats.transcript.lines import MESSAGE, scan_top_level
from pidesktop.formats.transcript.records import is_valid_message, parse_line
from pidesktop.storage.sqlite_ro import integrity_problems, open_readonly, user_version

_SHOW = 5  # ids listed per problem

# ``progress(phase, done, total)``: phases ``database``, ``transcripts``, ``revisions``, ``files``.
# It may raise (``errors.Cancelled``) to stop the check between two files.
StepProgress = Callable[[str, int, int], None]


def _quiet(phase: str, done: int, total: int) -> None:
    return None


@dataclass
class VerifyReport:
    data_root: Path
    problems: list[str] = field(default_factory=list)
    recoverable: list[str] = field(default_factory=list)
    sessions: int = 0
    messages: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(data_root: Path, progress: StepProgress | None = None) -> VerifyReport:
    step = progress or _quiet
    report = VerifyReport(data_root)
    db = data_root / DB_NAME
    if not db.is_file():
        report.problems.append(f"There is no database at {db}.")
        return report
    try:
        conn = open_readonly(db)
    except apsw.Error as exc:
        report.problems.append(f"Cannot open {db}: {exc}")
        return report
    try:
        step("database", 0, 1)
        report.problems += integrity_problems(conn)
        version = user_version(conn)
        if version != SCHEMA_VERSION:
            report.problems.append(f"{db} has schema v{version}; this version reads v{SCHEMA_VERSION}.")
            return report
        with conn:  # one read snapshot for every index query
            sessions = [row[0] for row in conn.execute("SELECT id FROM sessions")]
            indexed = defaultdict(list)
            for session_id, message_id in conn.execute("SELECT session_id, id FROM messages ORDER BY session_id, seq"):
                indexed[session_id].append(message_id)
            revisions = defaultdict(set)
            for session_id, root, index in conn.execute(
                "SELECT session_id, root_user_id, revision_index FROM message_revisions"
            ):
                revisions[session_id].add((root, index))
    except apsw.Error as exc:
        report.problems.append(f"Reading {db} failed: {exc}")
        return report
    finally:
        conn.close()
    step("database", 1, 1)
    report.sessions = len(sessions)
    report.messages = sum(len(ids) for ids in indexed.values())
    folder = data_root / "sessions"
    unindexed: dict[str, list[str]] = {}
    for done, session_id in enumerate(sessions):
        step("transcripts", done, len(sessions))
        unindexed[session_id] = _check_transcript(
            report, folder / f"{session_id}.jsonl", session_id, indexed.get(session_id, [])
        )
    _report_unindexed(report, db, unindexed)
    step("transcripts", len(sessions), len(sessions))
    for done, (session_id, rows) in enumerate(revisions.items()):
        step("revisions", done, len(revisions))
        _check_revisions(report, folder / f"{session_id}.revisions.jsonl", session_id, rows)
    step("revisions", len(revisions), len(revisions))
    known = set(sessions)
    step("files", 0, 1)
    if folder.is_dir():
        for path in sorted(folder.glob("*.jsonl")):
            session_id = path.name[: -len(".jsonl")]
            if path.name.endswith(".revisions.jsonl") or session_id in known:
                continue
            report.recoverable.append(f"{path} has no session row; the next start restores it from the file.")
    step("files", 1, 1)
    return report


def _check_transcript(report: VerifyReport, path: Path, session_id: str, ids: list[str]) -> list[str]:
    """Report indexed messages the file lacks; return the file's message ids that have no index row."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if ids:
            report.problems.append(f"Session {session_id} has {len(ids)} indexed messages but no transcript {path}.")
        return []
    except OSError as exc:
        report.problems.append(f"Cannot read {path}: {exc}")
        return []
    readable: dict[str, None] = {}  # file order
    for line in data.split(b"\n")[:-1]:  # the part after the last newline is a torn line: readers skip it
        kind, message_id = scan_top_level(line)
        if kind != MESSAGE or message_id is None:
            continue
        try:
            record = parse_line(line)
        except orjson.JSONDecodeError:
            continue
        if is_valid_message(record) and record.get("id") == message_id:
            readable[message_id] = None
    missing = [message_id for message_id in ids if message_id not in readable]
    if missing:
        shown = ", ".join(missing[:_SHOW]) + (" ..." if len(missing) > _SHOW else "")
        report.problems.append(f"Session {session_id}: {len(missing)} indexed messages are not in {path}: {shown}")
    known = set(ids)
    return [message_id for message_id in readable if message_id not in known]


def _report_unindexed(report: VerifyReport, db: Path, unindexed: dict[str, list[str]]) -> None:
    """Message lines without an index row: search and message counts miss them until the next start.

    Asked of the index again after the files were read, so a line a running host
    appended (file first, index second) meanwhile is not reported.
    """
    candidates = {session_id: ids for session_id, ids in unindexed.items() if ids}
    if not candidates:
        return
    try:
        conn = open_readonly(db)
    except apsw.Error as exc:
        report.problems.append(f"Cannot open {db}: {exc}")
        return
    try:
        for session_id, ids in candidates.items():
            rows = conn.execute(
                "SELECT id FROM messages WHERE id IN (SELECT value FROM json_each(?))", (orjson.dumps(ids).decode(),)
            )
            now_indexed = {row[0] for row in rows}
            still = [message_id for message_id in ids if message_id not in now_indexed]
            if still:
                shown = ", ".join(still[:_SHOW]) + (" ..." if len(still) > _SHOW else "")
                report.problems.append(
                    f"Session {session_id}: {len(still)} message lines are not indexed (search and the message "
                    f"count miss them; the next start indexes them): {shown}"
                )
    except apsw.Error as exc:
        report.problems.append(f"Reading {db} failed: {exc}")
    finally:
        conn.close()


def _check_revisions(report: VerifyReport, path: Path, session_id: str, rows: set[tuple[str, int]]) -> None:
    found = set()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    for line in data.split(b"\n"):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            found.add((record.get("rootUserId"), record.get("revisionIndex")))
    missing = sorted(rows - found)
    if missing:
        shown = ", ".join(f"{root}#{index}" for root, index in missing[:_SHOW])
        report.problems.append(f"Session {session_id}: {len(missing)} indexed revisions are not in {path}: {shown}")
