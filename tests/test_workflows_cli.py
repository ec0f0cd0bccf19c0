"""``pi-workflows state ...`` in real subprocesses: exit codes, messages, secrets, backups."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import apsw
import orjson
import pytest

from pidesktop.workflows import backup, channels, db, decisions, delivery, effects, status
from pidesktop.workflows.ownership import Actor
from tests.support.repo import REPO
from tests.support.workflows_support import project_and_definition, running_run

SCRIPT = Path(sys.executable).parent / "pi-workflows"


@pytest.fixture
def agent_dir(tmp_path):
    return tmp_path / "agent"


@pytest.fixture
def cli(agent_dir):
    def run(*args: str) -> subprocess.CompletedProcess:
        command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "pidesktop.workflows.cli"]
        return subprocess.run(
            command + list(args),
            capture_output=True,
            text=True,
            timeout=60,
            cwd=REPO,
            env={**os.environ, "PI_CODING_AGENT_DIR": str(agent_dir)},
        )

    return run


def state_path(agent_dir: Path) -> Path:
    return agent_dir / "workflows" / "state.sqlite"


def test_init_status_verify_backup_and_their_exit_codes(cli, agent_dir, tmp_path):
    missing = cli("state", "status")
    assert missing.returncode == 3 and "nothing was created" in missing.stdout
    assert not agent_dir.exists(), "status never creates the file or its folder"
    assert cli("state", "verify").returncode == 3
    assert cli("state", "backup", str(tmp_path / "b.sqlite")).returncode == 3
    assert not agent_dir.exists()

    created = cli("state", "init")
    assert created.returncode == 0 and "was created" in created.stdout
    again = cli("state", "init")
    assert again.returncode == 0 and "already existed" in again.stdout
    assert stat.S_IMODE((agent_dir / "workflows").stat().st_mode) == 0o700
    assert stat.S_IMODE(state_path(agent_dir).stat().st_mode) == 0o600

    shown = cli("state", "status")
    assert shown.returncode == 0 and "schema: ok (application id 0x50495746, user version 1)" in shown.stdout
    as_json = orjson.loads(cli("state", "status", "--json").stdout)
    assert as_json["state"] == "ok" and as_json["counts"]["schema_meta"] == 4
    verified = cli("state", "verify")
    assert verified.returncode == 0 and "verified: ok" in verified.stdout

    relative = cli("state", "backup", "backup.sqlite")
    assert relative.returncode == 2 and "absolute path" in relative.stderr
    assert not (REPO / "backup.sqlite").exists()
    destination = tmp_path / "backups" / "state-backup.sqlite"
    destination.parent.mkdir()
    made = cli("state", "backup", str(destination))
    assert made.returncode == 0, made.stderr
    assert stat.S_IMODE(destination.stat().st_mode) == 0o600
    assert sorted(p.name for p in destination.parent.iterdir()) == ["state-backup.sqlite"]
    assert status.verify(destination)["ok"]
    exists = cli("state", "backup", str(destination))
    assert exists.returncode == 6 and "never overwrites" in exists.stderr

    assert cli("state").returncode == 2
    assert cli("state", "repair").returncode == 2
    assert cli().returncode == 0


def test_db_option_points_at_a_specific_file(cli, agent_dir, tmp_path):
    target = tmp_path / "elsewhere" / "custom.sqlite"
    assert cli("--db", str(target), "state", "init").returncode == 0
    assert target.exists() and not agent_dir.exists()
    assert cli("state", "status", "--db", str(target)).returncode == 0
    assert cli("state", "verify", "--db", str(target), "--json").returncode == 0


def test_init_refuses_beside_older_live_state(cli, agent_dir):
    folder = agent_dir / "workflows"
    (folder / "runs" / "run-1").mkdir(parents=True)
    (folder / "runs" / "run-1" / "state.json").write_text("{}")
    (folder / "project.sqlite").write_bytes(b"older")
    before = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
    refused = cli("state", "init")
    assert refused.returncode == 5
    assert "does not import, reinterpret or delete" in refused.stderr and "runs/" in refused.stderr
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) == before
    missing = cli("state", "status")
    assert missing.returncode == 3 and "older live state beside it" in missing.stdout


def test_an_incompatible_database_is_refused_untouched(cli, agent_dir):
    assert cli("state", "init").returncode == 0
    path = state_path(agent_dir)
    conn = apsw.Connection(str(path))
    conn.execute("ALTER TABLE channels ADD COLUMN secret_token TEXT")
    conn.close()
    before = path.read_bytes()
    for args in (("state", "init"), ("state", "status"), ("state", "verify")):
        result = cli(*args)
        assert result.returncode == 4, (args, result.stdout, result.stderr)
    assert "clear the incompatible alpha state" in cli("state", "init").stderr
    assert "unexpected column secret_token" in cli("state", "verify").stdout
    assert path.read_bytes() == before


def test_verify_reports_foreign_key_problems(cli, agent_dir):
    assert cli("state", "init").returncode == 0
    conn = apsw.Connection(str(state_path(agent_dir)))
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute(
        "INSERT INTO run_bindings (run_id, name, binding_kind, value_digest, bound_at) "
        "VALUES ('ghost', 'x', 'input', zeroblob(32), 0)"
    )
    conn.close()
    result = cli("state", "verify")
    assert result.returncode == 1
    assert "foreign_key_check: 2 problems" in result.stdout and "run_bindings" in result.stdout


def test_status_never_prints_planted_secrets(cli, agent_dir, tmp_path):
    secret = "sk-live-4f9a8b7c6d5e4f3a2b1c"
    path = state_path(agent_dir)
    store = db.open_writer(path)
    flow = project_and_definition(store, tmp_path)
    permit = running_run(
        store, *flow, owner=f"{secret}-owner", pi_session_id=f"{secret}-session", input={"apiKeyHint": secret}
    )
    asked = decisions.ask(store, permit, request={"question": secret})
    decisions.answer(store, asked.decision_id, Actor("human", f"{secret}-actor"), {"text": secret}, expected_revision=1)
    delivery.notify(store, asked.run_permit, level="info", body=secret)
    channel = channels.create(store, "chat", f"{secret}-channel-ref", config_name=f"{secret}.json")
    owned = channels.claim(store, channel.channel_id, f"{secret}-channel-owner", ttl_ms=600_000)
    owned = channels._advance_cursor(store, owned, "updates", secret)
    _, _, owned = channels._record_inbox(
        store, owned, f"{secret}-external", {"text": secret}, sender_id=f"{secret}-sender"
    )
    _, effect_id, owned = channels._queue_message(store, owned, [secret])
    effect = effects.get(store.conn, effect_id)
    attempt = effects._begin_attempt(store, effect_id, owned.claim, expected_revision=effect.revision)
    effects.settle(store, attempt, owned.claim, outcome="ambiguous", external_ref=f"{secret}-ref")
    store.close()
    conn = apsw.Connection(str(path))
    conn.execute("UPDATE effects SET external_ref = ?", (f"{secret}-planted",))
    conn.close()

    for args in (("state", "status"), ("state", "status", "--json")):
        result = cli(*args)
        assert result.returncode == 0, result.stderr
        assert "sk-live" not in result.stdout + result.stderr
    report = orjson.loads(cli("state", "status", "--json").stdout)
    assert report["leases"]["active"] == 2 and report["unsettledEffects"]["unresolved"] == 1
    assert "sk-live" not in orjson.dumps(status.summary(path)).decode()
    assert secret.encode() in path.read_bytes() or secret.encode() in (path.parent / "state.sqlite-wal").read_bytes()


WRITER = textwrap.dedent("""
    import pathlib, sys
    from pidesktop.workflows import db, definitions, projects, runs
    store = db.open_writer(sys.argv[1], create=False)
    stop = pathlib.Path(sys.argv[2])
    project = projects.register(store, sys.argv[3])
    definition = definitions.register(store, project.project_id, "load", 1, {"nodes": [{"id": "a", "kind": "shell"}]})
    print("ready", flush=True)
    written = 0
    while not stop.exists():
        ref = runs.create(store, project_id=project.project_id, definition_id=definition.definition_id,
                          input={"n": written, "pad": "x" * 3000})
        permit = runs.claim(store, ref.run_id, "writer", ttl_ms=60000, expected_revision=1)
        runs.finish(store, permit, outcome="succeeded", output={"n": written})
        written += 1
    print(written, flush=True)
