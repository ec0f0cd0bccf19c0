"""Where the state database lives, and what counts as older live state.

The database is ``<agent dir>/workflows/state.sqlite``. The agent directory is
``PI_CODING_AGENT_DIR`` when set (trimmed, ``~`` expanded, made absolute) and
``~/.pi/agent`` otherwise. Every entry point also takes an explicit path.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

ENV_AGENT_DIR = "PI_CODING_AGENT_DIR"
STATE_DIR_NAME = "workflows"
DB_NAME = "state.sqlite"
HOSTS_DIR_NAME = "hosts"
DIR_MODE = 0o700

SIDECAR_SUFFIXES = ("-wal", "-shm", "-journal")

# Older live storage (spec 000, "Storage boundary" and "Alpha cutover"): the
# folders earlier engines kept runs, artifacts, decisions and per-domain
# databases in, and any SQLite database file other than state.sqlite.
OLDER_STATE_DIRS = ("runs", "artifacts", "decisions", "projects", "controllers", "channels")
OLDER_STATE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


def agent_dir(env: dict[str, str] | None = None) -> Path:
    environ = os.environ if env is None else env
    raw = environ.get(ENV_AGENT_DIR, "").strip()
    if raw:
        return _absolute(raw)
    return Path.home() / ".pi" / "agent"


def default_db_path(env: dict[str, str] | None = None) -> Path:
    return agent_dir(env) / STATE_DIR_NAME / DB_NAME


def resolve(db: str | os.PathLike | None = None, env: dict[str, str] | None = None) -> Path:
    """The database path: ``db`` when given, else the default. Creates nothing."""
    if db is not None:
        return _absolute(os.fspath(db))
    return default_db_path(env)


def project_hash(canonical_project_path: str) -> str:
    """A short stable name for per-project host files (lock, child-process registry)."""
    return hashlib.sha256(canonical_project_path.encode("utf-8")).hexdigest()[:32]


def host_files(canonical_project_path: str, env: dict[str, str] | None = None) -> tuple[Path, Path]:
    """(host lock, child-process registry) of one project, under ``workflows/hosts/``.

    Hosts of different projects run concurrently; two hosts of one project
    meet at the same lock. These files are not state and never count as
    older live state. Nothing is created here.
    """
    folder = default_db_path(env).parent / HOSTS_DIR_NAME
    name = project_hash(canonical_project_path)
    return folder / f"{name}.lock", folder / f"{name}.children.json"


def sidecars(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in SIDECAR_SUFFIXES]


def remove_with_sidecars(path: Path) -> None:
    """Delete a scratch database and its ``-wal``/``-shm``/``-journal``, whichever exist."""
    for leftover in [path, *sidecars(path)]:
        try:
            leftover.unlink()
        except FileNotFoundError:
            pass


def older_live_state(path: Path) -> list[Path]:
    """Entries beside ``path`` that are older live storage, sorted.

    Looks only in the database's own folder. A leftover ``-wal``, ``-shm`` or
    ``-journal`` of a missing ``state.sqlite`` counts too: SQLite would replay
    it into a new file of the same name.
    """
    folder = path.parent
    if not folder.is_dir():
        return []
    found = []
    own = {path.name} | {p.name for p in sidecars(path)}
    for entry in folder.iterdir():
        if entry.name in OLDER_STATE_DIRS and entry.is_dir():
            found.append(entry)
        elif entry.name in own and entry.name != path.name:
            found.append(entry)
        elif entry.name not in own and entry.name.endswith(OLDER_STATE_SUFFIXES) and entry.is_file():
            found.append(entry)
    return sorted(found)


def ensure_private_dir(path: Path) -> bool:
    """Create ``path`` with mode 0700 (parents as the umask says); True if this call created it.

    A folder that already exists keeps its mode, whoever made it: a folder the
    user made read-only, or a symlink to one, is not this code's to change.
    """
    if path.is_dir():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=DIR_MODE)
    except FileExistsError:
        if path.is_dir():  # another process made it first: theirs, not ours
            return False
        raise
    os.chmod(path, DIR_MODE)  # mkdir's mode passes through the umask
    return True


def describe_mode(path: Path) -> str:
    """``mode 0500, owner uid 1000`` for a message; what is known of a path's permissions."""
    try:
        info = path.stat()
    except OSError as exc:
        return f"cannot stat it: {exc.strerror or exc}"
    return f"mode {stat.S_IMODE(info.st_mode):04o}, owner uid {info.st_uid}"


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _absolute(raw: str) -> Path:
    return Path(os.path.abspath(os.path.expanduser(raw)))
