"""The turn runner against a real HTTP server replaying recorded streams, and ``pidesktop chat``."""

import asyncio
import os
import signal
import subprocess
import sys
import time

import orjson
import pytest

from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostClient
from tests.support.cli import chat_cli
from tests.support.hosts import InProcessHost
from tests.support.repo import REPO
from tests.support.sse_server import Script, chunk, fixture_bytes, split_randomly, sse_body, usage_chunk


def run_turn(host, server, prompt="What's the weather?", mode=None, **runner_options):
    """One turn through the runner with a provider pointed at ``server``."""

    async def scenario():
        client = HostClient(host.thread, asyncio.get_running_loop())
        runner = TurnRunner(
            client,
            override=ProviderChoice(base_url=server.base_url, model="gpt-test", api_key="sk-test-key"),
            **runner_options,
        )
        session_id = (await client.call("session.create", {**({"mode": mode} if mode else {})}))["session"]["id"]
        try:
            result = await runner.send(session_id, prompt)
        finally:
            client.close()
        return session_id, result

    return asyncio.run(scenario())


def stored(host, session_id):
    return host.call("session.get", {"sessionId": session_id})


def test_plain_text_recording_is_stored_as_streamed(host, sse_server):
    body = fixture_bytes("plain-text")
    sse_server.stream(split_randomly(body, seed=3))
    sid, result = run_turn(host, sse_server)
    expected = "".join(
        (orjson.loads(line[6:])["choices"] or [{}])[0].get("delta", {}).get("content") or ""
        for line in body.decode().splitlines()
        if line.startswith("data: {")
    )
    got = stored(host, sid)
    assert result["status"] == "completed"
    reply = got["messages"][1]
    assert [b["type"] for b in reply["blocks"]] == ["text"]
    assert reply["blocks"][0]["text"] == expected
    assert reply["meta"]["status"] == "completed"
    turn = got["session"]["lastTurn"]
    assert turn["status"] == "completed"
    full_turn = host.call("session.recordUsage", {"sessionId": sid, "turnId": turn["id"], "records": []})["turn"]
    final_usage = orjson.loads(body.decode().strip().split("data: ")[-2])["usage"]
    assert full_turn["inputTokens"] == final_usage["prompt_tokens"]
    assert full_turn["outputTokens"] == final_usage["completion_tokens"]
    request = sse_server.requests[-1]
    assert request.headers["authorization"] == "Bearer sk-test-key"
    assert request.json["messages"][-1] == {"role": "user", "content": "What's the weather?"}
    # Agent mode adds only the note naming the workspace
    assert [m["role"] for m in request.json["messages"]] == ["system", "user"]
    assert "your workspace is a private scratch folder" in request.json["messages"][0]["content"]


@pytest.mark.parametrize("mode,words", [("plan", "numbered steps"), ("goal", "how success will be checked")])
def test_plan_and_goal_mode_ask_the_model_for_the_contract_first(host, sse_server, mode, words):
    sse_server.stream([fixture_bytes("plain-text")])
    sid, result = run_turn(host, sse_server, "Move the blog to a new host", mode=mode)
    assert result["status"] == "completed"
    sent = sse_server.requests[-1].json["messages"]
    assert sent[0]["role"] == "system" and words in sent[0]["content"]
    assert sent[1]["role"] == "system" and "workspace" in sent[1]["content"]
    assert sent[2] == {"role": "user", "content": "Move the blog to a new host"}
    # the instruction is sent, never stored
    assert [m["role"] for m in stored(host, sid)["messages"]] == ["user", "assistant"]
    transcript = (host.location.data_root / "sessions" / f"{sid}.jsonl").read_text()
    assert words not in transcript


@pytest.mark.parametrize(
    "name,calls",
    [
        ("single-tool-call", [("get_weather", {"city": "New York City"})]),
        ("parallel-tool-calls", None),
    ],
)
def test_tool_call_recordings_are_assembled(host, sse_server, name, calls):
    sse_server.stream([fixture_bytes(name)])
    sid, result = run_turn(host, sse_server)
    reply = stored(host, sid)["messages"][1]
    tool_blocks = [b for b in reply["blocks"] if b["type"] == "tool_call"]
    if calls is not None:
        assert [(b["name"], b["args"]) for b in tool_blocks] == calls
    else:
        assert len(tool_blocks) == 2 and tool_blocks[0]["args"]["city"] == "Edinburgh"
        assert tool_blocks[1]["name"] == "get_stock_price"
    assert all(b["callId"] for b in tool_blocks)


