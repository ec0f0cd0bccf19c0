"""Encrypted, incremental snapshots of the whole data root, to S3 (moto on 127.0.0.1) and to a folder."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from pidesktop import paths
from pidesktop.storage import s3, vault
from pidesktop.storage.blobstore import FolderStore, S3Store
from pidesktop.storage.errors import Refused
from pidesktop.storage.snapshot_backup import backup
from pidesktop.storage.snapshot_format import Repository, open_repository
from pidesktop.storage.snapshot_restore import restore, staging_folder
from pidesktop.storage.verify import verify
from tests.support.host_helpers import append, msg, new_session
from tests.support.hosts import InProcessHost
from tests.support.s3_server import CREDENTIALS

PASSPHRASE = "a long backup passphrase"
CHEAP = 2**10


@pytest.fixture(autouse=True)
def cheap_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    # The cost is stored with each backup; the tests only need it to be quick.
    monkeypatch.setattr(vault, "DEFAULT_COST", CHEAP)
    original = vault.create
    monkeypatch.setattr(vault, "create", lambda passphrase, n=CHEAP, r=8, p=1: original(passphrase, n, r, p))


def filled_root(host: InProcessHost, big_bytes: int = 0) -> tuple[str, str]:
    """A chat with messages and an attachment (and optionally a big random one); returns (session, ref)."""
    sid = new_session(host, title="Trip")
    for index in range(20):
        append(host, sid, msg(f"m{index}", text=f"message {index} " * 50))
    ref = host.call("attachments.importText", {"text": "notes " * 500})["attachment"]["ref"]
    if big_bytes:
        data = random.Random(7).randbytes(big_bytes)
        host.call("attachments.importText", {"text": data.hex()})
    return sid, ref


def payload_files(root: Path) -> dict[str, bytes]:
    wanted = {}
    for path in sorted((root / "sessions").iterdir()) + sorted((root / "attachments").iterdir()):
        if path.is_file() and not path.name.endswith(".layout"):
            wanted[path.relative_to(root).as_posix()] = path.read_bytes()
    return wanted


def s3_repo(location: s3.S3Location, passphrase: str = PASSPHRASE) -> Repository:
    return open_repository(S3Store(s3.connect(location, CREDENTIALS), location), passphrase, create=True)


def test_round_trip_to_s3_is_byte_identical_and_verifies(host, bucket, tmp_path):
    filled_root(host)
    summary = backup(s3_repo(bucket), host.location.data_root)
    assert summary.chunks_new > 0 and summary.files >= 3
    target = tmp_path / "elsewhere" / "restored"
    target.parent.mkdir()
    manifest = restore(s3_repo(bucket), target)
    assert manifest.snapshot_id == summary.snapshot_id
    assert payload_files(target) == payload_files(host.location.data_root)
    assert verify(target).ok
    assert not staging_folder(target).exists()
    # Nothing in the bucket is readable without the key: names are hashes, bodies sealed.
    client = s3.connect(bucket, CREDENTIALS)
    for item in client.list_objects_v2(Bucket=bucket.bucket)["Contents"]:
        body = client.get_object(Bucket=bucket.bucket, Key=item["Key"])["Body"].read()
        assert b"message 3" not in body and b"notes" not in body
    # The restored root opens in a host and shows the chat.
    restored = InProcessHost(__import__("pidesktop.paths", fromlist=["resolve"]).resolve(data_dir=target))
    try:
        titles = [s["title"] for s in restored.call("session.list", {})["sessions"]]
        assert "Trip" in titles
    finally:
        restored.stop()


def test_second_backup_uploads_only_the_new_tail(host, bucket):
    sid, _ = filled_root(host, big_bytes=3 << 20)
    first = backup(s3_repo(bucket), host.location.data_root)
    append(host, sid, msg("later", text="one more"))
    second = backup(s3_repo(bucket), host.location.data_root)
    assert second.chunks_reused >= first.chunks_new - second.chunks_new
    # The big attachment and the old part of the transcript are named again, not sent again.
    assert second.bytes > 6 << 20
    assert second.bytes_uploaded < 1 << 20  # some database pages and the transcript's tail
    assert [first.snapshot_id, second.snapshot_id] == s3_repo(bucket).snapshot_ids()


def test_a_grown_transcript_uploads_only_its_last_chunk_onwards(host, bucket):
    """Chunks sit at fixed offsets: the full chunks before the old end are named again, never sent again."""
    sid = new_session(host, title="Long")
    words = random.Random(3)
    for index in range(14):  # about 3.5 MiB of transcript: three full 1 MiB chunks and a partial one
        text = " ".join(f"{words.randrange(10**9):09d}" for _ in range(26_000))
        append(host, sid, msg(f"m{index}", text=text))
    relative = f"sessions/{sid}.jsonl"
    size = (host.location.data_root / relative).stat().st_size
    assert size > 3 << 20
    first = backup(s3_repo(bucket), host.location.data_root)
    append(host, sid, msg("later", text="one more line at the end"))
    second = backup(s3_repo(bucket), host.location.data_root)

    repo = s3_repo(bucket)
    before = next(f for f in repo.manifest(first.snapshot_id).files if f.path == relative)
    after = next(f for f in repo.manifest(second.snapshot_id).files if f.path == relative)
    assert after.size > before.size and len(after.chunks) == len(before.chunks) == 4
    assert [c for c in after.chunks if c not in before.chunks] == [after.chunks[3]]  # only the old partial one
    # That chunk (about half a MiB) and the database pages the message changed: a fraction of the first run.
    assert second.bytes_uploaded < first.bytes_uploaded // 4


def test_keep_prunes_old_snapshots_and_unused_chunks(host, tmp_path):
    sid, _ = filled_root(host)
    store = FolderStore(tmp_path / "backups")
    repo = open_repository(store, PASSPHRASE, create=True)
    backup(repo, host.location.data_root)
    host.call("attachments.importText", {"text": "only in the middle snapshot " * 100})
    backup(repo, host.location.data_root)
    append(host, sid, msg("late", text="newest"))
    last = backup(repo, host.location.data_root, keep=1)
    assert last.snapshots_pruned == 2 and last.chunks_pruned > 0
    assert repo.snapshot_ids() == [last.snapshot_id]
    target = tmp_path / "restored"
    restore(repo, target)
    assert payload_files(target) == payload_files(host.location.data_root)


def test_crash_reports_logs_and_scratch_are_never_in_a_backup(host, tmp_path):
    """Crash reports stay on this computer (spec 004 section 2: never uploaded), like logs and scratch."""
    filled_root(host)
    root = host.location.data_root
    (root / "crash-dumps").mkdir(exist_ok=True)
    (root / "crash-dumps" / "host-1.txt").write_text("Fatal Python error: Segmentation fault\n")
    (root / "crash-dumps.json").write_text('{"lastReportedMtime": 1}')
    for folder in ("logs/host", "scratch/some-chat"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "kept-here.txt").write_text("local only")
    repo = open_repository(FolderStore(tmp_path / "backups"), PASSPHRASE, create=True)
    backup(repo, root)
    target = tmp_path / "restored"
    manifest = restore(repo, target)
    tops = {entry.path.split("/")[0] for entry in manifest.files}
    assert "sessions" in tops and "attachments" in tops
    assert not tops & {"crash-dumps", "crash-dumps.json", "logs", "scratch"}
    assert not (target / "crash-dumps").exists() and not (target / "crash-dumps.json").exists()


def test_wrong_passphrase_is_refused_and_changes_nothing(host, bucket, tmp_path):
    filled_root(host)
    backup(s3_repo(bucket), host.location.data_root)
    client = s3.connect(bucket, CREDENTIALS)
    before = {o["Key"]: o["ETag"] for o in client.list_objects_v2(Bucket=bucket.bucket)["Contents"]}
    with pytest.raises(vault.WrongPassphrase):
        s3_repo(bucket, "not the passphrase")
    after = {o["Key"]: o["ETag"] for o in client.list_objects_v2(Bucket=bucket.bucket)["Contents"]}
    assert before == after
    target = tmp_path / "restored"
    result = _cli(["restore", "s3", *_s3_args(bucket), str(target)], passphrase="wrong")
    assert result.returncode == 2 and "passphrase is wrong" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not target.exists()


def test_restore_into_a_non_empty_folder_is_refused(host, tmp_path):
    filled_root(host)
    repo = open_repository(FolderStore(tmp_path / "backups"), PASSPHRASE, create=True)
    backup(repo, host.location.data_root)
    target = tmp_path / "busy"
    target.mkdir()
    (target / "mine.txt").write_text("keep me")
    with pytest.raises(Refused, match="not empty"):
        restore(repo, target)
    assert [p.name for p in target.iterdir()] == ["mine.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    restore(repo, empty)
    assert verify(empty).ok


def test_a_bucket_that_refuses_writes_keeps_earlier_snapshots(host, bucket, tmp_path):
    sid, _ = filled_root(host)
    first = backup(s3_repo(bucket), host.location.data_root)
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket.bucket}/*"}
    client = s3.connect(bucket, CREDENTIALS)
    client.put_bucket_policy(Bucket=bucket.bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [deny]}))
    append(host, sid, msg("blocked", text="not stored"))
    with pytest.raises(s3.S3Problem) as err:
        backup(s3_repo(bucket), host.location.data_root)
    assert err.value.code == s3.WRITES_REFUSED
    result = _cli(["backup", "s3", *_s3_args(bucket)], data_dir=host.location.data_root)
    assert result.returncode == 1 and "refused to store data" in result.stderr
    assert s3_repo(bucket).snapshot_ids() == [first.snapshot_id]
    restore(s3_repo(bucket), tmp_path / "restored")
    assert verify(tmp_path / "restored").ok


def test_cli_backup_list_and_restore_through_a_folder(host, tmp_path):
    filled_root(host)
    store = tmp_path / "backups"
    first = _cli(["backup", "folder", str(store)], data_dir=host.location.data_root)
    assert first.returncode == 0, first.stderr
    assert "snapshot " in first.stdout
    listed = _cli(["snapshots", "folder", str(store)])
    assert listed.returncode == 0 and len(listed.stdout.strip().splitlines()) == 1
    target = tmp_path / "restored"
    restored = _cli(["restore", "folder", str(store), str(target)])
    assert restored.returncode == 0, restored.stderr
    assert payload_files(target) == payload_files(host.location.data_root)
    again = _cli(["restore", "folder", str(store), str(target)])
    assert again.returncode == 2 and "not empty" in again.stderr


def test_kill_during_backup_keeps_snapshots_and_the_next_run_reuses_chunks(host, bucket, tmp_path):
    filled_root(host)
    first = backup(s3_repo(bucket), host.location.data_root)
    host.call("attachments.importText", {"text": random.Random(1).randbytes(6 << 20).hex()})  # 12 MiB: 3 chunks
    killed = _killed_run("backup", bucket, host.location.data_root)
    assert killed.returncode == -9, killed.stderr
    repo = s3_repo(bucket)
    assert repo.snapshot_ids() == [first.snapshot_id]
    second = backup(repo, host.location.data_root)
    # The killed run had stored at least one 4 MiB chunk of the new attachment; this run names it again.
    assert second.bytes_uploaded <= (12 << 20) - (4 << 20) + (1 << 20)
    target = tmp_path / "restored"
    restore(repo, target)
    assert payload_files(target) == payload_files(host.location.data_root)


def test_kill_during_restore_leaves_nothing_a_host_would_open(host, bucket, tmp_path):
    filled_root(host, big_bytes=3 << 20)
    backup(s3_repo(bucket), host.location.data_root)
    target = tmp_path / "restored"
    killed = _killed_run("restore", bucket, target)
    assert killed.returncode == -9
    assert not target.exists()
    restore(s3_repo(bucket), target)  # the next restore clears what the killed one left
    assert verify(target).ok and not staging_folder(target).exists()


# -- helpers ---------------------------------------------------------------------------------
def _s3_args(location: s3.S3Location) -> list[str]:
    return ["--endpoint", str(location.endpoint), "--bucket", location.bucket, "--prefix", location.prefix]


def _env(passphrase: str, credentials: s3.S3Credentials = CREDENTIALS) -> dict[str, str]:
    return {
        **os.environ,
        "PIDESKTOP_BACKUP_PASSPHRASE": passphrase,
        s3.ENV_ACCESS_KEY: credentials.access_key,
        s3.ENV_SECRET_KEY: credentials.secret_key,
    }


def _cli(
    args: list[str],
    passphrase: str = PASSPHRASE,
    data_dir: Path | None = None,
    credentials: s3.S3Credentials = CREDENTIALS,
) -> subprocess.CompletedProcess[str]:
    where = ["--data-dir", str(data_dir)] if data_dir else []
    command = [sys.executable, "-m", "pidesktop", "data", *where, *args]
    env = _env(passphrase, credentials)
    return subprocess.run(command, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)


_KILLER = """
import os, signal, sys
from pathlib import Path
from pidesktop.storage import s3
from pidesktop.storage.blobstore import S3Store
from pidesktop.storage.snapshot_format import open_repository
from pidesktop.storage.snapshot_backup import backup
from pidesktop.storage.snapshot_restore import restore

