"""A damaged ``pi.sqlite`` is set aside and rebuilt from the transcripts, keeping what it still yields.

Real ``pidesktop host --stdio`` subprocesses on real files: a page of the
database overwritten with garbage, after a clean close and after a SIGKILL.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import apsw
import pytest

from tests.support.repo import REPO

PROVIDER = {"id": "acme", "name": "Acme", "baseUrl": "https://api.example.com/v1"}


def seeded(stdio_host, tmp_path) -> tuple[object, list[str]]:
    project = tmp_path / "atlas"
    project.mkdir()
    h = stdio_host()
    sids = []
    for n, params in enumerate(({"title": "Lisbon", "projectPath": str(project)}, {})):
        sid = h.call("session.create", params)["session"]["id"]
        for m in range(3):
            message = {"id": f"s{n}m{m}", "role": "user", "blocks": [{"type": "text", "text": f"note{n} {m}"}]}
            h.call("session.appendMessage", {"sessionId": sid, "message": message})
        sids.append(sid)
    h.call("session.update", {"sessionId": sids[0], "mode": "plan"})
    h.call("settings.set", {"patch": {"theme": "dark"}})
    h.call("providers.upsert", {"provider": PROVIDER})
    return h, sids


def damage(root: Path, table: str) -> None:
    """Overwrite the root page of ``table`` with garbage, after moving every WAL frame into the file."""
    db = root / "pi.sqlite"
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    rootpage = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    conn.close()
    with open(db, "r+b") as out:
        out.seek((rootpage - 1) * page_size)
        out.write(b"\xa5" * page_size)


def check_rebuilt(h, sids: list[str], root: Path, tmp_path: Path) -> dict:
    hello = h.call("app.handshake", {"protocolVersion": 1})
    repaired = hello["rebuilt"]["repaired"]
    damaged = Path(repaired["damagedFile"])
    assert damaged.parent == root and damaged.name.startswith("pi.sqlite.damaged-") and damaged.is_file()
    listed = {s["id"]: s for s in h.call("session.list", {})["sessions"]}
    assert set(sids) <= set(listed)
    first = h.call("session.get", {"sessionId": sids[0]})
    assert first["session"]["title"] == "Lisbon" and first["session"]["mode"] == "plan"
    assert first["session"]["projectPath"] == str(tmp_path / "atlas")
    assert [m["id"] for m in first["messages"]] == ["s0m0", "s0m1", "s0m2"]
    assert listed[sids[1]]["title"] == "note1 0"  # the first-prompt title, derived again
    hits = h.call("search.query", {"query": "note1"})["results"]
    assert {hit["messageId"] for hit in hits} == {"s1m0", "s1m1", "s1m2"}
    # what lives only in the database came over from the damaged file
    assert h.call("settings.get", {})["settings"]["theme"] == "dark"
    assert "acme" in [p["id"] for p in h.call("providers.list", {})["providers"]]
    return repaired


def test_a_damaged_sessions_page_is_set_aside_and_everything_comes_back(stdio_host, data_root, tmp_path):
    h, sids = seeded(stdio_host, tmp_path)
    assert h.close() == 0
    damage(data_root, "sessions")
    h = stdio_host()
    repaired = check_rebuilt(h, sids, data_root, tmp_path)  # the boot pass reads the table: repaired at start
    assert "malformed" in repaired["reason"] or "corrupt" in repaired["reason"].lower()
    message = {"id": "after", "role": "user", "blocks": [{"type": "text", "text": "still writing"}]}
    assert h.call("session.appendMessage", {"sessionId": sids[0], "message": message})["message"]["seq"] == 4
    assert h.close() == 0
    h = stdio_host()  # told once; the repaired database opens as it is
    assert "rebuilt" not in h.call("app.handshake", {"protocolVersion": 1})
    assert h.close() == 0


def test_sigterm_closes_the_host_as_the_end_of_stdin_does(stdio_host, data_root, tmp_path):
    h, sids = seeded(stdio_host, tmp_path)
    assert (data_root / "pi.sqlite.open").exists()
    h.proc.send_signal(signal.SIGTERM)
    assert h.proc.wait(30) == 0
    assert b"Traceback" not in h.proc.stderr.read()
    h.kill()  # closes its pipes
    assert not (data_root / "pi.sqlite.open").exists()  # a clean close: the next start checks nothing
    h = stdio_host()
    assert "rebuilt" not in h.call("app.handshake", {"protocolVersion": 1})
    assert len(h.call("session.list", {})["sessions"]) == len(sids)
    assert h.close() == 0


def test_after_a_kill_a_quick_check_finds_a_damaged_messages_page(stdio_host, data_root, tmp_path):
    h, sids = seeded(stdio_host, tmp_path)
    h.kill()  # no clean close: the next start checks the database before serving
    assert (data_root / "pi.sqlite.open").exists()
    damage(data_root, "messages")
    h = stdio_host()
    repaired = check_rebuilt(h, sids, data_root, tmp_path)
    assert repaired["reason"].startswith("quick_check after an unclean close")
    assert h.close() == 0
    assert not (data_root / "pi.sqlite.open").exists()


def test_a_command_that_meets_a_damaged_search_page_repairs_it_at_once(stdio_host, data_root, tmp_path):
    h, sids = seeded(stdio_host, tmp_path)
    assert h.close() == 0
    damage(data_root, "messages_fts_data")  # the search index's own pages
    h = stdio_host()
    reply = h.request("search.query", {"query": "note1"})
    assert reply["error"]["data"]["code"] == "STORAGE_UNAVAILABLE" and reply["error"]["data"]["damaged"] is True
    assert "has been rebuilt from your chat files" in reply["error"]["message"]
    check_rebuilt(h, sids, data_root, tmp_path)  # at once, without a restart
    assert h.close() == 0


@pytest.mark.parametrize("table", ["messages_fts_data", "messages"])
def test_an_append_that_meets_a_damaged_page_stores_nothing_and_goes_when_sent_again(
    stdio_host, data_root, tmp_path, table
):
    """A page of the search index or of ``messages`` damaged after a clean close (so no check at start):
    the append's line was written before its index commit met the damage. The error reply means "not
    stored" (the line is taken back), the database is rebuilt at once, and the same append then goes."""
    h, sids = seeded(stdio_host, tmp_path)
    assert h.close() == 0
    damage(data_root, table)
    h = stdio_host()
    message = {"id": "late", "role": "user", "blocks": [{"type": "text", "text": "written after the damage"}]}
    reply = h.request("session.appendMessage", {"sessionId": sids[0], "message": message})
    assert reply["error"]["data"]["code"] == "STORAGE_UNAVAILABLE" and reply["error"]["data"]["damaged"] is True
    transcript = data_root / "sessions" / f"{sids[0]}.jsonl"
    assert b'"late"' not in transcript.read_bytes()
    assert h.call("session.get", {"sessionId": sids[0]})["session"]["messageCount"] == 3
    check_rebuilt(h, sids, data_root, tmp_path)
    assert h.call("session.appendMessage", {"sessionId": sids[0], "message": message})["message"]["seq"] == 4
    assert [hit["messageId"] for hit in h.call("search.query", {"query": "damage"})["results"]] == ["late"]
    assert h.close() == 0
    assert transcript.read_bytes().count(b'"late"') == 1


