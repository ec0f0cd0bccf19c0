"""usage.summary and model prices: tokens and cost by day and by model, unknown prices kept unknown."""

import pytest

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import handlers  # noqa: F401 - registers every command
from pidesktop.host.core import Host

DAY = 86_400_000
NOW = 1_780_000_000_000  # 2026-05-28T20:26:40Z


class ClockHost:
    """A host opened in process whose clock the test sets, so turns can end on chosen days."""

    def __init__(self, location):
        self.events = []
        self.host = Host.open(location, emit=lambda topic, payload: self.events.append((topic, payload)))
        self.now = NOW
        self.host.ctx.clock = lambda: self.now

    def call(self, method, params=None):
        return self.host.dispatch(method, params or {})

    def error(self, method, params=None) -> HostError:
        with pytest.raises(HostError) as info:
            self.call(method, params)
        return info.value


@pytest.fixture
def h(location):
    opened = ClockHost(location)
    yield opened
    opened.host.close()


def provider(h, pid="acme", models=("fast", "smart")):
    h.call("providers.upsert", {"provider": {"id": pid, "name": pid, "baseUrl": "https://api.example.com/v1"}})
    for model in models:
        h.call("models.upsert", {"providerId": pid, "model": {"modelId": model, "displayName": model.title()}})


def turn(h, sid, model, tokens_in, tokens_out, at, provider_id="acme", status="completed"):
    h.now = at
    tid = h.call("session.startTurn", {"sessionId": sid, "providerId": provider_id, "modelId": model})["turn"]["id"]
    h.call(
        "session.endTurn",
        {
            "sessionId": sid,
            "turnId": tid,
            "status": status,
            "createNotification": False,
            "usage": {"inputTokens": tokens_in, "outputTokens": tokens_out},
        },
    )
    return tid


def summary(h, **params):
    h.now = NOW
    return h.call("usage.summary", params)


def tokens(bucket):
    return bucket["inputTokens"], bucket["outputTokens"], bucket["turns"]


def test_summary_groups_ended_turns_by_utc_day_and_by_model(h):
    provider(h)
    sid = h.call("session.create", {})["session"]["id"]
    other = h.call("session.create", {})["session"]["id"]
    turn(h, sid, "fast", 100, 10, NOW - 2 * DAY)
    turn(h, sid, "fast", 200, 20, NOW - 1000)
    turn(h, other, "smart", 1000, 300, NOW - 1000, status="aborted")  # aborted turns used tokens too
    turn(h, sid, "smart", 7, 7, NOW - 40 * DAY)  # outside the default 30 days
    # a turn recorded through session.recordUsage operations, then ended
    h.now = NOW - DAY
    tid = h.call("session.startTurn", {"sessionId": sid, "providerId": "acme", "modelId": "smart"})["turn"]["id"]
    h.call(
        "session.recordUsage",
        {
            "sessionId": sid,
            "turnId": tid,
            "records": [
                {"id": "op1", "inputTokens": 40, "outputTokens": 4},
                {"id": "op2", "inputTokens": 60, "outputTokens": 6},
            ],
        },
    )
    h.call("session.endTurn", {"sessionId": sid, "turnId": tid, "status": "completed", "createNotification": False})
    # a running turn has not ended: it is not counted yet
    h.now = NOW - 10
    running = h.call("session.startTurn", {"sessionId": other, "providerId": "acme", "modelId": "fast"})
    h.call(
        "session.recordUsage",
        {"sessionId": other, "turnId": running["turn"]["id"], "records": [{"id": "x", "inputTokens": 5}]},
    )

    result = summary(h)
    assert (result["from"], result["to"], result["tzOffsetMinutes"], result["currency"]) == (
        "2026-04-29",
        "2026-05-28",
        0,
        "USD",
    )
    assert len(result["days"]) == 30 and [d["date"] for d in result["days"]][-3:] == [
        "2026-05-26",
        "2026-05-27",
        "2026-05-28",
    ]
    by_date = {d["date"]: tokens(d) for d in result["days"]}
    assert by_date["2026-05-26"] == (100, 10, 1)
    assert by_date["2026-05-27"] == (100, 10, 1)
    assert by_date["2026-05-28"] == (1200, 320, 2)
    assert by_date["2026-05-01"] == (0, 0, 0)
    assert {(m["modelId"], m["displayName"]): tokens(m) for m in result["models"]} == {
        ("fast", "Fast"): (300, 30, 2),
        ("smart", "Smart"): (1100, 310, 2),
    }
    assert [m["modelId"] for m in result["models"]] == ["smart", "fast"]  # most tokens first
    assert tokens(result["totals"]) == (1400, 340, 4)

    # a day with no turns costs a known nothing
    empty = next(d for d in result["days"] if d["date"] == "2026-05-01")
    assert (empty["cost"], empty["costPartial"], empty["unpricedTurns"]) == (0, False, 0)

    assert tokens(summary(h, days=366)["totals"]) == (1407, 347, 5)
    assert tokens(summary(h, days=1)["totals"]) == (1200, 320, 2)
    only = summary(h, sessionId=sid)
    assert only["sessionId"] == sid and tokens(only["totals"]) == (400, 40, 3)


