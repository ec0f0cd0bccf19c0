"""data.* host commands: status, verify, back up, caches, kept old copies; in process and over stdio."""

from __future__ import annotations

import stat
import threading

import apsw
import pytest

from pidesktop.storage import old_roots
from pidesktop.storage import verify as storage_verify
from pidesktop.storage.old_roots import KeptRoot
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until


def finished(events: list, job: str, timeout: float = 20.0) -> dict:
    """The data.finished payload of ``job`` (waits for it)."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for topic, payload in list(events):
            if topic == "data.finished" and payload["job"] == job:
                return payload
        time.sleep(0.01)
    raise AssertionError(f"job {job} did not finish")


def run(host: InProcessHost, method: str, params: dict | None = None) -> dict:
    started = host.call(method, params or {})
    assert set(started) == {"job", "kind"} and started["kind"] == method.split(".", 1)[1]
    return finished(host.events, started["job"])


def chat(host: InProcessHost, title: str = "Trip") -> str:
    sid = host.call("session.create", {"title": title})["session"]["id"]
    host.call(
        "session.appendMessage",
        {
            "sessionId": sid,
            "message": {"id": f"{sid[:6]}-u", "role": "user", "blocks": [{"type": "text", "text": "hello " * 200}]},
        },
    )
    return sid


def test_status_verify_and_backup_run_as_jobs_with_progress(host, tmp_path):
    sid = chat(host)
    status = run(host, "data.status")
    assert status["status"] == "done"
    report = status["result"]
    assert report["dataRoot"] == str(host.location.data_root) and report["resolvedBy"] == "env"
    assert report["counts"]["sessions"] == 1 and report["schemaVersion"] == 27 and report["dataBytes"] > 0
    quick = run(host, "data.status", {"scan": False})["result"]
    assert "dataBytes" not in quick and quick["counts"]["messages"] == 1

    checked = run(host, "data.verify")
    assert checked["result"] == {"ok": True, "sessions": 1, "messages": 1, "problems": [], "recoverable": []}
    phases = [p["phase"] for topic, p in host.events if topic == "data.progress" and p["job"] == checked["job"]]
    assert phases[0] == "database" and "transcripts" in phases

    target = tmp_path / "copy.sqlite"
    copied = run(host, "data.backup", {"path": str(target)})
    assert copied["status"] == "done" and copied["result"]["path"] == str(target)
    assert copied["result"]["rows"]["sessions"] == 1 and stat.S_IMODE(target.stat().st_mode) == 0o600
    progress = [p for topic, p in host.events if topic == "data.progress" and p["job"] == copied["job"]]
    assert {p["phase"] for p in progress} == {"copy", "check"}
    assert all(set(p) == {"job", "kind", "phase", "done", "total"} for p in progress)
    assert host.call("session.get", {"sessionId": sid})["session"]["id"] == sid  # still serving

    (host.location.data_root / "sessions" / f"{sid}.jsonl").write_bytes(b"")
    broken = run(host, "data.verify")["result"]
    assert not broken["ok"] and sid in broken["problems"][0]


@pytest.mark.parametrize(
    "params, field, words",
    [
        ({}, "path", "missing required field 'path'"),
        ({"path": 7}, "path", "must be a string"),
        ({"path": "backups/pi.sqlite"}, "path", "must be absolute"),
        ({"path": "/no/such/folder/pi.sqlite"}, "path", "does not exist"),
    ],
)
def test_a_backup_to_a_bad_path_is_refused_naming_the_field(host, params, field, words):
    error = host.error("data.backup", params)
    assert error.code == "INVALID_PARAMS" and error.data["field"] == field and words in error.message
    assert not [e for e in host.events if e[0].startswith("data.")]  # no job was started


def test_a_backup_refuses_an_existing_file_and_the_data_folder(host, tmp_path):
    existing = tmp_path / "taken.sqlite"
    existing.write_bytes(b"mine")
    error = host.error("data.backup", {"path": str(existing)})
    assert error.data == {"field": "path", "sentence": f"{existing} already exists; choose a new file name."}
    assert existing.read_bytes() == b"mine"
    inside = host.error("data.backup", {"path": str(host.location.data_root / "b.sqlite")})
    assert inside.data["field"] == "path" and "inside the data folder" in inside.message


def test_kept_roots_and_removing_one(host, tmp_path):
    old = tmp_path / "old" / "data"
    (old / "sessions").mkdir(parents=True)
    (old / "sessions" / "s.jsonl").write_bytes(b"z" * 4000)
    old_roots.add(KeptRoot("job-9", (old,), None, tmp_path / "new", 1_700_000_000_000))
    listed = run(host, "data.keptRoots")["result"]["keptRoots"]
    assert [(k["id"], k["bytes"], k["present"], k["problems"]) for k in listed] == [("job-9", 4000, True, [])]
    missing = host.error("data.removeKeptRoot", {"id": "nope"})
    assert missing.code == "NOT_FOUND" and missing.data["field"] == "id"
    assert host.error("data.removeKeptRoot", {"id": ""}).data["field"] == "id"
    removed = run(host, "data.removeKeptRoot", {"id": "job-9"})["result"]
    assert removed == {"id": "job-9", "ok": True, "deleted": [str(old)], "alreadyGone": [], "failures": []}
    assert not old.exists() and old_roots.entries() == []


def test_caches_are_measured_and_cleaning_is_scheduled(host):
    (host.location.data_root / "cache" / "a.bin").write_bytes(b"x" * 3000)
    caches = run(host, "data.caches")["result"]
    first = caches["folders"][0]
    assert first == {
        "path": str(host.location.data_root / "cache"),
        "area": "data",
        "state": "present",
        "bytes": 3000,
        "files": 1,
    }
    assert caches["totalBytes"] == 3000 and caches["cleanPending"] is False
    assert host.call("data.cleanCaches") == {"scheduled": True, "dataRoot": str(host.location.data_root)}
    assert run(host, "data.caches")["result"]["cleanPending"] is True
    assert (host.location.data_root / "cache" / "a.bin").exists()  # cleaned at the next start, not now


def test_a_job_runs_beside_other_commands_and_can_be_cancelled(host, monkeypatch):
    release = threading.Event()
    real = storage_verify.verify

    def slow(root, progress=None):
        for step in range(1000):
            progress("transcripts", step, 1000)
            if release.wait(0.01):
                break
        return real(root, progress)

    monkeypatch.setattr(storage_verify, "verify", slow)
    started = host.call("data.verify")
    second = host.error("data.verify")
    assert second.code == "CONFLICT" and second.data["job"] == started["job"]
    sid = chat(host)  # the host thread keeps serving while the job runs
    assert host.call("session.get", {"sessionId": sid})["session"]["id"] == sid
    assert host.call("data.cancel", {"job": started["job"]}) == {"cancelled": True}
    end = finished(host.events, started["job"])
    assert end == {"job": started["job"], "kind": "verify", "status": "cancelled"}
    assert host.call("data.cancel", {"job": started["job"]}) == {"cancelled": False}
    assert host.error("data.cancel", {}).data["field"] == "job"


def test_closing_the_host_stops_a_running_job(location, monkeypatch):
    running = threading.Event()

    def endless(root, progress=None):
        running.set()
        while True:
            progress("transcripts", 0, 1)
            threading.Event().wait(0.01)

    monkeypatch.setattr(storage_verify, "verify", endless)
    host = InProcessHost(location)
    started = host.call("data.verify")
    assert running.wait(10)
    host.stop()
    assert finished(host.events, started["job"])["status"] == "cancelled"
    assert not [t for t in threading.enumerate() if t.name == "pidesktop-data-verify"]


def test_a_failed_job_reports_the_storage_sentence(host, tmp_path, monkeypatch):
    from pidesktop.storage import backup as storage_backup
    from pidesktop.storage.errors import Failed

    def broken(root, target, progress=None):
        raise Failed(f"Backing up to {target} failed: disk full")

    monkeypatch.setattr(storage_backup, "backup", broken)
    end = run(host, "data.backup", {"path": str(tmp_path / "x.sqlite")})
    assert end["status"] == "failed" and end["error"]["code"] == "STORAGE_UNAVAILABLE"
    assert "disk full" in end["error"]["message"]


def test_the_data_commands_over_stdio(stdio_host, tmp_path):
    host = stdio_host()
    host.call("app.handshake", {"protocolVersion": 1})
    host.call("session.create", {"title": "Over stdio"})
    bad = host.request("data.backup", {"path": "relative.sqlite"})["error"]
    assert bad["data"] == {
        "code": "INVALID_PARAMS",
        "field": "path",
        "sentence": "The backup path must be absolute (it was 'relative.sqlite').",
    }
    target = tmp_path / "stdio-copy.sqlite"
    started = host.call("data.backup", {"path": str(target)})
    verify = host.call("data.verify")
    ends = {}
    while len(ends) < 2:
        host.call("session.list")  # keeps reading: events arrive among replies
        ends |= {e["payload"]["job"]: e["payload"] for e in host.events if e["topic"] == "data.finished"}
    assert ends[started["job"]]["result"]["path"] == str(target) and target.is_file()
    assert ends[verify["job"]]["result"]["ok"] is True
    progress = [e["payload"] for e in host.events if e["topic"] == "data.progress"]
    assert {p["job"] for p in progress} == {started["job"], verify["job"]}
    assert host.close() == 0


# -- the UI side never opens the live database ----------------------------------------------------------


def test_the_dialogs_open_no_connection_outside_the_host(
    qtbot, qloop, loop_hosts, location, tmp_path, monkeypatch, keep_running
):
    """Every SQLite connection the dialogs cause is opened by the host thread or a host job thread."""
    from pidesktop.ui.data import data_tools

    client = loop_hosts.start()
    qloop.run_until_complete(client.call("session.create", {"title": "Seen"}))
    opened: list[str] = []
    real = apsw.Connection

    class Recording(real):
        def __init__(self, *args, **kwargs):
            opened.append(threading.current_thread().name)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(apsw, "Connection", Recording)
    verify = data_tools.VerifyDialog(client)
    qtbot.addWidget(verify)
    verify.open()
    spin_until(qloop, lambda: verify.result is not None)
    backup = data_tools.BackupDialog(client)
    qtbot.addWidget(backup)
    backup.open()
    backup.path_edit.setText(str(tmp_path / "ui-copy.sqlite"))
    backup.backup_button.click()
    spin_until(qloop, lambda: backup.result is not None)
    assert verify.result["sessions"] == 1 and backup.result["rows"]["sessions"] == 1
    assert opened and all(name.startswith("pidesktop-data-") for name in opened), opened


def test_closing_a_dialog_cancels_its_job(qtbot, qloop, loop_hosts, monkeypatch, keep_running):
    from pidesktop.ui.data import data_tools

    stopped = threading.Event()

    def endless(root, progress=None):
        try:
            while True:
                progress("transcripts", 1, 3)
                threading.Event().wait(0.01)
        finally:
            stopped.set()

    monkeypatch.setattr(storage_verify, "verify", endless)
    dialog = data_tools.VerifyDialog(loop_hosts.start())  # deletes itself on close: not qtbot's to close
    dialog.open()
    spin_until(qloop, lambda: dialog.busy.isVisible() and dialog.busy.maximum() == 3)
    assert dialog.busy.value() == 1 and not dialog.again_button.isEnabled()
    dialog.reject()
    spin_until(qloop, lambda: stopped.is_set())


def test_a_host_error_reaches_the_dialog_report_line(qtbot, qloop, loop_hosts, tmp_path, keep_running):
    from pidesktop.ui.data import data_tools

    dialog = data_tools.BackupDialog(loop_hosts.start())
    qtbot.addWidget(dialog)
    dialog.open()
    dialog.path_edit.setText(str(tmp_path / "missing-folder" / "b.sqlite"))
    dialog.backup_button.click()
    spin_until(qloop, lambda: dialog.report.isVisible())
    assert dialog.report.text() == f"The folder {tmp_path / 'missing-folder'} does not exist."
    assert dialog.report.property("severity") == "error" and dialog.backup_button.isEnabled()
