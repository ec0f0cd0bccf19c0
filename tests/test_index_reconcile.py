"""The index follows the transcripts by content: lines left unindexed are healed, cut files are followed.

Real ``pidesktop host --stdio`` subprocesses, killed with SIGKILL where a crash
is the point, on real files: a lost WAL, a full tmpfs between a transcript
line and its index commit, a transcript cut by outside damage.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

from pidesktop.storage import verify
from tests.support.crash_support import db_rows
from tests.support.disks import fill


def message(mid: str, text: str, role: str = "user") -> dict:
    return {"id": mid, "role": role, "blocks": [{"type": "text", "text": text}]}


def append(h, sid: str, mid: str, text: str) -> dict:
    return h.call("session.appendMessage", {"sessionId": sid, "message": message(mid, text)})


def indexed_ids(root: Path, sid: str) -> list[str]:
    return [row[0] for row in db_rows(root, "SELECT id FROM messages WHERE session_id = ? ORDER BY seq", (sid,))]


def found(h, query: str) -> list[str]:
    return [hit["messageId"] for hit in h.call("search.query", {"query": query})["results"]]


def transcript(root: Path, sid: str) -> Path:
    return root / "sessions" / f"{sid}.jsonl"


@pytest.mark.parametrize("clock", ["steady", "stepped back"])
def test_a_lost_wal_after_a_kill_leaves_no_line_unindexed(stdio_host, data_root, clock):
    h = stdio_host()
    sid = h.call("session.create", {"title": "wal"})["session"]["id"]
    for n in range(2):
        append(h, sid, f"m{n}", f"before {n}")
    assert h.close() == 0  # a clean close: the database file holds everything, no -wal
    h = stdio_host()
    for n in range(2, 5):
        append(h, sid, f"m{n}", f"walonly{n}")
    h.kill()
    # power loss with synchronous=NORMAL: the commits that were only in the WAL are gone
    for suffix in ("-wal", "-shm"):
        (data_root / f"pi.sqlite{suffix}").unlink(missing_ok=True)
    assert indexed_ids(data_root, sid) == ["m0", "m1"]
    if clock == "stepped back":  # the wall clock went back an hour during the run: the file looks older
        hour_ago = time.time() - 3600
        os.utime(transcript(data_root, sid), (hour_ago, hour_ago))

    report = verify.verify(data_root)
    assert not report.ok
    assert any("3 message lines" in problem and "not indexed" in problem for problem in report.problems)

    h = stdio_host()
    assert h.call("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["messageCount"] == 5
    assert sorted(found(h, "walonly3")) == ["m3"]
    assert append(h, sid, "m5", "after")["message"]["seq"] == 6
    assert h.close() == 0
    assert indexed_ids(data_root, sid) == [f"m{n}" for n in range(6)]
    assert verify.verify(data_root).ok


def file_ids(root: Path, sid: str) -> list[str]:
    """The transcript's message ids in file order."""
    records = (orjson.loads(line) for line in transcript(root, sid).read_bytes().splitlines()[1:])
    return [record["id"] for record in records if record["type"] == "message"]


