"""History edits through ``pidesktop host --stdio`` subprocesses: restarts, kill -9, revision switching, forks.

Every command goes over the JSON-RPC pipe of a real host process. What one
process wrote is read back by a new one; a rewrite is SIGKILLed at random
instants and a new process must find the old or the new transcript in full
and an index that heals.
"""

from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

import orjson
import pytest

from tests.support.crash_support import (
    Replies,
    db_rows,
    integrity_ok,
    killed_during,
    reference,
    rewrite_outcome,
    send,
    start_ready,
    transcript_ids,
    without_rewrite_id,
)
from tests.support.host_helpers import append, msg
from tests.support.hosts import StdioHost

PAGER = ("revisionCount", "activeRevision")
PROJECTION = ("seq", "index")
VOCAB = ("kelp", "first answer", "second question", "zebra", "giraffe", "okapi", "narwhal", "summary")


# -- helpers ------------------------------------------------------------------------------------


def restart(start, h: StdioHost) -> StdioHost:
    """Close ``h`` cleanly and open a new host process on the same data root."""
    assert h.close() == 0
    return start(h.data_root)


def sessions_dir(h) -> Path:
    return h.data_root / "sessions"


def transcript_bytes(h, sid) -> bytes:
    return (sessions_dir(h) / f"{sid}.jsonl").read_bytes()


def revisions_bytes(h, sid) -> bytes:
    path = sessions_dir(h) / f"{sid}.revisions.jsonl"
    return path.read_bytes() if path.exists() else b""


def stored(message: dict) -> dict:
    """A ``session.get`` message as it would be sent back: without the UI projection keys."""
    return {k: v for k, v in message.items() if k not in PROJECTION}


def unstamped(message: dict) -> dict:
    """``message`` without the pager stamp, which is presentation rather than branch content."""
    message = dict(message)
    if isinstance(message.get("meta"), dict):
        meta = {k: v for k, v in message["meta"].items() if k not in PAGER}
        if meta:
            message["meta"] = meta
        else:
            del message["meta"]
    return message


def get(h, sid) -> dict:
    return h.call("session.get", {"sessionId": sid})


def ids(h, sid) -> list[str]:
    return [m["id"] for m in get(h, sid)["messages"]]


def found(h, query, **params) -> list[tuple[str, str]]:
    results = h.call("search.query", {"query": query, **params})["results"]
    return sorted((r["sessionId"], r["messageId"]) for r in results)


def listed(h, sid, root) -> list[tuple[int, int, bool]]:
    rows = h.call("session.listRevisions", {"sessionId": sid, "rootUserId": root})["revisions"]
    return [(r["revisionIndex"], r["messageCount"], r["isActive"]) for r in rows]


def checkpoint(h, sid, cid, through, summary=None):
    h.call(
        "session.appendCompaction",
        {
            "sessionId": sid,
            "compaction": {
                "id": cid,
                "summary": summary or f"summary {cid}",
                "firstKeptMessageId": through,
                "throughMessageId": through,
                "tokensBefore": 10,
            },
        },
    )


def conversation(h) -> str:
    """u1 a1 [cp1 -> a1] u2 a2 [cp2 -> a2]; u2 and a2 belong to turn t2."""
    sid = h.call("session.create", {"title": "History"})["session"]["id"]
    append(h, sid, msg("u1", text="first question about kelp"))
    append(h, sid, msg("a1", "assistant", "first answer about kelp"))
    checkpoint(h, sid, "cp1", "a1")
    h.call("session.startTurn", {"sessionId": sid, "turnId": "t2"})
    append(h, sid, msg("u2", text="second question about animals"), turnId="t2")
    append(h, sid, msg("a2", "assistant", "zebra answer"), turnId="t2")
    checkpoint(h, sid, "cp2", "a2")
    h.call("session.endTurn", {"sessionId": sid, "turnId": "t2", "status": "completed", "createNotification": False})
    return sid


def answer(h, sid, root, turn_id, *messages) -> dict:
    """One finished turn: its messages appended under ``turn_id``, then the live branch saved."""
    h.call("session.startTurn", {"sessionId": sid, "turnId": turn_id})
    for message in messages:
        append(h, sid, message, turnId=turn_id)
    h.call("session.endTurn", {"sessionId": sid, "turnId": turn_id, "status": "completed", "createNotification": False})
    return h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": root})["revision"]