def test_tz_offset_moves_turns_across_local_midnight(h):
    provider(h)
    sid = h.call("session.create", {})["session"]["id"]
    midnight = NOW - NOW % DAY  # 2026-05-28T00:00Z
    turn(h, sid, "fast", 1, 0, midnight + 30 * 60_000)  # 00:30Z: the 28th in UTC, the 27th at UTC-01:00
    utc = {d["date"]: d["turns"] for d in summary(h, days=2)["days"]}
    assert utc == {"2026-05-27": 0, "2026-05-28": 1}
    west = summary(h, days=2, tzOffsetMinutes=-60)
    assert {d["date"]: d["turns"] for d in west["days"]} == {"2026-05-27": 1, "2026-05-28": 0}
    # 20:26Z is already the 29th at UTC+04:00, so the window ends on the 29th
    east = summary(h, days=2, tzOffsetMinutes=240)
    assert (east["from"], east["to"]) == ("2026-05-28", "2026-05-29")
    assert {d["date"]: d["turns"] for d in east["days"]} == {"2026-05-28": 1, "2026-05-29": 0}


def test_unknown_prices_stay_unknown_and_totals_say_what_is_known(h):
    provider(h)
    sid = h.call("session.create", {})["session"]["id"]
    turn(h, sid, "fast", 2_000_000, 1_000_000, NOW - 1000)
    turn(h, sid, "smart", 1000, 100, NOW - 2 * DAY)

    result = summary(h)
    assert all(m["price"] is None and m["cost"] is None for m in result["models"])
    assert (
        result["totals"]["cost"],
        result["totals"]["knownCost"],
        result["totals"]["costPartial"],
        result["totals"]["unpricedTurns"],
    ) == (None, 0, False, 2)

    priced = h.call(
        "models.setPrice", {"providerId": "acme", "modelId": "fast", "inputPerMillion": 0.5, "outputPerMillion": 2}
    )
    assert priced == {
        "providerId": "acme",
        "modelId": "fast",
        "price": {"inputPerMillion": 0.5, "outputPerMillion": 2, "currency": "USD", "source": "user"},
    }
    assert ("models.changed", {"providerId": "acme"}) in h.events

    result = summary(h)
    models = {m["modelId"]: m for m in result["models"]}
    assert models["fast"]["cost"] == pytest.approx(3.0) and models["fast"]["costPartial"] is False
    assert models["fast"]["price"]["inputPerMillion"] == 0.5
    assert models["smart"]["cost"] is None and models["smart"]["unpricedTurns"] == 1
    totals = result["totals"]
    assert totals["cost"] is None and totals["costPartial"] is True
    assert totals["knownCost"] == pytest.approx(3.0) and totals["unpricedTurns"] == 1
    days = {d["date"]: d for d in result["days"]}
    assert days["2026-05-28"]["cost"] == pytest.approx(3.0)
    assert days["2026-05-26"]["cost"] is None and days["2026-05-26"]["costPartial"] is False

    # Only the output price known: a turn with input tokens cannot be priced; the cost is never 0.
    h.call(
        "models.setPrice", {"providerId": "acme", "modelId": "smart", "inputPerMillion": None, "outputPerMillion": 10}
    )
    assert {m["modelId"]: m["cost"] for m in summary(h)["models"]}["smart"] is None
    h.call("models.setPrice", {"providerId": "acme", "modelId": "smart", "inputPerMillion": 1, "outputPerMillion": 10})
    totals = summary(h)["totals"]
    assert totals["cost"] == pytest.approx(3.0 + 0.001 + 0.001) and totals["costPartial"] is False
    assert totals["unpricedTurns"] == 0


