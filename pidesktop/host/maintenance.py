"""The boot pass: runs once before the host serves its first command.

Spec 004, sections 3 and 8. A crash can leave work that was running when the
process died; nothing from before a restart is replayed. One transaction marks
it interrupted, then retention runs and freed pages go back to the file system.
"""

from __future__ import annotations

import logging

import orjson

from .context import HostContext

log = logging.getLogger("pidesktop.host.maintenance")

AUDIT_RETENTION_DAYS = 90
TASK_RUNS_KEEP = 100
NOTIFICATIONS_KEEP = 200
_DAY_MS = 86_400_000


def boot_pass(ctx: HostContext, audit_retention_days: int = AUDIT_RETENTION_DAYS) -> dict:
    conn = ctx.conn
    now = ctx.clock()
    report: dict[str, int] = {}
    with conn:
        report["approvalsInterrupted"] = _changes(conn, (
            "UPDATE plan_approvals SET status = 'interrupted', updated_at = ? WHERE status = 'pending'"), (now,))
        report["executionsInterrupted"] = _changes(conn, (
            "UPDATE plan_approvals SET execution_state = 'interrupted', updated_at = ? "
            "WHERE execution_state IN ('queued', 'running')"), (now,))
        report["turnsAborted"] = _changes(conn, (
            "UPDATE turns SET status = 'aborted', ended_at = ? WHERE status = 'running'"), (now,))
        if report["turnsAborted"] or report["approvalsInterrupted"] or report["executionsInterrupted"]:
            conn.execute("INSERT INTO audit_log(ts, kind, payload_json) VALUES (?, 'boot_recovery', ?)",
                         (now, orjson.dumps(report).decode()))
        report["auditPruned"] = _changes(conn, "DELETE FROM audit_log WHERE ts < ?",
                                         (now - audit_retention_days * _DAY_MS,))
        report["taskRunsPruned"] = _changes(conn, (
            "DELETE FROM task_runs WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER "
            "(PARTITION BY task_id ORDER BY started_at DESC, id DESC) AS n FROM task_runs) WHERE n > ?)"),
            (TASK_RUNS_KEEP,))
        report["notificationsPruned"] = _changes(conn, (
            "DELETE FROM notifications WHERE id NOT IN (SELECT id FROM notifications "
            "ORDER BY created_at DESC, id DESC LIMIT ?)"), (NOTIFICATIONS_KEEP,))
    conn.execute("PRAGMA incremental_vacuum")
    log.info("boot pass done", extra={"fields": report})
    return report


def _changes(conn, sql: str, args: tuple) -> int:
    conn.execute(sql, args)
    return conn.changes()