def three_answers(h, sid) -> None:
    """u2 answered three times (the original zebra answer, then two regenerates)."""
    saved = h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2"})["revision"]
    assert saved["revisionIndex"] == 1  # the live zebra branch
    h.call("session.truncateFrom", {"sessionId": sid, "messageId": "a2"})
    assert answer(h, sid, "u2", "t2b", msg("a2b", "assistant", "giraffe answer"))["revisionIndex"] == 2
    h.call("session.truncateFrom", {"sessionId": sid, "messageId": "a2b"})
    assert answer(h, sid, "u2", "t2c", msg("a2c", "assistant", "okapi answer"))["revisionIndex"] == 3


def snapshot(h) -> dict:
    """Everything a reader sees: each session's messages, checkpoints and revisions, and search."""
    seen = {}
    for summary in h.call("session.list")["sessions"]:
        sid = summary["id"]
        got = get(h, sid)
        roots = {m["id"] for m in got["messages"] if m["role"] == "user"}
        roots |= {m["meta"]["revisionRootId"] for m in got["messages"] if "revisionRootId" in m.get("meta", {})}
        seen[sid] = {
            "summary": summary,
            "get": got,
            "revisions": {
                r: h.call("session.listRevisions", {"sessionId": sid, "rootUserId": r}) for r in sorted(roots)
            },
        }
    seen["search"] = {q: h.call("search.query", {"query": q}) for q in VOCAB}
    return seen


# -- every write path, read back by a new host process ---------------------------------------------
def row_regenerate_cut(h):
    sid = conversation(h)
    assert h.call("session.truncateFrom", {"sessionId": sid, "messageId": "a2"}) == {"messageCount": 3}

    def check(h):
        got = get(h, sid)
        assert [m["id"] for m in got["messages"]] == ["u1", "a1", "u2"]
        assert [m["seq"] for m in got["messages"]] == [1, 2, 3]
        assert [c["id"] for c in got["compactions"]] == ["cp1"]
        assert got["messages"][2]["meta"] == {"revisionCount": 2, "activeRevision": 2}
        assert found(h, "zebra") == [] and found(h, "second question") == [(sid, "u2")]
        assert listed(h, sid, "u2") == [(1, 2, False)]
        line = orjson.loads(revisions_bytes(h, sid).splitlines()[-1])
        assert line["type"] == "revision" and [m["id"] for m in line["messages"]] == ["u2", "a2"]
        assert line["turns"] == {"u2": "t2", "a2": "t2"}

    return check


def row_edit_cut(h):
    sid = conversation(h)
    assert h.call("session.truncateFrom", {"sessionId": sid, "messageId": "u2"}) == {"messageCount": 2}
    # The edited prompt is resent into the same family and answered.
    append(h, sid, msg("u2e", text="second question, about a narwhal", meta={"revisionRootId": "u2"}))
    append(h, sid, msg("a2e", "assistant", "narwhal answer"))
    saved = h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2e"})["revision"]
    assert saved == {"rootUserId": "u2", "revisionIndex": 2, "messageCount": 2, "isActive": True}

    def check(h):
        got = get(h, sid)
        assert [m["id"] for m in got["messages"]] == ["u1", "a1", "u2e", "a2e"]
        assert [c["id"] for c in got["compactions"]] == ["cp1"]
        assert got["messages"][2]["meta"] == {"revisionRootId": "u2", "revisionCount": 2, "activeRevision": 2}
        assert found(h, "zebra") == [] and found(h, "narwhal") == [(sid, "a2e"), (sid, "u2e")]
        assert listed(h, sid, "u2") == listed(h, sid, "u2e") == [(1, 2, False), (2, 2, True)]

    return check


