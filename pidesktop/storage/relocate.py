"""Offline path relocation of a copied data root (``pidesktop --relocate-data OLD NEW``).

After a move has copied and verified the bytes, every known path-bearing
field that points under the old root is rewritten to the same place under the
new one, and nothing else (spec 004, section 2):

- transcripts, revision files and in-flight checkpoints under ``sessions/``:
  path fields of attachment and other content blocks, mentions of tool files
  inside tool-call payloads, and the project folder of ``session_info`` lines
  (see :mod:`rules` and :mod:`pathmap`);
- ``plugins/registry.json``: any string that is a path under the old root;
- the front-end folder: ``preferences.json`` (sidebar project paths) and the
  outbox quarantine ``session-message-outbox.dead-letter.json`` (its messages);
- ``pi.sqlite``: ``projects.path``, ``worktrees.path``, ``artifacts.path`` and
  ``kv.key`` when they are under the old root; path values (and keys) inside
  ``kv.value_json`` and ``turn_queue.attachments_json``.

Project folders elsewhere, relative paths (``plan_approvals.artifact_relative_path``),
the search text, audit history, logs, secrets and plugin-private files are
left exactly as they are. No host is started, no schema is upgraded, no turn
is recovered. A rewritten file is replaced atomically with its mode kept, and
only the lines that change differ; a rewritten transcript's layout cache is
dropped since its offsets moved. Relocating a root twice changes nothing the
second time.
"""

from __future__ import annotations

import mmap
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import apsw
import orjson

from pidesktop.durable import FILE_MODE
from pidesktop.formats.index.schema import DB_NAME
from pidesktop.storage.errors import Cancelled, Failed
from pidesktop.storage.fsutil import sync_filesystem
from pidesktop.storage.jsonsplice import splice
from pidesktop.storage.pathmap import PathMap
from pidesktop.storage.progress import Progress, ignore
from pidesktop.storage.rules import Changes, apply

PREFERENCES = "preferences.json"
DEAD_LETTERS = "session-message-outbox.dead-letter.json"
PLUGIN_REGISTRY = ("plugins", "registry.json")

# Columns that hold one path each.
PATH_COLUMNS = (("projects", "path"), ("worktrees", "path"), ("artifacts", "path"), ("kv", "key"))
# Columns that hold JSON whose path values (and, for kv, path keys) are relocated.
JSON_COLUMNS = (("kv", "value_json", True), ("turn_queue", "attachments_json", False))


@dataclass
class RelocationReport:
    files_rewritten: list[str] = field(default_factory=list)
    fields_changed: int = 0
    rows_changed: dict[str, int] = field(default_factory=dict)


def relocate(
    old_data_root: Path,
    new_data_root: Path,
    *,
    old_ui_root: Path | None = None,
    new_ui_root: Path | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    sync: bool = True,
) -> RelocationReport:
    """Rewrite the copy at ``new_data_root`` (and ``new_ui_root``) from the old roots' paths to its own.

    ``sync=False`` leaves flushing to the caller (a move flushes the whole
    destination once, right before it publishes it).
    """
    roots = [(old_data_root, new_data_root)]
    if old_ui_root is not None and new_ui_root is not None:
        roots.append((old_ui_root, new_ui_root))
    paths = PathMap(roots)
    progress = progress or ignore
    report = RelocationReport()
    jobs = _file_jobs(new_data_root, new_ui_root)
    total = len(jobs) + 1
    progress("relocate", 0, 0, 0, total, "")
    for done, (path, rule, base) in enumerate(jobs, 1):
        if cancel is not None and cancel.is_set():
            raise Cancelled("The move was cancelled. The active data folder was not changed.")
        changed = _rewrite_json_lines(path, paths, rule) if rule is _line_rule else _rewrite_document(path, paths, rule)
        if changed:
            report.files_rewritten.append(str(path.relative_to(base)))
            report.fields_changed += changed
            if path.name.endswith(".jsonl") and not path.name.endswith(".revisions.jsonl"):
                _unlink_quietly(path.with_name(path.name + ".layout"))
        progress("relocate", 0, 0, done, total, str(path))
    db = new_data_root / DB_NAME
    if db.exists():
        report.rows_changed = relocate_database(db, paths)
    if sync:
        sync_filesystem(new_data_root)
        if new_ui_root is not None and new_ui_root.is_dir():
            sync_filesystem(new_ui_root)
    progress("relocate", 0, 0, total, total, str(db))
    return report


# -- files -------------------------------------------------------------------------------
# Records what to change in one decoded document.
Rule = Callable[[Changes, Any], None]


def _line_rule(changes: Changes, record: Any) -> None:
    changes.transcript_line(record)


def _file_jobs(data_root: Path, ui_root: Path | None) -> list[tuple[Path, Rule, Path]]:
    jobs: list[tuple[Path, Rule, Path]] = []
    sessions = data_root / "sessions"
    if sessions.is_dir() and not sessions.is_symlink():
        for entry in sorted(os.scandir(sessions), key=lambda e: e.name):
            if not entry.is_file(follow_symlinks=False):
                continue
            if entry.name.endswith(".jsonl"):
                jobs.append((Path(entry.path), _line_rule, data_root))
            elif entry.name.endswith(".inflight.json"):
                jobs.append((Path(entry.path), Changes.inflight, data_root))
    registry = data_root.joinpath(*PLUGIN_REGISTRY)
    if registry.is_file() and not registry.is_symlink():
        jobs.append((registry, lambda ch, doc: ch.every_path_value(doc, ()), data_root))
    if ui_root is not None:
        for name, rule in ((PREFERENCES, Changes.preferences), (DEAD_LETTERS, Changes.dead_letters)):
            path = ui_root / name
            if path.is_file() and not path.is_symlink():
                jobs.append((path, rule, ui_root))
    return jobs


