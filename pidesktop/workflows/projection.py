"""The read contract: status as a pure projection of rows, facts, leases and receipts.

Five rules (spec 000, "Read contract"):

1. A terminal run fact overrides stale queue presentation.
2. An accepted decision is accepted even if its continuation effect is pending.
3. A cancelled decision is cancelled even if parent cleanup is pending.
4. A stale owner is not shown as current.
5. An ambiguous external effect is shown as unresolved.

Nothing here writes; reads never repair. Owners apply pending effects.
"""

from __future__ import annotations

import apsw

from pidesktop.workflows.decisions import ACCEPTED
from pidesktop.workflows.runs import TERMINAL


def run_state(run_status: str, queue_status: str | None) -> dict:
    """How a run and its queue row are shown."""
    if run_status in TERMINAL:
        # Rule 1: the queue row may still say running or parked until its
        # settlement effect is applied; the run's fact wins.
        return {
            "status": run_status,
            "queue": None if queue_status is None else "settled",
            "queueSettlementPending": queue_status not in (None, "settled"),
        }
    return {"status": run_status, "queue": queue_status, "queueSettlementPending": False}


def decision_state(resolution_outcome: str | None, follow_up_status: str | None) -> dict:
    """Rules 2 and 3: the resolution row alone decides; follow-up work is reported beside it."""
    if resolution_outcome is None:
        status = "open"
    elif resolution_outcome in ACCEPTED:
        status = "accepted"
    else:
        status = "cancelled"
    return {
        "status": status,
        "outcome": resolution_outcome,
        "followUpPending": follow_up_status in ("pending", "running", "ambiguous"),
    }


def lease_state(owner_id: str | None, expires_at: int | None, now: int) -> str:
    """Rule 4: ``held`` only while unexpired; an expired owner is ``stale``, never current."""
    if owner_id is None or expires_at is None:  # the schema sets both or neither
        return "free"
    return "held" if expires_at > now else "stale"


def effect_state(status: str) -> str:
    """Rule 5."""
    return "unresolved" if status == "ambiguous" else status


def _run_view(conn: apsw.Connection, run_id: str, now: int) -> dict | None:
    row = conn.execute(
        "SELECT r.status, q.status, l.owner_id, l.expires_at, l.generation FROM runs r "
        "LEFT JOIN run_queue q ON q.run_id = r.run_id LEFT JOIN leases l ON l.resource_id = r.resource_id "
        "WHERE r.run_id = ?",
        (run_id,),
    ).fetchone()
    if row is None:
        return None
    view = run_state(row[0], row[1])
    view["owner"] = lease_state(row[2], row[3], now)
    view["generation"] = row[4]
    return view


def _decision_view(conn: apsw.Connection, decision_id: str) -> dict | None:
    row = conn.execute(
        "SELECT d.decision_id, r.outcome, e.status FROM human_decisions d "
        "LEFT JOIN human_decision_resolutions r ON r.decision_id = d.decision_id "
        "LEFT JOIN effects e ON e.source_resource_id = d.resource_id "
        "AND e.effect_type IN ('decision.continue', 'decision.cancel_parent') WHERE d.decision_id = ?",
        (decision_id,),
    ).fetchone()
    if row is None:
        return None
    return decision_state(row[1], row[2])
