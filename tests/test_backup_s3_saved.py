"""Backups into the Settings > Sync bucket (``data.snapshotS3``), against moto's S3 on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pidesktop.bus.errors import ErrorCode
from pidesktop.commands.snapshot_cli import ENV_PASSPHRASE
from pidesktop.storage import s3, vault
from pidesktop.storage.blobstore import S3Store
from pidesktop.storage.snapshot_format import open_repository
from pidesktop.storage.snapshot_restore import restore
from pidesktop.storage.verify import verify
from tests.support.host_helpers import append, msg
from tests.support.hosts import InProcessHost
from tests.support.s3_server import CREDENTIALS
from tests.test_backup_snapshots import filled_root, payload_files
from tests.test_data_commands import finished

SYNC_PASSPHRASE = "the sync passphrase"
CHEAP = 2**10


@pytest.fixture(autouse=True)
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    original = vault.create
    monkeypatch.setattr(vault, "create", lambda passphrase, n=CHEAP, r=8, p=1: original(passphrase, n, r, p))


def connection_params(location: s3.S3Location) -> dict:
    return {
        "endpoint": location.endpoint,
        "region": location.region,
        "bucket": location.bucket,
        "prefix": location.prefix,
        "accessKey": CREDENTIALS.access_key,
        "secretKey": CREDENTIALS.secret_key,
        "passphrase": SYNC_PASSPHRASE,
    }


def configure(host: InProcessHost, location: s3.S3Location) -> dict:
    """``sync.configure`` (a job) to its end; the saved status."""
    done = finished(host.events, host.call("sync.configure", connection_params(location))["job"], timeout=60)
    assert done["status"] == "done", done
    return done["result"]


def deny_writes(location: s3.S3Location) -> None:
    deny = (
        '{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:PutObject",'
        f'"Resource":"arn:aws:s3:::{location.bucket}/*"}}]}}'
    )
    s3.connect(location, CREDENTIALS).put_bucket_policy(Bucket=location.bucket, Policy=deny)


def snapshot_s3(host: InProcessHost, params: dict | None = None) -> dict:
    started = host.call("data.snapshotS3", params or {})
    assert started["kind"] == "snapshot"
    return finished(host.events, started["job"], timeout=60)


def bucket_keys(location: s3.S3Location) -> list[str]:
    listed = s3.connect(location, CREDENTIALS).list_objects_v2(Bucket=location.bucket)
    return sorted(item["Key"] for item in listed.get("Contents", []))


def test_back_up_with_the_saved_connection_and_restore_with_the_sync_passphrase(host, bucket, tmp_path):
    filled_root(host)
    configure(host, bucket)
    first = snapshot_s3(host)
    assert first["status"] == "done", first
    assert first["result"]["where"] == bucket.describe() and first["result"]["chunksNew"] > 0
    again = snapshot_s3(host)["result"]
    assert again["bytesUploaded"] < first["result"]["bytesUploaded"] / 2
    # Another machine needs only the bucket and the sync passphrase.
    repo = open_repository(S3Store(s3.connect(bucket, CREDENTIALS), bucket), SYNC_PASSPHRASE)
    assert repo.snapshot_ids() == sorted([first["result"]["snapshot"], again["snapshot"]])
    restore(repo, tmp_path / "restored")
    assert payload_files(tmp_path / "restored") == payload_files(host.location.data_root)
    assert verify(tmp_path / "restored").ok


def test_without_saved_settings_it_says_to_fill_in_sync_first(host):
    error = host.error("data.snapshotS3")
    assert error.code == ErrorCode.CONFLICT and "Settings > Sync" in error.message
    assert error.data["reason"] == "not_configured"


def test_backups_made_with_another_passphrase_are_refused_until_it_is_typed(host, bucket):
    filled_root(host)
    configure(host, bucket)
    other = open_repository(S3Store(s3.connect(bucket, CREDENTIALS), bucket), "another one", create=True)
    before = bucket_keys(bucket)
    refused = snapshot_s3(host)
    assert refused["status"] == "failed"
    assert refused["error"]["data"]["reason"] == "wrong_passphrase"
    assert "another passphrase" in refused["error"]["data"]["sentence"]
    assert bucket_keys(bucket) == before
    typed = snapshot_s3(host, {"passphrase": "another one", "keep": 1})
    assert typed["status"] == "done", typed
    assert other.snapshot_ids() == [typed["result"]["snapshot"]]


def test_a_bucket_that_refuses_writes_fails_in_words(host, bucket):
    filled_root(host)
    configure(host, bucket)
    deny_writes(bucket)
    failed = snapshot_s3(host)
    assert failed["status"] == "failed"
    assert failed["error"]["data"]["reason"] in {s3.WRITES_REFUSED, s3.CREDENTIALS_REFUSED}
    assert "refused" in failed["error"]["data"]["sentence"]


def data_cli(root: Path, *args: str, passphrase: str | None = None) -> subprocess.CompletedProcess[str]:
    """``pidesktop data`` in a subprocess with no AWS_* variables (and no passphrase unless given)."""
    env = {k: v for k, v in os.environ.items() if k not in {s3.ENV_ACCESS_KEY, s3.ENV_SECRET_KEY, ENV_PASSPHRASE}}
    if passphrase:
        env[ENV_PASSPHRASE] = passphrase
    command = [sys.executable, "-m", "pidesktop", "data", "--data-dir", str(root), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def test_the_command_line_uses_the_saved_sync_connection(host, bucket, tmp_path):
    filled_root(host)
    root = host.location.data_root
    missing = data_cli(root, "backup", "s3")
    assert missing.returncode == 2 and "Settings > Sync" in missing.stderr
    configure(host, bucket)

    saved = data_cli(root, "backup", "s3")  # bucket, key pair and vault key all from Settings > Sync
    assert saved.returncode == 0, saved.stderr
    named = ["--endpoint", str(bucket.endpoint), "--bucket", bucket.bucket, "--prefix", bucket.prefix]
    typed = data_cli(root, "backup", "s3", *named, passphrase=SYNC_PASSPHRASE)  # saved key pair only
    assert typed.returncode == 0, typed.stderr
    listed = data_cli(root, "snapshots", "s3")
    assert listed.returncode == 0 and len(listed.stdout.strip().splitlines()) == 2, listed.stderr

    elsewhere = data_cli(root, "snapshots", "s3", "--endpoint", "http://127.0.0.1:9", "--bucket", bucket.bucket)
    assert elsewhere.returncode != 0 and "No S3 credentials" in elsewhere.stderr  # saved keys stay at home

    restored = data_cli(root, "restore", "s3", str(tmp_path / "restored"))
    assert restored.returncode == 0, restored.stderr
    assert payload_files(tmp_path / "restored") == payload_files(root)
    assert verify(tmp_path / "restored").ok


def test_the_scheduler_backs_up_once_a_day_and_tells_the_outcome(location, bucket):
    from pidesktop.bus import HostError
    from pidesktop.ui.data.host_jobs import run_job
    from tests.test_automations_scheduler import DAY, HOUR, run

    start = 1_780_000_000_000

    async def body(client, scheduler, clock):
        outcomes: list[dict] = []
        told = asyncio.Event()

        def on_event(topic: str, payload: dict) -> None:
            if topic == "data.dailyBackup":
                outcomes.append(payload)
                told.set()

        client.subscribe(on_event)
        await client.call("session.create", {"title": "Trip"})
        clock.now = start
        assert await scheduler.check_daily_backup() == {"started": False}  # off until turned on
        with pytest.raises(HostError) as refused:
            await client.call("data.setDailyBackup", {"enabled": True})
        assert refused.value.data["reason"] == "not_configured"
        await run_job(client, "sync.configure", connection_params(bucket))
        assert (await client.call("data.setDailyBackup", {"enabled": True}))["enabled"] is True

        scheduler.start()  # the app's loop: its first tick checks at once
        await asyncio.wait_for(told.wait(), 60)
        assert outcomes[-1]["ok"] is True and outcomes[-1]["where"] == bucket.describe()
        told.clear()
        clock.now = start + 23 * HOUR
        assert (await scheduler.check_daily_backup())["started"] is False  # once a day
        deny_writes(bucket)
        clock.now = start + DAY
        assert (await scheduler.check_daily_backup())["started"] is True
        await asyncio.wait_for(told.wait(), 60)
        failed = outcomes[-1]
        assert failed["ok"] is False and failed["sentence"].startswith("The daily backup to S3 failed: ")
        assert "refused" in failed["sentence"]
        status = await client.call("sync.status")
        assert status["dailyBackup"]["last"] == failed and status["dailyBackup"]["attemptedAt"] == start + DAY
        return len(outcomes)

    assert run(location, body) == 2


def run_job_of(host: InProcessHost, method: str, params: dict) -> dict:
    return finished(host.events, host.call(method, params)["job"], timeout=60)


def test_list_the_bucket_s_snapshots_and_restore_an_earlier_one(host, bucket, tmp_path):
    sid, _ = filled_root(host)
    configure(host, bucket)
    empty = run_job_of(host, "data.snapshotsS3", {})
    assert empty["status"] == "done" and empty["result"]["snapshots"] == []
    first = snapshot_s3(host)["result"]
    append(host, sid, msg("later", text="written after the first backup"))
    second = snapshot_s3(host)["result"]
    listed = run_job_of(host, "data.snapshotsS3", {})["result"]
    assert [s["snapshot"] for s in listed["snapshots"]] == [second["snapshot"], first["snapshot"]]
    assert listed["snapshots"][0]["files"] == second["files"] and listed["where"] == bucket.describe()

    error = host.error("data.restoreS3", {"folder": str(host.location.data_root / "inside")})
    assert error.data["field"] == "folder" and "overlaps" in error.data["sentence"]
    target = tmp_path / "earlier"
    restored = run_job_of(host, "data.restoreS3", {"folder": str(target), "snapshot": first["snapshot"]})
    assert restored["status"] == "done", restored
    assert restored["result"] == {"folder": str(target), "snapshot": first["snapshot"], "files": first["files"]}
    assert verify(target).ok
    transcripts = b"".join(p.read_bytes() for p in (target / "sessions").iterdir() if p.is_file())
    assert b"written after the first backup" not in transcripts
    refused = host.error("data.restoreS3", {"folder": str(target)})
    assert "not empty" in refused.data["sentence"]
