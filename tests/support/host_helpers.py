"""Small builders the host command tests share: sessions, messages, the transcript file."""

import orjson

from tests.support.hosts import InProcessHost


def new_session(host, **params):
    return host.call("session.create", params)["session"]["id"]


def msg(mid, role="user", text="hello", **extra):
    return {"id": mid, "role": role, "blocks": [{"type": "text", "text": text}], **extra}


def assistant(mid, text="done", status="completed", **extra):
    """A stored reply: assistant text with its ``meta.status``."""
    return {
        "id": mid,
        "role": "assistant",
        "blocks": [{"type": "text", "text": text}],
        "meta": {"status": status},
        **extra,
    }


def append(host, sid, message, **params):
    return host.call("session.appendMessage", {"sessionId": sid, "message": message, **params})


def transcript_path(host, sid):
    return host.location.data_root / "sessions" / f"{sid}.jsonl"


def transcript_lines(host, sid):
    """Every line of the chat's transcript file, parsed (the header first), but the ``session_row`` lines
    (a turn's or a plan approval's row, kept there for a rebuild of the index: test_rebuild.py)."""
    parsed = [orjson.loads(line) for line in transcript_path(host, sid).read_bytes().splitlines()]
    return [line for line in parsed if line.get("type") != "session_row"]


def crash_mid_reply(location) -> str:
    """A turn that started, checkpointed part of its reply and never ended (the process died)."""
    host = InProcessHost(location)
    try:
        sid = host.call("session.create", {"title": "Story"})["session"]["id"]
        host.call(
            "session.appendMessage",
            {
                "sessionId": sid,
                "message": {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "write me a story"}]},
            },
        )
        host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
        host.call(
            "session.saveInflightMessage",
            {
                "sessionId": sid,
                "turnId": "t1",
                "message": {
                    "id": "a1",
                    "role": "assistant",
                    "blocks": [{"type": "text", "text": "Once upon a"}],
                    "meta": {"status": "streaming"},
                },
            },
        )
        return sid
    finally:
        host.stop()  # no endTurn, no final append: what a kill -9 leaves
