"""Domain commands: queue and continuations, attempts, decisions, controllers, channels,
delivery, session capture, and the read contract."""

from __future__ import annotations

import apsw
import pytest

from pidesktop.workflows import (
    attempts,
    channels,
    controllers,
    decisions,
    definitions,
    delivery,
    effects,
    projection,
    projects,
    runs,
    sessions,
    status,
    write,
)
from pidesktop.workflows.errors import (
    ActorRejected,
    IdempotencyConflict,
    NotFound,
    OwnershipRejected,
    RevisionConflict,
    TransitionRejected,
)
from pidesktop.workflows.ownership import Actor
from tests.support.workflows_support import count, running_run, snapshot

HUMAN = Actor("human", "person-1")


def apply_pending(store, permit):
    """The owner's reconciler: apply every pending local effect of its run."""
    results = []
    for effect in effects.unsettled(store.conn, permit.resource_id):
        if effect.delivery == "local" and effect.status == "pending":
            results.append(
                effects._apply_local(store, effect.effect_id, permit.claim, expected_revision=effect.revision).value
            )
    return results


# -- projects and definitions -------------------------------------------------------------------


def test_projects_and_definitions_adopt_repeats_and_refuse_changes(store, tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    first = projects.register(store, folder)
    again = projects.register(store, str(folder) + "/.")
    assert again.adopted and again.project_id == first.project_id
    with pytest.raises(TransitionRejected):
        projects.register(store, "relative/path")
    body = {"nodes": [{"id": "a", "kind": "shell"}]}
    definition = definitions.register(store, first.project_id, "wf", 1, body)
    assert definitions.register(store, first.project_id, "wf", 1, body).adopted
    with pytest.raises(IdempotencyConflict):
        definitions.register(store, first.project_id, "wf", 1, {"nodes": [{"id": "b", "kind": "shell"}]})
    for broken in (
        {"nodes": []},
        {"nodes": [{"id": "a", "kind": "agent"}]},
        {"nodes": [{"id": "a", "kind": "agent", "expectedOutput": {"kind": "assistant-message", "maxChars": 0}}]},
        {"nodes": [{"id": "a", "kind": "shell"}, {"id": "a", "kind": "shell"}]},
    ):
        with pytest.raises(TransitionRejected):
            definitions.register(store, first.project_id, "bad", 1, broken)
    assert definitions.load(store.conn, definition.definition_id) == body


# -- runs, the queue and continuations ----------------------------------------------------------


def test_one_queued_or_running_reservation_per_pi_session(store, flow):
    first = runs.create(store, project_id=flow[0], definition_id=flow[1], pi_session_id="pi-1")
    with pytest.raises(TransitionRejected, match="Pi session"):
        runs.create(store, project_id=flow[0], definition_id=flow[1], pi_session_id="pi-1")
    runs.create(store, project_id=flow[0], definition_id=flow[1], pi_session_id="pi-2")
    # The partial unique index enforces it under the domain check too.
    direct = runs.create(store, project_id=flow[0], definition_id=flow[1])
    with pytest.raises(apsw.ConstraintError):
        store.conn.execute(
            "INSERT INTO run_queue (run_id, project_id, pi_session_id, status, enqueued_at) "
            "VALUES (?, ?, 'pi-1', 'queued', 0)",
            (direct.run_id, flow[0]),
        )
    assert first.revision == 1
    explicit = runs.create(store, project_id=flow[0], definition_id=flow[1], run_id="r-1", input={"x": 1})
    assert runs.create(store, project_id=flow[0], definition_id=flow[1], run_id="r-1", input={"x": 1}).adopted
    with pytest.raises(IdempotencyConflict):
        runs.create(store, project_id=flow[0], definition_id=flow[1], run_id="r-1", input={"x": 2})
    assert runs.get(store.conn, explicit.run_id)["input"] == {"x": 1}


def test_a_parked_parent_does_not_block_its_continuation(store, flow, path):
    parent = running_run(
        store,
        *flow,
        pi_session_id="pi-1",
        input={"goal": "ship"},
        bindings={"origin": ("pi_session", {"sessionId": "pi-1", "entryId": "e0"}), "repo": ("input", "/src/app")},
    )
    parent_id = parent.resource_id.split(":")[1]
    asked = decisions.ask(store, parent, request={"question": "deploy?", "options": ["yes", "no"]})
    assert store.conn.execute("SELECT status FROM run_queue WHERE run_id = ?", (parent_id,)).fetchone() == ("parked",)
    won = decisions.answer(store, asked.decision_id, HUMAN, "yes", expected_revision=1)
    assert won.won and won.outcome == "answered" and won.response == "yes"
    [admitted] = apply_pending(store, asked.run_permit)
    child_id = admitted["runId"]
    child = runs.get(store.conn, child_id)
    assert (child["origin"], child["parentRunId"], child["queue"]["status"]) == ("continuation", parent_id, "queued")
    assert child["input"]["response"] == "yes"
    bound = store.conn.execute(
        "SELECT name, binding_kind FROM run_bindings WHERE run_id = ? ORDER BY name", (child_id,)
    ).fetchall()
    assert bound == [("origin", "pi_session"), ("repo", "input")]  # copied from the parent
    # A failed reservation (stale revision) leaves the parent parked and recoverable.
    before = snapshot(path)
    with pytest.raises(RevisionConflict):
        runs.claim(store, child_id, "host-b", ttl_ms=60_000, expected_revision=child["revision"] + 1)
    assert snapshot(path) == before
    assert runs.get(store.conn, parent_id)["queue"]["status"] == "parked"
    claimed = runs.claim(store, child_id, "host-b", ttl_ms=60_000, expected_revision=child["revision"])
    parent_view = runs.get(store.conn, parent_id)
    assert parent_view["status"] == "continued"
    assert parent_view["queue"] == {"piSessionId": "pi-1", "status": "settled", "outcome": "continued"}
    assert store.conn.execute("SELECT status FROM continuations").fetchone() == ("reserved",)
    assert [e for e in effects.unsettled(store.conn) if e.effect_type == "run_queue.settle"] == []
    runs.finish(store, claimed, outcome="succeeded", output={"done": True})
    assert apply_pending(store, claimed) == [{"outcome": "succeeded", "adopted": False}]
    # Applying the continue effect again is refused; the continuation is admitted once.
    assert count(store, "continuations") == 1


def test_a_cancelled_decision_cancels_its_parent_through_the_owner(store, flow):
    parent = running_run(store, *flow, pi_session_id="pi-1")
    asked = decisions.ask(store, parent, request={"question": "?"})
    with pytest.raises(TransitionRejected, match="open decision"):
        runs.finish(store, asked.run_permit, outcome="cancelled")
    resolution = decisions.cancel(store, asked.decision_id, expected_revision=1, reason="user closed it")
    assert resolution.outcome == "cancelled"
    view = projection._decision_view(store.conn, asked.decision_id)
    assert view == {"status": "cancelled", "outcome": "cancelled", "followUpPending": True}
    assert apply_pending(store, asked.run_permit) == [{"cancelled": asked.run_permit.resource_id.split(":")[1]}]
    assert apply_pending(store, asked.run_permit) == [{"outcome": "cancelled", "adopted": False}]
    assert projection._decision_view(store.conn, asked.decision_id)["followUpPending"] is False


# -- decisions ----------------------------------------------------------------------------------


def test_timeout_with_a_default_is_acceptance_and_expiry_needs_no_default(store, flow, clock):
    with_default = running_run(store, *flow)
    asked = decisions.ask(store, with_default, request={"options": ["a", "b"]}, default="b", deadline_at=clock() + 100)
    with pytest.raises(TransitionRejected, match="deadline has not passed"):
        decisions._apply_deadline(store, asked.decision_id, with_default.claim, expected_revision=1)
    clock.advance(100)
    accepted = decisions._apply_deadline(store, asked.decision_id, with_default.claim, expected_revision=1)
    assert (accepted.outcome, accepted.response, accepted.accepted) == ("timeout_default", "b", True)
    late = decisions.answer(store, asked.decision_id, HUMAN, "a", expected_revision=1)
    assert late.same_fact() == accepted.same_fact() and not late.won
    assert count(store, "human_decision_submissions") == 0

    without = running_run(store, *flow)
    asked = decisions.ask(store, without, request={}, deadline_at=clock() + 10)
    clock.advance(10)
    expired = decisions._apply_deadline(store, asked.decision_id, without.claim, expected_revision=1)
    assert (expired.outcome, expired.response, expired.accepted) == ("expired", None, False)
    assert decisions.cancel(store, asked.decision_id, expected_revision=2).same_fact() == expired.same_fact()

    with pytest.raises(TransitionRejected):
        decisions.ask(store, running_run(store, *flow), request={}, default="x")  # a default needs a deadline
    with pytest.raises(TransitionRejected):
        decisions.ask(store, running_run(store, *flow), request={"options": [1]}, default=2, deadline_at=1)


def test_decision_actors(store, flow):
    permit = running_run(store, *flow)
    protected = decisions.ask(store, permit, request={"options": ["go", "stop"]})
    with pytest.raises(ActorRejected, match="protected"):
        decisions.answer(store, protected.decision_id, Actor("model", "agent-1"), "go", expected_revision=1)
    with pytest.raises(ActorRejected):
        decisions.answer(store, protected.decision_id, Actor("human"), "go", expected_revision=1)
    with pytest.raises(ActorRejected):
        decisions.cancel(store, protected.decision_id, expected_revision=1, actor=HUMAN)
    with pytest.raises(TransitionRejected, match="options"):
        decisions.answer(store, protected.decision_id, HUMAN, "maybe", expected_revision=1)
    assert decisions.answer(store, protected.decision_id, HUMAN, "stop", expected_revision=1).won
    with pytest.raises(apsw.ConstraintError):
        store.conn.execute("UPDATE human_decision_resolutions SET outcome = 'cancelled'")
    other = running_run(store, *flow)
    open_one = decisions.ask(store, other, request={}, protected=False)
    assert decisions.answer(store, open_one.decision_id, Actor("model", "agent-1"), {"ok": 1}, expected_revision=1).won
    third = running_run(store, *flow, owner="host-c")
    asked = decisions.ask(store, third, request={})
    with pytest.raises(OwnershipRejected):
        decisions._apply_deadline(store, asked.decision_id, other.claim, expected_revision=1)
    owner_cancel = decisions.cancel(store, asked.decision_id, expected_revision=1, claim=third.claim)
    assert owner_cancel.actor_class == "run_owner"


# -- node attempts ------------------------------------------------------------------------------


def test_assistant_message_attempts_store_text_and_a_receipt(store, flow):
    permit = running_run(store, *flow)
    attempt = attempts.start(store, permit, "reply", prompt="say hi", pi_session_id="pi-1", prompt_entry_id="e1")
    assert (attempt.output_kind, attempt.max_chars) == ("assistant_message", 40)
    with pytest.raises(TransitionRejected, match="running node attempt"):
        attempts.start(store, attempt.permit, "plan")
    with pytest.raises(TransitionRejected, match="allows 40"):
        attempts._complete_assistant_message(store, attempt.permit, attempt.attempt_id, "x" * 41)
    with pytest.raises(TransitionRejected):
        attempts.complete(store, attempt.permit, attempt.attempt_id, {"not": "text"})
    receipt, permit = attempts._complete_assistant_message(
        store, attempt.permit, attempt.attempt_id, "Hello there.", final_entry_id="e2"
    )
    stored = attempts.get(store.conn, attempt.attempt_id)
    assert stored["output"] == "Hello there."
    assert (
        stored["receipt"]
        == receipt
        == {"textDigest": receipt["textDigest"], "finalEntryId": "e2", "maxChars": 40, "adopted": False}
    )
    free = attempts.start(store, permit, "free")
    assert free.max_chars is None
    receipt, permit = attempts._complete_assistant_message(store, free.permit, free.attempt_id, "y" * 5000)
    assert receipt["maxChars"] is None
    shell = attempts.start(store, permit, "build")
    assert shell.output_kind == "non_agent"
    permit = attempts.fail(store, shell.permit, shell.attempt_id, {"exit": 1})
    retry = attempts.start(store, permit, "build")
    assert retry.attempt_no == 2


def test_submitted_attempts_resume_as_a_fresh_attempt(store, flow, clock):
    ref = runs.create(store, project_id=flow[0], definition_id=flow[1])
    old = runs.claim(store, ref.run_id, "host-a", ttl_ms=100, expected_revision=1)
    attempt = attempts.start(store, old, "plan", prompt="plan it")
    clock.advance(200)
    new = runs.claim(store, ref.run_id, "host-b", ttl_ms=60_000, expected_revision=attempt.permit.revision)
    fresh = attempts.resume(store, new, attempt.attempt_id)
    assert fresh.attempt_id != attempt.attempt_id and fresh.attempt_no == 2
    assert attempts.get(store.conn, attempt.attempt_id)["status"] == "interrupted"
    permit = attempts.complete(store, fresh.permit, fresh.attempt_id, {"steps": []})
    assert runs.finish(store, permit, outcome="succeeded").status == "succeeded"
    assert attempts.get(store.conn, attempt.attempt_id)["status"] == "cancelled"


# -- controllers --------------------------------------------------------------------------------


def test_controllers_status_queue_children_and_deletion(store, flow, clock):
    controller = controllers.create(store, flow[0], "watcher", {"every": "1m"})
    assert controllers.create(store, flow[0], "watcher", {"every": "1m"}).adopted
    with pytest.raises(IdempotencyConflict):
        controllers.create(store, flow[0], "watcher", {"every": "2m"})
    permit = controllers.claim(store, controller.controller_id, "host-a", ttl_ms=60_000)
    permit = controllers._update_status(store, permit, {"healthy": True})
    permit = controllers._add_finalizer(store, permit, "cleanup")
    permit = controllers.enqueue(store, permit, "item-1", {"n": 1})
    assert controllers.enqueue(store, permit, "item-1", {"n": 1}) == permit  # adopted, no revision change
    item, permit = controllers._reserve_item(store, permit)
    assert (item.item_key, item.payload, item.attempts) == ("item-1", {"n": 1}, 1)
    assert controllers._reserve_item(store, permit) == (None, permit)
    permit = controllers._settle_item(store, permit, "item-1", ok=False, retry_at=clock() + 1000)
    assert controllers._reserve_item(store, permit)[0] is None
    clock.advance(1000)
    item, permit = controllers._reserve_item(store, permit)
    assert item.attempts == 2
    permit = controllers._settle_item(store, permit, "item-1", ok=True)
    child, permit = controllers._start_child(store, permit, "child-a", flow[1], {"target": 1})
    again, same = controllers._start_child(store, permit, "child-a", flow[1], {"target": 1})
    assert again.adopted and again.run_id == child.run_id and same == permit
    with pytest.raises(IdempotencyConflict):
        controllers._start_child(store, permit, "child-a", flow[1], {"target": 2})
    child_permit = runs.claim(store, child.run_id, "host-a", ttl_ms=60_000, expected_revision=1)
    runs.finish(store, child_permit, outcome="succeeded")
    assert effects.unsettled(store.conn) == []  # a controller child has no queue row to settle
    phase = controllers._request_deletion(store, controller.controller_id, expected_revision=permit.revision)
    assert phase == "deleting"
    permit = write.refresh(store.conn, permit)
    with pytest.raises(TransitionRejected):
        controllers._start_child(store, permit, "child-b", flow[1])
    phase, permit = controllers._remove_finalizer(store, permit, "cleanup")
    assert phase == "deleted"
    assert controllers.get(store.conn, controller.controller_id)["phase"] == "deleted"


# -- channels -----------------------------------------------------------------------------------


def test_channel_cursors_and_inbox_belong_to_the_lease_owner(store, flow, clock):
    channel = channels.create(store, "chat", "room-1", config_name="chat-work.json")
    permit = channels.claim(store, channel.channel_id, "host-a", ttl_ms=1000)
    permit = channels._advance_cursor(store, permit, "updates", "100")
    with pytest.raises(TransitionRejected, match="moved"):
        channels._advance_cursor(store, permit, "updates", "200", expected_value="99")
    permit = channels._advance_cursor(store, permit, "updates", "200", expected_value="100")
    inbox_id, adopted, permit = channels._record_inbox(store, permit, "ext-1", {"text": "yes"}, sender_id="u1")
    assert not adopted
    assert channels._record_inbox(store, permit, "ext-1", {"text": "yes"})[:2] == (inbox_id, True)
    with pytest.raises(IdempotencyConflict):
        channels._record_inbox(store, permit, "ext-1", {"text": "no"})
    with pytest.raises(TransitionRejected, match="credential"):
        channels._record_inbox(store, permit, "ext-2", {"text": "hi", "auth": {"access_token": "x"}})
    permit = channels._settle_inbox(store, permit, inbox_id, "applied")
    clock.advance(1001)
    with pytest.raises(OwnershipRejected):
        channels._advance_cursor(store, permit, "updates", "300")
    other = channels.claim(store, channel.channel_id, "host-b", ttl_ms=1000)
    assert other.claim.generation == 2
    channels._advance_cursor(store, other, "updates", "300")


# -- Pi delivery and session capture ------------------------------------------------------------


def test_notifications_and_turn_intents_settle_once(store, flow, clock):
    permit = running_run(store, *flow)
    notification_id = delivery.notify(store, permit, level="info", body="Run finished a step", pi_session_id="pi-1")
    first = delivery._settle_notification(store, notification_id, "delivered", expected_revision=1)
    late = delivery._settle_notification(store, notification_id, "dismissed", expected_revision=1)
    assert (first.status, late.status, late.adopted) == ("delivered", "delivered", True)
    intent_id = delivery._create_turn_intent(
        store, permit, pi_session_id="pi-1", prompt="continue", not_before=clock() + 50
    )
    assert delivery._pending_turns(store.conn, "pi-1", clock()) == []
    clock.advance(50)
    [turn] = delivery._pending_turns(store.conn, "pi-1", clock())
    assert turn["prompt"] == "continue"
    delivery._settle_turn_intent(store, intent_id, "delivered", expected_revision=turn["revision"])
    with pytest.raises(ActorRejected):
        delivery._settle_turn_intent(store, intent_id, "cancelled", expected_revision=2, actor=HUMAN)


def test_session_capture(store, flow):
    permit = running_run(store, *flow)
    segment = sessions._open_segment(store, permit, "pi-1")
    segment = sessions.capture(
        store,
        permit,
        segment,
        entries=[
            sessions.Entry("e1", "message", {"role": "user", "text": "hi"}),
            sessions.Entry("e2", "message", {"role": "assistant", "text": "hello"}, parent_entry_id="e1"),
        ],
        events=[sessions.SessionEvent("message_end", {"entry": "e2"}, entry_id="e2")],
    )
    repeated = sessions.capture(
        store,
        permit,
        segment,
        entries=[sessions.Entry("e2", "message", {"role": "assistant", "text": "hello"}, parent_entry_id="e1")],
    )
    assert repeated == segment  # adopted: no new revision
    with pytest.raises(IdempotencyConflict):
        sessions.capture(store, permit, segment, entries=[sessions.Entry("e2", "message", {"text": "changed"})])
    assert [e.entry_id for e in sessions.entries(store.conn, segment.segment_id)] == ["e1", "e2"]
    view = sessions.segment(store.conn, segment.segment_id)
    assert (view["firstEntryId"], view["lastEntryId"], view["events"]) == ("e1", "e2", 1)
    segment = sessions._close_segment(store, permit, segment)
    with pytest.raises(TransitionRejected, match="closed"):
        sessions.capture(store, permit, segment, entries=[sessions.Entry("e3", "message", {})])
    with pytest.raises(NotFound):
        sessions._open_segment(store, permit, "pi-1", attempt_id="nope")


# -- the read contract --------------------------------------------------------------------------


def test_status_is_a_pure_projection_and_reads_never_repair(store, flow, clock, path):
    queued = running_run(store, *flow, pi_session_id="pi-1")
    runs.finish(store, queued, outcome="succeeded")
    run_id = queued.resource_id.split(":")[1]
    # Rule 1: the queue row still says running; the terminal run fact wins.
    assert store.conn.execute("SELECT status FROM run_queue").fetchone() == ("running",)
    view = projection._run_view(store.conn, run_id, clock())
    assert (view["status"], view["queue"], view["queueSettlementPending"]) == ("succeeded", "settled", True)
    # Rule 2: accepted although the continuation effect is pending.
    waiting = running_run(store, *flow, ttl_ms=1000)
    asked = decisions.ask(store, waiting, request={})
    decisions.answer(store, asked.decision_id, HUMAN, "ok", expected_revision=1)
    assert projection._decision_view(store.conn, asked.decision_id) == {
        "status": "accepted",
        "outcome": "answered",
        "followUpPending": True,
    }
    # Rule 4: a stale owner is not current.
    clock.advance(2000)
    assert projection._run_view(store.conn, waiting.resource_id.split(":")[1], clock())["owner"] == "stale"
    # Rule 5: an ambiguous external effect is unresolved.
    assert projection.effect_state("ambiguous") == "unresolved"
    before = snapshot(path)
    report = status.summary(path, now=clock())
    assert snapshot(path) == before
    assert report["runs"] == {"succeeded": 1, "waiting": 1}
    assert report["runQueue"]["settlementPending"] == 1
    assert report["decisions"] == {"accepted": 1}
    assert (report["leases"]["active"], report["leases"]["stale"]) == (1, 1)
    assert report["leases"]["byKind"] == {"run": 1}
    assert report["unsettledEffects"] == {"total": 2, "pending": 2}
