"""Turns and the inbox through ``pidesktop host --stdio`` in a subprocess."""

import hashlib

import apsw
import orjson

from tests.support.host_helpers import assistant, msg


def run_turn(host, sid, n, status, notify=True, error_code=None):
    host.call("session.appendMessage", {"sessionId": sid, "message": msg(f"u{n}")})
    turn = host.call("session.startTurn", {"sessionId": sid, "turnId": f"t{n}"})["turn"]
    assert turn["status"] == "running"
    host.call("session.appendMessage", {"sessionId": sid, "message": assistant(f"a{n}"), "turnId": f"t{n}"})
    params = {"sessionId": sid, "turnId": f"t{n}", "status": status, "createNotification": notify}
    if error_code:
        params["errorCode"] = error_code
    return host.call("session.endTurn", params)


def test_completed_error_aborted_create_one_one_zero(stdio_host):
    host = stdio_host()
    sid = host.call("session.create", {"title": "Inbox test"})["session"]["id"]
    done = run_turn(host, sid, 1, "completed")
    failed = run_turn(host, sid, 2, "error", error_code="rate_limited")
    aborted = run_turn(host, sid, 3, "aborted")
    assert done["notification"]["kind"] == "task.completed" and done["notification"]["sessionTitle"] == "Inbox test"
    assert failed["notification"]["kind"] == "task.failed" and failed["notification"]["errorCode"] == "rate_limited"
    assert "notification" not in aborted and aborted["turn"]["status"] == "aborted"
    listed = host.call("notifications.list")
    # one unread row per chat: the newest outcome stands for the chat (t1's row is superseded, and said so)
    assert [n["turnId"] for n in listed["notifications"]] == ["t2"] and listed["unreadCount"] == 1
    topics = [e["topic"] for e in host.events]
    assert topics.count("notification.created") == 2
    created = [e["payload"] for e in host.events if e["topic"] == "notification.created"]
    assert created[1]["replaces"] == [done["notification"]["id"]] and created[1]["unreadCount"] == 1
    # a repeated terminal update changes nothing and never duplicates
    again = host.call(
        "session.endTurn", {"sessionId": sid, "turnId": "t1", "status": "completed", "createNotification": True}
    )
    assert "notification" not in again and again["turn"]["status"] == "completed"
    assert host.call("notifications.list")["unreadCount"] == 1
    summary = host.call("session.list")["sessions"][0]
    assert summary["lastTurn"] == {"id": "t3", "status": "aborted", "errorCode": None}
    assert host.close() == 0


def test_a_read_row_stays_and_other_chats_keep_their_own(stdio_host):
    host = stdio_host()
    first = host.call("session.create", {"title": "First"})["session"]["id"]
    second = host.call("session.create", {"title": "Second"})["session"]["id"]
    one = run_turn(host, first, 1, "completed")["notification"]
    host.call("notifications.markRead", {"id": one["id"]})
    run_turn(host, first, 2, "completed")
    run_turn(host, second, 3, "completed")
    run_turn(host, first, 4, "error", error_code="rate_limited")
    listed = host.call("notifications.list")["notifications"]
    assert [(n["sessionTitle"], n["turnId"]) for n in listed] == [("First", "t4"), ("Second", "t3"), ("First", "t1")]
    assert host.call("notifications.list")["unreadCount"] == 2


def test_no_notification_when_the_person_was_watching(stdio_host):
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    result = run_turn(host, sid, 1, "completed", notify=False)
    assert "notification" not in result
    assert host.call("notifications.list")["notifications"] == []


def test_the_201st_notification_prunes_the_oldest_and_the_cap_survives_restart(stdio_host, data_root):
    host = stdio_host()
    for n in range(201):
        sid = host.call("session.create", {})["session"]["id"]  # a chat each: a chat keeps one unread row
        host.call("session.startTurn", {"sessionId": sid, "turnId": f"t{n}"})
        host.call(
            "session.endTurn", {"sessionId": sid, "turnId": f"t{n}", "status": "completed", "createNotification": True}
        )
    turn_ids = set()
    cursor = None
    while True:
        page = host.call("notifications.list", {"limit": 200} | ({"cursor": cursor} if cursor else {}))
        turn_ids |= {n["turnId"] for n in page["notifications"]}
        cursor = page["nextCursor"]
        if cursor is None:
            break
    assert len(turn_ids) == 200 and "t0" not in turn_ids and "t200" in turn_ids
    assert host.close() == 0
    again = stdio_host()
    assert again.call("notifications.list", {"limit": 200})["unreadCount"] == 200
    assert again.close() == 0


