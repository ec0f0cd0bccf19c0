"""The write contract and the shared records: revisions, leases, events, effects, blobs."""

from __future__ import annotations

import dataclasses

import apsw
import pytest

from pidesktop.workflows import (
    attempts,
    blobs,
    channels,
    claims,
    controllers,
    effects,
    leases,
    resources,
    runs,
    write,
)
from pidesktop.workflows.errors import (
    ActorRejected,
    BlobRejected,
    CommandRejected,
    IdempotencyConflict,
    IncompatibleState,
    LeaseHeld,
    OwnershipRejected,
    RevisionConflict,
    TransitionRejected,
)
from pidesktop.workflows.ownership import CONTROL, Actor
from tests.support.workflows_support import count, running_run, snapshot

# -- every check rolls the whole command back ---------------------------------------------------


def _rolled_back(store, path, call, error):
    before = snapshot(path)
    with pytest.raises(error):
        call()
    assert store.conn.getautocommit(), "no transaction is left open"
    assert snapshot(path) == before, "no partial rows"


def test_each_write_contract_check_rolls_back_the_whole_command(store, path, flow, clock):
    channel = channels.create(store, "chat", "room-9")
    good = permit = running_run(store, *flow)
    # verify the actor and operation
    _rolled_back(
        store,
        path,
        lambda: write.execute(
            store,
            write.Command("run.finish", Actor("human", "h1"), permit.resource_id, permit.revision, event_type="x"),
            apply=lambda tx, _: None,
        ),
        ActorRejected,
    )
    # verify the expected resource revision
    _rolled_back(
        store, path, lambda: runs.finish(store, good.at(good.revision - 1), outcome="succeeded"), RevisionConflict
    )
    # verify the claim token, generation and expiry
    wrong_token = good.at(good.revision)
    wrong_token = dataclasses.replace(wrong_token, claim=dataclasses.replace(good.claim, token="guess"))
    _rolled_back(store, path, lambda: runs.finish(store, wrong_token, outcome="succeeded"), OwnershipRejected)
    wrong_generation = dataclasses.replace(good, claim=dataclasses.replace(good.claim, generation=7))
    _rolled_back(store, path, lambda: runs.finish(store, wrong_generation, outcome="succeeded"), OwnershipRejected)
    # verify the domain transition
    _rolled_back(store, path, lambda: attempts.start(store, good, "no-such-node"), CommandRejected)
    # write content-addressed values: a blob whose digest lies
    bad = blobs.of_json({"a": 1})
    bad = dataclasses.replace(bad, digest=blobs.sha256(b"other"))
    _rolled_back(
        store,
        path,
        lambda: write.execute(
            store,
            write.Command(
                "run.update",
                Actor("run_owner", "host-a"),
                good.resource_id,
                good.revision,
                owner=good.resource_id,
                claim=good.claim,
                event_type="run.updated",
                blobs=(blobs.of_text("fine"), bad),
            ),
            apply=lambda tx, _: None,
        ),
        BlobRejected,
    )

    # insert deterministic follow-up effects: a conflict in the last step undoes the domain rows too
    def apply(tx, _):
        tx.run("UPDATE runs SET cancel_requested_at = 1 WHERE resource_id = ?", (good.resource_id,))
        tx.effect(effects.EffectRequest("custom.work", "k", {"v": 1}, good.resource_id))
        tx.effect(effects.EffectRequest("custom.work", "k", {"v": 2}, good.resource_id))

    _rolled_back(
        store,
        path,
        lambda: write.execute(
            store,
            write.Command(
                "run.update",
                Actor("run_owner", "host-a"),
                good.resource_id,
                good.revision,
                owner=good.resource_id,
                claim=good.claim,
                event_type="run.updated",
            ),
            apply=apply,
        ),
        IdempotencyConflict,
    )
    # a constraint checked only at COMMIT (the deferred message -> effect key)
    _rolled_back(
        store,
        path,
        lambda: write.execute(
            store,
            write.Command(
                "run.update",
                Actor("run_owner", "host-a"),
                good.resource_id,
                good.revision,
                owner=good.resource_id,
                claim=good.claim,
                event_type="run.updated",
            ),
            apply=lambda tx, _: tx.run(
                "INSERT INTO channel_messages (message_id, channel_id, effect_id, status, created_at) "
                "VALUES ('m', ?, 'missing', 'pending', 0)",
                (channel.channel_id,),
            ),
        ),
        CommandRejected,
    )
    # an expired claim
    clock.advance(61_000)
    _rolled_back(store, path, lambda: runs.finish(store, good, outcome="succeeded"), OwnershipRejected)


