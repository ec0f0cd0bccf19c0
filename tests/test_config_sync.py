"""Settings sync between data folders through a real S3 (moto's server on 127.0.0.1)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pidesktop import paths
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import (
    handlers,  # noqa: F401 - registers every command
    kv,
)
from pidesktop.host.core import Host
from pidesktop.storage import s3
from tests.support.s3_server import CREDENTIALS, S3Server, _free_port
from tests.test_data_commands import finished

NOW = 1_780_000_000_000
PASSPHRASE = "correct horse battery staple"


class Machine:
    """A host over its own data folder, with a clock the test moves."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.events: list[tuple[str, dict]] = []
        self.host = Host.open(paths.resolve(data_dir=root), emit=lambda t, p: self.events.append((t, p)))
        self.now = NOW
        self.host.ctx.clock = lambda: self.now
        # The test thread is this host's thread: a job's step handed back to it runs while the test waits.
        self.host.attach_post(lambda work: work() or True)

    def call(self, method: str, params: dict | None = None) -> dict:
        result = self.host.dispatch(method, params or {})
        if set(result) == {
            "job",
            "kind",
        }:  # a job (every sync command that talks to S3): its outcome comes with its end
            done = finished(self.events, result["job"], timeout=60)
            if done["status"] != "done":
                raise HostError(done["error"]["code"], done["error"]["message"], done["error"]["data"])
            return done["result"]
        return result

    def error(self, method: str, params: dict | None = None) -> HostError:
        with pytest.raises(HostError) as info:
            self.call(method, params)
        return info.value

    def settings(self) -> dict:
        return self.call("settings.get")["settings"]

    def close(self) -> None:
        if self.host is not None:
            self.host.close()
            self.host = None


@pytest.fixture
def machines(tmp_path):
    opened: list[Machine] = []

    def open_machine(name: str) -> Machine:
        machine = Machine(tmp_path / name)
        opened.append(machine)
        return machine

    yield open_machine
    for machine in opened:
        machine.close()


def connection(location: s3.S3Location, **extra) -> dict:
    return {
        "endpoint": location.endpoint,
        "region": location.region,
        "bucket": location.bucket,
        "prefix": location.prefix,
        "accessKey": CREDENTIALS.access_key,
        "secretKey": CREDENTIALS.secret_key,
        "passphrase": PASSPHRASE,
        **extra,
    }


def object_keys(location: s3.S3Location) -> list[str]:
    listed = s3.connect(location, CREDENTIALS).list_objects_v2(Bucket=location.bucket)
    return sorted(item["Key"] for item in listed.get("Contents", []))


def test_two_folders_sync_both_ways_and_a_conflict_goes_to_the_newer_change(machines, bucket):
    a, b = machines("a"), machines("b")
    a.call("sync.configure", connection(bucket))
    b.call("sync.configure", connection(bucket))
    a.call("settings.set", {"patch": {"theme": "dark", "largePasteThreshold": 900}})
    a.call("providers.upsert", {"provider": {"id": "acme", "name": "Acme", "baseUrl": "https://api.acme.test/v1"}})
    first = a.call("sync.run")
    assert first["revision"] == 1 and "provider/acme" in first["pushed"]

    pulled = b.call("sync.run")
    assert {"setting/theme", "setting/largePasteThreshold"} <= set(pulled["pulled"]) and pulled["conflicts"] == []
    assert b.settings()["theme"] == "dark"
    assert [p["id"] for p in b.call("providers.list")["providers"]] == ["acme"]
    assert ("sync.applied", {"revision": 1, "keys": pulled["pulled"]}) in b.events

    # The same setting changed on both: b's change is newer and wins, and the run lists it; others merge.
    a.now, b.now = NOW + 1000, NOW + 2000
    a.call("settings.set", {"patch": {"theme": "light", "compactAt": 0.7}})
    b.call("settings.set", {"patch": {"theme": "system", "language": "zh_CN"}})
    a.call("sync.run")
    result = b.call("sync.run")
    assert [(c["key"], c["kept"], c["local"], c["remote"]) for c in result["conflicts"]] == [
        ("setting/theme", "local", "system", "light")
    ]
    a.call("sync.run")
    for machine in (a, b):
        settings = machine.settings()
        assert (settings["theme"], settings["language"], settings["compactAt"]) == ("system", "zh_CN", 0.7)
    assert b.call("sync.status")["lastRun"]["conflicts"][0]["kept"] == "local"

    # Object names reveal nothing but revision numbers, and no value is readable in the bucket.
    names = object_keys(bucket)
    assert all(n.startswith("pidesktop/config-sync/") for n in names)
    assert {n.rsplit("/", 1)[1] for n in names} <= {"vault.json", "history.bin"} | {
        f"rev-{i:08d}.bin" for i in range(1, 10)
    }
    client = s3.connect(bucket, CREDENTIALS)
    for name in names:
        body = client.get_object(Bucket=bucket.bucket, Key=name)["Body"].read()
        assert b"acme" not in body and b"theme" not in body


