"""The defects the command fuzzer (tests/test_fuzz_commands.py) found, each as the case that found it.

Every case goes through the real host thread, where an exception other than
``HostError`` would come back as ``INTERNAL``; each must be refused with
``INVALID_PARAMS`` naming the field, and change nothing.
"""

from __future__ import annotations

import pytest

from pidesktop.bus.errors import ErrorCode
from tests.support.host_helpers import append, msg, new_session


def refused(host, method, params, field):
    error = host.error(method, params)
    assert error.code == ErrorCode.INVALID_PARAMS, error
    assert error.data.get("field") == field, error
    return error


@pytest.fixture
def sid(host):
    sid = new_session(host, title="Alpha")
    append(host, sid, msg("m1"))
    return sid


# -- lone surrogates (in process only: JSON over stdio cannot carry them) --------------------------
def test_a_lone_surrogate_in_text_is_refused_naming_the_field(host, sid):
    # each was a UnicodeEncodeError from SQLite's UTF-8 binding: INTERNAL
    refused(host, "session.rename", {"sessionId": sid, "title": "x\ud800"}, "title")
    refused(host, "session.create", {"projectPath": "\ud800"}, "projectPath")
    refused(host, "session.create", {"modelId": "\ud800"}, "modelId")
    refused(host, "models.list", {"providerId": "\ud800"}, "providerId")
    refused(host, "notifications.markRead", {"id": "\ud800"}, "id")
    refused(host, "notifications.markAllRead", {"sessionId": "\ud800"}, "sessionId")
    refused(host, "providers.delete", {"providerId": "\ud800"}, "providerId")
    refused(host, "search.query", {"query": "\ud800"}, "query")
    refused(host, "attachments.import", {"path": "/tmp/\ud800"}, "path")
    assert host.call("session.get", {"sessionId": sid})["session"]["title"] == "Alpha"


def test_a_lone_surrogate_inside_an_object_is_refused_with_its_path(host, sid):
    # an InvalidRecord from the transcript encoder: INTERNAL, after the session row was touched
    message = msg("m2", text="a\udc80")
    refused(host, "session.appendMessage", {"sessionId": sid, "message": message}, "message.blocks[0].text")
    refused(host, "settings.set", {"patch": {"\udfff": 1}}, "patch")
    assert [m["id"] for m in host.call("session.get", {"sessionId": sid})["messages"]] == ["m1"]


def test_integers_beyond_64_bits_are_refused(host, sid):
    # OverflowError binding to SQLite, TypeError from the JSON encoder: INTERNAL
    refused(host, "settings.set", {"patch": {"activeRevision": 2**64}}, "patch.activeRevision")
    refused(host, "session.list", {"projectId": 10**30}, "projectId")
    refused(host, "session.get", {"sessionId": sid, "messageBefore": -(10**30)}, "messageBefore")
    big = msg("m2", meta={"n": 2**64})
    refused(host, "session.appendMessage", {"sessionId": sid, "message": big}, "message.meta.n")


# -- strings the host parsed or passed on without checking ------------------------------------------
def test_a_nul_in_a_search_query_is_a_literal_search(host, sid):
    # FTS5 read the NUL as the end of the query: SQLError "unterminated string", INTERNAL
    assert host.call("search.query", {"query": "a\x00b"})["total"] == 0
    assert host.call("search.sessions", {"query": "te\x00xt"})["results"] == []


def test_a_nul_in_an_import_path_is_refused(host):
    # ValueError "embedded null byte" from os.stat: INTERNAL
    refused(host, "attachments.import", {"path": "/etc/passwd\x00.png"}, "path")


@pytest.mark.parametrize(
    "method,params",
    [
        ("session.list", {"cursor": "99999999999999999999:abc"}),  # OverflowError in SQLite
        ("session.list", {"cursor": "\u00b2:abc"}),
        ("notifications.list", {"cursor": "99999999999999999999999:x"}),  # OverflowError in SQLite
        ("notifications.list", {"cursor": "\u00b2:x"}),  # isdigit() but not int()
        ("search.sessions", {"query": "text", "cursor": "o:\u00b2"}),  # ValueError from int()
        ("search.sessions", {"query": "text", "cursor": "o:\u0661"}),
    ],
)
def test_a_cursor_the_host_never_handed_out_is_refused(host, method, params):
    refused(host, method, params, "cursor")


# -- INVALID_PARAMS that did not name its field ------------------------------------------------------
def test_every_invalid_params_names_its_field(host, sid, tmp_path):
    refused(host, "app.handshake", {"protocolVersion": 0}, "protocolVersion")
    refused(host, "attachments.import", {"path": str(tmp_path)}, "path")
    refused(host, "attachments.import", {"path": str(tmp_path / "missing")}, "path")
    refused(
        host,
        "session.appendMessage",
        {"sessionId": sid, "message": {"id": 5, "role": "user", "blocks": []}},
        "message.id",
    )
    refused(
        host,
        "session.appendMessage",
        {"sessionId": sid, "message": {"id": "x", "role": "cat", "blocks": []}},
        "message.role",
    )
    refused(
        host,
        "session.saveInflightMessage",
        {"sessionId": sid, "message": {"id": "x", "role": "user", "blocks": [3]}},
        "message.blocks[0]",
    )
    refused(
        host, "session.appendCompaction", {"sessionId": sid, "compaction": {"id": "c1"}}, "compaction.throughMessageId"
    )
    refused(host, "session.update", {"sessionId": sid}, "providerId")
    refused(host, "session.get", {"sessionId": sid, "messageStart": 0, "messageEnd": 1}, "messageStart")
    host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
    refused(host, "session.recordUsage", {"sessionId": sid, "turnId": "t1", "records": [{"id": ""}]}, "records[0].id")
    refused(
        host,
        "session.recordUsage",
        {"sessionId": sid, "turnId": "t1", "records": [{"id": "r", "inputTokens": -1}]},
        "records[0].inputTokens",
    )
    twice = [msg("m1"), msg("m1")]
    refused(host, "session.replaceMessages", {"sessionId": sid, "messages": twice}, "messages[1].id")
