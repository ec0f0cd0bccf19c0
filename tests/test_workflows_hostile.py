"""``pi-workflows`` on hostile ground: refused files stay untouched, permissions end in storage errors.

An incompatible or damaged ``state.sqlite`` must stay byte-identical with no
``-wal``/``-shm`` appearing beside it, whichever command looked at it. A
folder or database the user cannot write ends in a storage error (exit 6)
that names the path and the permission, and ``init`` never changes the mode
of a folder or file it did not create.

The permission cases only mean something for a user the kernel holds to
the mode bits: root ignores them. Run as root, those commands run as the
unprivileged uid 65534 in a folder made for it; where that is impossible the
tests say so and skip.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import apsw
import pytest

from pidesktop.workflows import db
from tests.support.repo import REPO

SCRIPT = Path(sys.executable).parent / "pi-workflows"
NOBODY = 65534
INSTRUCTION = "clear the incompatible alpha state"


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def run_cli(
    *args: str, agent_dir: Path, uid: int | None = None, python: str | None = None
) -> subprocess.CompletedProcess:
    """``pi-workflows ARGS``; with ``uid``, as that user through ``python`` (see ``unprivileged``)."""
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir), "HOME": str(agent_dir.parent)}
    if uid is None:
        command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "pidesktop.workflows.cli"]
        preexec = None
    else:
        command = [python or sys.executable, "-m", "pidesktop.workflows.cli"]
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), *(p for p in sys.path if p.endswith("site-packages"))])

        def preexec():
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)

    return subprocess.run(
        command + list(args), capture_output=True, text=True, timeout=60, cwd=REPO, env=env, preexec_fn=preexec
    )


# -- 1. a refused file is left exactly as it was ---------------------------------------


def _newer_schema(path: Path) -> None:
    db.open_writer(path).close()
    conn = apsw.Connection(str(path))
    conn.execute("PRAGMA user_version = 2")
    conn.close()


def _unknown_schema(path: Path) -> None:
    db.open_writer(path).close()
    conn = apsw.Connection(str(path))
    conn.execute("CREATE TABLE tomorrow (x TEXT) STRICT")
    conn.close()


def _not_sqlite(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database, only text that happens to sit here\n" * 100)


def _truncated(path: Path) -> None:
    db.open_writer(path).close()
    with open(path, "r+b") as handle:
        handle.truncate(8192)


@pytest.mark.parametrize(
    "damage",
    [_newer_schema, _unknown_schema, _not_sqlite, _truncated],
    ids=["newer-schema", "unknown-schema", "not-sqlite", "truncated"],
)
def test_refused_files_stay_byte_identical_with_no_new_siblings(tmp_path, damage):
    agent_dir = tmp_path / "agent"
    path = agent_dir / "workflows" / "state.sqlite"
    damage(path)
    assert listing(path.parent) == ["state.sqlite"]
    before = path.read_bytes()
    for args in (
        ("state", "status"),
        ("state", "verify"),
        ("state", "init"),
        ("state", "backup", str(tmp_path / "copy.sqlite")),
        ("state", "status", "--json"),
        ("state", "verify", "--json"),
    ):
        result = run_cli(*args, agent_dir=agent_dir)
        assert result.returncode == 4, (args, result.stdout, result.stderr)
        assert path.read_bytes() == before, args
        assert listing(path.parent) == ["state.sqlite"], args
        assert INSTRUCTION in result.stdout + result.stderr, (args, result.stdout, result.stderr)
    assert not (tmp_path / "copy.sqlite").exists()


def test_verify_of_a_newer_schema_still_reports_its_integrity(tmp_path):
    agent_dir = tmp_path / "agent"
    _newer_schema(agent_dir / "workflows" / "state.sqlite")
    result = run_cli("state", "verify", agent_dir=agent_dir)
    assert result.returncode == 4
    assert "integrity_check: ok" in result.stdout and "user version is 2, expected 1" in result.stdout


# -- 2. modes: init never changes what it did not create ------------------------------


@pytest.mark.parametrize("folder_mode", [0o500, 0o750, 0o755])
def test_init_keeps_the_mode_of_an_existing_folder_and_file(tmp_path, folder_mode):
    agent_dir = tmp_path / "agent"
    folder = agent_dir / "workflows"
    db.open_writer(folder / "state.sqlite").close()
    os.chmod(folder / "state.sqlite", 0o640)
    os.chmod(folder, folder_mode)
    try:
        result = run_cli("state", "init", agent_dir=agent_dir)
        if os.geteuid() == 0:
            assert result.returncode == 0, result.stderr
        assert mode(folder) == folder_mode
        assert mode(folder / "state.sqlite") == 0o640
    finally:
        os.chmod(folder, 0o700)


def test_init_through_a_symlinked_folder_keeps_the_target_mode(tmp_path):
    agent_dir = tmp_path / "agent"
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o755)
    os.chmod(target, 0o755)
    agent_dir.mkdir()
    (agent_dir / "workflows").symlink_to(target, target_is_directory=True)
    created = run_cli("state", "init", agent_dir=agent_dir)
    assert created.returncode == 0, created.stderr
    assert mode(target) == 0o755
    assert mode(target / "state.sqlite") == 0o600  # the file is ours: created 0600
    again = run_cli("state", "init", agent_dir=agent_dir)
    assert again.returncode == 0 and mode(target) == 0o755


def test_init_creates_its_own_folder_private(tmp_path):
    agent_dir = tmp_path / "agent"
    assert run_cli("state", "init", agent_dir=agent_dir).returncode == 0
    assert mode(agent_dir / "workflows") == 0o700
    assert mode(agent_dir / "workflows" / "state.sqlite") == 0o600


# -- 2. permissions: storage errors, as a user the mode bits bind ----------------------


class Runner:
    """Runs ``pi-workflows`` as a user the mode bits bind, in a folder that user owns."""

    def __init__(self, uid: int | None, python: str | None, folder: Path):
        self.uid, self.python, self.folder = uid, python, folder

    def __call__(self, *args: str, agent_dir: Path) -> subprocess.CompletedProcess:
        return run_cli(*args, agent_dir=agent_dir, uid=self.uid, python=self.python)

    def own(self, path: Path) -> None:
        if self.uid is not None:
            os.chown(path, self.uid, self.uid)


def _interpreters() -> list[str]:
    """This interpreter, then system ones of the same version (the test's may sit in root's home)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = [sys.executable]
    for candidate in (f"/usr/bin/{version}", f"/usr/local/bin/{version}", shutil.which(version)):
        if candidate and os.path.exists(candidate) and candidate not in found:
            found.append(candidate)
    return found