@pytest.mark.parametrize("status,code", [(401, "auth_failed"), (429, "rate_limited"), (404, "model_not_found")])
def test_http_errors_become_error_turns_with_a_failed_task_notification(host, sse_server, status, code):
    sse_server.serve(
        "/v1/chat/completions",
        Script(
            status=status,
            headers={"Content-Type": "application/json"},
            chunks=[b'{"error": {"message": "nope", "type": "x"}}'],
        ),
    )
    sid, result = run_turn(host, sse_server)
    assert result["status"] == "error" and result["error"]["code"] == code
    got = stored(host, sid)
    assert got["session"]["lastTurn"] == {"id": got["session"]["lastTurn"]["id"], "status": "error", "errorCode": code}
    reply = got["messages"][-1]
    assert reply["meta"]["error"]["code"] == code and "sk-test-key" not in reply["meta"]["error"]["message"]
    [notification] = host.call("notifications.list")["notifications"]
    assert notification["kind"] == "task.failed" and notification["errorCode"] == code


def test_a_stream_cut_mid_chunk_keeps_the_partial_text(host, sse_server):
    body = sse_body(chunk("Half of "), chunk("an answer"), done=False)
    sse_server.stream([body, b'data: {"choices": [{"delta": {"content": "tr'], drop_after=2)
    sid, result = run_turn(host, sse_server)
    assert result["status"] == "error" and result["error"]["code"] == "stream_cut"
    reply = stored(host, sid)["messages"][-1]
    assert reply["blocks"][0]["text"] == "Half of an answer"


def test_an_error_object_mid_stream_is_an_error_turn_with_the_partial_text(host, sse_server):
    body = sse_body(chunk("Partial "), {"error": {"message": "overloaded", "type": "server_error"}}, done=False)
    sse_server.stream([body])
    sid, result = run_turn(host, sse_server)
    assert result["error"]["code"] == "provider_error"
    assert stored(host, sid)["messages"][-1]["blocks"][0]["text"] == "Partial "


def test_malformed_chunk_is_bad_response(host, sse_server):
    sse_server.stream([sse_body(chunk("ok "), "{not json", done=False)])
    _sid, result = run_turn(host, sse_server)
    assert result["error"]["code"] == "bad_response"


def test_stop_mid_stream_keeps_the_partial_text_and_notifies_nobody(host, sse_server):
    pieces = [sse_body(chunk(f"word{i} "), done=False) for i in range(200)]
    sse_server.stream(pieces, delay=0.01)

    async def scenario():
        client = HostClient(host.thread, asyncio.get_running_loop())
        runner = TurnRunner(client, override=ProviderChoice(base_url=sse_server.base_url, model="m"))
        sid = (await client.call("session.create", {}))["session"]["id"]
        seen = []
        runner.listeners.append(lambda s, phase, m: seen.append(phase))
        task = asyncio.create_task(runner.send(sid, "go"))
        while seen.count("delta") < 5:
            await asyncio.sleep(0.01)
        runner.stop(sid)
        result = await asyncio.wait_for(task, 10)
        client.close()
        return sid, result

    sid, result = asyncio.run(scenario())
    assert result["status"] == "aborted"
    got = stored(host, sid)
    assert got["session"]["lastTurn"]["status"] == "aborted"
    text = got["messages"][-1]["blocks"][0]["text"]
    assert text.startswith("word0 word1 word2 word3 word4") and "word199" not in text
    assert host.call("notifications.list")["notifications"] == []


