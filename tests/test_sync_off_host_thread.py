"""Sync and backup talk to S3 off the host thread: other commands are answered while S3 is slow."""

from __future__ import annotations

from pidesktop.storage import s3
from tests.support.slow_proxy import slow_proxy
from tests.test_backup_s3_saved import cheap_scrypt, configure, connection_params  # noqa: F401 - a fixture
from tests.test_data_commands import finished


def held_job(host, proxy, method: str, params: dict | None = None) -> str:
    """Start ``method`` with S3 held; once its request is stuck in flight, the host still answers."""
    proxy.hold()
    job = host.call(method, params)["job"]
    assert proxy.waiting.wait(30), "the job never reached S3"
    listed = host.client.call_blocking("session.list", {}, timeout=10)
    assert [s["title"] for s in listed["sessions"]] == ["Trip"]
    assert not [p for t, p in list(host.events) if t == "data.finished" and p["job"] == job]
    proxy.release()
    return job


def test_session_list_answers_while_each_sync_command_and_a_backup_wait_on_a_slow_s3(host, bucket):
    host.call("session.create", {"title": "Trip"})
    with slow_proxy(str(bucket.endpoint)) as proxy:
        via = s3.S3Location(bucket.bucket, proxy.endpoint, bucket.region, bucket.prefix)
        configure(host, via)
        host.call("settings.set", {"patch": {"theme": "dark"}})

        synced = finished(host.events, held_job(host, proxy, "sync.run"), timeout=60)
        assert synced["status"] == "done", synced
        assert "setting/theme" in synced["result"]["pushed"] and synced["result"]["revision"] == 1
        assert host.call("sync.status")["revision"] == 1

        backed_up = finished(host.events, held_job(host, proxy, "data.snapshotS3"), timeout=60)
        assert backed_up["status"] == "done", backed_up

        history = finished(host.events, held_job(host, proxy, "sync.history"), timeout=60)
        assert [entry["revision"] for entry in history["result"]["history"]] == [1]
        tested = finished(host.events, held_job(host, proxy, "sync.test", connection_params(via)), timeout=60)
        assert tested["status"] == "done" and tested["result"]["ok"] is True
        saved = finished(host.events, held_job(host, proxy, "sync.configure", connection_params(via)), timeout=60)
        assert saved["status"] == "done" and saved["result"]["revision"] == 1


def test_a_setting_changed_while_the_sync_waits_keeps_the_newer_change(host, bucket, tmp_path):
    from pidesktop import paths
    from tests.support.hosts import InProcessHost

    other = InProcessHost(paths.resolve(data_dir=tmp_path / "other"))
    try:
        configure(other, bucket)
        other.call("settings.set", {"patch": {"theme": "light"}})
        assert finished(other.events, other.call("sync.run")["job"], timeout=60)["status"] == "done"
    finally:
        other.stop()
    host.call("session.create", {"title": "Trip"})
    with slow_proxy(str(bucket.endpoint)) as proxy:
        via = s3.S3Location(bucket.bucket, proxy.endpoint, bucket.region, bucket.prefix)
        configure(host, via)
        proxy.hold()
        job = host.call("sync.run")["job"]
        assert proxy.waiting.wait(30)
        host.client.call_blocking("settings.set", {"patch": {"theme": "dark"}}, timeout=10)  # typed meanwhile
        proxy.release()
        synced = finished(host.events, job, timeout=60)
        assert synced["status"] == "done", synced
        assert "setting/theme" not in synced["result"]["pulled"]
        assert host.call("settings.get")["settings"]["theme"] == "dark"
        again = finished(host.events, host.call("sync.run")["job"], timeout=60)["result"]
        assert again["pushed"] == ["setting/theme"] and again["revision"] == 2
