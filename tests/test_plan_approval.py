"""Plan and Goal approvals end to end: the runner against the loopback SSE server, the host's rules,
and a restart over ``pidesktop host --stdio`` (spec 004, 4.6a and section 7; RPC-WAVE2 "Plan and Goal")."""

import hashlib
import os
import re
import stat
from pathlib import Path

import orjson
import pytest

from pidesktop.agent import plan_flow
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostError
from tests.support.hosts import run_with_client
from tests.support.sse_server import Script, chunk, sse_body

# Bytes a careless writer would change: CRLF, a tab, trailing spaces, no final newline, non-ASCII.
PLAN = "# Move the blog\r\n\r\n1. Copy the files  \n2. Switch DNS\t(at night)\n3. Check — ünïcode ✓"


def tool_call_body(name, args, call_id="call_1"):
    arguments = orjson.dumps(args).decode()
    return sse_body(
        chunk(
            tool_calls=[
                {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments[:10]}}
            ]
        ),
        chunk(tool_calls=[{"index": 0, "function": {"arguments": arguments[10:]}}]),
        chunk(finish="tool_calls"),
    )


def text_body(text):
    return sse_body(chunk(text), chunk(finish="stop"))


def answers(server, *bodies):
    server.serve_in_turn("/v1/chat/completions", *[Script(chunks=[body]) for body in bodies])


READ_ONLY = ["find", "grep", "ls", "read"]  # the workspace tools Plan and Goal offer before approval


def tool_names(request):
    return sorted(tool["function"]["name"] for tool in request.json.get("tools", []))


def run(host, server, scenario):
    """``scenario(client, runner)`` with a turn runner answered by ``server``."""
    return run_with_client(
        host, lambda client: scenario(client, TurnRunner(client, override=ProviderChoice(server.base_url, model="m")))
    )


