"""``projects.remove``: forget a project, keep its chats and its folder.

RPC-WAVE2 keeps every chat of a removed project (``projectId`` null, shown
under Chats) rather than deleting them; the project row, its memory and its
place in a project group go in one transaction. The folder on disk is never
touched.
"""

from __future__ import annotations

from typing import Any

from pidesktop.bus import topics
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params
from pidesktop.host.projects import commands as projects
from pidesktop.host.projects import project_groups
from pidesktop.host.sessions import commands as sessions


@command("projects.remove", emits=[topics.PROJECTS_CHANGED, topics.SESSION_CHANGED])
def projects_remove(ctx: HostContext, p: Params) -> dict[str, Any]:
    project_id = p.integer("projectId", minimum=1)
    path = projects.require(ctx.conn, project_id)["path"]
    with ctx.conn:
        moved = [
            row[0]
            for row in ctx.conn.execute(
                "UPDATE sessions SET project_id = NULL WHERE project_id = ? RETURNING id", (project_id,)
            )
        ]
        ctx.conn.execute("DELETE FROM projects WHERE id = ?", (project_id,))
        kv.delete(ctx.conn, projects.MEMORY_NS, path)
        if kv.get(ctx.conn, "app", projects.CURRENT_KEY) == project_id:
            kv.delete(ctx.conn, "app", projects.CURRENT_KEY)
        project_groups.drop_root(ctx, path)
    for session_id in moved:
        ctx.emit(
            topics.SESSION_CHANGED,
            {"sessionId": session_id, "reason": "updated", "session": sessions.summary(ctx.conn, session_id)},
        )
    ctx.emit(topics.PROJECTS_CHANGED, {"reason": "removed", "projectId": project_id})
    return {"removed": True}