def _rewrite_line(body: bytes, paths: PathMap, rule: Rule, where: Path) -> tuple[bytes, int]:
    try:
        record = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body, 0  # torn or damaged: readers skip it, and so do we
    changes = Changes(paths)
    rule(changes, record)
    if not changes:
        return body, 0
    expected = apply(record, changes.values, changes.keys)
    count = len(changes.values) + len(changes.keys)
    if orjson.dumps(record) == body:
        # Our own writers' canonical spelling: serialising the changed record
        # alters exactly the changed strings, at C speed.
        return orjson.dumps(expected), count
    new = splice(body, changes.values, changes.keys)
    if orjson.loads(new) != expected:
        raise Failed(
            f"Relocating paths in {where} would change more than the path fields; stopped. "
            f"The active data folder was not changed."
        )
    return new, count


def _rewrite_json_lines(path: Path, paths: PathMap, rule: Rule) -> int:
    if not _mentions(path, paths):
        return 0
    changed = 0
    with open(path, "rb") as source, _Replacement(path) as out:
        for line in source:
            if paths.mentioned_in(line):
                ending = b"\n" if line.endswith(b"\n") else b""
                body, count = _rewrite_line(line[: len(line) - len(ending)], paths, rule, path)
                line = body + ending
                changed += count
            out.write(line)
        if not changed:
            out.discard()
    return changed


def _rewrite_document(path: Path, paths: PathMap, rule: Rule) -> int:
    data = path.read_bytes()
    if not paths.mentioned_in(data):
        return 0
    new, count = _rewrite_line(data, paths, rule, path)
    if count:
        with _Replacement(path) as out:
            out.write(new)
    return count


def _mentions(path: Path, paths: PathMap) -> bool:
    size = path.stat().st_size
    if size == 0:
        return False
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
        return any(view.find(needle) >= 0 for needle in paths.needles)


class _Replacement:
    """A sibling temp file that atomically replaces ``path`` on success (mode kept)."""

    def __init__(self, path: Path):
        self.path = path
        self.tmp = path.with_name(f".{path.name}.relocate.tmp")
        self._discard = False

    def __enter__(self) -> _Replacement:
        self.fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
        self.file = open(self.fd, "wb", buffering=1 << 20, closefd=False)
        return self

    def write(self, data: bytes) -> None:
        self.file.write(data)

    def discard(self) -> None:
        self._discard = True

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        try:
            self.file.close()  # flushes the buffer into fd
            if kind is None and not self._discard:
                os.fchmod(self.fd, os.stat(self.path).st_mode & 0o7777)
        finally:
            os.close(self.fd)
        if kind is not None or self._discard:
            _unlink_quietly(self.tmp)
            return
        # No fsync per file: the whole copy is flushed once before anyone may
        # rely on it (relocate(sync=True), or the move's flush before publishing).
        os.replace(self.tmp, self.path)


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


# -- the database ------------------------------------------------------------------------
def relocate_database(db: Path, paths: PathMap) -> dict[str, int]:
    """Relocate the path columns in one transaction; returns rows changed per ``table.column``."""
    changed: dict[str, int] = {}
    conn = apsw.Connection(str(db))
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        with conn:
            for table, column, keys_too in JSON_COLUMNS:
                if _has_column(conn, table, column):
                    changed[f"{table}.{column}"] = _relocate_json_column(conn, table, column, keys_too, paths)
            for table, column in PATH_COLUMNS:
                if _has_column(conn, table, column):
                    changed[f"{table}.{column}"] = _relocate_path_column(conn, table, column, paths)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except apsw.Error as exc:
        raise Failed(f"Relocating paths in {db} failed: {exc}. The active data folder was not changed.") from exc
    finally:
        conn.close()
    return {name: count for name, count in changed.items() if count}


def _has_column(conn: apsw.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in conn.execute(f'PRAGMA table_info("{table}")'))


def _relocate_path_column(conn: apsw.Connection, table: str, column: str, paths: PathMap) -> int:
    total = 0
    for old, new in paths.pairs:
        conn.execute(
            f'UPDATE "{table}" SET "{column}" = ? || substr("{column}", ?) '
            f'WHERE "{column}" = ? OR substr("{column}", 1, ?) = ?',
            (new, len(old) + 1, old, len(old) + 1, old + "/"),
        )
        total += conn.changes()
    return total


def _relocate_json_column(conn: apsw.Connection, table: str, column: str, keys_too: bool, paths: PathMap) -> int:
    keys = [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")') if row[5]] or ["rowid"]
    select = ", ".join(f'"{k}"' if k != "rowid" else k for k in keys)
    where = " OR ".join(f'instr("{column}", ?) > 0' for _ in paths.needles)
    rows = conn.execute(
        f'SELECT {select}, "{column}" FROM "{table}" WHERE {where}', [n.decode() for n in paths.needles]
    ).fetchall()
    count = 0
    for row in rows:
        ident, text = row[:-1], row[-1]
        assert isinstance(text, str), "a JSON column holds TEXT"
        body, fields = _rewrite_line(
            text.encode(),
            paths,
            lambda ch, doc: ch.every_path_value(doc, (), keys_too=keys_too),
            Path(f"{table}.{column}"),
        )
        if fields:
            match = " AND ".join(f'"{k}" = ?' if k != "rowid" else "rowid = ?" for k in keys)
            conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE {match}', (body.decode(), *ident))
            count += 1
    return count