def row_delete_message(h):
    sid = conversation(h)
    kept = [stored(m) for m in get(h, sid)["messages"] if m["id"] != "a1"]
    assert h.call("session.replaceMessages", {"sessionId": sid, "messages": kept}) == {"messageCount": 3}

    def check(h):
        got = get(h, sid)
        assert [(m["id"], m["seq"]) for m in got["messages"]] == [("u1", 1), ("u2", 2), ("a2", 3)]
        assert [stored(m) for m in got["messages"]] == kept
        assert [c["id"] for c in got["compactions"]] == ["cp2"]  # cp1 lost its anchor
        assert found(h, "first answer") == [] and found(h, "kelp") == [(sid, "u1")]
        assert found(h, "zebra") == [(sid, "a2")]
        assert h.call("search.query", {"query": "zebra"})["results"][0]["seq"] == 3
        assert db_rows(h.data_root, "SELECT id, turn_id FROM messages WHERE session_id = ? ORDER BY seq", (sid,)) == [
            ("u1", None),
            ("u2", "t2"),
            ("a2", "t2"),
        ]

    return check


def row_fork_whole(h):
    sid = conversation(h)
    h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2"})
    child = h.call("session.fork", {"sessionId": sid})["session"]["id"]

    def check(h):
        source, copy = get(h, sid), get(h, child)
        assert copy["session"]["title"] == "History (fork)" and copy["totalMessages"] == 4
        assert [m["blocks"] for m in copy["messages"]] == [m["blocks"] for m in source["messages"]]
        assert not {m["id"] for m in copy["messages"]} & {m["id"] for m in source["messages"]}
        assert all("meta" not in m for m in copy["messages"])  # the source's pager stamp stays behind
        mapped = dict(zip(["u1", "a1", "u2", "a2"], [m["id"] for m in copy["messages"]]))
        assert [c["throughMessageId"] for c in copy["compactions"]] == [mapped["a1"], mapped["a2"]]
        assert found(h, "zebra") == sorted([(sid, "a2"), (child, mapped["a2"])])
        assert listed(h, child, mapped["u2"]) == [] and listed(h, sid, "u2") == [(1, 2, True)]

    return check


def row_fork_through_a_message(h):
    sid = conversation(h)
    child = h.call("session.fork", {"sessionId": sid, "throughMessageId": "a1"})["session"]["id"]

    def check(h):
        copy = get(h, child)
        assert [m["blocks"][0]["text"] for m in copy["messages"]] == [
            "first question about kelp",
            "first answer about kelp",
        ]
        assert [c["throughMessageId"] for c in copy["compactions"]] == [copy["messages"][1]["id"]]
        assert found(h, "zebra") == [(sid, "a2")]
        assert {s for s, _ in found(h, "first answer")} == {sid, child}

    return check


def row_save_active_revision(h):
    sid = conversation(h)
    saved = h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u2"})["revision"]
    assert saved == {"rootUserId": "u2", "revisionIndex": 1, "messageCount": 2, "isActive": True}

    def check(h):
        lines = revisions_bytes(h, sid).splitlines()
        assert len(lines) == 1 and len(lines[0]) <= 128
        assert orjson.loads(lines[0])["type"] == "revision_live"
        assert listed(h, sid, "u2") == [(1, 2, True)]
        assert get(h, sid)["messages"][2]["meta"] == {"revisionCount": 1, "activeRevision": 1}
        assert found(h, "zebra") == [(sid, "a2")]

    return check


def row_activate_revision(h):
    sid = conversation(h)
    three_answers(h, sid)
    assert h.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u2", "revisionIndex": 1}) == {
        "messageCount": 4
    }

    def check(h):
        got = get(h, sid)
        assert [m["id"] for m in got["messages"]] == ["u1", "a1", "u2", "a2"]
        assert [c["id"] for c in got["compactions"]] == ["cp1"]  # cp2 left with the first regenerate
        assert got["messages"][2]["meta"] == {"revisionCount": 3, "activeRevision": 1}
        assert found(h, "zebra") == [(sid, "a2")] and found(h, "okapi") == [] and found(h, "giraffe") == []
        assert listed(h, sid, "u2") == [(1, 2, True), (2, 2, False), (3, 2, False)]
        assert db_rows(h.data_root, "SELECT turn_id FROM messages WHERE id = 'a2'") == [("t2",)]

    return check


def row_list_revisions(h):
    sid = conversation(h)
    three_answers(h, sid)
    before = h.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u2"})

    def check(h):
        assert h.call("session.listRevisions", {"sessionId": sid, "rootUserId": "u2"}) == before
        assert [(r["revisionIndex"], r["isActive"]) for r in before["revisions"]] == [(1, False), (2, False), (3, True)]
        assert found(h, "okapi") == [(sid, "a2c")] and found(h, "zebra") == []

    return check


