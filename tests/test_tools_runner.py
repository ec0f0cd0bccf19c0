"""The workspace tools through the real runner and host, driven by a loopback OpenAI-compatible server
scripted to call them: files change as asked, permissions ask or deny (and are audited), escapes are
refused, bash runs in the sandbox or (forced) without it, and Stop or a timeout kills the command."""

import asyncio
import tempfile
from pathlib import Path

import pytest

from pidesktop.agent import sandbox
from pidesktop.agent.permissions import Answer, Decision
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostClient
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_call_body

HAS_BWRAP = sandbox.status().available


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo\nhello world\n")
    return folder


def script(server, *calls, final="Done."):
    """Each call (name, args) answered in its own round, then a plain answer."""
    bodies = [Script(chunks=[tool_call_body(name, args, f"call_{n}")]) for n, (name, args) in enumerate(calls)]
    server.serve_in_turn("/v1/chat/completions", *bodies, Script(chunks=[text_body(final)]))


def drive(host, server, project, *, mode="auto", asker=None, on_runner=None, chat_mode="agent", **runner_options):
    async def main():
        client = HostClient(host.thread, asyncio.get_running_loop())
        runner = TurnRunner(
            client, override=ProviderChoice(base_url=server.base_url, model="m"), asker=asker, **runner_options
        )
        if on_runner:
            on_runner(runner)
        try:
            params = {"mode": chat_mode, "projectPath": str(project)} if project else {"mode": chat_mode}
            sid = (await client.call("session.create", params))["session"]["id"]
            await client.call("session.update", {"sessionId": sid, "permissionMode": mode})
            result = await runner.send(sid, "Do the work")
            return sid, result, await client.call("session.get", {"sessionId": sid})
        finally:
            client.close()

    return asyncio.run(main())


def calls_of(got):
    return [block for m in got["messages"] for block in m["blocks"] if block["type"] == "tool_call"]


def tool_messages(server, index):
    return [m for m in server.requests[index].json["messages"] if m["role"] == "tool"]


def test_each_tool_does_its_work_in_the_project(host, sse_server, project, monkeypatch):
    monkeypatch.setenv(sandbox.FORCE_OFF, "1")  # keeps this test about the tools; the sandbox has its own
    script(
        sse_server,
        ("read", {"path": "README.md"}),
        ("write", {"path": "src/hello.py", "content": "print('hi')\n"}),
        ("edit", {"path": "README.md", "oldText": "hello world", "newText": "hello there"}),
        ("ls", {}),
        ("find", {"pattern": "*.py"}),
        ("grep", {"pattern": "there"}),
        ("bash", {"command": "cat src/hello.py && echo to-stderr >&2 && pwd"}),
    )
    sid, result, got = drive(host, sse_server, project, confirm_unconfined=False)
    assert result["status"] == "completed", result
    assert (project / "src/hello.py").read_text() == "print('hi')\n"
    assert (project / "README.md").read_text() == "# Demo\nhello there\n"
    calls = calls_of(got)
    assert [c["name"] for c in calls] == ["read", "write", "edit", "ls", "find", "grep", "bash"]
    assert all(c["status"] == "ok" for c in calls), [(c["name"], c["result"]) for c in calls]
    assert calls[0]["result"] == "     1\t# Demo\n     2\thello world\n"
    assert calls[2]["details"]["review"]["op"] == "edit" and "+hello there" in calls[2]["details"]["diff"]
    assert calls[3]["result"].splitlines() == ["README.md", "src/"]
    assert calls[4]["result"] == "src/hello.py"
    assert calls[5]["result"] == "README.md:2:hello there"
    assert calls[6]["result"] == f"print('hi')\nto-stderr\n{project.resolve()}\n"
    assert "workspace is the project folder" in sse_server.requests[0].json["messages"][0]["content"]
    assert tool_messages(sse_server, 1)[-1]["content"].startswith("     1\t# Demo")  # the model got the result
    executed = host.call("audit.list", {"sessionId": sid, "kind": "tool_execute"})["entries"]
    assert sorted(e["payload"]["tool"] for e in executed) == sorted(c["name"] for c in calls)
    artifacts = host.call("artifacts.list", {"sessionId": sid})["artifacts"]
    assert {a["path"] for a in artifacts} == {
        str(project.resolve() / "src/hello.py"),
        str(project.resolve() / "README.md"),
    }


