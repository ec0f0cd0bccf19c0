"""Guards at the edges of the store: credentials stay out, host files are locked, blobs keep their type."""

from __future__ import annotations

import multiprocessing

import apsw
import pytest

from pidesktop.workflows import blobs, channels, controllers, decisions, delivery, effects, errors, runs
from pidesktop.workflows.errors import BlobRejected, TransitionRejected
from pidesktop.workflows.ownership import Actor
from tests.support.workflows_support import count, running_run, snapshot

# -- credentials never enter the database -------------------------------------------------


def _refused(path, call, *args, **kwargs):
    before = snapshot(path)
    with pytest.raises(TransitionRejected, match="credential"):
        call(*args, **kwargs)
    assert snapshot(path) == before


def test_run_input_and_bindings_refuse_credentials(store, flow, path):
    project_id, definition_id = flow
    _refused(
        path,
        runs.create,
        store,
        project_id=project_id,
        definition_id=definition_id,
        input={"repo": "x", "auth": {"apiKey": "sk-1"}},
    )
    _refused(
        path,
        runs.create,
        store,
        project_id=project_id,
        definition_id=definition_id,
        bindings={"github": ("input", {"token": "ghp_1"})},
    )
    permit = running_run(store, *flow)
    _refused(path, runs._post_update, store, permit, "progress", {"step": 1, "password": "p"})


def test_decisions_refuse_credentials(store, flow, path, clock):
    permit = running_run(store, *flow)
    _refused(path, decisions.ask, store, permit, request={"question": "deploy?", "secret": "s"})
    _refused(
        path,
        decisions.ask,
        store,
        permit,
        request={"question": "deploy?"},
        default={"Authorization": "Bearer x"},
        deadline_at=clock() + 10,
    )
    asked = decisions.ask(store, permit, request={"question": "deploy?"})
    _refused(
        path,
        decisions.answer,
        store,
        asked.decision_id,
        Actor("human", "u1"),
        {"ok": True, "session_token": "t"},
        expected_revision=asked.revision,
    )


def test_notifications_refuse_credentials(store, flow, path):
    permit = running_run(store, *flow)
    _refused(path, delivery.notify, store, permit, level="info", body="Authorization: Bearer abc123")
    _refused(path, delivery.notify, store, permit, level="info", body="set api_key=sk-live-1 in the env")
    delivery.notify(store, permit, level="info", body="Your token expired; sign in again")  # prose is fine


def test_cursors_refuse_credentials(store, path):
    channel = channels.create(store, "chat", "room-1")
    permit = channels.claim(store, channel.channel_id, "host-a", ttl_ms=10_000)
    _refused(path, channels._advance_cursor, store, permit, "token", "abc")
    _refused(path, channels._advance_cursor, store, permit, "updates", '{"offset": 3, "accessToken": "x"}')
    _refused(path, channels._advance_cursor, store, permit, "updates", "password=hunter2")
    channels._advance_cursor(store, permit, "nextPageToken", "CAUQAA")  # a page token is a position


def test_effect_payloads_and_receipts_refuse_credentials(store, flow, path):
    project_id, _ = flow
    controller = controllers.create(store, project_id, "deployer", {"target": "prod"})
    permit = controllers.claim(store, controller.controller_id, "host-a", ttl_ms=60_000)
    with pytest.raises(TransitionRejected, match="credential"):
        effects.EffectRequest("deploy.start", "r-1", {"tag": "v1", "privateKey": "k"}, permit.resource_id)
    request = effects.EffectRequest("deploy.start", "r-1", {"tag": "v1"}, permit.resource_id, delivery="external")
    reserved = effects.reserve(store, permit, request)
    effect = effects.get(store.conn, reserved.value)
    attempt = effects._begin_attempt(store, effect.effect_id, permit.claim, expected_revision=effect.revision)
    _refused(
        path,
        effects.settle,
        store,
        attempt,
        permit.claim,
        outcome="succeeded",
        result={"id": "d-1", "refresh_token": "r"},
    )
    _refused(
        path,
        effects.settle,
        store,
        attempt,
        permit.claim,
        outcome="failed",
        error={"request": {"headers": {"Cookie": "c"}}},
    )
    effects.settle(store, attempt, permit.claim, outcome="succeeded", result={"id": "d-1"})