def test_provider_keys_travel_only_when_asked(machines, s3_server: S3Server):
    for sync_keys in (False, True):
        location = s3_server.new_bucket(prefix="p")
        a, b = machines(f"a{sync_keys}"), machines(f"b{sync_keys}")
        for machine in (a, b):
            machine.call("sync.configure", connection(location, syncKeys=sync_keys))
        provider = {"id": "acme", "name": "Acme", "baseUrl": "https://api.acme.test/v1"}
        a.call("providers.upsert", {"provider": provider, "apiKey": "sk-secret-123"})
        a.call("sync.run")
        b.call("sync.run")
        assert b.call("providers.credentials", {"providerId": "acme"})["apiKey"] == (
            "sk-secret-123" if sync_keys else None
        )


def test_an_automation_is_armed_on_one_machine_at_a_time_and_each_says_which(machines, bucket):
    a, b = machines("a"), machines("b")
    a.call("sync.configure", connection(bucket, machineName="Desk"))
    assert b.call("sync.configure", connection(bucket, machineName="Laptop"))["machineName"] == "Laptop"
    task = a.call(
        "tasks.create", {"name": "News", "prompt": "Summarise", "schedule": {"kind": "daily", "at": "09:00"}}
    )["task"]
    a.call("sync.run")
    b.call("sync.run")

    def on(machine: Machine) -> dict:
        return next(t for t in machine.call("tasks.list")["tasks"] if t["id"] == task["id"])

    assert on(b)["name"] == "News" and on(b)["enabled"] is False  # armed on a, so switched off here
    assert on(b)["armedElsewhere"] == "Desk" and on(a)["armedElsewhere"] is None

    b.now = NOW + 5000
    b.call("tasks.update", {"taskId": task["id"], "enabled": True})  # taken over here
    assert on(b)["armedElsewhere"] is None
    b.call("sync.run")
    a.call("sync.run")
    assert {m: on(m)["enabled"] for m in (a, b)} == {a: False, b: True}
    assert on(a)["armedElsewhere"] == "Laptop" and on(b)["armedElsewhere"] is None
    # Switched off on a by the sync, not by the person: a's next syncs leave it armed on b, and so does
    # saving it in a's editor (which sends the switch as it stands, off).
    a.now = NOW + 6000
    assert "automation/" + task["id"] not in a.call("sync.run")["pushed"]
    a.call("tasks.update", {"taskId": task["id"], "name": "Morning news", "enabled": False})
    a.call("sync.run")
    b.call("sync.run")
    assert (on(b)["name"], on(b)["enabled"]) == ("Morning news", True) and on(a)["armedElsewhere"] == "Laptop"

    # Switched off where it runs: the other computer no longer names it, and nothing runs it.
    b.now = NOW + 9000
    b.call("tasks.update", {"taskId": task["id"], "enabled": False})
    b.call("sync.run")
    a.call("sync.run")
    assert [(on(m)["enabled"], on(m)["armedElsewhere"]) for m in (a, b)] == [(False, None), (False, None)]
    b.call("tasks.delete", {"taskId": task["id"]})
    b.call("sync.run")
    a.call("sync.run")
    assert a.call("tasks.list")["tasks"] == [] and kv.get(a.host.ctx.conn, "configSyncS3", "armedElsewhere") is None