def test_ask_mode_asks_and_the_answer_decides(host, sse_server, project):
    script(
        sse_server,
        ("write", {"path": "a.txt", "content": "one\n"}),
        ("edit", {"path": "README.md", "oldText": "hello", "newText": "bye"}),
    )
    asked = []

    async def asker(request):
        asked.append(request)
        if request.tool == "write":
            return Answer(Decision.ALLOW_ONCE)
        return Answer(Decision.DENY, "Keep the README as it is")

    sid, result, got = drive(host, sse_server, project, mode="ask", asker=asker)
    assert result["status"] == "completed"
    assert [r.title for r in asked] == ["Create a.txt", "Edit README.md"]
    assert "+one" in asked[0].detail and "-hello world" in asked[1].detail and "+bye world" in asked[1].detail
    assert asked[1].outside_workspace is False and asked[1].session_id == sid
    assert (project / "a.txt").read_text() == "one\n"
    assert (project / "README.md").read_text() == "# Demo\nhello world\n"  # denied: unchanged
    write, edit = calls_of(got)
    assert write["status"] == "ok" and edit["status"] == "denied"
    assert "Keep the README as it is" in edit["result"]
    assert "Keep the README as it is" in tool_messages(sse_server, 2)[-1]["content"]
    [denied] = host.call("audit.list", {"sessionId": sid, "kind": "tool_denied"})["entries"]
    assert denied["payload"]["tool"] == "edit" and denied["payload"]["reason"] == "Keep the README as it is"


def test_a_call_s_time_leaves_out_the_wait_for_the_person_s_answer(host, sse_server, project):
    script(sse_server, ("write", {"path": "a.txt", "content": "one\n"}))
    thinking = 1.5  # the person reads the card this long before allowing it

    async def asker(request):
        await asyncio.sleep(thinking)
        return Answer(Decision.ALLOW_ONCE)

    _, result, got = drive(host, sse_server, project, mode="ask", asker=asker)
    assert result["status"] == "completed"
    [write] = calls_of(got)
    assert write["status"] == "ok" and (project / "a.txt").read_text() == "one\n"
    assert 0 <= write["durationMs"] < thinking * 1000 / 2  # the write itself, not the card's wait


def test_allow_for_this_chat_stops_asking_for_that_tool(host, sse_server, project):
    script(sse_server, *[("write", {"path": f"f{n}.txt", "content": str(n)}) for n in range(3)])
    asked = []

    async def asker(request):
        asked.append(request.title)
        return Answer(Decision.ALLOW_FOR_CHAT)

    drive(host, sse_server, project, mode="ask", asker=asker)
    assert asked == ["Create f0.txt"]
    assert sorted(p.name for p in project.glob("f*.txt")) == ["f0.txt", "f1.txt", "f2.txt"]


def test_with_nobody_to_ask_the_call_is_denied_audited_and_the_turn_goes_on(host, sse_server, project):
    script(sse_server, ("bash", {"command": "touch ran"}), final="I could not run it.")
    sid, result, got = drive(host, sse_server, project, mode="ask", asker=None)
    assert result["status"] == "completed" and not (project / "ran").exists()
    [call] = calls_of(got)
    assert call["status"] == "denied" and "not here to approve" in call["result"]
    [denied] = host.call("audit.list", {"sessionId": sid, "kind": "tool_denied"})["entries"]
    assert denied["payload"]["nobodyToAsk"] is True
    assert got["messages"][-1]["blocks"][-1]["text"] == "I could not run it."


def test_accept_edits_runs_edits_but_asks_for_bash(host, sse_server, project):
    script(sse_server, ("write", {"path": "x.txt", "content": "x"}), ("bash", {"command": "touch ran"}))
    asked = []

    async def asker(request):
        asked.append(request.tool)
        return Answer(Decision.DENY)

    drive(host, sse_server, project, mode="accept-edits", asker=asker)
    assert asked == ["bash"] and (project / "x.txt").exists() and not (project / "ran").exists()


def test_escapes_are_refused_unless_the_person_allows_that_one_call(host, sse_server, project, tmp_path):
    (tmp_path / "outside.txt").write_text("private\n")
    (project / "sneaky").symlink_to(tmp_path / "outside.txt")
    script(
        sse_server,
        ("read", {"path": "../outside.txt"}),
        ("read", {"path": "sneaky"}),
        ("write", {"path": str(tmp_path / "made.txt"), "content": "x"}),
    )
    asked = []

    async def asker(request):
        asked.append(request)
        return Answer(Decision.ALLOW_FOR_CHAT if request.tool == "read" else Decision.DENY)

    sid, result, got = drive(host, sse_server, project, mode="auto", asker=asker)
    assert [r.outside_workspace for r in asked] == [True, True, True]  # allowed for the chat still asks again
    first, second, third = calls_of(got)
    assert "private" in first["result"] and "private" in second["result"]
    assert third["status"] == "denied" and not (tmp_path / "made.txt").exists()
    nobody = drive(host, sse_server, project, mode="auto", asker=None)
    script(sse_server, ("read", {"path": "../outside.txt"}))
    _, _, got = drive(host, sse_server, project, mode="auto", asker=None)
    [refused] = calls_of(got)
    assert refused["status"] == "denied" and "private" not in refused["result"]
    assert nobody[1]["status"] == "completed"


