"""``kv(cache)``: recent models and model-refresh stamps (spec 004, K.5 and M.3), through a real host."""

from tests.support.hosts import InProcessHost


def start(host, sid, provider_id, model_id):
    turn = host.call("session.startTurn", {"sessionId": sid, "providerId": provider_id, "modelId": model_id})
    host.call(
        "session.endTurn",
        {"sessionId": sid, "turnId": turn["turn"]["id"], "status": "completed", "createNotification": False},
    )


def test_a_turn_puts_its_model_first_in_the_recent_list_and_it_survives_a_restart(location):
    host = InProcessHost(location)
    sid = host.call("session.create", {})["session"]["id"]
    assert host.call("models.recent")["models"] == []
    start(host, sid, "p1", "alpha")
    start(host, sid, "p1", "beta")
    start(host, sid, "p1", "alpha")
    host.call("session.startTurn", {"sessionId": sid})  # no model named: the list is unchanged
    host.stop()
    again = InProcessHost(location)
    try:
        recent = again.call("models.recent")["models"]
    finally:
        again.stop()
    assert [(m["providerId"], m["modelId"]) for m in recent] == [("p1", "alpha"), ("p1", "beta")]
    assert all(isinstance(m["usedAt"], int) for m in recent)


def test_the_recent_list_keeps_the_newest_ten(host):
    sid = host.call("session.create", {})["session"]["id"]
    for number in range(12):
        start(host, sid, "p", f"m{number}")
    assert [m["modelId"] for m in host.call("models.recent")["models"]] == [f"m{n}" for n in range(11, 1, -1)]


def test_a_model_list_refresh_is_stamped_per_provider(host):
    provider = host.call(
        "providers.upsert", {"provider": {"name": "Local", "baseUrl": "http://127.0.0.1:9/v1", "kind": "openai"}}
    )["provider"]
    assert host.call("models.list")["refreshedAt"] == {}
    host.call("models.applyDiscovery", {"providerId": provider["id"], "models": [{"modelId": "m1"}]})
    stamps = host.call("models.list")["refreshedAt"]
    assert list(stamps) == [provider["id"]] and isinstance(stamps[provider["id"]], int)