def test_a_schema_change_under_an_open_writer_stops_its_writes(store, path, flow):
    permit = running_run(store, *flow)
    other = apsw.Connection(str(path))
    other.execute("CREATE TABLE intruder (x)")
    other.close()
    _rolled_back(store, path, lambda: runs._post_update(store, permit, "progress", {"n": 1}), IncompatibleState)


def test_every_accepted_command_increments_the_revision_once_with_one_event(store, flow):
    permit = running_run(store, *flow)
    assert permit.revision == 2
    started = attempts.start(store, permit, "plan", prompt="make a plan")
    permit = attempts.complete(store, started.permit, started.attempt_id, {"steps": 3})
    permit = runs._post_update(store, permit, "progress", {"done": 1})
    outcome = runs.finish(store, permit, outcome="succeeded", output={"ok": True})
    assert outcome.revision == 6
    history = resources.history(store.conn, permit.resource_id)
    assert [e.revision for e in history] == [1, 2, 3, 4, 5, 6]
    assert [e.event_type for e in history] == [
        "run.created",
        "run.claimed",
        "attempt.started",
        "attempt.succeeded",
        "run.updated",
        "run.succeeded",
    ]
    assert {e.lease_generation for e in history[1:]} == {1}
    late = runs.finish(store, permit.at(6), outcome="failed")
    assert (late.status, late.adopted, late.revision) == ("succeeded", True, 6)


def test_events_are_immutable(store, flow):
    running_run(store, *flow)
    with pytest.raises(apsw.ConstraintError):
        store.conn.execute("UPDATE events SET event_type = 'x'")
    with pytest.raises(apsw.ConstraintError):
        store.conn.execute("DELETE FROM events")


# -- leases -------------------------------------------------------------------------------------


def test_lease_generations_only_grow_under_takeover(store, flow, clock):
    controller = controllers.create(store, flow[0], "ctl", {"watch": "x"})
    resource = controller.resource_id
    first = leases.acquire(store, resource, "host-a", ttl_ms=1000)
    assert first.generation == 1 and "token" not in repr(first)
    with pytest.raises(LeaseHeld):
        leases.acquire(store, resource, "host-b", ttl_ms=1000)
    clock.advance(1001)
    second = leases.acquire(store, resource, "host-b", ttl_ms=1000)
    assert second.generation == 2
    with pytest.raises(OwnershipRejected):
        leases.renew(store, first, ttl_ms=1000)
    with pytest.raises(OwnershipRejected):
        leases.release(store, first)
    leases.release(store, second)
    view = leases.current(store.conn, resource, clock())
    assert (view.generation, view.held, view.owner_id) == (2, False, None)
    stored = store.conn.execute("SELECT token_sha256 FROM leases WHERE resource_id = ?", (resource,)).fetchone()
    assert stored[0] is None
    third = leases.acquire(store, resource, "host-a", ttl_ms=1000)
    assert third.generation == 3
    token_hash = store.conn.execute("SELECT token_sha256 FROM leases WHERE resource_id = ?", (resource,)).fetchone()
    assert bytes(token_hash[0]) == claims.token_sha256(third.token) and third.token.encode() not in bytes(token_hash[0])
    for statement in (
        "UPDATE leases SET generation = 1",
        "DELETE FROM leases",
        "UPDATE leases SET token_sha256 = zeroblob(32)",
    ):
        with pytest.raises(apsw.ConstraintError):
            store.conn.execute(statement)


def test_a_stale_run_owner_cannot_write_after_takeover(store, flow, clock):
    ref = runs.create(store, project_id=flow[0], definition_id=flow[1])
    old = runs.claim(store, ref.run_id, "host-a", ttl_ms=1000, expected_revision=1)
    attempt = attempts.start(store, old, "reply")
    old = attempt.permit
    with pytest.raises(LeaseHeld):
        runs.claim(store, ref.run_id, "host-b", ttl_ms=1000, expected_revision=old.revision)
    clock.advance(1500)
    new = runs.claim(store, ref.run_id, "host-b", ttl_ms=60_000, expected_revision=old.revision)
    assert new.claim.generation == 2
    stale = old.at(new.revision)  # even with the current revision, the stale claim is refused
    for command in (
        lambda: runs.finish(store, stale, outcome="failed"),
        lambda: runs._post_update(store, stale, "progress", {}),
        lambda: attempts._complete_assistant_message(store, stale, attempt.attempt_id, "hi"),
        lambda: attempts.start(store, stale, "plan"),
    ):
        with pytest.raises(OwnershipRejected):
            command()
    # The new owner must resume the interrupted assistant-message attempt first; it keeps its id.
    with pytest.raises(TransitionRejected, match="resume"):
        attempts._complete_assistant_message(store, new, attempt.attempt_id, "hi")
    resumed = attempts.resume(store, new, attempt.attempt_id)
    assert resumed.attempt_id == attempt.attempt_id
    receipt, new = attempts._complete_assistant_message(
        store, resumed.permit, attempt.attempt_id, "hi", final_entry_id="e9", adopted=True
    )
    assert receipt["adopted"] is True
    assert runs.finish(store, new, outcome="succeeded").status == "succeeded"


