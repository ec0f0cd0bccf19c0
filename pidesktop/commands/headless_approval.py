"""``pidesktop chat --interactive``: a plan or goal that arrives is shown and answered on stdin.

``a`` approves (the execution turn runs at once), ``r TEXT`` rejects with
feedback (the model answers in Plan/Goal mode, perhaps with a new proposal,
which is asked about in turn). End of input ends the run with exit code 1;
the next host to open the data folder marks the proposal interrupted (spec
004, section 7), and the app offers to ask for it again.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from pidesktop.agent import plan_flow
from pidesktop.bus.errors import ErrorCode

PROMPT = "Approve with 'a', or reject with 'r' and what to change (r TEXT): "


async def answer_proposals(runner: Any, result: dict, before_turn: Callable[[], None]) -> dict:
    """Ask about each proposal a turn leaves waiting, until a turn ends without one; the last turn's result."""
    while result.get("approval") and result["approval"].get("status") == "pending":
        approval = result["approval"]
        kind = approval["kind"]
        sys.stderr.write(f"\n--- {kind} waiting for approval ({approval['artifactPath']}) ---\n")
        sys.stderr.write(approval["markdown"].rstrip("\n") + "\n---\n")
        decision, feedback = await _ask()
        if decision is None:
            return {
                **result,
                "status": "error",
                "error": {
                    "code": ErrorCode.NO_ANSWER,
                    "message": f"No answer was given, so the {kind} was not "
                    f"carried out. A proposal cannot be answered after "
                    f"the run that made it ends: open the chat in the "
                    f"app and choose Ask again.",
                },
            }
        before_turn()
        answered = await plan_flow.respond(runner, approval["id"], decision, feedback)
        result = answered["turn"] or result
    return result


async def _ask() -> tuple[str | None, str | None]:
    loop = asyncio.get_running_loop()
    while True:
        sys.stderr.write(PROMPT)
        sys.stderr.flush()
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return None, None
        answer = line.strip()
        if answer.lower() in ("a", "approve"):
            return "approve", None
        if answer[:1].lower() == "r" and (len(answer) == 1 or answer[1] == " "):
            return "reject", answer[1:].strip() or None
        sys.stderr.write("Type a (approve) or r followed by what to change.\n")