def data_repair(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pidesktop", "data", "--data-dir", str(root), "repair"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


def test_pidesktop_data_repair_checks_and_repairs_a_closed_data_folder(stdio_host, data_root, tmp_path):
    h, sids = seeded(stdio_host, tmp_path)
    assert h.close() == 0
    sound = data_repair(data_root)
    assert sound.returncode == 0 and sound.stdout.startswith("ok: the database is sound"), sound.stderr
    assert not list(data_root.glob("pi.sqlite.damaged-*"))
    damage(data_root, "sessions")
    done = data_repair(data_root)
    assert done.returncode == 0, done.stderr
    assert "repaired: the damaged database is kept as" in done.stdout and "rebuilt 2 chats" in done.stdout
    progress = [line for line in done.stderr.splitlines() if "restoring chats from their files" in line]
    assert progress[0] == "pidesktop data repair: restoring chats from their files   0% (0/2 chats)", done.stderr
    assert progress[-1] == "pidesktop data repair: restoring chats from their files 100% (2/2 chats)"
    assert len(list(data_root.glob("pi.sqlite.damaged-*"))) == 1
    h = stdio_host()
    listed = {s["id"]: s["title"] for s in h.call("session.list", {})["sessions"]}
    assert listed[sids[0]] == "Lisbon" and h.call("settings.get", {})["settings"]["theme"] == "dark"
    assert h.close() == 0


def repair_job(h) -> dict:
    """``data.repair`` over stdio: its ``data.finished`` payload and the phases it reported."""
    job = h.call("data.repair", {})["job"]
    while True:
        ended = next(
            (e["payload"] for e in h.events if e["topic"] == "data.finished" and e["payload"]["job"] == job), None
        )
        if ended is not None:
            phases = [
                e["payload"]["phase"] for e in h.events if e["topic"] == "data.progress" and e["payload"]["job"] == job
            ]
            return {**ended, "phases": phases}
        message = h.read_message()
        if message.get("method") == "event":
            h.events.append(message["params"])


def test_the_repair_command_rebuilds_a_damaged_database_while_the_host_runs(stdio_host, data_root, tmp_path):
    h, sids = seeded(stdio_host, tmp_path)
    assert h.close() == 0
    damage(data_root, "messages")  # a clean close: nothing checks at start, and the boot pass does not read it
    h = stdio_host()
    ended = repair_job(h)
    assert ended["status"] == "done", ended
    result = ended["result"]
    assert result["damaged"] is True and result["problems"]
    assert result["rebuilt"]["sessions"] == 2 and result["rebuilt"]["repaired"]["salvaged"]["providers"] == 1
    assert ended["phases"][0] == "check" and "rebuild" in ended["phases"]
    assert any(e["topic"] == "data.repaired" for e in h.events)
    check_rebuilt(h, sids, data_root, tmp_path)  # served by the rebuilt database, no restart
    message = {"id": "after", "role": "user", "blocks": [{"type": "text", "text": "still writing"}]}
    assert h.call("session.appendMessage", {"sessionId": sids[1], "message": message})["message"]["seq"] == 4
    assert h.close() == 0
    assert not (data_root / "pi.sqlite.open").exists()


def test_the_repair_command_on_a_sound_database_only_heals_the_index(stdio_host, data_root, tmp_path):
    h, sids = seeded(stdio_host, tmp_path)
    line = b'{"type":"message","id":"outside","role":"user","blocks":[{"type":"text","text":"written by hand"}]}\n'
    with open(data_root / "sessions" / f"{sids[1]}.jsonl", "ab") as transcript:
        transcript.write(line)  # a line the index has not seen, as a lost commit would leave it
    ended = repair_job(h)
    assert ended["status"] == "done", ended
    assert ended["result"] == {"damaged": False, "problems": [], "sessionsRestored": 0, "linesIndexed": 1}
    assert not list(data_root.glob("pi.sqlite.damaged-*"))
    assert [m["id"] for m in h.call("session.get", {"sessionId": sids[1]})["messages"]][-1] == "outside"
    assert h.call("search.query", {"query": "written by hand"})["results"]
    again = repair_job(h)
    assert again["result"]["linesIndexed"] == 0
    assert h.close() == 0


def damage_schema_page(root: Path) -> None:
    """Page 1 past its file header: the schema table, without which nothing can be salvaged from the file."""
    conn = apsw.Connection(str(root / "pi.sqlite"))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(root / "pi.sqlite", "r+b") as out:
        out.seek(100)
        out.write(b"\xa5" * (page_size - 100))


@pytest.mark.parametrize("snapshot", ["kept", "lost too"])
def test_what_could_not_be_recovered_counts_what_the_snapshot_gave_back(stdio_host, data_root, tmp_path, snapshot):
    """Nothing salvages from a damaged schema page; state-snapshot.json gives the settings, providers and
    projects back, and only what it did not give back is reported as not recovered."""
    h, sids = seeded(stdio_host, tmp_path)
    assert h.close() == 0
    damage_schema_page(data_root)
    if snapshot == "lost too":
        (data_root / "state-snapshot.json").unlink()
    h = stdio_host()
    rebuilt = h.call("app.handshake", {"protocolVersion": 1})["rebuilt"]
    assert rebuilt["repaired"]["salvaged"] == {}
    if snapshot == "kept":
        assert rebuilt["notRecovered"] == []
        assert h.call("settings.get", {})["settings"]["theme"] == "dark"
    else:
        assert rebuilt["notRecovered"] == ["models", "projects", "providers", "scheduled_tasks", "settings"]
        assert h.call("settings.get", {})["settings"]["theme"] != "dark"
    assert h.close() == 0


def test_a_damaged_schema_page_is_repaired_not_refused(stdio_host, data_root, tmp_path):
    """Page 1 past its file header holds the schema table: reading the version met it and refused to start."""
    h, sids = seeded(stdio_host, tmp_path)
    h.kill()
    conn = apsw.Connection(str(data_root / "pi.sqlite"))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(data_root / "pi.sqlite", "r+b") as out:
        out.seek(100)
        out.write(b"\xa5" * (page_size - 100))
    h = stdio_host()
    repaired = check_rebuilt(h, sids, data_root, tmp_path)
    assert "malformed" in repaired["reason"]
    assert h.close() == 0
