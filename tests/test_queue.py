"""The turn queue: at most eight, idempotent pushes, promoted first, growing positions."""


def push(host, sid, content, **extra):
    return host.call("session.queuePush", {"sessionId": sid, "content": content, **extra})


def contents(host, sid):
    return [e["content"] for e in host.call("session.queueList", {"sessionId": sid})["entries"]]


def test_nine_pushes_the_ninth_is_limit_exceeded(host):
    sid = host.call("session.create", {})["session"]["id"]
    for i in range(8):
        push(host, sid, f"p{i}")
    error = host.error("session.queuePush", {"sessionId": sid, "content": "p8"})
    assert error.code == "LIMIT_EXCEEDED"
    assert contents(host, sid) == [f"p{i}" for i in range(8)]


def test_promoted_first_in_click_order_then_position_order(host):
    sid = host.call("session.create", {})["session"]["id"]
    ids = [push(host, sid, f"p{i}")["entry"]["id"] for i in range(5)]
    host.call("session.queuePrioritize", {"sessionId": sid, "entryId": ids[3]})
    host.call("session.queuePrioritize", {"sessionId": sid, "entryId": ids[1]})
    host.call("session.queuePrioritize", {"sessionId": sid, "entryId": ids[3]})  # no-op: already promoted
    assert contents(host, sid) == ["p3", "p1", "p0", "p2", "p4"]
    host.call("session.queueRemove", {"sessionId": sid, "entryId": ids[0]})
    newest = push(host, sid, "p5")["entry"]
    assert newest["position"] == 6  # positions only grow
    host.call("session.queueReorder", {"sessionId": sid, "entryId": ids[4], "direction": "up"})
    assert contents(host, sid) == ["p3", "p1", "p4", "p2", "p5"]
    assert (
        host.error("session.queueReorder", {"sessionId": sid, "entryId": ids[3], "direction": "down"}).code
        == "CONFLICT"
    )


def test_idempotency_key_returns_the_same_row_or_conflicts(host):
    sid = host.call("session.create", {})["session"]["id"]
    first = push(host, sid, "hello", idempotencyKey="k1")["entry"]
    again = push(host, sid, "hello", idempotencyKey="k1")["entry"]
    assert again["id"] == first["id"] and contents(host, sid) == ["hello"]
    error = host.error("session.queuePush", {"sessionId": sid, "content": "changed", "idempotencyKey": "k1"})
    assert error.code == "IDEMPOTENCY_CONFLICT"


def test_queue_survives_restart_and_cascades_with_the_session(host, location):
    from tests.support.hosts import InProcessHost

    sid = host.call("session.create", {})["session"]["id"]
    push(host, sid, "waiting")
    host.stop()
    again = InProcessHost(location)
    try:
        assert contents(again, sid) == ["waiting"]
        again.call("session.delete", {"sessionId": sid, "forGood": True})
        assert again.error("session.queueList", {"sessionId": sid}).code == "NOT_FOUND"
        import apsw

        conn = apsw.Connection(str(location.data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
        assert conn.execute("SELECT count(*) FROM turn_queue").fetchone()[0] == 0
        conn.close()
    finally:
        again.stop()