def test_a_zero_token_side_needs_no_price(h):
    provider(h)
    sid = h.call("session.create", {})["session"]["id"]
    turn(h, sid, "fast", 1_000_000, 0, NOW - 1000)
    turn(h, sid, "fast", 1_000_000, 5, NOW - 2000)
    h.call(
        "models.setPrice", {"providerId": "acme", "modelId": "fast", "inputPerMillion": 1.25, "outputPerMillion": None}
    )
    fast = summary(h)["models"][0]
    assert (fast["cost"], fast["knownCost"], fast["costPartial"], fast["unpricedTurns"]) == (None, 1.25, True, 1)


def test_models_list_carries_prices_and_set_price_clears_and_outlives_the_row(h):
    provider(h)
    listed = {m["modelId"]: m["price"] for m in h.call("models.list")["models"]}
    assert listed == {"fast": None, "smart": None}
    h.call(
        "models.setPrice",
        {"providerId": "acme", "modelId": "smart", "inputPerMillion": 3, "outputPerMillion": 15, "currency": "USD"},
    )
    listed = {m["modelId"]: m["price"] for m in h.call("models.list", {"providerId": "acme"})["models"]}
    assert listed["smart"] == {"inputPerMillion": 3, "outputPerMillion": 15, "currency": "USD", "source": "user"}
    assert (
        h.call("models.upsert", {"providerId": "acme", "model": {"modelId": "smart"}})["model"]["price"]
        == listed["smart"]
    )

    # a custom model id with no row can be priced too (turns record any model id)
    custom = h.call(
        "models.setPrice", {"providerId": "acme", "modelId": "ft:custom/1", "inputPerMillion": 0, "outputPerMillion": 0}
    )
    assert custom["price"]["inputPerMillion"] == 0
    sid = h.call("session.create", {})["session"]["id"]
    turn(h, sid, "ft:custom/1", 10, 10, NOW - 1000)
    assert summary(h)["totals"]["cost"] == 0  # a known price of zero is a known cost of zero

    # the price outlives its row, so recorded usage keeps its cost when the model comes back
    h.call("models.delete", {"providerId": "acme", "modelId": "smart"})
    h.call("models.upsert", {"providerId": "acme", "model": {"modelId": "smart"}})
    assert h.call("models.list")["models"][-1]["price"]["outputPerMillion"] == 15

    cleared = h.call(
        "models.setPrice", {"providerId": "acme", "modelId": "smart", "inputPerMillion": None, "outputPerMillion": None}
    )
    assert cleared["price"] is None
    assert {m["modelId"]: m["price"] for m in h.call("models.list")["models"]}["smart"] is None


def test_offline_demo_model_costs_nothing_by_default(h):
    sid = h.call("session.create", {})["session"]["id"]
    turn(h, sid, "offline-demo", 50, 60, NOW - 1000, provider_id="offline")
    model = summary(h)["models"][0]
    assert (model["providerId"], model["displayName"], model["cost"]) == ("offline", None, 0)
    assert model["price"]["source"] == "default"


def test_turns_without_a_model_are_counted_and_unpriced(h):
    sid = h.call("session.create", {})["session"]["id"]
    h.now = NOW - 1000
    tid = h.call("session.startTurn", {"sessionId": sid})["turn"]["id"]
    h.call(
        "session.endTurn",
        {"sessionId": sid, "turnId": tid, "status": "error", "createNotification": False, "usage": {"inputTokens": 3}},
    )
    result = summary(h)
    assert [(m["providerId"], m["modelId"], m["cost"]) for m in result["models"]] == [(None, None, None)]
    assert result["totals"]["unpricedTurns"] == 1