# -- effects ------------------------------------------------------------------------------------


def test_effect_key_adoption_and_conflict(store, flow):
    controller = controllers.create(store, flow[0], "ctl", {})
    permit = controllers.claim(store, controller.controller_id, "host-a", ttl_ms=60_000)
    request = effects.EffectRequest("deploy.start", "release-1", {"tag": "v1"}, permit.resource_id, delivery="external")
    first = effects.reserve(store, permit, request)
    permit = permit.at(first.revision)
    again = effects.reserve(
        store,
        permit,
        effects.EffectRequest("deploy.start", "release-1", {"tag": "v1"}, permit.resource_id, delivery="external"),
    )
    assert again.adopted and again.value == first.value and again.revision == permit.revision
    assert count(store, "effects") == 1
    with pytest.raises(IdempotencyConflict):
        effects.reserve(
            store,
            permit,
            effects.EffectRequest("deploy.start", "release-1", {"tag": "v2"}, permit.resource_id, delivery="external"),
        )
    effect = effects.get(store.conn, first.value)
    assert effect.effect_id == effects.effect_id(permit.resource_id, "deploy.start", "release-1")
    assert (effect.source_resource_id, effect.source_revision) == (permit.resource_id, permit.revision)
    assert effects.payload(store.conn, effect) == {"tag": "v1"}


def test_queue_settlement_effects_exist_only_for_runs_with_a_queue_row(store, flow):
    direct = running_run(store, *flow)
    runs.finish(store, direct, outcome="succeeded")
    assert count(store, "effects") == 0
    queued = running_run(store, *flow, pi_session_id="pi-1")
    runs.finish(store, queued, outcome="failed", error={"message": "boom"})
    [effect] = effects.unsettled(store.conn)
    assert effect.effect_type == "run_queue.settle"
    result = effects._apply_local(store, effect.effect_id, queued.claim, expected_revision=effect.revision)
    assert result.value == {"outcome": "failed", "adopted": False}
    assert store.conn.execute("SELECT status, outcome FROM run_queue").fetchone() == ("settled", "failed")
    with pytest.raises(TransitionRejected):
        effects._apply_local(store, effect.effect_id, queued.claim, expected_revision=result.revision)

    def phantom(tx, _):
        tx.effect(
            effects.EffectRequest(
                "run_queue.settle", "x", {"runId": direct.resource_id.split(":")[1]}, direct.resource_id
            )
        )

    with pytest.raises(TransitionRejected, match="run_queue row"):
        write.execute(
            store,
            write.Command(
                "run.create", CONTROL, resources.rid("run", "phantom"), creates=True, event_type="run.created"
            ),
            apply=phantom,
        )


def _channel_send(store, flow, clock):
    channel = channels.create(store, "chat", "room-1")
    permit = channels.claim(store, channel.channel_id, "host-a", ttl_ms=1000)
    message_id, effect_id, permit = channels._queue_message(store, permit, ["hello", "world"])
    return channel, permit, message_id, effect_id