def test_changes_made_offline_wait_in_pending_and_go_with_the_next_sync(machines, bucket):
    a, b = machines("a"), machines("b")
    for machine in (a, b):
        machine.call("sync.configure", connection(bucket))
    a.call("sync.run")
    config = kv.get(a.host.ctx.conn, "configSyncS3", "config")
    with a.host.ctx.conn:  # the network goes away: nothing listens at the endpoint
        kv.put(a.host.ctx.conn, "configSyncS3", "config", config | {"endpoint": f"http://127.0.0.1:{_free_port()}"}, 1)
    a.call("settings.set", {"patch": {"theme": "light"}})
    err = a.error("sync.run")
    assert err.code == ErrorCode.STORAGE_UNAVAILABLE and err.data["reason"] == s3.NO_NETWORK
    assert "wait here" in err.message
    assert a.call("sync.status")["pending"] == ["setting/theme"]
    assert (a.root / "config-sync" / "s3" / config["stateId"] / "pending.bin").exists()
    assert b"light" not in (a.root / "config-sync" / "s3" / config["stateId"] / "pending.bin").read_bytes()

    with a.host.ctx.conn:
        kv.put(a.host.ctx.conn, "configSyncS3", "config", config, 2)
    assert a.call("sync.run")["pushed"] == ["setting/theme"]
    assert a.call("sync.status")["pending"] == []
    b.call("sync.run")
    assert b.settings()["theme"] == "light"


def test_an_earlier_revision_can_be_restored(machines, bucket):
    a, b = machines("a"), machines("b")
    for machine in (a, b):
        machine.call("sync.configure", connection(bucket))
    for step, theme in enumerate(("dark", "light", "system")):
        a.now = NOW + step
        a.call("settings.set", {"patch": {"theme": theme}})
        a.call("sync.run")
    history = a.call("sync.history")["history"]
    assert [entry["revision"] for entry in history] == [3, 2, 1]
    restored = a.call("sync.run", {"restore": 1})
    assert restored["revision"] == 4 and a.settings()["theme"] == "dark"
    b.call("sync.run")
    assert b.settings()["theme"] == "dark"
    assert a.error("sync.run", {"restore": 99}).code == ErrorCode.INVALID_PARAMS


def test_the_history_keeps_thirty_revisions(machines, bucket):
    a = machines("a")
    a.call("sync.configure", connection(bucket))
    for step in range(32):
        a.now = NOW + step
        a.call("settings.set", {"patch": {"largePasteThreshold": 100 + step}})
        a.call("sync.run")
    history = a.call("sync.history")["history"]
    assert len(history) == 30 and history[0]["revision"] == 32 and history[-1]["revision"] == 3
    assert "pidesktop/config-sync/rev-00000001.bin" in object_keys(bucket)  # revisions themselves stay


def test_a_wrong_passphrase_is_refused_and_nothing_changes(machines, bucket):
    a, b = machines("a"), machines("b")
    a.call("sync.configure", connection(bucket))
    a.call("settings.set", {"patch": {"theme": "dark"}})
    a.call("sync.run")
    before = {
        name: s3.connect(bucket, CREDENTIALS).get_object(Bucket=bucket.bucket, Key=name)["Body"].read()
        for name in object_keys(bucket)
    }
    err = b.error("sync.configure", connection(bucket, passphrase="not the passphrase"))
    assert err.code == ErrorCode.INVALID_PARAMS and err.data["field"] == "passphrase"
    assert "passphrase is wrong" in err.message
    assert b.call("sync.status") == {"configured": False}
    assert not (b.root / "config-sync").exists()
    assert b.settings()["theme"] == "system"
    after = {
        name: s3.connect(bucket, CREDENTIALS).get_object(Bucket=bucket.bucket, Key=name)["Body"].read()
        for name in object_keys(bucket)
    }
    assert after == before