def test_a_full_disk_refuses_appends_as_storage_full_and_leaves_no_line_behind(stdio_host, small_disk):
    root = small_disk / "data"
    h = stdio_host(root)
    sid = h.call("session.create", {"title": "full"})["session"]["id"]
    append(h, sid, "m0", "first")
    filler = fill(small_disk)
    refused, stored = [], ["m0"]
    for n in range(1, 7):  # small lines: the transcript's last page has room, the WAL needs new ones
        reply = h.request("session.appendMessage", {"sessionId": sid, "message": message(f"m{n}", f"fullword{n}")})
        if "error" in reply:
            assert reply["error"]["data"]["code"] == "STORAGE_FULL", reply
            refused.append(f"m{n}")
        else:
            stored.append(f"m{n}")
    assert refused
    assert file_ids(root, sid) == stored  # an error reply means "not stored"
    filler.unlink()
    for n in range(7, 10):
        append(h, sid, f"m{n}", f"later{n}")
    stored += ["m7", "m8", "m9"]
    assert file_ids(root, sid) == stored
    assert h.call("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["messageCount"] == len(stored)
    assert found(h, f"fullword{refused[0][1:]}") == []
    assert h.close() == 0
    assert indexed_ids(root, sid) == stored


def cut_setup(stdio_host, data_root) -> str:
    h = stdio_host()
    sid = h.call("session.create", {"title": "cut"})["session"]["id"]
    for n in range(10):
        append(h, sid, f"m{n}", f"cutword{n}")
    assert h.close() == 0
    return sid


def test_a_complete_last_line_missing_only_its_newline_gets_it_back(stdio_host, data_root):
    sid = cut_setup(stdio_host, data_root)
    path = transcript(data_root, sid)
    data = path.read_bytes()
    path.write_bytes(data[:-1])  # cut just before the final newline

    h = stdio_host()
    got = h.call("session.get", {"sessionId": sid})
    assert [m["id"] for m in got["messages"]][-1] == "m9"
    assert got["session"]["messageCount"] == 10
    assert append(h, sid, "m10", "after the cut")["message"]["seq"] == 11
    assert h.close() == 0
    assert file_ids(data_root, sid) == [f"m{n}" for n in range(11)]


def test_after_a_cut_the_count_search_and_next_seq_follow_the_file(stdio_host, data_root):
    sid = cut_setup(stdio_host, data_root)
    path = transcript(data_root, sid)
    lines = path.read_bytes().splitlines(keepends=True)
    kept = lines[:1] + [line for line in lines[1:] if orjson.loads(line).get("id") not in ("m3", "m9")]
    path.write_bytes(b"".join(kept))  # outside damage took two whole lines

    h = stdio_host()
    assert h.call("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["messageCount"] == 8
    assert found(h, "cutword3") == []
    assert found(h, "cutword9") == []
    assert append(h, sid, "m10", "after the cut")["message"]["seq"] == 9
    assert h.close() == 0
    assert indexed_ids(data_root, sid) == [f"m{n}" for n in (0, 1, 2, 4, 5, 6, 7, 8, 10)]


def test_each_append_records_the_length_its_index_matches(stdio_host, data_root):
    """A start after a clean close finds every recorded length matching: one stat per transcript, nothing read."""
    sid = cut_setup(stdio_host, data_root)
    before = db_rows(data_root, "SELECT value_json FROM kv WHERE ns = 'transcriptIndex' AND key = ?", (sid,))
    assert before == [(orjson.dumps({"bytes": transcript(data_root, sid).stat().st_size}).decode(),)]
    h = stdio_host()
    assert h.call("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["messageCount"] == 10
    assert h.close() == 0


def test_a_transcript_cut_short_mid_line_is_followed_by_count_search_and_next_seq(stdio_host, data_root):
    """Outside damage cut the file in the middle of m6's line: m6 to m9 are gone from the index too."""
    sid = cut_setup(stdio_host, data_root)
    path = transcript(data_root, sid)
    data = path.read_bytes()
    start = data.index(b'"id":"m6"')
    path.write_bytes(data[: data.rindex(b"\n", 0, start) + 20])  # the header and m0-m5 whole, then 19 bytes of m6

    h = stdio_host()
    assert h.call("session.get", {"sessionId": sid, "messageLimit": 1})["session"]["messageCount"] == 6
    assert [m["id"] for m in h.call("session.get", {"sessionId": sid})["messages"]] == [f"m{n}" for n in range(6)]
    assert found(h, "cutword5") == ["m5"]
    assert found(h, "cutword7") == []
    assert append(h, sid, "m10", "after the cut")["message"]["seq"] == 7
    assert h.close() == 0
    assert indexed_ids(data_root, sid) == [*(f"m{n}" for n in range(6)), "m10"]
    assert file_ids(data_root, sid) == [*(f"m{n}" for n in range(6)), "m10"]  # the torn bytes are gone
    assert verify.verify(data_root).ok
