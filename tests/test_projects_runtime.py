"""A chat in a project sends the project's notes to the model; a chat outside sends none."""

from __future__ import annotations

from pidesktop.agent.runner import ProviderChoice, TurnRunner
from tests.support.hosts import run_with_client
from tests.support.sse_server import fixture_bytes


def send(host, server, session_id, prompt="What next?"):
    choice = ProviderChoice(base_url=server.base_url, model="gpt-test")
    return run_with_client(host, lambda client: TurnRunner(client, override=choice).send(session_id, prompt))


def test_a_chat_in_a_project_sends_its_memory_and_group_notes_a_chat_outside_sends_none(host, sse_server, tmp_path):
    folder = tmp_path / "blog"
    folder.mkdir()
    project = host.call("projects.upsert", {"path": str(folder)})["project"]
    host.call("projects.memorySet", {"projectId": project["id"], "text": "Deploys go through `make ship`."})
    group = host.call("projectGroups.set", {"name": "Sites", "projectIds": [project["id"]]})["group"]
    host.call("projectGroups.instructionsSet", {"groupId": group["id"], "text": "Answer in British English."})
    host.call("projectGroups.memorySet", {"groupId": group["id"], "text": "All sites share one CDN."})
    inside = host.call("session.create", {"projectPath": str(folder), "mode": "plan"})["session"]["id"]
    outside = host.call("session.create", {})["session"]["id"]

    sse_server.stream([fixture_bytes("plain-text")])
    assert send(host, sse_server, inside)["status"] == "completed"
    sent = sse_server.requests[-1].json["messages"]
    assert [m["role"] for m in sent] == ["system", "system", "system", "user"]
    assert "Plan mode" in sent[0]["content"]  # the mode instruction stays first, above the notes
    assert "Your workspace is the project folder" in sent[1]["content"] and str(folder) in sent[1]["content"]
    notes = sent[2]["content"]
    assert "The person's own notes" in notes and "do not replace or override" in notes
    for text in ("make ship", "British English", "one CDN", "“blog”", "“Sites”"):
        assert text in notes
    assert sent[3] == {"role": "user", "content": "What next?"}
    stored = host.call("session.get", {"sessionId": inside})["messages"]
    assert [m["role"] for m in stored] == ["user", "assistant"]  # sent, never stored
    transcript = (host.location.data_root / "sessions" / f"{inside}.jsonl").read_text()
    assert "make ship" not in transcript

    sse_server.stream([fixture_bytes("plain-text")])
    assert send(host, sse_server, outside)["status"] == "completed"
    assert [m["role"] for m in sse_server.requests[-1].json["messages"]] == ["system", "user"]  # the workspace only

    # moved out of the project: the next request carries no notes
    host.call("session.update", {"sessionId": inside, "projectId": None})
    sse_server.stream([fixture_bytes("plain-text")])
    assert send(host, sse_server, inside, "And now?")["status"] == "completed"
    sent = sse_server.requests[-1].json["messages"]
    assert not any("make ship" in (m.get("content") or "") for m in sent)