what, endpoint, bucket, prefix, path = sys.argv[1:]
location = s3.S3Location(bucket, endpoint, "us-east-1", prefix)
repo = open_repository(S3Store(s3.connect(location), location), os.environ["PIDESKTOP_BACKUP_PASSPHRASE"])

stored = 0
put = repo.store.put

def put_then_die(name, data):
    global stored
    put(name, data)
    stored += len(data)
    if stored > 5 << 20:  # part way: some chunks are stored, the rest are not
        os.kill(os.getpid(), signal.SIGKILL)

def progress(done, total):
    if done > 2 << 20:  # part way: some files are written, the rest are not
        os.kill(os.getpid(), signal.SIGKILL)

if what == "backup":
    repo.store.put = put_then_die
    backup(repo, Path(path))
else:
    restore(repo, Path(path), progress=progress)
raise SystemExit("not killed")
"""


def _killed_run(what: str, location: s3.S3Location, path: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", _KILLER, what, str(location.endpoint), location.bucket, location.prefix, str(path)]
    return subprocess.run(command, env=_env(PASSPHRASE), capture_output=True, text=True)


def test_host_snapshot_job_and_a_wrong_passphrase(host, tmp_path):
    from tests.test_data_commands import run

    filled_root(host)
    folder = tmp_path / "backups"
    done = run(host, "data.snapshot", {"folder": str(folder), "passphrase": PASSPHRASE, "keep": 2})
    assert done["status"] == "done", done
    assert done["result"]["files"] >= 3 and done["result"]["chunksNew"] > 0
    before = sorted(p.name for p in folder.rglob("*"))
    refused = run(host, "data.snapshot", {"folder": str(folder), "passphrase": "another one"})
    assert refused["status"] == "failed" and "passphrase is wrong" in refused["error"]["message"]
    assert sorted(p.name for p in folder.rglob("*")) == before
    error = host.error("data.snapshot", {"folder": "relative/dir", "passphrase": "x"})
    assert error.data["field"] == "folder"
    error = host.error("data.snapshot", {"folder": str(host.location.data_root / "b"), "passphrase": "x"})
    assert "overlaps" in error.data["sentence"]
    restore(open_repository(FolderStore(folder), PASSPHRASE), tmp_path / "restored")
    assert payload_files(tmp_path / "restored") == payload_files(host.location.data_root)


def test_cli_a_missing_bucket_exits_non_zero_with_one_sentence(host, s3_server, tmp_path):
    filled_root(host)
    missing = s3_server.location("no-such-bucket", prefix="p")
    for args in (["backup", "s3", *_s3_args(missing)], ["snapshots", "s3", *_s3_args(missing)]):
        result = _cli(args, data_dir=host.location.data_root)
        assert result.returncode == 1, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "'no-such-bucket' does not exist" in lines[0], result.stderr
    result = _cli(["restore", "s3", *_s3_args(missing), str(tmp_path / "restored")])
    assert result.returncode == 1 and "does not exist" in result.stderr and not (tmp_path / "restored").exists()


def test_cli_refused_keys_exit_non_zero_with_one_sentence(host, s3_checking_keys, tmp_path):
    filled_root(host)
    location, good = s3_checking_keys.location, s3_checking_keys.credentials
    made = _cli(["backup", "s3", *_s3_args(location)], data_dir=host.location.data_root, credentials=good)
    assert made.returncode == 0, made.stderr
    wrong = s3.S3Credentials(good.access_key, "not-the-secret")
    target = tmp_path / "restored"
    for args in (["backup", "s3", *_s3_args(location)], ["snapshots", "s3", *_s3_args(location)]):
        result = _cli(args, data_dir=host.location.data_root, credentials=wrong)
        assert result.returncode == 1, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "refused the access key or secret" in lines[0], result.stderr
    result = _cli(["restore", "s3", *_s3_args(location), str(target)], credentials=wrong)
    assert result.returncode == 1 and "refused the access key or secret" in result.stderr and not target.exists()
    restored = _cli(["restore", "s3", *_s3_args(location), str(target)], credentials=good)
    assert restored.returncode == 0 and verify(target).ok


def test_saved_keys_go_only_when_asked_and_come_back_readable(host, tmp_path):
    filled_root(host)
    provider = {"id": "acme", "name": "Acme", "baseUrl": "https://api.acme.test/v1"}
    host.call("providers.upsert", {"provider": provider, "apiKey": "sk-secret-123"})
    repo = open_repository(FolderStore(tmp_path / "backups"), PASSPHRASE, create=True)
    plain = backup(repo, host.location.data_root)
    assert not [f.path for f in repo.manifest(plain.snapshot_id).files if f.path.startswith("secrets/")]
    with_keys = backup(repo, host.location.data_root, include_secrets=True)
    assert [f.path for f in repo.manifest(with_keys.snapshot_id).files if f.path.startswith("secrets/")]

    for snapshot, key in ((plain.snapshot_id, None), (with_keys.snapshot_id, "sk-secret-123")):
        target = tmp_path / f"restored-{snapshot}"
        restore(repo, target, snapshot)
        restored = InProcessHost(paths.resolve(data_dir=target))
        try:
            assert restored.call("providers.credentials", {"providerId": "acme"})["apiKey"] == key
        finally:
            restored.stop()


def _on_a_terminal(args: list[str], answers: list[str]) -> tuple[int, str]:
    """Run ``pidesktop data ARGS`` with a terminal as its input and no passphrase variable; type each answer
    once its prompt is shown (turning the echo off discards anything typed earlier)."""
    import pty

    env = {k: v for k, v in _env(PASSPHRASE).items() if k != "PIDESKTOP_BACKUP_PASSPHRASE"}
    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "pidesktop", "data", *args]
    proc = subprocess.Popen(
        command, env=env, stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    said = b""
    try:
        assert proc.stderr is not None and proc.stdout is not None
        for asked, answer in enumerate(answers):
            while said.count(b": ") <= asked and proc.poll() is None:
                said += os.read(proc.stderr.fileno(), 1)  # blocks until the prompt's next byte
            os.write(leader, f"{answer}\n".encode())
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
        os.close(follower)
    return proc.returncode, (said + err + out).decode()


def test_on_a_terminal_the_passphrase_is_asked_for(host, tmp_path):
    filled_root(host)
    store = tmp_path / "backups"
    backup_args = ["--data-dir", str(host.location.data_root), "backup", "folder", str(store)]
    code, said = _on_a_terminal(backup_args, [""])
    assert code == 2 and "passphrase is empty" in said  # nothing typed: refused, nothing made
    assert not (store / "backup.json").exists()
    code, said = _on_a_terminal(backup_args, [PASSPHRASE, PASSPHRASE])  # a new backup asks twice
    assert code == 0 and "Same passphrase again" in said and "snapshot " in said, said
    code, said = _on_a_terminal(["snapshots", "folder", str(store)], [PASSPHRASE])
    assert code == 0 and len([line for line in said.splitlines() if " files " in line]) == 1, said
    code, said = _on_a_terminal(["snapshots", "folder", str(store)], ["not it"])
    assert code == 2 and "passphrase is wrong" in said