def row_append_compaction(h):
    sid = conversation(h)
    checkpoint(h, sid, "cp3", "u2", summary="the okapi summary")
    checkpoint(h, sid, "cp3", "u2", summary="the okapi summary")  # a replay is a no-op

    def check(h):
        got = get(h, sid)
        assert [c["id"] for c in got["compactions"]] == ["cp1", "cp2", "cp3"]
        assert got["compactions"][2]["summary"] == "the okapi summary"
        assert got["totalMessages"] == 4 and found(h, "okapi") == []  # a checkpoint is not a message
        assert found(h, "zebra") == [(sid, "a2")]

    return check


ROWS = [
    row_regenerate_cut,
    row_edit_cut,
    row_delete_message,
    row_fork_whole,
    row_fork_through_a_message,
    row_save_active_revision,
    row_activate_revision,
    row_list_revisions,
    row_append_compaction,
]


@pytest.mark.parametrize("row", ROWS, ids=[row.__name__[4:] for row in ROWS])
def test_each_write_path_reads_back_the_same_from_a_new_host(stdio_host, row):
    h = stdio_host()
    check = row(h)
    check(h)
    before = snapshot(h)
    h = restart(stdio_host, h)
    check(h)
    assert snapshot(h) == before
    assert h.close() == 0
    assert integrity_ok(h.data_root)


# -- kill -9 between the transcript rewrite and the index transaction ----------------------------
BIG = 1200
FILLER = " ".join(["lorem", "ipsum", "dolor", "sit", "amet"] * 30)
TRIALS = 7  # per command, three commands: 21 kills


def marker(i: int) -> str:
    return f"marker{i:05d}x"


def big_messages() -> list[dict]:
    return [
        {
            "id": f"m{i:05d}",
            "role": "user" if i % 2 == 0 else "assistant",
            "createdAt": "2026-07-26T09:00:00.000Z",
            "blocks": [{"type": "text", "text": f"{marker(i)} {FILLER}"}],
        }
        for i in range(BIG)
    ]


MIDDLE = f"m{BIG // 2:05d}"  # a user message
AFTER_MIDDLE = f"m{BIG // 2 + 1:05d}"  # its reply


def big_template(start, root: Path) -> str:
    """A long session built through the host: every message, two checkpoints, a saved live branch."""
    h = start(root)
    try:
        sid = h.call("session.create", {"title": "long"})["session"]["id"]
        assert h.call("session.replaceMessages", {"sessionId": sid, "messages": big_messages()}) == {
            "messageCount": BIG
        }
        checkpoint(h, sid, "early", f"m{BIG // 4:05d}")
        checkpoint(h, sid, "late", f"m{3 * BIG // 4:05d}")
        h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": MIDDLE})
    finally:
        assert h.close() == 0
    return sid


def commands(sid: str) -> dict[str, dict]:
    kept = [m for m in big_messages() if m["id"] not in (MIDDLE, AFTER_MIDDLE)]
    return {
        "regenerate": {"method": "session.truncateFrom", "params": {"sessionId": sid, "messageId": AFTER_MIDDLE}},
        "edit": {"method": "session.truncateFrom", "params": {"sessionId": sid, "messageId": MIDDLE}},
        "delete": {"method": "session.replaceMessages", "params": {"sessionId": sid, "messages": kept}},
    }


