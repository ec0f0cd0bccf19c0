"""Native pi sessions end to end over ``pidesktop host --stdio``: the fixture files written by the pi CLI.

Listed beside the app's chats, every branch read, windows equal to a full
read, write commands refused, fork and continue re-read by the same parser,
and every file byte-identical unless this app was asked to write it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import pytest

from pidesktop.bus import HostError
from pidesktop.host.native import pi_format
from tests.support.repo import FIXTURES

NATIVE = FIXTURES / "pi-native" / "sessions"

REFUSED = (
    "session.appendMessage",
    "session.rename",
    "session.update",
    "session.delete",
    "session.truncateFrom",
    "session.replaceMessages",
    "session.deleteMessage",
    "session.activateRevision",
    "session.saveActiveRevision",
    "session.startTurn",
    "session.endTurn",
    "session.saveInflightMessage",
    "session.queuePush",
    "session.queueList",
    "session.queueRemove",
    "session.queueReorder",
    "session.queuePrioritize",
    "session.queueMarkFailed",
    "session.appendCompaction",
    "session.recordUsage",
    "session.listRevisions",
)


@pytest.fixture
def pi_sessions(isolated_home) -> Path:
    """A copy of the fixture sessions in this test's pi agent folder (times kept, files writable)."""
    root = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions"
    shutil.copytree(NATIVE, root)
    for path in root.rglob("*.jsonl"):
        path.chmod(0o644)
    return root


def digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def file_of(root: Path, header_id: str) -> Path:
    return next(p for p in root.rglob("*.jsonl") if header_id in p.name)


