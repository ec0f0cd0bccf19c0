"""What happens after a person answers a plan or goal (RPC-WAVE2 "Plan and Goal").

- Approve: ``plan.respond`` marks the row approved, switches the chat to
  Agent and queues the execution; then the execution turn runs here, its
  prompt carrying the approved Markdown exactly as stored, and its state is
  reported to the row (running, then completed, failed or interrupted).
- Reject: the chat stays in its contract mode and the feedback goes back to
  the model as the next prompt; a revised proposal is a new row and file.
- Ask again: after a restart interrupted a proposal, the model is asked for
  it once more.

Used by the window's approval card and by ``pidesktop chat --interactive``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pidesktop.agent import tools
from pidesktop.bus import HostError

if TYPE_CHECKING:
    from pidesktop.agent.runner import TurnRunner

log = logging.getLogger("pidesktop.agent.plan_flow")


async def respond(
    runner: Any, approval_id: str, decision: str, feedback: str | None = None, permission_mode: str | None = None
) -> dict[str, Any]:
    """Answer a pending proposal and run what follows; ``{"approval", "turn"}`` (the turn's result or None).

    ``permission_mode`` (with approve): ``accept-edits`` for "Approve and allow edits", ``ask`` for
    "Approve, ask first"; the chat keeps it for the execution and after.
    """
    params: dict[str, Any] = {"approvalId": approval_id, "decision": decision}
    if feedback:
        params["feedback"] = feedback
    if permission_mode and decision == "approve":
        params["permissionMode"] = permission_mode
    approval = (await runner.client.call("plan.respond", params))["approval"]
    if decision == "approve":
        return {"approval": approval, "turn": await execute(runner, approval)}
    turn = await runner.send(approval["sessionId"], tools.rejection_prompt(approval["kind"], feedback))
    return {"approval": approval, "turn": turn}


async def execute(runner: TurnRunner, approval: dict[str, Any]) -> dict[str, Any]:
    """The execution turn of an approved proposal, with its state reported to the approval row.

    When a reply is still running in the chat the prompt waits in its queue and
    the execution stays ``queued`` (an interrupted queue is never replayed).
    """
    if runner.is_running(approval["sessionId"]):
        return await runner.send(approval["sessionId"], tools.execution_prompt(approval["kind"], approval["markdown"]))
    await _report(runner, approval["id"], "running")
    try:
        result = await runner.send(
            approval["sessionId"],
            tools.execution_prompt(approval["kind"], approval["markdown"]),
            # the prompt is the app's words and the approved Markdown: the transcript renders it, unlike typed text
            meta={"approvedProposal": {"approvalId": approval["id"], "kind": approval["kind"]}},
        )
    except BaseException as exc:
        code = exc.code if isinstance(exc, HostError) else type(exc).__name__
        await _report(runner, approval["id"], "failed", code)
        raise
    status = result.get("status")
    if status == "completed":
        await _report(runner, approval["id"], "completed")
    elif status == "aborted":
        await _report(runner, approval["id"], "interrupted", "aborted")
    else:
        await _report(runner, approval["id"], "failed", (result.get("error") or {}).get("code"))
    return result


async def ask_again(runner: TurnRunner, approval: dict[str, Any]) -> dict[str, Any]:
    """Ask for an interrupted (or any earlier) proposal once more, in the chat's contract mode."""
    return await runner.send(approval["sessionId"], tools.ask_again_prompt(approval["kind"]))


async def _report(runner: TurnRunner, approval_id: str, state: str, error_code: str | None = None) -> None:
    params = {"approvalId": approval_id, "state": state, **({"errorCode": error_code} if error_code else {})}
    try:
        await runner.client.call("plan.execution", params)
    except HostError as exc:  # the row keeps its last state; the turn itself is stored either way
        log.warning("could not record the execution state %s of %s: %s", state, approval_id, exc)