""")


def test_backup_under_concurrent_writes_verifies(cli, agent_dir, tmp_path):
    assert cli("state", "init").returncode == 0
    path = state_path(agent_dir)
    stop = tmp_path / "stop"
    (tmp_path / "load").mkdir()
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(stop), str(tmp_path / "load")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(0.3)  # copies taken while the writer is busy writing: the race is the behaviour under test
        copies = []
        for n in range(3):
            destination = tmp_path / f"copy-{n}.sqlite"
            if n == 0:
                result = cli("state", "backup", str(destination))
                assert result.returncode == 0, result.stderr
            else:
                assert backup.backup(path, destination)["ok"]
            copies.append(destination)
            time.sleep(0.2)  # each copy at another point of the writer's work
    finally:
        stop.touch()
        out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    written = int(out.strip())
    seen = []
    for copy in copies:
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        report = status.verify(copy)
        assert report["ok"], report
        with db.open_reader(copy) as store:
            conn = store.conn
            count = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
            assert count == conn.execute("SELECT count(*) FROM resources WHERE kind = 'run'").fetchone()[0]
            assert conn.execute("SELECT count(*) FROM runs WHERE status <> 'succeeded'").fetchone()[0] <= 1
            seen.append(count)
    assert seen == sorted(seen) and seen[-1] > seen[0] and written >= seen[-1]
