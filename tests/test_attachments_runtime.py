"""Attachments through the turn runner: bytes reach the model's request, only refs reach storage."""

from __future__ import annotations

import asyncio
import base64
import copy
import os
from pathlib import Path

import orjson
import pytest

from pidesktop.agent.attachment_content import hydrate
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import HostError
from tests.support.hosts import run_with_client
from tests.support.sse_server import Script, chunk, fixture_bytes, sse_body
from tests.support.waits import wait_until
from tests.test_attachments import tiny_png


def runner_for(client, server=None) -> TurnRunner:
    override = (
        None if server is None else ProviderChoice(base_url=server.base_url, model="gpt-test", api_key="sk-test-key")
    )
    return TurnRunner(client, override=override, offline_delay=0)


def run(host, scenario):
    """Run ``scenario(client, runner_factory, session_id)`` on a fresh session; returns (session id, its result)."""

    async def body(client):
        session_id = (await client.call("session.create", {}))["session"]["id"]
        return session_id, await scenario(client, session_id)

    return run_with_client(host, body)


def import_file(host, path: Path, data: bytes) -> dict:
    path.write_bytes(data)
    return host.call("attachments.import", {"path": str(path)})["attachment"]


def stored_files(root: Path) -> dict[str, bytes]:
    """Every file of the data root except the blobs themselves: transcripts, database, WAL, logs."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.parent.name != "attachments"
    }


def stored_form(block: dict) -> dict:
    """What a prompt keeps of an import result: the digest is already in the ref."""
    return {key: value for key, value in block.items() if key != "sha256"}


def data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def test_an_image_reaches_the_model_as_a_data_url_and_storage_keeps_only_its_ref(host, sse_server, tmp_path):
    png = tiny_png(3, 2)
    image = import_file(host, tmp_path / "red.png", png)
    sse_server.stream([fixture_bytes("plain-text")])

    async def scenario(client, sid):
        return await runner_for(client, sse_server).send(sid, "What is in this picture?", attachments=[image])

    sid, result = run(host, scenario)
    assert result["status"] == "completed"
    sent = sse_server.requests[-1].json["messages"][-1]
    assert sent == {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is in this picture?\n\n[attachment: red.png]"},
            {"type": "image_url", "image_url": {"url": data_url("image/png", png)}},
        ],
    }

    got = host.call("session.get", {"sessionId": sid})
    prompt = got["messages"][0]
    assert prompt["blocks"] == [{"type": "text", "text": "What is in this picture?"}, stored_form(image)]
    encoded = base64.b64encode(png)
    assert encoded.decode() not in orjson.dumps(got).decode()
    transcript = (host.location.data_root / "sessions" / f"{sid}.jsonl").read_bytes()
    assert image["ref"].encode() in transcript
    for name, content in stored_files(host.location.data_root).items():
        assert encoded not in content and b"dataUrl" not in content and b'"inline"' not in content, name


def test_text_attachments_reach_the_model_as_text_and_others_by_name(host, sse_server, tmp_path):
    notes = import_file(host, tmp_path / "notes.md", "# Plan\n- ship it ✓\n".encode())
    pasted = host.call("attachments.importText", {"text": "pasted line\n" * 3})["attachment"]
    report = import_file(host, tmp_path / "report.pdf", b"%PDF-1.7\n" + b"\x00" * 12586)
    log_text = "x" * (300 * 1024)  # over the 256 KiB text bound: named, not sent
    big_log = host.call("attachments.importText", {"text": log_text, "name": "big.log"})["attachment"]
    sse_server.stream([fixture_bytes("plain-text")])

    async def scenario(client, sid):
        return await runner_for(client, sse_server).send(
            sid, "Read these", attachments=[notes, pasted, report, big_log]
        )

    sid, result = run(host, scenario)
    assert result["status"] == "completed"
    assert sse_server.requests[-1].json["messages"][-1] == {
        "role": "user",
        "content": "\n\n".join(
            [
                "Read these",
                "[attachment: notes.md]\n# Plan\n- ship it ✓\n",
                "[attachment: Pasted text.txt]\n" + "pasted line\n" * 3,
                "[attachment: report.pdf, 13 KB]",
                "[attachment: big.log, 307 KB]",
            ]
        ),
    }
    blocks = host.call("session.get", {"sessionId": sid})["messages"][0]["blocks"]
    assert blocks[1:] == [stored_form(b) for b in (notes, pasted, report, big_log)]
    transcript = (host.location.data_root / "sessions" / f"{sid}.jsonl").read_bytes()
    assert b"ship it" not in transcript and b"pasted line" not in transcript


def test_a_prompt_queued_with_attachments_keeps_them_when_it_is_sent(host, sse_server, tmp_path):
    png = tiny_png()
    image = import_file(host, tmp_path / "later.png", png)
    sse_server.stream(
        [sse_body(chunk(f"w{i} "), done=False) for i in range(20)] + [sse_body(chunk(finish="stop"))], delay=0.02
    )

    async def scenario(client, sid):
        runner = runner_for(client, sse_server)
        first = asyncio.create_task(runner.send(sid, "first"))
        await wait_until(lambda: runner.is_running(sid))
        queued = await runner.send(sid, "", attachments=[image])
        listed = (await client.call("session.queueList", {"sessionId": sid}))["entries"]
        await first  # the runner drains the queue when the running turn ends
        return queued, listed

    sid, (queued, listed) = run(host, scenario)
    assert queued["queued"]["attachments"] == [stored_form(image)] and queued["queued"]["content"] == ""
    assert [e["attachments"] for e in listed] == [[stored_form(image)]]
    assert len(sse_server.requests) == 2
    sent = sse_server.requests[-1].json["messages"][-1]
    assert sent["content"][1] == {"type": "image_url", "image_url": {"url": data_url("image/png", png)}}
    got = host.call("session.get", {"sessionId": sid})
    assert [m["role"] for m in got["messages"]] == ["user", "assistant", "user", "assistant"]
    assert got["messages"][2]["blocks"] == [stored_form(image)]  # no empty text block
    assert host.call("session.queueList", {"sessionId": sid})["entries"] == []


def test_the_offline_demo_names_the_attachments(host, tmp_path):
    image = import_file(host, tmp_path / "cat.png", tiny_png())
    notes = host.call("attachments.importText", {"text": "hello", "name": "hello.txt"})["attachment"]

    async def scenario(client, sid):
        return await runner_for(client).send(sid, "Look", attachments=[image, notes])

    _sid, result = run(host, scenario)
    text = result["message"]["blocks"][-1]["text"]
    assert f"- **Attachments:** cat.png (image, {image['size']} B), hello.txt (file, 5 B)" in text


def test_bad_prompts_are_refused_and_nothing_is_stored(host):
    async def scenario(client, sid):
        runner = runner_for(client)
        errors = []
        for text, attachments in (
            ("  ", None),
            ("", []),
            ("hi", [{"type": "text", "text": "x"}]),
            ("hi", ["attachments/abc"]),
            ("hi", {"type": "attachment"}),
            ("hi", [{"type": "attachment", "name": "a.png"}]),
        ):
            with pytest.raises(HostError) as info:
                await runner.send(sid, text, attachments=attachments)
            errors.append((info.value.code, info.value.message))
        return errors

    sid, errors = run(host, scenario)
    assert errors == [
        ("INVALID_PARAMS", "The prompt is empty: type a message or attach a file."),
        ("INVALID_PARAMS", "The prompt is empty: type a message or attach a file."),
        ("INVALID_PARAMS", 'attachments[0] must be an object with type "attachment".'),
        ("INVALID_PARAMS", 'attachments[0] must be an object with type "attachment".'),
        ("INVALID_PARAMS", "attachments must be a list of attachment blocks, not dict."),
        ("INVALID_PARAMS", "attachments[0].ref must be a non-empty string."),
    ]
    assert host.call("session.get", {"sessionId": sid})["messages"] == []


def test_an_inline_key_given_by_the_caller_is_never_stored(host, tmp_path):
    image = import_file(host, tmp_path / "a.png", tiny_png())
    smuggled = {**image, "inline": {"dataUrl": "data:image/png;base64,AAAA"}}

    async def scenario(client, sid):
        return await runner_for(client).send(sid, "hi", attachments=[smuggled])

    sid, _result = run(host, scenario)
    assert host.call("session.get", {"sessionId": sid})["messages"][0]["blocks"][1] == stored_form(image)
    assert b"inline" not in (host.location.data_root / "sessions" / f"{sid}.jsonl").read_bytes()


def test_hydrate_copies_and_caps(host, tmp_path):
    png = tiny_png()
    image = import_file(host, tmp_path / "a.png", png)
    text = host.call("attachments.importText", {"text": "ok"})["attachment"]
    missing = {**image, "ref": "attachments/" + "0" * 64, "name": "gone.png"}
    large = import_file(host, tmp_path / "large.png", png + os.urandom(21 << 20))  # over the 20 MiB image bound
    outside = {"type": "attachment", "kind": "file", "name": "x", "ref": "/etc/hostname", "mimeType": "text/plain"}
    messages = [
        {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "old"}, image, missing, large, outside]},
        {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": "seen"}]},
        {"id": "u2", "role": "user", "blocks": [text]},
    ]
    original = copy.deepcopy(messages)

    async def scenario(client, _sid):
        return await hydrate(client, messages)

    _sid, hydrated = run(host, scenario)
    assert messages == original  # the stored copies are untouched
    blocks = hydrated[0]["blocks"]
    assert blocks[1]["inline"] == {"dataUrl": data_url("image/png", png)}
    assert ["inline" in b for b in blocks] == [False, True, False, False, False]
    assert hydrated[1] is messages[1]
    assert hydrated[2]["blocks"][0]["inline"] == {"text": "ok"}


def test_a_model_that_refuses_pictures_is_asked_again_with_them_named(host, sse_server, tmp_path):
    png = tiny_png(3, 2)
    image = import_file(host, tmp_path / "chart.png", png)
    refusal = Script(
        status=400,
        headers={"Content-Type": "application/json"},
        framing="length",
        chunks=[b'{"error": {"message": "image input is not supported by this model"}}'],
    )
    sse_server.serve_in_turn("/v1/chat/completions", refusal, Script(chunks=[fixture_bytes("plain-text")]))

    async def scenario(client, sid):
        return await runner_for(client, sse_server).send(sid, "Describe the chart", attachments=[image])

    sid, result = run(host, scenario)
    assert result["status"] == "completed" and result["error"] is None
    first, second = (request.json["messages"][-1] for request in sse_server.requests[-2:])
    assert first["content"][1]["type"] == "image_url"
    copy = host.location.data_root / "scratch" / sid / "replayed" / f"{image['ref'][12:28]}-chart.png"
    # named, with the path of a copy the model's tools can open (spec 004: the @path fallback)
    assert second == {
        "role": "user",
        "content": f"Describe the chart\n\n[attachment: chart.png, {len(png)} B] @{copy}",
    }
    assert copy.read_bytes() == png
    reply = host.call("session.get", {"sessionId": sid})["messages"][1]
    assert reply["meta"]["imagesNotSent"] is True and reply["meta"]["status"] == "completed"
    assert "path" not in reply_prompt(host, sid)  # the copy's path is never stored with the prompt


def reply_prompt(host, sid) -> dict:
    return host.call("session.get", {"sessionId": sid})["messages"][0]["blocks"][1]


def test_a_picture_over_the_inline_bound_goes_by_path(host, sse_server, tmp_path, monkeypatch):
    from pidesktop.agent import attachment_content

    png = tiny_png(40, 40)
    monkeypatch.setattr(attachment_content, "IMAGE_MAX", len(png) - 1)
    image = import_file(host, tmp_path / "big photo.png", png)
    sse_server.stream([fixture_bytes("plain-text")])

    async def scenario(client, sid):
        return await runner_for(client, sse_server).send(sid, "What is this?", attachments=[image])

    sid, result = run(host, scenario)
    assert result["status"] == "completed"
    sent = sse_server.requests[-1].json["messages"][-1]["content"]
    copy = host.location.data_root / "scratch" / sid / "replayed" / f"{image['ref'][12:28]}-big_photo.png"
    assert sent.endswith(f"[attachment: big photo.png, {len(png)} B] @{copy}")
    assert copy.read_bytes() == png


def test_replay_refuses_a_bad_ref_and_an_unknown_chat(host):
    sid = host.call("session.create", {})["session"]["id"]
    assert host.error("attachments.replay", {"sessionId": sid, "ref": "../etc/passwd"}).code == "INVALID_PARAMS"
    missing = {"sessionId": sid, "ref": "attachments/" + "0" * 64}
    assert host.error("attachments.replay", missing).code == "NOT_FOUND"
    unknown = {"sessionId": "nope", "ref": "attachments/" + "0" * 64}
    assert host.error("attachments.replay", unknown).code == "NOT_FOUND"


def test_a_refusal_without_pictures_is_not_retried(host, sse_server, tmp_path):
    notes = host.call("attachments.importText", {"text": "plain notes", "name": "notes.txt"})["attachment"]
    sse_server.serve_in_turn(
        "/v1/chat/completions",
        Script(
            status=400,
            headers={"Content-Type": "application/json"},
            framing="length",
            chunks=[b'{"error": {"message": "bad request"}}'],
        ),
        Script(chunks=[fixture_bytes("plain-text")]),
    )

    async def scenario(client, sid):
        return await runner_for(client, sse_server).send(sid, "Read this", attachments=[notes])

    _sid, result = run(host, scenario)
    assert result["status"] == "error" and result["error"]["code"] == "bad_request"
    assert len(sse_server.requests) == 1