def test_ambiguous_effects_are_not_repeated_without_evidence(store, flow, clock):
    channel, permit, message_id, effect_id = _channel_send(store, flow, clock)
    effect = effects.get(store.conn, effect_id)
    attempt = effects._begin_attempt(store, effect_id, permit.claim, expected_revision=effect.revision)
    # The owner dies during the external call; another takes the channel over.
    clock.advance(2000)
    other = channels.claim(store, channel.channel_id, "host-b", ttl_ms=60_000)
    with pytest.raises(OwnershipRejected):
        effects.settle(store, attempt, permit.claim, outcome="succeeded")
    with pytest.raises(TransitionRejected, match="earlier owner"):
        effects.settle(store, attempt, other.claim, outcome="succeeded")
    effect = effects.get(store.conn, effect_id)
    recovered = effects.recover(store, effect_id, other.claim, expected_revision=effect.revision)
    assert recovered.value == "ambiguous"
    effect = effects.get(store.conn, effect_id)
    assert effect.unresolved and channels.message(store.conn, message_id)["status"] == "ambiguous"
    with pytest.raises(TransitionRejected, match="evidence"):
        effects._begin_attempt(store, effect_id, other.claim, expected_revision=effect.revision)
    with pytest.raises(TransitionRejected, match="evidence"):
        effects._resolve_ambiguous(
            store, effect_id, other.claim, expected_revision=effect.revision, evidence={}, applied=False
        )
    assert count(store, "effect_attempts") == 1
    # Evidence that the provider never saw it: the effect may be attempted again.
    effects._resolve_ambiguous(
        store,
        effect_id,
        other.claim,
        expected_revision=effect.revision,
        evidence={"searched": "provider history", "found": False},
        applied=False,
    )
    effect = effects.get(store.conn, effect_id)
    attempt = effects._begin_attempt(store, effect_id, other.claim, expected_revision=effect.revision)
    assert attempt.attempt_no == 2 and attempt.generation == 2
    settled = effects.settle(
        store, attempt, other.claim, outcome="succeeded", result={"deliveredAs": "m-77"}, external_ref="m-77"
    )
    assert settled.value == "succeeded"
    message = channels.message(store.conn, message_id)
    assert (message["status"], message["externalRef"], message["receipt"]) == ("sent", "m-77", {"deliveredAs": "m-77"})
    assert message["parts"] == ["hello", "world"]


def test_a_failed_external_attempt_can_be_scheduled_for_retry(store, flow, clock):
    _, permit, message_id, effect_id = _channel_send(store, flow, clock)
    effect = effects.get(store.conn, effect_id)
    attempt = effects._begin_attempt(store, effect_id, permit.claim, expected_revision=effect.revision)
    effects.settle(store, attempt, permit.claim, outcome="failed", error={"status": 503}, retry_at=clock() + 500)
    effect = effects.get(store.conn, effect_id)
    assert (effect.status, effect.retry_at) == ("pending", clock() + 500)
    with pytest.raises(TransitionRejected, match="retry"):
        effects._begin_attempt(store, effect_id, permit.claim, expected_revision=effect.revision)
    clock.advance(500)
    attempt = effects._begin_attempt(store, effect_id, permit.claim, expected_revision=effect.revision)
    effects.settle(store, attempt, permit.claim, outcome="ambiguous")
    assert effects.get(store.conn, effect_id).status == "ambiguous"
    assert channels.message(store.conn, message_id)["status"] == "ambiguous"


# -- blobs --------------------------------------------------------------------------------------


def _put(store, blob):
    store.conn.execute("BEGIN IMMEDIATE")
    try:
        return blobs.put(store.conn, blob, 1)
    finally:
        store.conn.execute("COMMIT")


def test_blob_verification(store):
    good = blobs.of_json({"b": [1, 2.5, "x"], "a": None})
    assert good.content == b'{"a":null,"b":[1,2.5,"x"]}'
    assert _put(store, good) == good.digest and len(good.digest) == 32
    assert _put(store, blobs.of_json({"a": None, "b": [1, 2.5, "x"]})) == good.digest
    assert count(store, "blobs") == 1
    for broken, match in [
        (dataclasses.replace(good, digest=blobs.sha256(b"x")), "digest"),
        (dataclasses.replace(good, length=good.length + 1), "length"),
        (dataclasses.replace(good, digest=b"short"), "32 bytes"),
        (blobs.Blob(blobs.sha256(b'{"b":1, "a":2}'), blobs.JSON, 14, b'{"b":1, "a":2}'), "canonical"),
        (blobs.Blob(blobs.sha256(b"\xff"), blobs.TEXT, 1, b"\xff"), "UTF-8"),
        (blobs.Blob(blobs.sha256(b"x"), "image/png", 1, b"x"), "media type"),
    ]:
        with pytest.raises(BlobRejected, match=match):
            _put(store, broken)
    assert count(store, "blobs") == 1
    # Text whose bytes are also canonical JSON shares the row, and reads back as either.
    as_text = blobs.of_text('{"a":null,"b":[1,2.5,"x"]}')
    assert _put(store, as_text) == good.digest and count(store, "blobs") == 1
    assert blobs.read_text(store.conn, good.digest) == '{"a":null,"b":[1,2.5,"x"]}'
    with pytest.raises(BlobRejected):
        blobs.of_json({"x": float("nan")})
    with pytest.raises(apsw.ConstraintError):
        store.conn.execute("UPDATE blobs SET created_at = 2")