def test_plan_mode_offers_only_reading(host, sse_server, project):
    script(sse_server, ("write", {"path": "x.txt", "content": "x"}), final="Here is the plan.")
    _, result, got = drive(host, sse_server, project, mode="auto", chat_mode="plan")
    [call] = calls_of(got)
    assert call["status"] == "error" and "not available in this mode" in call["result"]
    assert not (project / "x.txt").exists() and result["status"] == "completed"


def test_stop_kills_a_running_command_and_everything_it_started(host, sse_server, project, monkeypatch):
    monkeypatch.setenv(sandbox.FORCE_OFF, "1")
    script(sse_server, ("bash", {"command": "echo started; (sleep 30; touch child-ran) & sleep 30; touch ran"}))

    def stop_on_output(runner):
        def listener(session_id, phase, payload):
            if phase == "tool_output" and "started" in payload["chunk"]:
                runner.stop(session_id)

        runner.listeners.append(listener)

    sid, result, got = drive(host, sse_server, project, on_runner=stop_on_output, confirm_unconfined=False)
    assert result["status"] == "aborted"
    [call] = calls_of(got)
    assert call["status"] == "error" and "stopped the command" in call["result"]
    assert not (project / "ran").exists()
    [entry] = host.call("audit.list", {"sessionId": sid, "kind": "tool_execute"})["entries"]
    assert entry["payload"]["stopped"] is True
    assert len(sse_server.requests) == 1  # not asked again after Stop


def test_a_timeout_kills_the_command_and_says_so(host, sse_server, project, monkeypatch):
    monkeypatch.setenv(sandbox.FORCE_OFF, "1")
    script(sse_server, ("bash", {"command": "sleep 30; touch ran", "timeout": 1}))
    _, result, got = drive(host, sse_server, project, confirm_unconfined=False)
    [call] = calls_of(got)
    assert "1 s timeout" in call["result"] and call["status"] == "error" and not (project / "ran").exists()
    assert result["status"] == "completed"


def test_auto_without_a_sandbox_asks_once_to_confirm(host, sse_server, project, monkeypatch):
    monkeypatch.setenv(sandbox.FORCE_OFF, "1")
    script(sse_server, ("bash", {"command": "echo 1"}), ("bash", {"command": "echo 2"}))
    asked = []

    async def asker(request):
        asked.append(request)
        return Answer(Decision.ALLOW_ONCE)

    _, _, got = drive(host, sse_server, project, asker=asker)
    assert [r.unconfined for r in asked] == [True]
    assert [c["result"] for c in calls_of(got)] == ["1\n", "2\n"]


@pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap is not installed or cannot start here")
def test_in_the_sandbox_only_the_workspace_is_writable(host, sse_server, project):
    with tempfile.TemporaryDirectory(dir="/var/tmp") as kept:  # not under /tmp, which the sandbox replaces
        _sandboxed_writes(host, sse_server, project, Path(kept))


def _sandboxed_writes(host, server, project, outside):
    command = (
        f"echo in > inside.txt; touch {outside}/x 2>&1 | sed 's/.*Read-only.*/read-only/'; "
        "echo private > /tmp/sandbox-tmp-probe; ls /tmp"
    )
    script(server, ("bash", {"command": command}))
    _, _, got = drive(host, server, project)
    [call] = calls_of(got)
    assert (project / "inside.txt").read_text() == "in\n"
    assert not (outside / "x").exists() and "read-only" in call["result"]
    assert call["result"].splitlines()[-1] == "sandbox-tmp-probe"  # /tmp is private and starts empty
    assert not Path("/tmp/sandbox-tmp-probe").exists()
    assert call["details"]["bash"]["sandboxed"] is True


@pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap is not installed or cannot start here")
def test_the_network_can_be_turned_off_in_the_sandbox(host, sse_server, project):
    host.call("settings.set", {"patch": {"sandboxNetwork": False}})
    script(sse_server, ("bash", {"command": "tail -n +3 /proc/net/dev | cut -d: -f1"}))
    _, _, got = drive(host, sse_server, project)
    [call] = calls_of(got)
    assert call["result"].split() == ["lo"]  # a fresh network namespace holds only loopback


def test_reading_a_picture_hands_it_to_the_model_and_stores_only_its_reference(
    host,
    sse_server,
    project,
):
    picture = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
    (project / "logo.png").write_bytes(picture)
    script(sse_server, ("read", {"path": "logo.png"}), final="A tiny logo.")
    sid, result, got = drive(host, sse_server, project)
    assert result["status"] == "completed"
    [call] = calls_of(got)
    assert call["status"] == "ok" and "is an image (image/png" in call["result"]
    [attached] = call["attachments"]
    assert attached["kind"] == "image" and attached["ref"].startswith("attachments/") and "inline" not in attached
    sent = sse_server.requests[1].json["messages"]
    tool_at = next(i for i, m in enumerate(sent) if m["role"] == "tool")
    after = sent[tool_at + 1]
    assert after["role"] == "user" and after["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    transcript = (host.location.data_root / "sessions" / f"{sid}.jsonl").read_text()
    assert "base64" not in transcript  # the bytes travel to the model only
