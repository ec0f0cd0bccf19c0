"""`data verify`, `data backup` and `data status` on real roots, with and without a running host."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import apsw
import orjson

from pidesktop import paths
from pidesktop.storage import verify
from tests.support.cli import run_cli
from tests.support.repo import REPO
from tests.test_storage_seed import seed


def test_a_seeded_root_verifies_clean(location, tmp_path):
    seeded = seed(location, tmp_path / "external")
    report = verify.verify(seeded.root)
    assert report.ok and report.problems == [] and report.recoverable == []
    assert report.sessions == 2 and report.messages == 6
    done = run_cli("data", "--data-dir", str(seeded.root), "verify")
    assert done.returncode == 0 and done.stdout.startswith("ok:")


def test_verify_finds_planted_inconsistencies(location, tmp_path):
    seeded = seed(location, tmp_path / "external")
    sessions = seeded.root / "sessions"
    transcript = sessions / f"{seeded.a}.jsonl"
    transcript.write_bytes(
        b"".join(line for line in transcript.read_bytes().splitlines(keepends=True) if b'"id":"t1"' not in line)
    )
    (sessions / f"{seeded.b}.jsonl").rename(sessions / "orphan-session.jsonl")
    conn = apsw.Connection(str(seeded.root / "pi.sqlite"))
    conn.execute("PRAGMA foreign_keys = OFF")  # plant a row the host could never write
    with conn:
        conn.execute(
            "INSERT INTO message_revisions(id, session_id, root_user_id, revision_index, created_at) "
            "VALUES ('r9', ?, 'u1', 9, 1)",
            (seeded.a,),
        )
        conn.execute("INSERT INTO turns(id, session_id, started_at) VALUES ('ghost-turn', 'no-such-session', 1)")
    conn.close()

    report = verify.verify(seeded.root)
    text = "\n".join(report.problems)
    assert f"Session {seeded.a}: 1 indexed messages are not in" in text and "t1" in text
    assert f"Session {seeded.b} has 2 indexed messages but no transcript" in text
    assert "u1#9" in text
    assert "foreign key: turns" in text
    assert any("orphan-session.jsonl" in note and "restores" in note for note in report.recoverable)
    done = run_cli("data", "--data-dir", str(seeded.root), "verify", "--json")
    assert done.returncode == 1
    assert len(orjson.loads(done.stdout)["problems"]) == len(report.problems)


def test_a_torn_last_line_does_not_count_as_present(location, tmp_path):
    seeded = seed(location, tmp_path / "external")
    transcript = seeded.root / "sessions" / f"{seeded.b}.jsonl"
    data = transcript.read_bytes()
    transcript.write_bytes(data[:-20])  # the last message (b2) loses its end
    assert "b2" in "\n".join(verify.verify(seeded.root).problems)


def test_backup_while_a_stdio_host_is_writing(tmp_path, data_root, stdio_host):
    host = stdio_host()
    sid = host.call("session.create", {"title": "busy"})["session"]["id"]
    results: list = []
    stop = threading.Event()

    def back_up_repeatedly():
        number = 0
        while not stop.is_set() and number < 4:
            number += 1
            results.append(
                (
                    tmp_path / f"backup-{number}.sqlite",
                    run_cli("data", "--data-dir", str(data_root), "backup", str(tmp_path / f"backup-{number}.sqlite")),
                )
            )

    worker = threading.Thread(target=back_up_repeatedly)
    worker.start()
    sent = 0
    while worker.is_alive() and sent < 5000:
        sent += 1
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {"id": f"m{sent}", "role": "user", "blocks": [{"type": "text", "text": f"message {sent}"}]},
            },
        )
    stop.set()
    worker.join(120)
    assert host.close() == 0
    assert sent > 10 and len(results) >= 1
    counts = []
    for path, done in results:
        assert done.returncode == 0, done.stderr
        assert path.stat().st_mode & 0o777 == 0o600
        assert not any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal"))
        conn = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
            (last_seq,) = conn.execute("SELECT last_seq FROM sessions WHERE id = ?", (sid,)).fetchone()
            (count,) = conn.execute("SELECT count(*) FROM messages WHERE session_id = ?", (sid,)).fetchone()
            assert last_seq == count <= sent  # one consistent snapshot, taken mid-stream
            counts.append(count)
        finally:
            conn.close()
    assert min(counts) < sent  # at least one backup ran while messages were still arriving


def test_relative_or_existing_backup_paths_are_refused(location, tmp_path):
    paths.prepare_data_root(location)
    seed(location, tmp_path / "external")
    relative = run_cli("data", "--data-dir", str(location.data_root), "backup", "backup.sqlite")
    assert relative.returncode == 2 and "must be absolute" in relative.stderr
    assert not Path("backup.sqlite").exists() and not (REPO / "backup.sqlite").exists()
    taken = tmp_path / "taken.sqlite"
    taken.write_text("mine")
    existing = run_cli("data", "--data-dir", str(location.data_root), "backup", str(taken))
    assert existing.returncode == 2 and taken.read_text() == "mine"
    missing_folder = run_cli("data", "--data-dir", str(location.data_root), "backup", str(tmp_path / "no" / "x.db"))
    assert missing_folder.returncode == 2 and "does not exist" in missing_folder.stderr


def test_status_reports_sizes_schema_counts_and_who_is_using_it(tmp_path, stdio_host, data_root):
    location = paths.resolve(data_dir=data_root)
    seed(location, tmp_path / "external", bulk_mb=1)
    done = run_cli("data", "--data-dir", str(data_root), "status", "--json")
    assert done.returncode == 0, done.stderr
    report = orjson.loads(done.stdout)
    assert report["dataRoot"] == str(data_root) and report["resolvedBy"] == "env"
    assert report["schemaVersion"] == 27
    assert report["counts"]["sessions"] == 2 and report["counts"]["messages"] == 6
    assert report["categories"]["attachments"]["bytes"] >= 1 << 20
    assert report["categories"]["transcripts"]["files"] == 3
    assert report["inUseBy"] is None
    host = stdio_host()
    host.call("session.list")
    busy = orjson.loads(run_cli("data", "--data-dir", str(data_root), "status", "--json").stdout)
    assert "pidesktop host --stdio" in busy["inUseBy"]
    host.close()
    text = run_cli("data", "--data-dir", str(data_root), "status")
    rows = {line.split()[0]: line for line in text.stdout.splitlines()}
    # one column of labels, wide enough for the longest; the counts by a person's names for them
    starts = {
        label: rows[label].index(rows[label].split()[1], len(label)) for label in ("chats", "schema", "notifications")
    }
    assert len(set(starts.values())) == 1 and rows["transcripts"].startswith("transcripts ")
    assert rows["chats"].split()[1] == "2" and rows["messages"].split()[1] == "6"
    assert rows["schema"].split()[1] == "v27" and "attachments" in rows and "sessions" not in rows
    assert rows["transcripts"].endswith(" files") and rows["total"].split()[-3] == "free"
    assert os.environ.get(paths.ENV_DATA_DIR) is None