@pytest.fixture
def unprivileged():
    folder = Path(tempfile.mkdtemp(prefix="piwf-perm-"))
    try:
        os.chmod(folder, 0o755)
        if os.geteuid() != 0:
            runner = Runner(None, None, folder)  # the mode bits already bind this user
        else:
            if not hasattr(os, "setuid"):
                pytest.skip("root ignores mode bits, and this platform cannot switch to an unprivileged user")
            runner = None
            os.chown(folder, NOBODY, NOBODY)
            errors = []
            for python in _interpreters():
                try:
                    probe = run_cli("--help", agent_dir=folder / "agent", uid=NOBODY, python=python)
                except OSError as exc:  # the interpreter itself is out of that user's reach
                    errors.append(f"{python}: {exc}")
                    continue
                if probe.returncode == 0:
                    runner = Runner(NOBODY, python, folder)
                    break
                errors.append(f"{python}: {probe.stderr.strip()[-200:]}")
            if runner is None:
                pytest.skip(
                    f"root ignores mode bits, and uid {NOBODY} cannot run pi-workflows here: " + "; ".join(errors)
                )
        yield runner
    finally:
        for dirpath, _, _ in os.walk(folder):
            os.chmod(dirpath, 0o700)
        shutil.rmtree(folder, ignore_errors=True)


def _owned_database(run: Runner) -> tuple[Path, Path]:
    agent_dir = run.folder / "agent"
    created = run("state", "init", agent_dir=agent_dir)
    assert created.returncode == 0, created.stderr
    return agent_dir, agent_dir / "workflows" / "state.sqlite"


def test_a_read_only_folder_ends_in_storage_errors(unprivileged, tmp_path):
    run = unprivileged
    agent_dir, path = _owned_database(run)
    before = path.read_bytes()
    os.chmod(path.parent, 0o500)
    backup_dir = run.folder / "backups"
    backup_dir.mkdir()
    run.own(backup_dir)
    for args in (
        ("state", "status"),
        ("state", "verify"),
        ("state", "init"),
        ("state", "backup", str(backup_dir / "copy.sqlite")),
    ):
        result = run(*args, agent_dir=agent_dir)
        assert result.returncode == 6, (args, result.stdout, result.stderr)
        assert "Traceback" not in result.stderr, (args, result.stderr)
        assert str(path.parent) in result.stderr and "0500" in result.stderr, (args, result.stderr)
        assert "permission" in result.stderr.lower() or "not writable" in result.stderr, (args, result.stderr)
        assert mode(path.parent) == 0o500, args
        assert listing(path.parent) == ["state.sqlite"] and path.read_bytes() == before, args
    assert listing(backup_dir) == []


def test_a_read_only_database_file_ends_in_a_storage_error(unprivileged):
    run = unprivileged
    agent_dir, path = _owned_database(run)
    os.chmod(path, 0o400)
    before = path.read_bytes()
    result = run("state", "init", agent_dir=agent_dir)
    assert result.returncode == 6, (result.stdout, result.stderr)
    assert str(path) in result.stderr and "0400" in result.stderr and "not writable" in result.stderr
    assert "is ready" not in result.stdout
    assert mode(path) == 0o400 and listing(path.parent) == ["state.sqlite"] and path.read_bytes() == before
    for args in (("state", "status"), ("state", "verify")):
        shown = run(*args, agent_dir=agent_dir)
        assert shown.returncode == 6 and str(path) in shown.stderr, (args, shown.stdout, shown.stderr)
        assert listing(path.parent) == ["state.sqlite"], args