# -- the host lock and the child-process registry ------------------------------------------


def _try_lock(agent_dir: str, project: str, queue) -> None:
    from pidesktop.workflows import hosts

    try:
        with hosts.acquire(project, env={"PI_CODING_AGENT_DIR": agent_dir}):
            queue.put("acquired")
    except errors.HostBusy as exc:
        queue.put(f"refused: {exc}")


def test_a_second_host_for_one_project_is_refused(tmp_path):
    from pidesktop.workflows import hosts

    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    first = hosts.acquire("/src/app", env=env)
    try:
        assert first.lock_path.parent.name == "hosts"
        with pytest.raises(errors.HostBusy, match=r"already runs for /src/app.*pid \d+"):
            hosts.acquire("/src/app", env=env)
        # another process meets the same lock
        queue = multiprocessing.get_context("spawn").Queue()
        child = multiprocessing.get_context("spawn").Process(
            target=_try_lock, args=(env["PI_CODING_AGENT_DIR"], "/src/app", queue)
        )
        child.start()
        child.join(30)
        assert queue.get(timeout=5).startswith("refused: ")
        # a different project runs concurrently
        with hosts.acquire("/src/other", env=env):
            pass
    finally:
        first.release()
    with hosts.acquire("/src/app", env=env) as again:
        assert again.held


def test_the_child_registry_is_written_only_by_the_lock_holder(tmp_path):
    from pidesktop.workflows import hosts

    env = {"PI_CODING_AGENT_DIR": str(tmp_path / "agent")}
    host = hosts.acquire("/src/app", env=env)
    host.write_children([{"pid": 123, "kind": "pi"}])
    assert host.read_children() == [{"pid": 123, "kind": "pi"}]
    assert oct(host.registry_path.stat().st_mode & 0o777) == "0o600"
    host.release()
    with pytest.raises(errors.HostBusy, match="not held"):
        host.write_children([])
    with hosts.acquire("/src/app", env=env) as successor:
        assert successor.read_children() == [{"pid": 123, "kind": "pi"}]  # what the crashed host left


# -- blobs: adoption compares the stored media type ------------------------------------------


def test_adoption_refuses_a_stored_row_that_is_not_what_its_media_type_says(store):
    content = b'{"b":1, "a":2}'  # valid text, but not canonical JSON
    store.conn.execute(
        "INSERT INTO blobs (digest, media_type, byte_length, content, created_at) "
        "VALUES (?, 'application/json', ?, ?, 0)",
        (blobs.sha256(content), len(content), content),
    )
    with pytest.raises(BlobRejected, match="application/json"):
        blobs.put(store.conn, blobs.of_text(content.decode()), 1)
    assert count(store, "blobs") == 1


def test_text_and_json_with_the_same_bytes_still_share_a_row(store):
    answer = blobs.of_json(2)  # a decision's answer
    part = blobs.of_text("2")  # the message part that says it
    assert blobs.put(store.conn, answer, 1) == blobs.put(store.conn, part, 1)
    assert blobs.read_text(store.conn, answer.digest) == "2"
    assert count(store, "blobs") == 1


def test_a_blob_row_with_a_foreign_media_type_is_never_adopted(store):
    # The CHECK constraint keeps foreign media types out of a sound file; a
    # file that lost it (a hand edit, a damaged schema) must still not be trusted.
    conn = store.conn
    conn.execute("PRAGMA ignore_check_constraints = ON")
    try:
        content = b"hello"
        conn.execute(
            "INSERT INTO blobs (digest, media_type, byte_length, content, created_at) VALUES (?, 'image/png', 5, ?, 0)",
            (blobs.sha256(content), content),
        )
    finally:
        conn.execute("PRAGMA ignore_check_constraints = OFF")
    with pytest.raises(BlobRejected, match="image/png"):
        blobs.put(conn, blobs.of_text("hello"), 1)
    with pytest.raises(apsw.Error):
        conn.execute("UPDATE blobs SET media_type = 'text/plain;charset=utf-8'")