def file_digest(root):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((root / "sessions").glob("*"))}


def turn_rows(root):
    conn = apsw.Connection(str(root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return conn.execute("SELECT * FROM turns ORDER BY id").fetchall()
    finally:
        conn.close()


def test_mark_read_is_idempotent_and_inbox_commands_touch_nothing_else(stdio_host, data_root):
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    other = host.call("session.create", {})["session"]["id"]
    run_turn(host, sid, 1, "completed")
    run_turn(host, other, 2, "error")
    first = host.call("notifications.list")["notifications"][0]
    host.close()
    files, turns = file_digest(data_root), turn_rows(data_root)
    host = stdio_host()
    read = host.call("notifications.markRead", {"id": first["id"]})["notification"]
    assert read["readAt"] is not None
    again = host.call("notifications.markRead", {"id": first["id"]})["notification"]
    assert again["readAt"] == read["readAt"]
    assert [e["topic"] for e in host.events].count("notification.changed") == 1
    assert host.call("notifications.list", {"unreadOnly": True})["unreadCount"] == 1
    assert host.call("notifications.markAllRead") == {"updated": 1}
    assert host.call("notifications.markAllRead") == {"updated": 0}
    assert host.call("notifications.clear") == {"deleted": 2}
    missing = host.request("notifications.markRead", {"id": first["id"]})
    assert missing["error"]["data"]["code"] == "NOT_FOUND"
    assert host.close() == 0
    assert file_digest(data_root) == files
    assert turn_rows(data_root) == turns


def test_usage_records_merge_idempotently_and_do_not_revive(stdio_host):
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    run_turn(host, sid, 1, "completed", notify=False)
    records = [
        {"id": "op1", "inputTokens": 100, "outputTokens": 20, "costUsd": None},
        {"id": "op2", "inputTokens": 5, "outputTokens": 1, "costUsd": 0},
    ]
    first = host.call("session.recordUsage", {"sessionId": sid, "turnId": "t1", "records": records})
    replay = host.call("session.recordUsage", {"sessionId": sid, "turnId": "t1", "records": records})
    assert first["added"] == 2 and replay["added"] == 0
    turn = replay["turn"]
    assert (turn["inputTokens"], turn["outputTokens"], turn["status"]) == (105, 21, "completed")
    assert turn["usage"]["operations"]["op1"]["costUsd"] is None
    assert turn["usage"]["operations"]["op2"]["costUsd"] == 0


def test_session_delete_cascades_its_notifications(stdio_host):
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    run_turn(host, sid, 1, "completed")
    host.call("session.delete", {"sessionId": sid, "forGood": True})
    assert host.call("notifications.list") == {"notifications": [], "unreadCount": 0, "nextCursor": None}


def test_inflight_checkpoint_rules(stdio_host, data_root):
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("u1")})
    host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
    checkpoint = data_root / "sessions" / f"{sid}.inflight.json"
    empty = {"id": "a1", "role": "assistant", "blocks": [{"type": "text", "text": ""}]}
    assert host.call("session.saveInflightMessage", {"sessionId": sid, "turnId": "t1", "message": empty}) == {
        "saved": False
    }
    assert not checkpoint.exists()
    partial = assistant("a1", "half an ans", "streaming")
    assert host.call("session.saveInflightMessage", {"sessionId": sid, "turnId": "t1", "message": partial})["saved"]
    stored = orjson.loads(checkpoint.read_bytes())
    assert stored["turnId"] == "t1" and stored["sessionId"] == sid and stored["message"]["id"] == "a1"
    # completed end does not drop a checkpoint whose message is not indexed yet (D327)
    host.call("session.endTurn", {"sessionId": sid, "turnId": "t1", "status": "completed", "createNotification": False})
    assert checkpoint.exists()
    host.call("session.appendMessage", {"sessionId": sid, "message": assistant("a1", "whole answer"), "turnId": "t1"})
    assert not checkpoint.exists()
    late = host.call("session.saveInflightMessage", {"sessionId": sid, "turnId": "t1", "message": partial})
    assert late == {"saved": False} and not checkpoint.exists()


