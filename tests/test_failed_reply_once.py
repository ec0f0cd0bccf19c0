"""A reply that failed says why once: under itself, in words, not again on the line above the composer."""

from tests.support.sse_server import closed_port
from tests.support.waits import spin_until


def test_a_connection_failure_is_reported_once_under_the_reply(chat, qloop):
    made = chat.client.call_blocking(
        "providers.upsert",
        {"provider": {"name": "Nobody home", "baseUrl": f"http://127.0.0.1:{closed_port()}/v1", "defaultModelId": "m"}},
    )["provider"]
    chat.client.call_blocking("providers.setDefault", {"providerId": made["id"]})
    qloop.run_until_complete(chat.chats.send_prompt("hello?"))
    sid = chat.current_session_id
    spin_until(qloop, lambda: not chat.runner.is_running(sid))
    reply = chat.client.call_blocking("session.get", {"sessionId": sid})["messages"][-1]
    assert reply["meta"]["error"]["code"] == "connection_failed"
    spin_until(qloop, lambda: chat.transcript_model.rowCount() == 2 and not chat.transcript_model.rows[-1]["live"])
    rendered = chat.transcript.delegate.rendered(chat.transcript_model.index(1))
    [note] = [part for part in rendered.parts if part.kind == "error"]
    assert "Could not connect to http://127.0.0.1" in note.doc.toPlainText()  # the provider failure in words
    assert chat.notice.message() == ""  # not a second time
    assert chat.notices.error_log.entries()[-1].code == "connection_failed"  # still behind Details and in the log