def test_list_and_read_every_branch_in_windows_then_nothing_changed(stdio_host, pi_sessions):
    before = digests(pi_sessions)
    host = stdio_host()
    desktop = host.call("session.create", {"title": "My own chat"})["session"]
    listed = host.call("session.list", {"limit": 500})["sessions"]
    native = [row for row in listed if row["id"].startswith("native-pi:")]
    assert len(native) == 10 and listed[0]["id"] == desktop["id"]  # the new chat is the newest
    assert desktop["origin"] == "desktop" and desktop["readOnly"] is False
    assert [r["updatedAt"] for r in listed] == sorted((r["updatedAt"] for r in listed), reverse=True)
    for row in native:
        assert row["origin"] == "native-pi" and row["readOnly"] is True and row["pinned"] is False
        assert row["cwd"] in ("/home/ada/code/work", "/home/ada/code/work2") and row["title"]
        parsed = pi_format.parse(file_of(pi_sessions, row["nativeId"]).read_bytes())
        full = host.call("session.get", {"sessionId": row["id"]})
        expected, compactions = pi_format.read_branch(parsed)
        assert full["messages"] == expected and full["compactions"] == compactions
        assert full["totalMessages"] == row["messageCount"] == len(expected)
        assert full["leafId"] == parsed.tree.leaf and full["session"]["nativeToken"]
        assert [b["leafId"] for b in full["branches"]] == [m.id for m in parsed.tree.leaves()]
        assert [b["current"] for b in full["branches"]].count(True) == 1
        for branch in full["branches"]:
            read = host.call("session.get", {"sessionId": row["id"], "leafId": branch["leafId"]})
            assert read["messages"] == pi_format.read_branch(parsed, branch["leafId"])[0]
            assert read["leafId"] == branch["leafId"] and branch["messageCount"] == read["totalMessages"]
        pages, before_position = [], None
        while True:
            params = {"sessionId": row["id"], "messageLimit": 7, "contentLimit": 10_000}
            if before_position is not None:
                params["messageBefore"] = before_position
            page = host.call("session.get", params)
            pages = page["messages"] + pages
            if not page["hasMoreBefore"]:
                break
            before_position = page["messageStart"]
        assert pages == expected
        middle = expected[len(expected) // 2]["id"]
        around = host.call("session.get", {"sessionId": row["id"], "messageAround": middle, "messageLimit": 3})
        assert middle in [m["id"] for m in around["messages"]]
    forks = [row for row in native if row["parentSessionId"]]
    assert len(forks) == 2  # pi's --fork and its clone name their parent by path
    assert all(any(r["id"] == f["parentSessionId"] for r in native) for f in forks)
    # one order and paging for both kinds of rows
    paged, cursor = [], None
    while True:
        page = host.call("session.list", {"limit": 3, **({"cursor": cursor} if cursor else {})})
        paged += page["sessions"]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert [r["id"] for r in paged] == [r["id"] for r in listed]
    assert all(not r["id"].startswith("native-pi:") for r in host.call("session.list", {"native": False})["sessions"])
    assert host.close() == 0
    assert digests(pi_sessions) == before


def test_every_write_command_is_refused_and_writes_nothing(stdio_host, pi_sessions):
    before = digests(pi_sessions)
    host = stdio_host()
    row = next(r for r in host.call("session.list", {})["sessions"] if r["id"].startswith("native-pi:"))
    for method in REFUSED:
        reply = host.request(
            method, {"sessionId": row["id"], "title": "x", "message": {"id": "m", "role": "user", "blocks": []}}
        )
        error = HostError.from_jsonrpc(reply["error"])
        assert error.code == "PERMISSION_DENIED", method
        assert "read-only" in error.message and error.data["native"] is True
    assert host.call("session.get", {"sessionId": row["id"]})["messages"]
    close_cleanly(host)
    assert digests(pi_sessions) == before


def close_cleanly(host) -> None:
    """End of input: the host, its watcher thread included, exits 0 with no traceback."""
    host.proc.stdin.close()
    host.proc.stdout.read()
    assert host.proc.wait(30) == 0
    errors = host.proc.stderr.read().decode(errors="replace")
    host.proc.stdout.close()
    host.proc.stderr.close()
    assert "Traceback" not in errors, errors


def test_fork_then_continue_then_the_same_parser_reads_it(stdio_host, pi_sessions):
    host = stdio_host()
    rows = host.call("session.list", {})["sessions"]
    parent = next(r for r in rows if r.get("nativeId") == "01a231f4-982d-716b-adc1-6b769c5af92a")  # tool calls
    parent_file = file_of(pi_sessions, parent["nativeId"])
    parent_bytes = parent_file.read_bytes()
    full = host.call("session.get", {"sessionId": parent["id"]})
    through = full["messages"][3]["id"]
    child = host.call("session.fork", {"sessionId": parent["id"], "throughMessageId": through})["session"]
    assert child["parentSessionId"] == parent["id"] and child["title"].endswith("(fork)")
    assert child["messageCount"] == 4 and child["readOnly"] is True
    assert parent_file.read_bytes() == parent_bytes
    siblings = sorted(parent_file.parent.iterdir())
    new_files = [
        p
        for p in siblings
        if p.name.endswith(".jsonl") and pi_format.parse(p.read_bytes()).header["id"] == child["nativeId"]
    ]
    assert len(new_files) == 1 and not [p for p in siblings if p.name.endswith(".tmp")]
    child_parsed = pi_format.parse(new_files[0].read_bytes())
    assert child_parsed.header["parentSession"] == os.path.realpath(parent_file)
    assert child_parsed.version == 3 and new_files[0].name.endswith(f"_{child['nativeId']}.jsonl")
    assert pi_format.read_branch(child_parsed)[0] == full["messages"][:4]

    appended = host.call(
        "native.append",
        {
            "sessionId": child["id"],
            "token": child["nativeToken"],
            "messages": [
                {"role": "user", "text": "Continue from the desktop."},
                {
                    "role": "assistant",
                    "text": "Continued.",
                    "thinking": "short",
                    "provider": "local",
                    "model": "tiny",
                    "usage": {"input": 12, "output": 3},
                    "stopReason": "stop",
                },
            ],
        },
    )
    assert len(appended["entryIds"]) == 2 and appended["token"] != child["nativeToken"]
    reread = pi_format.parse(new_files[0].read_bytes())
    assert reread.version == 3 and not reread.torn and reread.garbage == 0
    assert [m.id for m in reread.metas[-2:]] == appended["entryIds"]
    assert reread.metas[-2].parent == child_parsed.tree.leaf and reread.metas[-1].parent == appended["entryIds"][0]
    messages, _ = pi_format.read_branch(reread)
    assert [m["role"] for m in messages[-2:]] == ["user", "assistant"]
    assert messages[-1]["blocks"] == [{"type": "thinking", "text": "short"}, {"type": "text", "text": "Continued."}]
    assert messages[-1]["meta"]["usage"]["totalTokens"] == 15
    window = host.call("session.get", {"sessionId": child["id"], "messageLimit": 2})
    assert window["messages"] == messages[-2:] and window["session"]["nativeToken"] == appended["token"]
    assert parent_file.read_bytes() == parent_bytes
    assert host.close() == 0


def test_append_refusals_write_nothing(stdio_host, pi_sessions, tmp_path):
    host = stdio_host()
    rows = {r.get("nativeId"): r for r in host.call("session.list", {})["sessions"]}
    row = rows["01a231f4-653f-75e0-b557-9081058b407f"]
    path = file_of(pi_sessions, row["nativeId"])
    original = path.read_bytes()
    user = {"role": "user", "text": "hello"}

    def refused(params: dict, code: str, reason: str | None = None) -> None:
        reply = host.request("native.append", params)
        error = HostError.from_jsonrpc(reply["error"])
        assert error.code == code, error
        if reason:
            assert error.data["reason"] == reason
        assert path.read_bytes() == original

    refused({"sessionId": row["id"], "token": row["nativeToken"] + "0", "messages": [user]}, "CONFLICT", "changed")
    desktop = host.call("session.create", {})["session"]
    refused({"sessionId": desktop["id"], "token": "t", "messages": [user]}, "PERMISSION_DENIED")
    refused(
        {"sessionId": row["id"], "token": row["nativeToken"], "messages": [{"role": "assistant", "text": "x"}]},
        "INVALID_PARAMS",
    )
    # a live pi: the file changed a moment ago, not by this host
    now = os.stat(path).st_mtime
    os.utime(path, (now, time.time()))
    fresh = host.call("session.get", {"sessionId": row["id"]})["session"]["nativeToken"]
    refused({"sessionId": row["id"], "token": fresh, "messages": [user]}, "CONFLICT", "live")
    os.utime(path, (now, now))
    # a torn last line
    with path.open("ab") as handle:
        handle.write(b'{"type":"message","id":"half')
    original = path.read_bytes()
    torn = host.call("session.get", {"sessionId": row["id"]})
    assert torn["messages"] == pi_format.read_branch(pi_format.parse(original))[0]
    os.utime(path, (now, now))
    refused(
        {
            "sessionId": row["id"],
            "token": host.call("session.get", {"sessionId": row["id"]})["session"]["nativeToken"],
            "messages": [user],
        },
        "CONFLICT",
        "newline",
    )
    # a v1 file is read but never continued
    v1 = pi_sessions / "old" / "v1.jsonl"
    v1.parent.mkdir()
    shutil.copy2(FIXTURES / "pi-sessions" / "v1" / "large-session.jsonl", v1)
    os.utime(v1, (now, now))
    old = next(
        r
        for r in host.call("session.list", {"limit": 500})["sessions"]
        if r.get("nativeId") == "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
    )
    path, original = v1, v1.read_bytes()
    refused({"sessionId": old["id"], "token": old["nativeToken"], "messages": [user]}, "CONFLICT", "format")
    path.unlink()
    reply = host.request("native.append", {"sessionId": old["id"], "token": old["nativeToken"], "messages": [user]})
    assert HostError.from_jsonrpc(reply["error"]).code == "NOT_FOUND"
    assert host.close() == 0


def test_a_second_writer_holding_the_lease_is_refused(host, pi_sessions):
    from pidesktop.host.native import writing
    from pidesktop.host.native.index import FileKey

    row = next(r for r in host.call("session.list", {})["sessions"] if r["id"].startswith("native-pi:"))
    path = file_of(pi_sessions, row["nativeId"])
    original = path.read_bytes()
    with writing.lease(FileKey.of(os.stat(path))):
        error = host.error(
            "native.append",
            {"sessionId": row["id"], "token": row["nativeToken"], "messages": [{"role": "user", "text": "x"}]},
        )
    assert error.code == "CONFLICT" and error.data["reason"] == "lease"
    assert path.read_bytes() == original
    result = host.call(
        "native.append",
        {"sessionId": row["id"], "token": row["nativeToken"], "messages": [{"role": "user", "text": "x"}]},
    )
    assert ("session.changed", {"sessionId": row["id"], "reason": "native"}) in host.events
    assert host.call("session.get", {"sessionId": row["id"]})["session"]["nativeToken"] == result["token"]


def test_a_fork_never_replaces_or_removes_a_file_it_did_not_write(tmp_path):
    from pidesktop.host.native import writing

    final = tmp_path / "2026-01-01T00-00-00-000Z_taken.jsonl"
    final.write_bytes(b"someone else's file\n")
    with pytest.raises(HostError) as info:
        writing.publish(str(tmp_path), "taken", str(final), b'{"type":"session"}\n')
    assert info.value.code == "STORAGE_UNAVAILABLE"
    assert final.read_bytes() == b"someone else's file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [final.name]  # the staging file is gone too
    staged = tmp_path / ".other.pidesktop-fork.tmp"
    staged.write_bytes(b"not ours")
    with pytest.raises(HostError):
        writing.publish(str(tmp_path), "other", str(tmp_path / "x.jsonl"), b"content\n")
    assert staged.read_bytes() == b"not ours" and not (tmp_path / "x.jsonl").exists()


def test_a_v1_session_forks_into_v3_with_its_compaction(host, isolated_home):
    import orjson

    root = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions" / "--old--"
    root.mkdir(parents=True)
    stamp = "2025-01-01T00:00:00.000Z"
    lines = [
        {"type": "session", "id": "old", "timestamp": stamp, "cwd": "/old"},
        *(
            {
                "type": "message",
                "timestamp": stamp,
                "message": {"role": role, "content": [{"type": "text", "text": f"{role} {n}"}], "timestamp": n},
            }
            for n, role in enumerate(["user", "assistant", "user", "assistant"])
        ),
        {"type": "compaction", "timestamp": stamp, "summary": "earlier", "firstKeptEntryIndex": 3, "tokensBefore": 9},
        {
            "type": "message",
            "timestamp": stamp,
            "message": {"role": "user", "content": [{"type": "text", "text": "after"}], "timestamp": 9},
        },
    ]
    path = root / "old.jsonl"
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    os.utime(path, (1_600_000_000, 1_600_000_000))
    (row,) = [r for r in host.call("session.list", {})["sessions"] if r["id"].startswith("native-pi:")]
    parent = host.call("session.get", {"sessionId": row["id"]})
    assert parent["compactions"][0]["firstKeptMessageId"] == "v1-2"
    child = host.call("session.fork", {"sessionId": row["id"]})["session"]
    child_file = next(p for p in root.iterdir() if p.name.endswith(f"_{child['nativeId']}.jsonl"))
    parsed = pi_format.parse(child_file.read_bytes())
    assert parsed.version == 3 and parsed.garbage == 0
    compaction = next(e for e in parsed.entries if e["type"] == "compaction")
    assert compaction["firstKeptEntryId"] == "v1-2" and "firstKeptEntryIndex" not in compaction
    messages, compactions = pi_format.read_branch(parsed)
    assert messages == parent["messages"] and compactions == parent["compactions"]
    assert path.read_bytes() == b"".join(orjson.dumps(x) + b"\n" for x in lines)


def test_fork_of_another_branch_copies_that_branch(stdio_host, pi_sessions):
    host = stdio_host()
    rows = [r for r in host.call("session.list", {})["sessions"] if r["id"].startswith("native-pi:")]
    for row in rows:
        branches = host.call("session.get", {"sessionId": row["id"]})["branches"]
        other = [b for b in branches if not b["current"] and b["messageCount"]]
        if other:
            break
    else:
        pytest.fail("no fixture session has a second branch")
    before = digests(pi_sessions)
    leaf = other[0]["leafId"]
    branch = host.call("session.get", {"sessionId": row["id"], "leafId": leaf})["messages"]
    child = host.call("session.fork", {"sessionId": row["id"], "leafId": leaf})["session"]
    assert host.call("session.get", {"sessionId": child["id"]})["messages"] == branch
    assert {k: v for k, v in digests(pi_sessions).items() if k in before} == before
    reply = host.request("session.fork", {"sessionId": row["id"], "leafId": "no-such-entry"})
    assert HostError.from_jsonrpc(reply["error"]).code == "NOT_FOUND"
    assert host.close() == 0


def test_search_finds_pi_sessions_by_their_text_and_title_and_a_hit_opens_there(stdio_host, pi_sessions):
    """Ctrl+K's search.sessions reads pi's own sessions too (read in place, read-only)."""
    before = digests(pi_sessions)
    host = stdio_host()
    mine = host.call("session.create", {"title": "Notes about JSON"})["session"]
    found = host.call("search.sessions", {"query": "What is a JSONL file"})["results"]
    assert [r.get("native") for r in found] == [True]
    hit = found[0]
    assert hit["sessionId"].startswith("native-pi:") and hit["matchCount"] >= 1
    snippet = hit["snippets"][0]
    assert "JSONL file" in snippet["text"] and snippet["highlights"]
    opened = host.call(
        "session.get", {"sessionId": hit["sessionId"], "messageAround": snippet["messageId"], "messageLimit": 5}
    )
    assert snippet["messageId"] in [m["id"] for m in opened["messages"]]  # the hit opens at the message

    titles = host.call("search.sessions", {"query": "Fixture"})["results"]
    titled = [r for r in titles if r["title"].startswith("Fixture")]
    assert titled and all(r["native"] and r["titleMatch"] for r in titled)
    both = host.call("search.sessions", {"query": "json", "limit": 200})["results"]
    ids = [r["sessionId"] for r in both]
    assert mine["id"] in ids and any(i.startswith("native-pi:") for i in ids)
    assert [r["updatedAt"] for r in both] == sorted((r["updatedAt"] for r in both), reverse=True)
    assert host.call("search.sessions", {"query": "Fixture", "native": False})["results"] == []
    paged = host.call("search.sessions", {"query": "json", "limit": 1})
    second = host.call("search.sessions", {"query": "json", "limit": 1, "cursor": paged["nextCursor"]})
    assert [r["sessionId"] for r in paged["results"] + second["results"]] == ids[:2]
    assert digests(pi_sessions) == before


def test_a_first_search_over_many_pi_files_reads_them_a_slice_at_a_time(host, pi_sessions, monkeypatch):
    """A long pi history is not read whole by the first Ctrl+K: what was not read yet is read between
    commands, and the answer says its count is not final meanwhile."""
    from pidesktop.host.native import text_search

    monkeypatch.setattr(text_search, "READ_BUDGET", 0.0)  # one file per search, the rest in between
    monkeypatch.setattr(text_search, "SLICE", 0.0)
    first = host.call("search.sessions", {"query": "What is a JSONL file"})
    assert first["totalSessionsExact"] is False
    deadline = time.monotonic() + 20
    while True:
        reply = host.call("search.sessions", {"query": "What is a JSONL file"})
        if reply["totalSessionsExact"]:
            break
        assert time.monotonic() < deadline, "the pi files were never all read"
    assert [r["native"] for r in reply["results"]] == [True]


def test_a_working_folder_is_trusted_once_by_its_real_path(stdio_host, pi_sessions, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "link").symlink_to(work)
    path = sorted((pi_sessions / "--home-ada-code-work--").glob("*.jsonl"))[0]
    head, rest = path.read_bytes().split(b"\n", 1)
    path.write_bytes(
        head.replace(b'"cwd":"/home/ada/code/work"', f'"cwd":"{tmp_path / "link"}"'.encode()) + b"\n" + rest
    )
    host = stdio_host()
    row = next(
        r for r in host.call("session.list", {"limit": 500})["sessions"] if str(tmp_path) in (r.get("cwd") or "")
    )
    assert host.call("session.get", {"sessionId": row["id"], "messageLimit": 1})["session"]["cwdTrusted"] is False
    refused = HostError.from_jsonrpc(host.request("native.trust", {"cwd": str(tmp_path / "gone")})["error"])
    assert refused.code == "INVALID_PARAMS" and refused.data["field"] == "cwd"
    assert host.call("native.trust", {"cwd": str(work)}) == {"cwd": str(work.resolve()), "trusted": True}
    assert host.call("session.get", {"sessionId": row["id"], "messageLimit": 1})["session"]["cwdTrusted"] is True
    assert host.call("native.trust", {"cwd": str(tmp_path / "link")})["cwd"] == str(work.resolve())  # one decision


class _Calls:
    """``agent.export``'s view of the host: awaitable calls, answered over stdio."""

    def __init__(self, host) -> None:
        self.host = host

    async def call(self, method: str, params: dict | None = None) -> dict:
        return self.host.call(method, params or {})


def test_a_pi_session_exports_as_paging_through_it_gives_it_and_stays_as_it_was(stdio_host, pi_sessions, tmp_path):
    import asyncio
    import io
    import re

    from pidesktop.agent import export

    before = digests(pi_sessions)
    host = stdio_host()
    native = [row for row in host.call("session.list", {"limit": 500})["sessions"] if row["origin"] == "native-pi"]
    longest = max(native, key=lambda row: row["messageCount"])
    for fmt in ("md", "json"):
        path = tmp_path / f"pi.{fmt}"
        written = host.call("session.export", {"sessionId": longest["id"], "format": fmt, "path": str(path)})
        assert written["messages"] == longest["messageCount"] > 7
        paged = io.StringIO()
        asyncio.run(export.export(_Calls(host), longest["id"], fmt, paged.write, page=7))
        unstamped = [
            re.sub(r'(- Exported: |"exportedAt":")[0-9TZ:-]+', "", text)
            for text in (path.read_text(), paged.getvalue())
        ]
        assert unstamped[0] == unstamped[1]
    assert digests(pi_sessions) == before