def test_boot_promotes_a_leftover_checkpoint_of_a_completed_turn_as_complete(stdio_host, data_root):
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("u1")})
    host.call("session.startTurn", {"sessionId": sid, "turnId": "t1"})
    host.call(
        "session.saveInflightMessage",
        {"sessionId": sid, "turnId": "t1", "message": assistant("a1", "final words", "streaming")},
    )
    host.call("session.endTurn", {"sessionId": sid, "turnId": "t1", "status": "completed", "createNotification": True})
    host.kill()
    again = stdio_host()
    got = again.call("session.get", {"sessionId": sid})
    assert [m["id"] for m in got["messages"]] == ["u1", "a1"]
    assert got["messages"][1]["meta"]["status"] == "completed"
    assert not (data_root / "sessions" / f"{sid}.inflight.json").exists()
    assert again.call("search.query", {"query": "final words"})["total"] == 1


def test_an_orphaned_transcript_is_restored_at_boot_and_searchable(stdio_host, data_root):
    host = stdio_host()
    sid = host.call("session.create", {"title": "soon orphaned"})["session"]["id"]
    host.call("session.appendMessage", {"sessionId": sid, "message": msg("u1", text="orchard of persimmons")})
    assert host.close() == 0
    conn = apsw.Connection(str(data_root / "pi.sqlite"))
    conn.execute("PRAGMA foreign_keys = ON; DELETE FROM sessions WHERE id = ?", (sid,))
    conn.close()
    transcript = (data_root / "sessions" / f"{sid}.jsonl").read_bytes()
    again = stdio_host()
    assert [s["id"] for s in again.call("session.list")["sessions"]] == [sid]
    hits = again.call("search.sessions", {"query": "persimmon"})["results"]
    assert [h["sessionId"] for h in hits] == [sid] and hits[0]["matchCount"] == 1
    assert (data_root / "sessions" / f"{sid}.jsonl").read_bytes() == transcript


def test_boot_sweeps_orphan_scratch_folders_but_never_transcripts(stdio_host, data_root):
    host = stdio_host()
    sid = host.call("session.create", {})["session"]["id"]
    assert host.close() == 0
    (data_root / "scratch" / sid).mkdir()
    (data_root / "scratch" / "gone-session").mkdir()
    (data_root / "visualizations" / "gone-session").mkdir()
    (data_root / "review-changes" / sid / "1-a").mkdir(parents=True)
    (data_root / "review-changes" / "gone-session" / "1-a").mkdir(parents=True)  # a deleted chat's snapshots
    again = stdio_host()
    again.call("app.handshake", {"protocolVersion": 1})
    assert (data_root / "scratch" / sid).exists() and (data_root / "review-changes" / sid / "1-a").exists()
    assert not (data_root / "scratch" / "gone-session").exists()
    assert not (data_root / "visualizations" / "gone-session").exists()
    assert not (data_root / "review-changes" / "gone-session").exists()


def test_notifications_made_in_one_millisecond_prune_and_page_in_the_order_they_were_made(tmp_path):
    # Many turns can end within one clock tick; the cap must still drop the oldest.
    from pidesktop.formats.index.db import open_database
    from pidesktop.host.inbox import notifications

    conn = open_database(tmp_path / "index.sqlite")
    for n in range(notifications.KEEP + 5):  # a chat each: a chat keeps one unread row
        conn.execute("INSERT INTO sessions(id, created_at, updated_at) VALUES (?, 1, 1)", (f"s{n}",))
        notifications.insert_for_turn(conn, f"s{n}", f"t{n}", "completed", None, now=7)
    kept = [r[0] for r in conn.execute("SELECT turn_id FROM notifications ORDER BY rowid")]
    assert kept == [f"t{n}" for n in range(5, notifications.KEEP + 5)]


def test_a_chat_in_the_trash_leaves_the_inbox_until_it_is_restored(stdio_host):
    host = stdio_host()
    sid = host.call("session.create", {"title": "Soon trashed"})["session"]["id"]
    other = host.call("session.create", {"title": "Stays"})["session"]["id"]
    run_turn(host, sid, 1, "completed")
    run_turn(host, other, 2, "completed")
    host.call("session.delete", {"sessionId": sid})
    listed = host.call("notifications.list")
    assert [n["sessionTitle"] for n in listed["notifications"]] == ["Stays"] and listed["unreadCount"] == 1
    host.call("session.restore", {"sessionId": sid})
    listed = host.call("notifications.list")
    assert len(listed["notifications"]) == 2 and listed["unreadCount"] == 2