@pytest.mark.slow
def test_kill_during_a_rewrite_leaves_the_old_or_new_transcript_and_the_index_heals(stdio_host, tmp_path):
    rng = random.Random(20261130)
    template = tmp_path / "template"
    sid = big_template(stdio_host, template)
    old = (template / "sessions" / f"{sid}.jsonl").read_bytes()
    old_ids = transcript_ids(old)
    outcomes = {"old": 0, "new": 0, "acknowledged": 0, "stale index": 0}
    trial = 0
    for name, command in commands(sid).items():
        ref = reference(stdio_host, template, tmp_path / name, sid, command)
        new = ref["transcript"]
        assert transcript_ids(new) == ref["ids"] != old_ids
        gone = sorted(set(old_ids) - set(ref["ids"]))
        strata = list(range(TRIALS))
        rng.shuffle(strata)
        for stratum in strata:
            trial += 1
            root = tmp_path / name / f"trial{trial}"
            # A random instant in each seventh of the measured duration, so every phase gets hit.
            delay = ref["duration"] * (stratum + rng.random()) / TRIALS
            where = f"{name} trial {trial}, kill after {delay * 1e3:.1f} ms of {ref['duration'] * 1e3:.1f} ms"
            acknowledged = killed_during(stdio_host, template, root, sid, command, delay)
            outcomes["acknowledged"] += acknowledged
            assert integrity_ok(root), where

            data, outcome = rewrite_outcome(root, sid, old, new, acknowledged, where)
            outcomes[outcome] += 1

            again = stdio_host(root)
            got = get(again, sid)
            assert [m["id"] for m in got["messages"]] == transcript_ids(data), where
            assert [m["blocks"][0]["text"].split()[0] for m in got["messages"]] == [
                marker(int(i[1:])) for i in transcript_ids(data)
            ], where
            stale = bool(gone) and outcome == "new" and found(again, marker(int(gone[-1][1:])), sessionId=sid) != []
            outcomes["stale index"] += stale
            assert not (stale and acknowledged), where

            # One more successful rewrite: the same command again when it never landed, else a replay
            # of the whole list (what a client that lost the reply can always send).
            if outcome == "old" or command["method"] == "session.replaceMessages":
                assert again.call(command["method"], command["params"]) == ref["result"], where
            else:
                current = [stored(m) for m in got["messages"]]
                assert (
                    again.call("session.replaceMessages", {"sessionId": sid, "messages": current}) == ref["result"]
                ), where
            assert without_rewrite_id(transcript_bytes(again, sid)) == without_rewrite_id(new), where
            counted = again.call("search.query", {"query": "lorem ipsum", "sessionId": sid, "limit": 1})
            capped = (min(len(ref["ids"]), 1000), len(ref["ids"]) > 1000)
            assert (counted["total"], counted["totalCapped"]) == capped, where
            for i in (gone[0], gone[-1], ref["ids"][0], ref["ids"][-1], *rng.sample(ref["ids"], 5)):
                expected = [(sid, i)] if i in ref["ids"] else []
                assert found(again, marker(int(i[1:])), sessionId=sid) == expected, (where, i)
            assert again.close() == 0
            assert integrity_ok(root), where
            indexed = (
                "SELECT count(*) FROM messages_fts f JOIN messages m ON m.mid = f.rowid WHERE messages_fts MATCH ?"
            )
            assert db_rows(root, f"{indexed} AND m.session_id = ?", ('"lorem ipsum"', sid)) == [(len(ref["ids"]),)], (
                where
            )
            assert db_rows(root, "SELECT id, seq FROM messages WHERE session_id = ? ORDER BY seq", (sid,)) == [
                (i, n) for n, i in enumerate(ref["ids"], start=1)
            ], where
            shutil.rmtree(root)
    # The kills landed on both sides of the rename.
    assert outcomes["old"] >= 1 and outcomes["new"] >= 1, outcomes
    print(f"\nkill outcomes over {trial} trials: {outcomes}")


def kill_between_rename_and_commit(start, template: Path, work: Path, sid: str, command: dict, rng) -> Path | None:
    """A data root left by a kill after the transcript rename and before the index commit, if one was hit."""
    ref = reference(start, template, work, sid, command)
    for attempt in range(8):
        root = work / f"attempt{attempt}"
        shutil.copytree(template, root)
        h = start_ready(start, root, sid)
        replies = Replies(h)
        send(h, 99, command)
        time.sleep(ref["duration"] * rng.uniform(0.4, 0.95))  # kill midway through the command, on purpose
        h.kill()
        replies.thread.join(5)
        rewritten = without_rewrite_id((root / "sessions" / f"{sid}.jsonl").read_bytes()) == without_rewrite_id(
            ref["transcript"]
        )
        if rewritten and db_rows(root, "SELECT count(*) FROM messages WHERE session_id = ?", (sid,)) == [(BIG,)]:
            return root
    return None


