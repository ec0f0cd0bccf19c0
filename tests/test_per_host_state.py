"""Two hosts in one process share no state: each keeps its own pi session catalog, its own record of the
pi files it wrote, its own data jobs; and each turn runner its own memory of servers that refuse tools."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pidesktop import paths
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.host.context import HostContext
from tests.support.hosts import InProcessHost, run_with_client
from tests.support.repo import FIXTURES
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_names

NATIVE_ID = "01a231f4-653f-75e0-b557-9081058b407f"
USER = {"role": "user", "text": "hello"}


@pytest.fixture
def pi_sessions(isolated_home):
    """pi's session folder holding the fixture sessions, as no pi wrote them lately."""
    pi = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions"
    shutil.copytree(FIXTURES / "pi-native" / "sessions", pi)  # file times kept: no pi wrote them lately
    for path in pi.rglob("*.jsonl"):
        path.chmod(0o644)
    return pi


@pytest.fixture
def two_hosts(pi_sessions, tmp_path):
    """Two real hosts, each with its own data folder, both reading the same pi session folder."""
    hosts = [InProcessHost(paths.resolve(data_dir=tmp_path / name)) for name in ("one", "two")]
    yield hosts
    for host in hosts:
        host.stop()


def native_row(host: InProcessHost) -> dict:
    return next(r for r in host.call("session.list", {})["sessions"] if r.get("nativeId") == NATIVE_ID)


def test_one_hosts_own_write_to_a_pi_file_is_a_live_writer_for_the_other(two_hosts):
    one, two = two_hosts
    written = one.call(
        "native.append",
        {"sessionId": native_row(one)["id"], "token": native_row(one)["nativeToken"], "messages": [USER]},
    )
    # The file changed a moment ago, and not by the second host: to it, a live pi may be writing.
    error = two.error(
        "native.append", {"sessionId": native_row(two)["id"], "token": written["token"], "messages": [USER]}
    )
    assert error.code == "CONFLICT" and error.data["reason"] == "live"
    # The first host knows the change as its own and goes on.
    again = one.call(
        "native.append", {"sessionId": native_row(one)["id"], "token": written["token"], "messages": [USER]}
    )
    assert len(again["entryIds"]) == 1


def test_each_host_context_starts_with_state_of_its_own():
    first, second = (HostContext(conn=None, data_root=Path("/nonexistent"), emit=lambda *_: None) for _ in range(2))  # type: ignore[arg-type]
    assert first.native_own_writes is not second.native_own_writes
    assert first.native_catalog is None and first.data_jobs is None and first.native_text is None


def test_each_host_searches_pi_text_it_read_itself(pi_sessions, tmp_path):
    """Ctrl+K's memory of pi session text is the host's own: the second host's search reads the files again."""
    from pidesktop.host.core import Host
    from pidesktop.host.native import text_search

    hosts = [Host.open(paths.resolve(data_dir=tmp_path / name), emit=lambda *_: None) for name in ("one", "two")]
    try:
        for host in hosts:
            host.dispatch("search.sessions", {"query": "hello"})
        first, second = (text_search.cache_of(host.ctx) for host in hosts)
        assert first is not second
        assert first.files and second.files.keys() == first.files.keys()
        assert not any(first.files[path] is second.files[path] for path in first.files)
    finally:
        for host in hosts:
            host.close()


def test_a_server_refusing_tools_mutes_them_for_its_runner_only(host, sse_server):
    refusal = Script(
        status=400,
        headers={"Content-Type": "application/json"},
        framing="length",
        chunks=[b'{"error": {"message": "model does not support tools"}}'],
    )
    sse_server.serve_in_turn("/v1/chat/completions", refusal, *[Script(chunks=[text_body("Plain.")])] * 3)

    async def body(client):
        choice = ProviderChoice(base_url=sse_server.base_url, model="no-tools-model")
        first, second = TurnRunner(client, override=choice), TurnRunner(client, override=choice)
        for runner in (first, first, second):
            session_id = (await client.call("session.create", {}))["session"]["id"]
            assert (await runner.send(session_id, "Hi"))["status"] == "completed"

    run_with_client(host, body)
    refused, retried, remembered, other_runner = sse_server.requests
    assert "TodoWrite" in tool_names(refused) and "tools" not in retried.json
    assert "tools" not in remembered.json  # the first runner remembers the refusal
    assert "TodoWrite" in tool_names(other_runner)  # a second runner in the same process asks with tools
