"""Internal ``role: system`` rows with ``meta.modelSystem`` (spec 004, T.3): never drawn; other notes are."""

from pidesktop.ui.chat.transcript_model import TranscriptModel
from tests.support.hosts import InProcessHost


def seed(location) -> str:
    host = InProcessHost(location)
    sid = host.call("session.create", {"title": "notes"})["session"]["id"]
    messages = [
        {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "Hello"}]},
        {
            "id": "s1",
            "role": "system",
            "blocks": [{"type": "text", "text": "You are a careful assistant."}],
            "meta": {"modelSystem": True},
        },
        {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": "Hi"}]},
        {"id": "n1", "role": "system", "blocks": [{"type": "text", "text": "Model changed to gpt-test"}]},
    ]
    for message in messages:
        host.call("session.appendMessage", {"sessionId": sid, "message": message})
    host.stop()
    return sid


def test_a_model_system_row_has_no_transcript_row_and_a_note_keeps_its_own(qloop, location, loop_hosts):
    sid = seed(location)
    model = TranscriptModel(loop_hosts.start())
    qloop.run_until_complete(model.open(sid))
    assert [row["message"]["id"] for row in model.rows if row["kind"] == "message"] == ["u1", "a1", "n1"]