@pytest.mark.slow
def test_a_regenerate_killed_before_its_index_commit_keeps_the_discarded_branch(stdio_host, tmp_path):
    template = tmp_path / "template"
    sid = big_template(stdio_host, template)
    root = kill_between_rename_and_commit(
        stdio_host, template, tmp_path / "kill", sid, commands(sid)["regenerate"], random.Random(3)
    )
    if root is None:
        pytest.skip("no kill landed between the rename and the index commit")
    h = stdio_host(root)
    try:
        root_meta = next(m for m in get(h, sid)["messages"] if m["id"] == MIDDLE)["meta"]
        assert root_meta == {"revisionCount": 2, "activeRevision": 2}  # the file says: the next reply is variant 2
        # The client carries on: the regenerated reply arrives and the turn is saved.
        append(h, sid, msg("fresh", "assistant", "the regenerated reply"))
        saved = h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": MIDDLE})["revision"]
        assert (saved["revisionIndex"], listed(h, sid, MIDDLE)) == (2, [(1, BIG // 2, False), (2, 2, True)])
        assert h.call("session.activateRevision", {"sessionId": sid, "rootUserId": MIDDLE, "revisionIndex": 1}) == {
            "messageCount": BIG
        }
    finally:
        h.close()


# -- switching revisions back and forth ---------------------------------------------------------
def transcript_lines(h, sid) -> list[bytes]:
    return transcript_bytes(h, sid).splitlines()


def comparable_lines(lines: list[bytes], root_ids: set[str]) -> list[bytes]:
    """Transcript lines byte for byte, except the root's pager stamp and the header's rewrite id; the chat's
    ``session_row`` lines (its turns, for a rebuild) are not part of a variant and move up in a rewrite."""
    out = []
    for line in lines:
        record = orjson.loads(line)
        if record.get("type") == "session_row":
            continue
        if record.get("type") == "session":
            out.append(without_rewrite_id(line))
        else:
            out.append(orjson.dumps(unstamped(record)) if record.get("id") in root_ids else line)
    return out


@pytest.mark.slow
def test_switching_between_three_variants_restores_each_exactly_and_only_appends(stdio_host):
    rng = random.Random(50)
    h = stdio_host()
    sid = h.call("session.create", {"title": "poems"})["session"]["id"]
    append(h, sid, msg("u0", text="warm up"))
    append(h, sid, msg("a0", "assistant", "ready"))
    append(h, sid, msg("u1", text="write a poem"))
    variants: dict[int, tuple[list[dict], list[bytes]]] = {}
    replies = {1: "a1", 2: "a1b", 3: "a1c"}

    def keep(index):
        variants[index] = ([unstamped(m) for m in get(h, sid)["messages"]], transcript_lines(h, sid))

    assert answer(h, sid, "u1", "t1", msg("a1", "assistant", "roses are red"))["revisionIndex"] == 1
    keep(1)
    h.call("session.truncateFrom", {"sessionId": sid, "messageId": "a1"})  # regenerate
    assert (
        answer(
            h, sid, "u1", "t2", msg("a1b", "assistant", "violets are blue", meta={"usage": {"input": 5, "output": 4}})
        )["revisionIndex"]
        == 2
    )
    keep(2)
    h.call("session.truncateFrom", {"sessionId": sid, "messageId": "u1"})  # edit and resend
    tool = {
        "id": "tool1",
        "role": "tool",
        "toolName": "Read",
        "blocks": [
            {
                "type": "tool_call",
                "callId": "c1",
                "name": "Read",
                "args": {"path": "poem.txt"},
                "status": "ok",
                "result": {"text": "tulips"},
            }
        ],
    }
    edited = msg("u1c", text="write a poem about tulips", meta={"revisionRootId": "u1"})
    h.call("session.startTurn", {"sessionId": sid, "turnId": "t3"})
    for message in (edited, tool, msg("a1c", "assistant", "tulips in rows")):
        append(h, sid, message, turnId="t3")
    h.call("session.endTurn", {"sessionId": sid, "turnId": "t3", "status": "completed", "createNotification": False})
    assert (
        h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": "u1c"})["revision"]["revisionIndex"] == 3
    )
    keep(3)
    roots = {"u1", "u1c"}

    active = 3
    snapshot_bytes = revisions_bytes(h, sid)
    sizes = []
    for switch in range(50):
        if switch and switch % 10 == 0:
            h = restart(stdio_host, h)
        target = rng.choice([i for i in (1, 2, 3) if i != active])
        count = h.call("session.activateRevision", {"sessionId": sid, "rootUserId": "u1", "revisionIndex": target})[
            "messageCount"
        ]
        active = target
        messages, lines = variants[target]
        assert count == len(messages)
        current = revisions_bytes(h, sid)
        assert current[: len(snapshot_bytes)] == snapshot_bytes, f"switch {switch}: an earlier byte changed"
        snapshot_bytes = current
        sizes.append(len(current))
        got = get(h, sid)["messages"]
        assert [unstamped(m) for m in got] == messages, f"switch {switch} to {target}"
        root = next(m for m in got if m["id"] in roots)
        assert root["meta"]["revisionCount"] == 3 and root["meta"]["activeRevision"] == target
        assert comparable_lines(transcript_lines(h, sid), roots) == comparable_lines(lines, roots), switch
        assert found(h, "tulips in rows") == ([(sid, "a1c")] if target == 3 else [])
        links = dict(db_rows(h.data_root, "SELECT id, turn_id FROM messages WHERE session_id = ?", (sid,)))
        assert links[replies[target]] == f"t{target}"
        assert [(i, a) for i, _, a in listed(h, sid, "u1")] == [(i, i == target) for i in (1, 2, 3)]
    # Once every variant is stored in full, switching adds nothing more to the file.
    assert sizes[-1] == sizes[5], sizes
    assert h.close() == 0
    assert integrity_ok(h.data_root)


# -- fork isolation ------------------------------------------------------------------------------------
def test_a_fork_outlives_its_deleted_source_with_messages_search_and_revisions(stdio_host):
    h = stdio_host()
    sid = conversation(h)
    three_answers(h, sid)  # the source's live branch is the okapi answer, variant 3 of 3
    child = h.call("session.fork", {"sessionId": sid})["session"]["id"]
    copy = get(h, child)["messages"]
    mapped = dict(zip(["u1", "a1", "u2", "a2c"], [m["id"] for m in copy]))
    # The fork grows its own branches: regenerate its last reply once.
    assert (
        h.call("session.saveActiveRevision", {"sessionId": child, "rootUserId": mapped["u2"]})["revision"][
            "revisionIndex"
        ]
        == 1
    )
    h.call("session.truncateFrom", {"sessionId": child, "messageId": mapped["a2c"]})
    assert answer(h, child, mapped["u2"], "ft2", msg("fa2", "assistant", "narwhal answer"))["revisionIndex"] == 2
    fork_messages = get(h, child)["messages"]
    fork_revisions = revisions_bytes(h, child)
    fork_transcript = transcript_bytes(h, child)

    h.call("session.delete", {"sessionId": sid, "forGood": True})
    h = restart(stdio_host, h)
    assert not (sessions_dir(h) / f"{sid}.jsonl").exists()
    assert not (sessions_dir(h) / f"{sid}.revisions.jsonl").exists()
    assert [s["id"] for s in h.call("session.list")["sessions"]] == [child]
    assert get(h, child)["messages"] == fork_messages
    assert transcript_bytes(h, child) == fork_transcript and revisions_bytes(h, child) == fork_revisions
    assert found(h, "kelp") == sorted([(child, mapped["u1"]), (child, mapped["a1"])])
    assert found(h, "narwhal") == [(child, "fa2")] and found(h, "zebra") == [] and found(h, "okapi") == []
    assert listed(h, child, mapped["u2"]) == [(1, 2, False), (2, 2, True)]
    assert db_rows(h.data_root, "SELECT count(*) FROM message_revisions WHERE session_id = ?", (sid,)) == [(0,)]
    # The fork's own variants still switch after the source is gone.
    h.call("session.activateRevision", {"sessionId": child, "rootUserId": mapped["u2"], "revisionIndex": 1})
    assert [m["id"] for m in get(h, child)["messages"]] == list(mapped.values())
    assert found(h, "okapi") == [(child, mapped["a2c"])] and found(h, "narwhal") == []
    assert h.close() == 0
    assert integrity_ok(h.data_root)
