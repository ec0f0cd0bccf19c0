"""The crash campaign's ``indexLoss`` kind: a SIGKILL, then ``pi.sqlite`` lost; every chat comes back.

Chats with titles, projects and messages are renamed, switched between Plan,
Goal and Agent, given thinking levels and permission modes, moved between
projects and appended to by a host SIGKILLed at a random instant. Then the
database is deleted or cut to nothing (with its ``-wal`` and ``-shm``), as a
damaged disk or a careless clean-up would. A new host must give back every
chat from its transcript: each field holds the value of its last acknowledged
change, or of a change sent after it (the kill may have landed after it was
applied and before its reply), and every acknowledged message, in order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.crash_support import Replies
from tests.support.hosts import InProcessHost

LOSS_WAYS = ("delete", "truncate")
CHATS = 5
COMMANDS = 90
FIELDS = ("title", "projectPath", "mode", "thinkingLevel", "permissionMode")


def lose_database(root: Path, rng: random.Random) -> str:
    """Delete ``pi.sqlite`` or cut it to nothing, with its WAL and shared-memory files; the way chosen."""
    return lose(root, rng.choice(LOSS_WAYS))


def lose(root: Path, way: str) -> str:
    """``pi.sqlite`` deleted or cut to nothing (``way``), with its WAL and shared-memory files."""
    for suffix in ("-wal", "-shm"):
        (root / f"pi.sqlite{suffix}").unlink(missing_ok=True)
    if way == "delete":
        (root / "pi.sqlite").unlink(missing_ok=True)
    else:
        (root / "pi.sqlite").write_bytes(b"")
    return way


def build(
    template: Path,
    projects: list[Path],
    rng: random.Random,
    open_host: Callable[[Path], InProcessHost],
    cmd: Callable[..., dict],
    msg: Callable[..., dict],
    check: Callable[[Any, str], None],
) -> tuple[str, list[dict], Callable[[Path, Replies, InProcessHost], str]]:
    """The template's chats, the commands sent at them, and the judge of a root killed and then lost."""
    for folder in projects:
        folder.mkdir(parents=True, exist_ok=True)
    h = open_host(template)
    try:
        sids, initial, project_ids = [], {}, {}
        for n in range(CHATS):
            params: dict[str, Any] = {"title": f"Chat {n}"} if n % 2 == 0 else {}
            if n % 3 == 0:
                params["projectPath"] = str(projects[n % len(projects)])
            sid = h.call("session.create", params)["session"]["id"]
            h.call("session.appendMessage", {"sessionId": sid, "message": msg(f"c{n}", "user", f"Opening {n}")})
            sids.append(sid)
            summary = h.call("session.get", {"sessionId": sid, "messageLimit": 1})["session"]
            initial[sid] = {key: summary[key] for key in FIELDS}
        for folder in projects:
            project = h.call("projects.upsert", {"path": str(folder)})["project"]
            project_ids[project["id"]] = project["path"]
    finally:
        h.stop()

    commands: list[dict] = []
    changes: dict[str, dict[str, list[tuple[int, Any]]]] = {sid: {key: [] for key in FIELDS} for sid in sids}
    appended: dict[str, list[tuple[int, str]]] = {sid: [] for sid in sids}
    for i in range(1, COMMANDS + 1):
        sid = rng.choice(sids)
        roll = rng.random()
        if roll < 0.5:
            mid = f"x{i}"
            commands.append(cmd("session.appendMessage", sessionId=sid, message=msg(mid, "user", f"message {i}")))
            appended[sid].append((i, mid))
        elif roll < 0.65:
            commands.append(cmd("session.rename", sessionId=sid, title=f"Renamed {i}"))
            changes[sid]["title"].append((i, f"Renamed {i}"))
        elif roll < 0.75:
            mode = rng.choice(("plan", "goal", "agent"))
            commands.append(cmd("session.update", sessionId=sid, mode=mode))
            changes[sid]["mode"].append((i, mode))
        elif roll < 0.85:
            level = rng.choice(("off", "low", "high"))
            commands.append(cmd("session.update", sessionId=sid, thinkingLevel=level))
            changes[sid]["thinkingLevel"].append((i, level))
        elif roll < 0.92:
            permission = rng.choice(("inherit", "ask", "auto"))
            commands.append(cmd("session.update", sessionId=sid, permissionMode=permission))
            changes[sid]["permissionMode"].append((i, permission))
        else:
            project_id = rng.choice([None, *project_ids])
            commands.append(cmd("session.update", sessionId=sid, projectId=project_id))
            changes[sid]["projectPath"].append((i, None if project_id is None else project_ids[project_id]))

    def judge(root: Path, replies: Replies, h: InProcessHost) -> str:
        acked = max((i for i in range(1, len(commands) + 1) if "result" in replies.got.get(i, {})), default=0)
        listed = {s["id"] for s in h.call("session.list", {"limit": 200})["sessions"]}
        check(set(sids) <= listed, f"chats missing after the rebuild: {sorted(set(sids) - listed)}")
        for n, sid in enumerate(sids):
            got = h.call("session.get", {"sessionId": sid})
            for key in FIELDS:
                done = [value for i, value in changes[sid][key] if i <= acked]
                allowed = [done[-1] if done else initial[sid][key]]
                allowed += [value for i, value in changes[sid][key] if i > acked]
                check(got["session"][key] in allowed, f"chat {n}: {key} {got['session'][key]!r} not in {allowed}")
            ids = [m["id"] for m in got["messages"]]
            sent = [f"c{n}"] + [mid for _i, mid in appended[sid]]
            check(ids == sent[: len(ids)], f"chat {n}: the messages are not a prefix of those sent")
            must = 1 + sum(1 for i, _mid in appended[sid] if i <= acked)
            check(len(ids) >= must, f"chat {n}: {must} messages acknowledged, {len(ids)} came back")
            check(got["session"]["messageCount"] == len(ids), f"chat {n}: messageCount differs from the file")
        return "rebuilt"

    return sids[0], commands, judge
