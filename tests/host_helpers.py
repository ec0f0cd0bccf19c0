"""Small builders the host command tests share: sessions, messages, the transcript file."""

import orjson


def new_session(host, **params):
    return host.call("session.create", params)["session"]["id"]


def msg(mid, role="user", text="hello", **extra):
    return {"id": mid, "role": role, "blocks": [{"type": "text", "text": text}], **extra}


def append(host, sid, message, **params):
    return host.call("session.appendMessage", {"sessionId": sid, "message": message, **params})


def transcript_path(host, sid):
    return host.location.data_root / "sessions" / f"{sid}.jsonl"


def transcript_lines(host, sid):
    """Every line of the chat's transcript file, parsed (the header first)."""
    return [orjson.loads(line) for line in transcript_path(host, sid).read_bytes().splitlines()]
