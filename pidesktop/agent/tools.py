"""The tools the app itself offers the model, and what running one does.

- ``TodoWrite`` (every mode): the whole checklist, stored by ``todo.set``.
- ``SubmitPlan`` (Plan mode) / ``SubmitGoal`` (Goal mode): the proposal,
  stored once as an immutable file and a pending approval by
  ``plan.submit``; the turn then ends, waiting for the person's answer.
- pi's workspace tools (``workspace_tools``): every one in Agent mode, the
  read-only ones in Plan and Goal; run by ``tool_calls.WorkspaceCalls``.
- MCP servers' tools, named ``mcp__<server>__<tool>`` (``mcp``): every
  enabled one in Agent mode, those marked read-only in Plan and Goal; run by
  ``mcp.calls.McpCalls``.

Definitions are in the OpenAI ``tools`` format. Every tool runs through the
host (the runtime never writes a file itself). A call that cannot run (bad
arguments, a tool this mode does not offer, a host refusal) is answered with
an error result the model can read and correct; it never fails the turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pidesktop.agent import workspace_tools
from pidesktop.agent.tool_calls import WorkspaceCalls
from pidesktop.bus import HostError

if TYPE_CHECKING:
    from pidesktop.agent.mcp.calls import McpCalls

SUBMIT_PLAN, SUBMIT_GOAL, TODO_WRITE = "SubmitPlan", "SubmitGoal", "TodoWrite"
PROPOSAL_TOOLS = {SUBMIT_PLAN: "plan", SUBMIT_GOAL: "goal"}  # tool -> approval kind
PROPOSAL_ARGUMENT = {"plan": "plan", "goal": "goal"}  # kind -> the argument holding the Markdown
APP_TOOLS = frozenset({SUBMIT_PLAN, SUBMIT_GOAL, TODO_WRITE}) | workspace_tools.ALL

_TODO_WRITE = {
    "type": "function",
    "function": {
        "name": TODO_WRITE,
        "description": (
            "Keep a short checklist of the steps of the current work, shown to the person above "
            "the message box. Send the whole list every time (it replaces the previous one). Mark "
            "exactly one item in_progress while you work on it and mark items completed as soon as "
            "they are done. Use it for work with three or more steps; skip it for a quick answer."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "maxItems": 50,
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "description": "The step, in a few words."},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                        },
                        "required": ["content", "status"],
                    },
                },
            },
            "required": ["todos"],
        },
    },
}


def _proposal_tool(name: str, kind: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": (
                f"Submit your {kind} for the person to approve, once it is complete. It is saved "
                f"exactly as written and shown with Approve and Reject buttons; your turn ends "
                f"there. Do not start any work before it is approved: after approval you are asked "
                f"to carry it out; after a rejection you get the person's feedback."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    kind: {"type": "string", "description": f"The whole {kind} in Markdown."},
                    "question": {
                        "type": "string",
                        "description": "Optional: one question the person should answer when deciding.",
                    },
                },
                "required": [kind],
            },
        },
    }


def offered(mode: object, *, workspace: bool = True) -> list[dict[str, Any]]:
    """The tool definitions sent with a request in ``mode`` (``workspace``: the chat has a folder to work in)."""
    tools = [*(workspace_tools.offered(mode) if workspace else []), _TODO_WRITE]
    if mode == "plan":
        tools.append(_proposal_tool(SUBMIT_PLAN, "plan"))
    elif mode == "goal":
        tools.append(_proposal_tool(SUBMIT_GOAL, "goal"))
    return tools


def names(tools: list[dict[str, Any]]) -> set[str]:
    return {tool["function"]["name"] for tool in tools}


@dataclass
class Outcome:
    """What a call returned: the ``result`` stored in its block, ``ok`` or not, and whether the turn ends here."""

    result: Any
    ok: bool = True
    ends_turn: bool = False
    approval: dict[str, Any] | None = None
    details: dict[str, Any] | None = None  # for the window only (a write's review record and diff)
    attachments: list[dict[str, Any]] | None = None  # pictures the model gets with the result (a read image)
    denied: bool = False  # not run because permission was refused; stored as status "denied"
    audit: dict[str, Any] | None = None  # the host's audit record, written with the stored result


async def run(
    client: Any,
    session_id: str,
    turn_id: str,
    call: dict[str, Any],
    offered_names: set[str],
    workspace: WorkspaceCalls | None = None,
    mcp: McpCalls | None = None,
) -> Outcome:
    """Run one ``tool_call`` block (``callId``, ``name``, ``args``) through the host."""
    name = call.get("name") or ""
    if name not in offered_names:
        if name in PROPOSAL_TOOLS:
            kind = PROPOSAL_TOOLS[name]
            return Outcome(f"{name} is only available in {kind.capitalize()} mode; this chat is not in it.", False)
        if name in workspace_tools.ALL and offered_names:
            return Outcome(
                f"{name} is not available in this mode: before the plan or goal is approved only "
                f"{', '.join(sorted(workspace_tools.READ_ONLY))} can be used.",
                False,
            )
        available = ", ".join(sorted(offered_names)) or "none"
        return Outcome(f"There is no tool named {name!r} here. The tools you can call: {available}.", False)
    args = call.get("args")
    if not isinstance(args, dict):
        return Outcome("The arguments were not a complete JSON object; send the call again.", False)
    try:
        if mcp is not None and mcp.offers(name):
            answered = await mcp.run(call)
            return Outcome(answered.text, answered.ok, denied=answered.denied, audit=answered.audit)
        if name in workspace_tools.ALL:
            if workspace is None:
                return Outcome(f"{name} cannot run here: this chat has no workspace.", False)
            done = await workspace.run(call)
            return Outcome(
                done.text,
                done.ok,
                details=done.details,
                attachments=done.attachments or None,
                denied=done.denied,
                audit=done.audit,
            )
        if name == TODO_WRITE:
            return await _todo_write(client, session_id, args)
        return await _submit(client, session_id, turn_id, call, PROPOSAL_TOOLS[name], args)
    except HostError as exc:
        return Outcome(f"{name} failed: {exc.message}", False)


async def _todo_write(client: Any, session_id: str, args: dict[str, Any]) -> Outcome:
    todos = args.get("todos")
    if not isinstance(todos, list):
        return Outcome("TodoWrite needs 'todos': a list of {content, status} objects.", False)
    todo = (await client.call("todo.set", {"sessionId": session_id, "items": todos}))["todo"]
    done = sum(1 for item in todo["items"] if item["status"] == "completed")
    return Outcome(f"Checklist saved (revision {todo['revision']}): {done} of {len(todo['items'])} done.")


async def _submit(
    client: Any, session_id: str, turn_id: str, call: dict[str, Any], kind: str, args: dict[str, Any]
) -> Outcome:
    markdown = args.get(PROPOSAL_ARGUMENT[kind])
    if not isinstance(markdown, str) or not markdown.strip():
        return Outcome(f"Submit{kind.capitalize()} needs '{kind}': the whole {kind} as Markdown text.", False)
    question = args["question"][:2000] if isinstance(args.get("question"), str) else ""
    approval = (
        await client.call(
            "plan.submit",
            {
                "sessionId": session_id,
                "kind": kind,
                "markdown": markdown,
                "turnId": turn_id,
                "question": question,
                "supersede": True,  # a proposal still waiting (the person replied in the chat instead) is replaced
                # Scoped by the turn: some local servers number their call ids from 0 in every reply.
                "toolCallId": f"{turn_id}:{call.get('callId') or ''}",
            },
        )
    )["approval"]
    result = {
        "approvalId": approval["id"],
        "status": "pending",
        "path": approval["artifactRelativePath"],
        "sha256": approval["sha256"],
        "note": f"The {kind} was saved and shown to the person for approval. Stop here and wait.",
    }
    return Outcome(result, True, ends_turn=True, approval=approval)


# -- what the person's answer tells the model ---------------------------------------------
EXECUTION_OPENING = {
    "plan": "I approved the plan below. Carry it out now, step by step.",
    "goal": "I approved the goal below. Work towards it now, step by step.",
}


def execution_prompt(kind: str, markdown: str) -> str:
    """The prompt of the execution turn: the approved text exactly as it was stored."""
    return f"{EXECUTION_OPENING.get(kind, EXECUTION_OPENING['plan'])}\n\n{markdown}"


def rejection_prompt(kind: str, feedback: str | None) -> str:
    """The prompt that takes a rejection back to the model, still in Plan/Goal mode."""
    if feedback:
        return f"I did not approve this {kind}. What to change:\n\n{feedback}"
    return f"I did not approve this {kind}. Propose a different one."


def ask_again_prompt(kind: str) -> str:
    """After a restart interrupted a proposal: ask for it once more."""
    return f"The app restarted before I answered your {kind}. Please submit the {kind} again."