def test_checkpoints_are_saved_while_text_arrives(host, sse_server):
    pieces = [sse_body(chunk(f"w{i} "), done=False) for i in range(30)] + [sse_body(chunk(finish="stop"))]
    sse_server.stream(pieces, delay=0.01)
    saved = []

    async def scenario():
        client = HostClient(host.thread, asyncio.get_running_loop())
        runner = TurnRunner(
            client, override=ProviderChoice(base_url=sse_server.base_url, model="m"), checkpoint_every=0.05
        )
        sid = (await client.call("session.create", {}))["session"]["id"]
        checkpoint = host.location.data_root / "sessions" / f"{sid}.inflight.json"
        runner.listeners.append(
            lambda s, phase, m: (
                checkpoint.exists()
                and saved.append(orjson.loads(checkpoint.read_bytes())["message"]["blocks"][0]["text"])
            )
        )
        result = await runner.send(sid, "go")
        client.close()
        return sid, result

    sid, result = asyncio.run(scenario())
    assert result["status"] == "completed"
    assert len(set(saved)) >= 3  # several checkpoints, each a prefix of the final text
    final = stored(host, sid)["messages"][-1]["blocks"][0]["text"]
    assert all(final.startswith(text) for text in saved)
    # the final append removed the checkpoint
    assert not (host.location.data_root / "sessions" / f"{sid}.inflight.json").exists()


def test_headless_chat_streams_the_reply_and_stores_it(tmp_path, sse_server):
    sse_server.stream([sse_body(chunk("Hello "), chunk("from the test server"), chunk(finish="stop"), usage_chunk())])
    done = chat_cli(
        tmp_path / "d",
        "--base-url",
        sse_server.base_url,
        "--model",
        "m1",
        "--api-key-env",
        "TEST_KEY",
        "Say hello",
        env={"TEST_KEY": "sk-from-env"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello from the test server\n"
    session_id = done.stderr.strip().rsplit("session: ", 1)[1]
    assert sse_server.requests[-1].headers["authorization"] == "Bearer sk-from-env"
    sse_server.stream([sse_body(chunk("Again"), chunk(finish="stop"))])
    again = chat_cli(
        tmp_path / "d", "--session", session_id, "--base-url", sse_server.base_url, "--model", "m1", "Once more"
    )
    assert again.returncode == 0 and again.stdout == "Again\n"
    history = sse_server.requests[-1].json["messages"]
    assert [m["role"] for m in history] == ["system", "user", "assistant", "user"]  # the workspace note first


def test_headless_chat_error_exits_non_zero_with_one_line(tmp_path, sse_server):
    sse_server.serve(
        "/v1/chat/completions",
        Script(status=401, headers={"Content-Type": "application/json"}, chunks=[b'{"error": {"message": "bad key"}}']),
    )
    failed = chat_cli(tmp_path / "d", "--base-url", sse_server.base_url, "--model", "m1", "hi")
    assert failed.returncode == 1
    last = failed.stderr.strip().splitlines()[-1]
    assert last.startswith("pidesktop chat: ") and "401" in last


def test_headless_chat_offline_by_default(tmp_path):
    done = chat_cli(tmp_path / "d", "hello there")
    assert done.returncode == 0 and "Offline demo" in done.stdout


def test_kill_mid_stream_promotes_the_last_checkpoint_on_restart(tmp_path, sse_server):
    pieces = [sse_body(chunk(f"tok{i} "), done=False) for i in range(400)]
    sse_server.stream(pieces, delay=0.01)
    root = tmp_path / "d"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pidesktop",
            "chat",
            "--data-dir",
            str(root),
            "--base-url",
            sse_server.base_url,
            "--model",
            "m",
            "stream please",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    checkpoint = None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = list((root / "sessions").glob("*.inflight.json")) if (root / "sessions").exists() else []
        if found:
            checkpoint = found[0]
            break
        time.sleep(0.05)
    assert checkpoint is not None, "no checkpoint was written while the reply streamed"
    saved_text = orjson.loads(checkpoint.read_bytes())["message"]["blocks"][0]["text"]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    proc.stderr.close()
    session_id = checkpoint.name.split(".")[0]
    from pidesktop import paths

    again = InProcessHost(paths.resolve(data_dir=root))
    try:
        got = again.call("session.get", {"sessionId": session_id})
        assert got["session"]["lastTurn"]["status"] == "aborted"
        reply = got["messages"][-1]
        assert reply["role"] == "assistant" and reply["meta"]["status"] == "aborted"
        assert reply["blocks"][0]["text"].startswith(saved_text)
        assert [m["role"] for m in got["messages"]].count("assistant") == 1
        assert again.call("notifications.list")["notifications"] == []
    finally:
        again.stop()