def test_a_bucket_that_refuses_writes_changes_nothing_here(machines, bucket):
    a, b = machines("a"), machines("b")
    for machine in (a, b):
        machine.call("sync.configure", connection(bucket))
    a.call("settings.set", {"patch": {"theme": "dark"}})
    a.call("sync.run")
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket.bucket}/*"}
    s3.connect(bucket, CREDENTIALS).put_bucket_policy(
        Bucket=bucket.bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [deny]})
    )
    b.call("settings.set", {"patch": {"language": "en"}})
    err = b.error("sync.run")  # the merge differs from the newest revision, so it must be stored: refused
    assert err.data["reason"] == s3.WRITES_REFUSED and "refused to store" in err.message
    assert b.settings()["theme"] == "system"  # the merge was not applied here either
    assert b.call("sync.status")["pending"] == ["setting/language"]
    test = b.error("sync.test", connection(bucket))
    assert test.data["reason"] == s3.WRITES_REFUSED


def test_test_connection_says_what_is_wrong(machines, s3_server: S3Server, s3_checking_keys):
    a = machines("a")
    checked, good = s3_checking_keys.location, s3_checking_keys.credentials
    keys = {"accessKey": good.access_key, "secretKey": good.secret_key}
    assert a.call("sync.test", connection(checked, **keys))["ok"] is True
    refused = a.error("sync.test", connection(checked, **{**keys, "secretKey": "not-the-secret"}))
    assert refused.data["reason"] == s3.CREDENTIALS_REFUSED and "access key or secret" in refused.message
    missing = a.error("sync.test", connection(s3_server.location("no-such-bucket")))
    assert missing.data["reason"] == s3.BUCKET_MISSING and "does not exist" in missing.message
    offline = a.error("sync.test", connection(s3.S3Location("b", f"http://127.0.0.1:{_free_port()}")))
    assert offline.data["reason"] == s3.NO_NETWORK
    assert a.error("sync.run").data["reason"] == "not_configured"


def test_a_fresh_state_id_when_the_connection_or_mode_changes(machines, bucket):
    a = machines("a")
    first = a.call("sync.configure", connection(bucket))["stateId"]
    assert a.call("sync.configure", connection(bucket))["stateId"] == first
    assert a.call("sync.configure", connection(bucket, syncKeys=True))["stateId"] != first
    status = a.call("sync.status")
    assert status["hasCredentials"] and "secretKey" not in status and "passphrase" not in json.dumps(status)


def test_sync_now_killed_mid_run_leaves_both_sides_whole(machines, bucket, tmp_path):
    a, b = machines("a"), machines("b")
    for machine in (a, b):
        machine.call("sync.configure", connection(bucket))
    b.call("settings.set", {"patch": {"theme": "light"}})
    b.call("sync.run")
    a.call("settings.set", {"patch": {"language": "en"}})
    a.close()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-m", "pidesktop", "sync", "now", "--data-dir", str(a.root)]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    while "pidesktop/config-sync/rev-00000002.bin" not in object_keys(bucket) and proc.poll() is None:
        pass  # kill as soon as the new revision is published, before the run can finish here
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    again = Machine(a.root)
    try:
        again.call("sync.run")
        b.call("sync.run")
        assert again.settings()["theme"] == b.settings()["theme"] == "light"
        assert again.settings()["language"] == b.settings()["language"] == "en"
    finally:
        again.close()

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("Synced: revision"), done.stderr


def test_a_revision_the_history_does_not_name_yet_is_found_and_never_replaced(machines, bucket):
    """A sync killed between storing its revision and the history (or beaten to the history) loses nothing."""
    a, b = machines("a"), machines("b")
    for machine in (a, b):
        machine.call("sync.configure", connection(bucket))
    a.call("settings.set", {"patch": {"compactAt": 0.6}})
    assert a.call("sync.run")["revision"] == 1
    client = s3.connect(bucket, CREDENTIALS)
    history_key = "pidesktop/config-sync/history.bin"
    old_history = client.get_object(Bucket=bucket.bucket, Key=history_key)["Body"].read()
    a.call("settings.set", {"patch": {"theme": "dark"}})
    assert a.call("sync.run")["revision"] == 2
    client.put_object(Bucket=bucket.bucket, Key=history_key, Body=old_history)  # as if killed before the history

    b.now = NOW + 10
    b.call("settings.set", {"patch": {"language": "en"}})
    result = b.call("sync.run")
    assert result["revision"] == 3 and "setting/theme" in result["pulled"]
    assert b.settings()["theme"] == "dark"
    a.call("sync.run")
    assert a.settings()["language"] == "en"
    assert [e["revision"] for e in a.call("sync.history")["history"]] == [3, 2, 1]
