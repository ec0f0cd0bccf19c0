"""Competing decision outcomes across real processes: one winner, every loser returns it."""

from __future__ import annotations

import multiprocessing

import pytest

from pidesktop.workflows import db, decisions, runs
from pidesktop.workflows.ownership import CONTROL, Actor
from tests.support.workflows_support import project_and_definition

pytestmark = pytest.mark.slow  # eight processes racing

TRIALS = 200
WORKERS = 8
# Workers 0-3 answer as four different humans, 4-5 apply the deadline as the
# run owner, 6-7 cancel with a control command.
ROLES = ["answer"] * 4 + ["deadline"] * 2 + ["cancel"] * 2


def _compete(path, index, jobs, barrier, results):
    store = db.open_writer(path, create=False)
    seen = []
    try:
        for decision_id, claim in jobs:
            barrier.wait(timeout=60)
            role = ROLES[index]
            if role == "answer":
                outcome = decisions.answer(
                    store, decision_id, Actor("human", f"person-{index}"), {"from": index}, expected_revision=1
                )
            elif role == "deadline":
                outcome = decisions._apply_deadline(store, decision_id, claim, expected_revision=1)
            else:
                outcome = decisions.cancel(
                    store, decision_id, expected_revision=1, actor=CONTROL, reason=f"worker {index}"
                )
            seen.append((decision_id, outcome.same_fact(), outcome.won))
    finally:
        store.close()
    results.put((index, seen))


def test_eight_processes_race_answers_timeouts_and_cancellations(tmp_path):
    path = tmp_path / "workflows" / "state.sqlite"
    store = db.open_writer(path)
    flow = project_and_definition(store, tmp_path)
    jobs = []
    for trial in range(TRIALS):
        ref = runs.create(store, project_id=flow[0], definition_id=flow[1])
        permit = runs.claim(store, ref.run_id, "host", ttl_ms=600_000, expected_revision=1)
        default = "the default" if trial % 2 == 0 else None
        asked = decisions.ask(
            store,
            permit,
            request={"question": f"trial {trial}"},
            default=default,
            deadline_at=store.now() if default else store.now() - 1,
        )
        jobs.append((asked.decision_id, permit.claim))
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WORKERS)
    results = context.Queue()
    workers = [context.Process(target=_compete, args=(str(path), i, jobs, barrier, results)) for i in range(WORKERS)]
    for worker in workers:
        worker.start()
    collected = dict(results.get(timeout=120) for _ in workers)
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0

    conn = store.conn
    assert conn.execute("SELECT count(*) FROM human_decision_resolutions").fetchone()[0] == TRIALS
    outcomes = set()
    for trial, (decision_id, _claim) in enumerate(jobs):
        durable = decisions.resolution(conn, decision_id)
        outcomes.add(durable.outcome)
        facts = [collected[i][trial] for i in range(WORKERS)]
        assert all(seen_id == decision_id for seen_id, _, _ in facts)
        assert all(fact == durable.same_fact() for _, fact, _ in facts), "every loser returns the winner"
        assert sum(won for _, _, won in facts) == 1, "exactly one winner"
        if durable.outcome in ("timeout_default", "expired"):
            assert (durable.outcome == "timeout_default") == (trial % 2 == 0)
        events = conn.execute(
            "SELECT count(*) FROM events WHERE resource_id = ?", (decisions.decision_resource(decision_id),)
        ).fetchone()[0]
        assert events == 2  # opened, then exactly one resolution
        follow_ups = conn.execute(
            "SELECT count(*) FROM effects WHERE source_resource_id = ?", (decisions.decision_resource(decision_id),)
        ).fetchone()[0]
        assert follow_ups == 1
    submissions = conn.execute("SELECT count(*) FROM human_decision_submissions").fetchone()[0]
    answered = conn.execute("SELECT count(*) FROM human_decision_resolutions WHERE outcome = 'answered'").fetchone()[0]
    assert submissions == answered
    assert len(outcomes) >= 2, f"the race should produce different winners, saw {outcomes}"
    store.close()