def test_a_submitted_plan_is_stored_byte_for_byte_then_approved_and_carried_out(host, sse_server):
    answers(
        sse_server,
        tool_call_body("SubmitPlan", {"plan": PLAN}),
        tool_call_body(
            "TodoWrite",
            {
                "todos": [
                    {"content": "Copy the files", "status": "completed"},
                    {"content": "Switch DNS", "status": "in_progress"},
                ]
            },
            "call_2",
        ),
        text_body("All done."),
    )

    async def scenario(client, runner):
        session_id = (await client.call("session.create", {"mode": "plan"}))["session"]["id"]
        first = await runner.send(session_id, "Move my blog")
        pending = first["approval"]
        assert first["status"] == "completed" and pending["status"] == "pending"
        assert len(sse_server.requests) == 1  # the turn ends waiting: the model is not asked again
        answered = await plan_flow.respond(runner, pending["id"], "approve")
        with pytest.raises(HostError) as again:
            await client.call("plan.respond", {"approvalId": pending["id"], "decision": "reject"})
        listed = (await client.call("plan.list", {"sessionId": session_id}))["approvals"]
        got = await client.call("session.get", {"sessionId": session_id})
        todo = (await client.call("todo.get", {"sessionId": session_id}))["todo"]
        return session_id, pending, answered, again.value, listed, got, todo

    session_id, pending, answered, again, listed, got, todo = run(host, sse_server, scenario)
    path = Path(pending["artifactPath"])
    assert path.read_bytes() == PLAN.encode()
    assert pending["sha256"] == hashlib.sha256(PLAN.encode()).hexdigest() and pending["size"] == len(PLAN.encode())
    assert path == host.location.data_root / "scratch" / session_id / pending["artifactRelativePath"]
    assert re.fullmatch(r"\.pi/plan/\d{8}T\d{9}Z-move-the-blog\.md", pending["artifactRelativePath"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o444  # read-only
    first, execution, after_tool = sse_server.requests
    assert tool_names(first) == ["SubmitPlan", "TodoWrite", *READ_ONLY]
    assert tool_names(execution) == ["TodoWrite", "bash", "edit", *READ_ONLY, "write"]  # approved: Agent mode
    assert tool_names(execution) == sorted(tool_names(execution))
    assert execution.json["messages"][-1]["role"] == "user" and PLAN in execution.json["messages"][-1]["content"]
    assert after_tool.json["messages"][-1]["role"] == "tool"
    assert after_tool.json["messages"][-1]["content"].startswith("Checklist saved (revision 1)")
    assert answered["approval"]["status"] == "approved" and answered["turn"]["status"] == "completed"
    assert again.code == "CONFLICT"
    [row] = listed
    assert row["status"] == "approved" and row["executionStatus"] == "completed" and row["decidedAt"]
    assert set(row) >= {
        "id",
        "sessionId",
        "kind",
        "status",
        "artifactPath",
        "sha256",
        "size",
        "executionStatus",
        "createdAt",
        "decidedAt",
    }
    assert got["session"]["mode"] == "agent"
    submit_block = got["messages"][1]["blocks"][0]
    assert submit_block["name"] == "SubmitPlan" and submit_block["result"]["approvalId"] == pending["id"]
    assert [m["role"] for m in got["messages"]] == ["user", "assistant", "user", "assistant", "assistant"]
    assert got["messages"][-1]["blocks"] == [{"type": "text", "text": "All done."}]
    # the execution prompt says whose words it is: the window renders it, unlike a typed prompt
    assert got["messages"][2]["meta"]["approvedProposal"] == {"approvalId": pending["id"], "kind": "plan"}
    assert "approvedProposal" not in (got["messages"][0].get("meta") or {})
    assert todo["revision"] == 1 and [i["status"] for i in todo["items"]] == ["completed", "in_progress"]


def test_a_rejection_goes_back_in_plan_mode_and_the_next_plan_is_a_new_file(host, sse_server):
    answers(
        sse_server,
        tool_call_body("SubmitGoal", {"goal": "# Goal A\n"}),
        tool_call_body("SubmitGoal", {"goal": "# Goal B\n"}, "call_2"),
    )

    async def scenario(client, runner):
        session_id = (await client.call("session.create", {"mode": "goal"}))["session"]["id"]
        first = (await runner.send(session_id, "Faster builds"))["approval"]
        answered = await plan_flow.respond(runner, first["id"], "reject", "Measure it first")
        listed = (await client.call("plan.list", {"sessionId": session_id}))["approvals"]
        mode = (await client.call("session.get", {"sessionId": session_id, "messageLimit": 1}))["session"]["mode"]
        return first, answered, listed, mode

    first, answered, listed, mode = run(host, sse_server, scenario)
    assert answered["approval"]["status"] == "rejected"
    assert answered["approval"]["feedback"] == "Measure it first"
    second = answered["turn"]["approval"]
    assert second["status"] == "pending" and second["id"] != first["id"] and second["kind"] == "goal"
    assert [a["id"] for a in listed] == [second["id"], first["id"]]  # newest first
    assert mode == "goal"  # a rejection keeps the contract mode
    feedback_request = sse_server.requests[1].json
    assert "Measure it first" in feedback_request["messages"][-1]["content"]
    assert tool_names(sse_server.requests[1]) == ["SubmitGoal", "TodoWrite", *READ_ONLY]
    assert Path(first["artifactPath"]).read_bytes() == b"# Goal A\n"  # the old file stays as it was
    assert Path(second["artifactPath"]).read_bytes() == b"# Goal B\n"
    assert "/.pi/goal/" in second["artifactPath"]


def test_a_plan_in_a_project_is_written_under_the_project(host, tmp_path):
    project = tmp_path / "blog"
    project.mkdir()
    session_id = host.call("session.create", {"mode": "plan", "projectPath": str(project)})["session"]["id"]
    approval = host.call(
        "plan.submit",
        {
            "sessionId": session_id,
            "kind": "plan",
            "markdown": "# Ünïcode plan\n",
            "turnId": "t1",
            "toolCallId": "t1:c1",
        },
    )["approval"]
    path = Path(approval["artifactPath"])
    assert path.parent == project / ".pi" / "plan" and path.name.endswith("-unicode-plan.md")
    # one pending per chat; a retried submit of the same call is the same row, never a second file
    assert (
        host.error(
            "plan.submit",
            {"sessionId": session_id, "kind": "plan", "markdown": "other", "turnId": "t1", "toolCallId": "t1:c2"},
        ).code
        == "CONFLICT"
    )
    again = host.call(
        "plan.submit",
        {
            "sessionId": session_id,
            "kind": "plan",
            "markdown": "# Ünïcode plan\n",
            "turnId": "t1",
            "toolCallId": "t1:c1",
        },
    )["approval"]
    assert again["id"] == approval["id"] and len(list(path.parent.iterdir())) == 1
    assert host.call("plans.pending")["approvals"][0]["id"] == approval["id"]


def test_a_plan_stays_found_after_its_chat_leaves_the_project(host, tmp_path):
    project = tmp_path / "blog"
    project.mkdir()
    session_id = host.call("session.create", {"mode": "plan", "projectPath": str(project)})["session"]["id"]
    approval = host.call(
        "plan.submit",
        {"sessionId": session_id, "kind": "plan", "markdown": "# Move\n", "turnId": "t1", "toolCallId": "t1:c1"},
    )["approval"]
    host.call("session.update", {"sessionId": session_id, "projectId": None})
    [listed] = host.call("plan.list", {"sessionId": session_id})["approvals"]
    assert listed["artifactPath"] == approval["artifactPath"]
    approved = host.call("plan.respond", {"approvalId": approval["id"], "decision": "approve"})["approval"]
    assert approved["status"] == "approved" and Path(approved["artifactPath"]).read_bytes() == b"# Move\n"


def test_a_plan_file_changed_after_it_was_proposed_is_not_approved(host):
    session_id = host.call("session.create", {"mode": "plan"})["session"]["id"]
    approval = host.call(
        "plan.submit",
        {"sessionId": session_id, "kind": "plan", "markdown": "# P\n", "turnId": "t1", "toolCallId": "t1:c1"},
    )["approval"]
    path = Path(approval["artifactPath"])
    os.chmod(path, 0o644)
    path.write_bytes(b"# P, edited\n")
    error = host.error("plan.respond", {"approvalId": approval["id"], "decision": "approve"})
    assert error.code == "CONFLICT" and error.data["artifactChanged"] is True
    assert host.call("plan.list", {"sessionId": session_id})["approvals"][0]["status"] == "pending"
    bad = host.error("plan.respond", {"approvalId": approval["id"], "decision": "maybe"})
    assert bad.code == "INVALID_PARAMS" and bad.data["field"] == "decision"


def test_a_restart_interrupts_pending_plans_and_running_executions(stdio_host, tmp_path):
    first = stdio_host()
    pending_chat = first.call("session.create", {"mode": "plan"})["session"]["id"]
    first.call("session.startTurn", {"sessionId": pending_chat, "turnId": "turn-1"})
    pending = first.call(
        "plan.submit",
        {
            "sessionId": pending_chat,
            "kind": "plan",
            "markdown": "# Wait\n",
            "turnId": "turn-1",
            "toolCallId": "turn-1:c",
        },
    )["approval"]
    running_chat = first.call("session.create", {"mode": "goal"})["session"]["id"]
    goal = first.call(
        "plan.submit",
        {"sessionId": running_chat, "kind": "goal", "markdown": "# Go\n", "turnId": "turn-2", "toolCallId": "turn-2:c"},
    )["approval"]
    approved = first.call("plan.respond", {"approvalId": goal["id"], "decision": "approve"})["approval"]
    first.call("session.startTurn", {"sessionId": running_chat, "turnId": approved["executionId"]})
    first.call("plan.execution", {"approvalId": goal["id"], "state": "running"})
    first.kill()  # kill -9 while one waits and one runs

    second = stdio_host()
    [interrupted] = second.call("plan.list", {"sessionId": pending_chat})["approvals"]
    assert interrupted["status"] == "interrupted"
    stale = second.request("plan.respond", {"approvalId": pending["id"], "decision": "approve"})
    assert stale["error"]["data"]["code"] == "CONFLICT"
    assert "restarted" in stale["error"]["message"]
    [execution] = second.call("plan.list", {"sessionId": running_chat})["approvals"]
    assert execution["status"] == "approved" and execution["executionStatus"] == "interrupted"
    summary = second.call("session.get", {"sessionId": pending_chat, "messageLimit": 1})["session"]
    assert summary["mode"] == "plan" and summary["lastTurn"]["status"] == "aborted"
    running = second.call("session.get", {"sessionId": running_chat, "messageLimit": 1})["session"]
    assert running["mode"] == "agent" and running["lastTurn"]["status"] == "aborted"
    assert second.call("plans.pending")["approvals"] == []
    assert Path(pending["artifactPath"]).read_bytes() == b"# Wait\n"
    second.close()


def test_a_newer_proposal_replaces_one_the_person_answered_in_the_chat(host, sse_server):
    answers(
        sse_server,
        tool_call_body("SubmitPlan", {"plan": "# One\n"}),
        tool_call_body("SubmitPlan", {"plan": "# Two\n"}, "call_2"),
    )

    async def scenario(client, runner):
        session_id = (await client.call("session.create", {"mode": "plan"}))["session"]["id"]
        first = (await runner.send(session_id, "Plan a trip"))["approval"]
        second = (await runner.send(session_id, "Make it shorter"))["approval"]  # typed, not Reject
        return first, second, (await client.call("plan.list", {"sessionId": session_id}))["approvals"]

    first, second, listed = run(host, sse_server, scenario)
    assert [(a["id"], a["status"]) for a in listed] == [(second["id"], "pending"), (first["id"], "expired")]
    assert listed[1]["errorCode"] == "superseded"
    assert Path(first["artifactPath"]).read_bytes() == b"# One\n"


def test_a_missing_project_folder_is_not_created_again(host, tmp_path):
    project = tmp_path / "gone"
    project.mkdir()
    session_id = host.call("session.create", {"mode": "plan", "projectPath": str(project)})["session"]["id"]
    project.rmdir()
    error = host.error(
        "plan.submit",
        {"sessionId": session_id, "kind": "plan", "markdown": "# P\n", "turnId": "t", "toolCallId": "t:c"},
    )
    assert error.code == "STORAGE_UNAVAILABLE" and "missing" in error.message
    assert not project.exists()
    assert host.call("plan.list", {"sessionId": session_id})["approvals"] == []
