"""Opening ``state.sqlite``: creation, verification, writer pragmas, read-only mode.

A file is first judged by its raw header (SQLite magic, application id, user
version) without SQLite touching it, then through a read-only handle that
checks ``schema_meta``, the compiled DDL digest and the exact schema shape.
Anything else is refused and left as it was. A new database is built under a
temporary name and linked into place, so no other process ever sees a
half-created file.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import apsw

from pidesktop.clock import now_ms
from pidesktop.durable import FILE_MODE
from pidesktop.workflows import paths, schema
from pidesktop.workflows.errors import IncompatibleState, MissingState, OlderLiveState, StorageError

# Spec 000, "Database settings": every writer enables exactly these.
WRITER_PRAGMAS = (
    "PRAGMA foreign_keys = ON",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = FULL",
    "PRAGMA busy_timeout = 5000",
)
# The bounded checkpoint and journal size: checkpoint every 1000 pages (about
# 4 MB) and truncate a WAL left larger than 64 MiB after a checkpoint.
WAL_AUTOCHECKPOINT_PAGES = 1000
JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024
BOUND_PRAGMAS = (
    f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}",
    f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}",
)
READER_PRAGMAS = ("PRAGMA query_only = ON", "PRAGMA busy_timeout = 5000")

_HEADER_MAGIC = b"SQLite format 3\x00"


class Store:
    """One open connection to the state database.

    ``clock`` returns milliseconds since the epoch; lease expiry and every
    recorded time come from it, so tests can move time without sleeping.
    """

    def __init__(self, conn: apsw.Connection, path: Path, *, readonly: bool, clock: Callable[[], int] | None = None):
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self.clock = clock or now_ms
        # None until this connection has compared the full shape itself,
        # which the first write transaction does.
        self.schema_cookie: int | None = None

    def now(self) -> int:
        return int(self.clock())

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def verify_schema_in_transaction(self) -> None:
        """The write contract's "verify the exact schema" step.

        The application id and user version are re-read; the full shape is
        compared again whenever SQLite's schema cookie moved since it was last
        verified on this connection.
        """
        conn = self.conn
        if (
            schema.integer(conn, "PRAGMA application_id") != schema.APPLICATION_ID
            or schema.integer(conn, "PRAGMA user_version") != schema.SCHEMA_VERSION
        ):
            raise IncompatibleState(_incompatible_message(self.path, ["application id or user version changed"]))
        cookie = schema.integer(conn, "PRAGMA schema_version")
        if cookie != self.schema_cookie:
            found = schema.problems(conn)
            if found:
                raise IncompatibleState(_incompatible_message(self.path, found), found)
            self.schema_cookie = cookie


def open_writer(
    path: str | os.PathLike | None = None, *, create: bool = True, clock: Callable[[], int] | None = None
) -> Store:
    """Open the database for writing, creating it first when ``create`` allows.

    An existing file and its folder keep their modes: a writer that cannot
    write there fails with a ``StorageError`` naming the path and its mode,
    before SQLite creates anything.
    """
    target = paths.resolve(path)
    if not target.exists():
        if not create:
            raise MissingState(f"There is no Pi Workflows state database at {target}.")
        create_database(target)
    check_file(target)
    require_access(target, write=True)
    try:
        conn = apsw.Connection(str(target), flags=apsw.SQLITE_OPEN_READWRITE)
    except apsw.Error as exc:
        raise _storage_error(target, "open it for writing", exc) from exc
    try:
        if conn.readonly("main"):
            raise StorageError(
                f"Cannot write {target}: SQLite opened it read-only ({paths.describe_mode(target)}); permission denied."
            )
        for pragma in WRITER_PRAGMAS + BOUND_PRAGMAS:
            conn.execute(pragma).fetchall()
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchall()  # maps the -shm now, not mid-command
        store = Store(conn, target, readonly=False, clock=clock)
    except apsw.Error as exc:
        conn.close()
        raise _storage_error(target, "open it for writing", exc) from exc
    except BaseException:
        conn.close()
        raise
    return store


def open_reader(
    path: str | os.PathLike | None = None, *, clock: Callable[[], int] | None = None, verify: bool = True
) -> Store:
    """Open read-only (SQLite read-only mode and ``query_only``). Never creates the file."""
    target = paths.resolve(path)
    if not target.exists():
        raise MissingState(f"There is no Pi Workflows state database at {target}. Nothing was created.")
    if verify:
        check_file(target)
    require_access(target, write=False)
    conn = _readonly_connection(target)
    try:
        conn.execute("SELECT count(*) FROM sqlite_schema").fetchall()
    except apsw.Error as exc:
        conn.close()
        raise _storage_error(target, "read it", exc) from exc
    return Store(conn, target, readonly=True, clock=clock)


def require_access(target: Path, *, write: bool) -> None:
    """Refuse, before SQLite touches anything, what this process cannot do with ``target``.

    A writer needs to read and write the file and its existing ``-wal`` and
    ``-shm``, and to create and remove them in the folder. A reader of a WAL
    file needs both sidecars readable, or SQLite creates the missing ones:
    that needs a writable folder, and a file this process may write (the
    sidecars take the file's mode and this process's owner, so a reader that
    could not write the file would lock its writers out).
    """
    uid = os.geteuid()
    doing = "write" if write else "read"
    if not os.access(target, os.R_OK | (os.W_OK if write else 0)):
        raise StorageError(
            f"Cannot {doing} {target}: permission denied ({paths.describe_mode(target)}; this process runs as "
            f"uid {uid}), so it is not {'writable' if write else 'readable'} here. Nothing was changed."
        )
    wal, shm = target.with_name(target.name + "-wal"), target.with_name(target.name + "-shm")
    for sidecar in (wal, shm):
        if sidecar.exists() and not os.access(sidecar, os.R_OK | os.W_OK):
            raise StorageError(
                f"Cannot {doing} {target}: permission denied on {sidecar} ({paths.describe_mode(sidecar)}; this "
                f"process runs as uid {uid}); SQLite must read and write it. Nothing was changed."
            )
    needs_folder = write or (_is_wal(target) and not (wal.exists() and shm.exists()))
    if not needs_folder:
        return
    folder = target.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StorageError(
            f"Cannot {doing} {target}: the folder {folder} is not writable ({paths.describe_mode(folder)}; this "
            f"process runs as uid {uid}): permission denied. SQLite must create {target.name}-wal and "
            f"{target.name}-shm beside the database. Nothing was changed."
        )
    if not write and not os.access(target, os.W_OK):
        raise StorageError(
            f"Cannot read {target} safely: it is not writable by this process ({paths.describe_mode(target)}; "
            f"uid {uid}): permission denied. Reading it would create {target.name}-wal and {target.name}-shm "
            f"owned by uid {uid} with the file's mode, which would lock its writers out. Nothing was changed."
        )


def _is_wal(target: Path) -> bool:
    header = read_header(target)
    return len(header) > 18 and header[18] == 2


def _storage_error(target: Path, doing: str, exc: BaseException) -> StorageError:
    return StorageError(
        f"Cannot {doing}: {target} ({paths.describe_mode(target)}, folder "
        f"{paths.describe_mode(target.parent)}; this process runs as uid {os.geteuid()}): {exc}"
    )


def create_database(target: Path) -> bool:
    """Create a new database at ``target``; False when another process created it first."""
    found = paths.older_live_state(target)
    if found:
        raise OlderLiveState(_older_state_message(target, found), [str(p) for p in found])
    try:
        paths.ensure_private_dir(target.parent)
    except OSError as exc:
        raise StorageError(f"Cannot create the folder {target.parent}: {exc}") from exc
    temp = target.with_name(f".{target.name}.creating-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        _build(temp)
        try:
            os.link(temp, target)
        except FileExistsError:
            return False
        paths.fsync_dir(target.parent)
        return True
    except OSError as exc:
        raise StorageError(f"Cannot create {target}: {exc}") from exc
    finally:
        paths.remove_with_sidecars(temp)


def _build(temp: Path) -> None:
    os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    conn = apsw.Connection(str(temp), flags=apsw.SQLITE_OPEN_READWRITE)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(schema.ddl())
            conn.executemany("INSERT INTO schema_meta (key, value) VALUES (?, ?)", schema.meta_rows(now_ms()))
            conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("PRAGMA synchronous = FULL")
        # WAL is recorded in the header, so the file is linked into place
        # already in the mode every writer expects.
        conn.execute("PRAGMA journal_mode = WAL").fetchall()
    finally:
        conn.close()
    fd = os.open(temp, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_file(target: Path) -> None:
    """Refuse ``target`` unless it is this schema. Reads only; writes nothing."""
    header = read_header(target)
    problems = header_problems(header)
    if problems:
        raise IncompatibleState(_incompatible_message(target, problems), problems)
    found = _probe(target, wal=header[18] == 2)
    if found:
        raise IncompatibleState(_incompatible_message(target, found), found)


def read_header(target: Path) -> bytes:
    try:
        with open(target, "rb") as handle:
            return handle.read(100)
    except OSError as exc:
        raise StorageError(f"Cannot read {target}: {exc}") from exc


def header_problems(header: bytes) -> list[str]:
    if len(header) < 100 or not header.startswith(_HEADER_MAGIC):
        return ["it is not a SQLite database"]
    found = []
    version = int.from_bytes(header[60:64], "big")
    app_id = int.from_bytes(header[68:72], "big")
    if app_id != schema.APPLICATION_ID:
        found.append(f"application id is {app_id:#010x}, expected {schema.APPLICATION_ID:#010x}")
    if version != schema.SCHEMA_VERSION:
        found.append(f"user version is {version}, expected {schema.SCHEMA_VERSION}")
    return found


def _probe(target: Path, *, wal: bool) -> list[str]:
    """Schema problems seen through a read-only handle that creates nothing.

    A WAL file without both its -wal and -shm has no open connection, so it
    is read as immutable: not even a -shm file is created beside a file that
    may turn out to be refused (a lone -wal is left for its writer to
    recover). If both sidecars appear while it is read, a writer is at work
    and the verdict is taken again through a normal read-only handle, which
    then creates nothing either.
    """
    if wal and not _live(target):
        found = _probe_with(target, immutable=True)
        if not found or not _live(target):
            return found
    return _probe_with(target, immutable=False)


def _live(target: Path) -> bool:
    return all(target.with_name(target.name + suffix).exists() for suffix in ("-wal", "-shm"))


def untouched_connection(target: Path) -> apsw.Connection:
    """A read-only handle on a refused file that creates nothing beside it (immutable unless live)."""
    return _readonly_connection(target, immutable=not _live(target) and _is_wal(target))


def _probe_with(target: Path, *, immutable: bool) -> list[str]:
    try:
        conn = _readonly_connection(target, immutable=immutable)
    except StorageError:
        raise
    try:
        return schema.problems(conn)
    except apsw.Error as exc:
        return [f"it cannot be read as a database ({exc})"]
    finally:
        conn.close()


def _readonly_connection(target: Path, *, immutable: bool = False) -> apsw.Connection:
    uri = f"file:{quote(str(target))}?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        conn = apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
        for pragma in READER_PRAGMAS:
            conn.execute(pragma).fetchall()
    except apsw.Error as exc:
        raise StorageError(f"Cannot open {target} read-only: {exc}") from exc
    return conn


def clear_instruction(target: Path) -> str:
    """What to do about an incompatible file: Pi Workflows never clears it itself."""
    return (
        f"Pi Workflows does not import, repair or delete alpha state: to clear the incompatible alpha state, "
        f"move {target.name} (with any -wal and -shm files beside it) out of {target.parent}, or delete it if "
        f"you no longer need it, then run `pi-workflows state init`."
    )


def _incompatible_message(target: Path, problems: list[str]) -> str:
    shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
    return (
        f"{target} is not a Pi Workflows state database this version can use: {shown}. "
        f"Nothing was changed. {clear_instruction(target)}"
    )


def _older_state_message(target: Path, found: list[Path]) -> str:
    names = ", ".join(p.name + ("/" if p.is_dir() else "") for p in found)
    return (
        f"Older Pi Workflows live state is present in {target.parent} ({names}). "
        f"Pi Workflows does not import, reinterpret or delete it, and will not create a new "
        f"state database beside it. Move those entries out of {target.parent} (or delete them "
        f"if you no longer need them), then run `pi-workflows state init` again."
    )
