"""Read-only reports: ``summary`` (state status) and ``verify`` (state verify).

Both open the file with SQLite read-only mode and ``query_only``; neither
creates the database or repairs anything. ``summary`` reports only safe
facts: counts, sizes, statuses from fixed vocabularies, lease kinds and
generations. It never includes actor ids, channel references, payloads,
resource ids or anything else a caller wrote.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import apsw

from pidesktop.workflows import db, paths, projection, schema
from pidesktop.workflows.errors import IncompatibleState, MissingState


def summary(path: str | os.PathLike | None = None, *, now: int | None = None) -> dict:
    """A safe status report. ``state`` is ``ok``, ``missing`` or ``incompatible``."""
    target = paths.resolve(path)
    report: dict = {"path": str(target)}
    if not target.exists():
        older = paths.older_live_state(target)
        report.update(state="missing", olderLiveState=[p.name for p in older])
        return report
    report.update(_sizes(target))
    try:
        store = db.open_reader(target)
    except IncompatibleState as exc:
        report.update(state="incompatible", problemCount=len(exc.problems), instruction=db.clear_instruction(target))
        return report
    try:
        now = store.now() if now is None else now
        report["state"] = "ok"
        report["schema"] = {"applicationId": f"{schema.APPLICATION_ID:#010x}", "userVersion": schema.SCHEMA_VERSION}
        report.update(_domain_counts(store.conn, now))
    finally:
        store.close()
    return report


def _sizes(target: Path) -> dict:
    wal = target.with_name(target.name + "-wal")
    return {"fileBytes": target.stat().st_size, "walBytes": wal.stat().st_size if wal.exists() else 0}


def _grouped(conn: apsw.Connection, sql: str, params=()) -> dict[str, int]:
    return {key: count for key, count in conn.execute(sql, params)}


def _domain_counts(conn: apsw.Connection, now: int) -> dict:
    conn.execute("BEGIN")  # one snapshot for every count
    try:
        counts = {name: schema.integer(conn, f'SELECT count(*) FROM "{name}"') for name in schema.table_names()}
        runs: dict[str, int] = {}
        settling = 0
        for run_status, queue_status, n in conn.execute(
            "SELECT r.status, q.status, count(*) FROM runs r LEFT JOIN run_queue q ON q.run_id = r.run_id "
            "GROUP BY r.status, q.status"
        ):
            view = projection.run_state(run_status, queue_status)
            runs[view["status"]] = runs.get(view["status"], 0) + n
            settling += n if view["queueSettlementPending"] else 0
        queue = _grouped(conn, "SELECT status, count(*) FROM run_queue GROUP BY status")
        decisions: dict[str, int] = {}
        for outcome, n in conn.execute(
            "SELECT r.outcome, count(*) FROM human_decisions d LEFT JOIN human_decision_resolutions r "
            "ON r.decision_id = d.decision_id GROUP BY r.outcome"
        ):
            status = projection.decision_state(outcome, None)["status"]
            decisions[status] = decisions.get(status, 0) + n
        by_kind: dict[str, int] = {}
        current: list[dict[str, Any]] = []
        leases: dict[str, Any] = {"active": 0, "stale": 0, "byKind": by_kind, "current": current}
        for kind, generation, owner, expires_at in conn.execute(
            "SELECT r.kind, l.generation, l.owner_id, l.expires_at FROM leases l "
            "JOIN resources r ON r.resource_id = l.resource_id WHERE l.owner_id IS NOT NULL "
            "ORDER BY l.expires_at"
        ):
            state = projection.lease_state(owner, expires_at, now)
            if state == "held":
                leases["active"] += 1
                leases["byKind"][kind] = leases["byKind"].get(kind, 0) + 1
                leases["current"].append({"kind": kind, "generation": generation, "expiresInMs": expires_at - now})
            else:
                leases["stale"] += 1
        effects: dict[str, int] = {}
        for status, n in conn.execute(
            "SELECT status, count(*) FROM effects WHERE status IN ('pending', 'running', 'ambiguous') GROUP BY status"
        ):
            effects[projection.effect_state(status)] = n
    finally:
        conn.execute("COMMIT")
    return {
        "counts": counts,
        "runs": runs,
        "runQueue": {**queue, "settlementPending": settling},
        "decisions": decisions,
        "leases": leases,
        "unsettledEffects": {"total": sum(effects.values()), **effects},
    }


def verify(path: str | os.PathLike | None = None) -> dict:
    """``integrity_check``, ``foreign_key_check`` and the schema shape, read-only.

    ``ok`` is true only when all three pass. ``schemaOk`` false means the file
    is not (or no longer) this schema; then ``instruction`` says how to clear
    it, and the file is read through a handle that creates nothing beside it
    (no ``-wal``, no ``-shm``). A compatible file is opened like any reader,
    so a folder or file this process may not use is a ``StorageError``.
    """
    target = paths.resolve(path)
    if not target.exists():
        raise MissingState(f"There is no Pi Workflows state database at {target}. Nothing was created.")
    report = {
        "path": str(target),
        "ok": False,
        "schemaOk": False,
        "integrity": [],
        "foreignKeys": [],
        "schemaProblems": [],
    }
    try:
        db.check_file(target)
    except IncompatibleState as exc:
        report["schemaProblems"] = exc.problems
        report["instruction"] = db.clear_instruction(target)
        if exc.problems != ["it is not a SQLite database"]:
            conn = db.untouched_connection(target)
            try:
                _checks(conn, report)
            finally:
                conn.close()
        return report
    store = db.open_reader(target, verify=False)
    try:
        report["schemaProblems"] = schema.problems(store.conn)
        report["schemaOk"] = not report["schemaProblems"]
        if not report["schemaOk"]:
            report["instruction"] = db.clear_instruction(target)
        _checks(store.conn, report)
    finally:
        store.close()
    report["ok"] = report["schemaOk"] and report["integrity"] == ["ok"] and not report["foreignKeys"]
    return report


def _checks(conn: apsw.Connection, report: dict) -> None:
    try:
        report["integrity"] = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        report["foreignKeys"] = [
            {"table": r[0], "rowid": r[1], "parent": r[2], "constraint": r[3]}
            for r in conn.execute("PRAGMA foreign_key_check")
        ]
    except apsw.Error as exc:
        report["integrity"].append(f"cannot be checked: {exc}")