@pytest.mark.parametrize(
    "method, params, field",
    [
        ("usage.summary", {"days": 0}, "days"),
        ("usage.summary", {"days": 367}, "days"),
        ("usage.summary", {"days": "7"}, "days"),
        ("usage.summary", {"days": 1.5}, "days"),
        ("usage.summary", {"tzOffsetMinutes": 841}, "tzOffsetMinutes"),
        ("usage.summary", {"tzOffsetMinutes": True}, "tzOffsetMinutes"),
        ("usage.summary", {"sessionId": 5}, "sessionId"),
        ("usage.summary", {"sessionId": "../etc"}, "sessionId"),
        ("models.setPrice", {"modelId": "fast", "inputPerMillion": 1, "outputPerMillion": 1}, "providerId"),
        ("models.setPrice", {"providerId": "acme", "inputPerMillion": 1, "outputPerMillion": 1}, "modelId"),
        (
            "models.setPrice",
            {"providerId": "acme", "modelId": "  ", "inputPerMillion": 1, "outputPerMillion": 1},
            "modelId",
        ),
        ("models.setPrice", {"providerId": "acme", "modelId": "fast", "outputPerMillion": 1}, "inputPerMillion"),
        ("models.setPrice", {"providerId": "acme", "modelId": "fast", "inputPerMillion": 1}, "outputPerMillion"),
        (
            "models.setPrice",
            {"providerId": "acme", "modelId": "fast", "inputPerMillion": -1, "outputPerMillion": 1},
            "inputPerMillion",
        ),
        (
            "models.setPrice",
            {"providerId": "acme", "modelId": "fast", "inputPerMillion": "2", "outputPerMillion": 1},
            "inputPerMillion",
        ),
        (
            "models.setPrice",
            {"providerId": "acme", "modelId": "fast", "inputPerMillion": 1, "outputPerMillion": True},
            "outputPerMillion",
        ),
        (
            "models.setPrice",
            {"providerId": "acme", "modelId": "fast", "inputPerMillion": 1, "outputPerMillion": float("nan")},
            "outputPerMillion",
        ),
        (
            "models.setPrice",
            {"providerId": "acme", "modelId": "fast", "inputPerMillion": 10**5000, "outputPerMillion": 1},
            "inputPerMillion",
        ),
        (
            "models.setPrice",
            {"providerId": "acme", "modelId": "fast", "inputPerMillion": 1, "outputPerMillion": 1, "currency": "EUR"},
            "currency",
        ),
    ],
)
def test_bad_params_are_refused_naming_the_field_and_nothing_is_stored(h, method, params, field):
    provider(h)
    err = h.error(method, params)
    assert err.code == ErrorCode.INVALID_PARAMS and err.data == {"field": field}, err.message
    assert h.call("models.list")["models"][0]["price"] is None


def test_unknown_provider_or_session_is_not_found(h):
    assert (
        h.error(
            "models.setPrice", {"providerId": "nope", "modelId": "m", "inputPerMillion": 1, "outputPerMillion": 1}
        ).code
        == ErrorCode.NOT_FOUND
    )
    assert h.error("usage.summary", {"sessionId": "0" * 36}).code == ErrorCode.NOT_FOUND


def test_over_stdio(stdio_host):
    s = stdio_host()
    s.call("providers.upsert", {"provider": {"id": "acme", "name": "Acme", "baseUrl": "https://api.example.com/v1"}})
    s.call("models.upsert", {"providerId": "acme", "model": {"modelId": "fast"}})
    sid = s.call("session.create", {})["session"]["id"]
    tid = s.call("session.startTurn", {"sessionId": sid, "providerId": "acme", "modelId": "fast"})["turn"]["id"]
    s.call(
        "session.endTurn",
        {
            "sessionId": sid,
            "turnId": tid,
            "status": "completed",
            "createNotification": False,
            "usage": {"inputTokens": 4000, "outputTokens": 1000},
        },
    )
    before = s.call("usage.summary", {"days": 7, "sessionId": sid})
    assert len(before["days"]) == 7 and before["totals"]["cost"] is None and before["totals"]["turns"] == 1
    s.call("models.setPrice", {"providerId": "acme", "modelId": "fast", "inputPerMillion": 2.5, "outputPerMillion": 10})
    assert s.call("models.list", {})["models"][0]["price"]["outputPerMillion"] == 10
    after = s.call("usage.summary", {})
    assert after["totals"]["cost"] == pytest.approx(0.02)
    assert sum(day["cost"] for day in after["days"]) == pytest.approx(0.02)  # one day, or two across midnight
    reply = s.request("usage.summary", {"days": 0})
    assert reply["error"]["data"]["field"] == "days"
    assert s.close() == 0
