"""Prices that are known without guessing: the ones a provider lists in its GET /models, and 0 / 0 for
models served from this machine. The person's own price always wins."""

import asyncio

import orjson
import pytest

from pidesktop.agent.model_refresh import refresh_models
from pidesktop.agent.presets import PRESETS
from pidesktop.bus.errors import ErrorCode
from pidesktop.host.settings import prices
from tests.support.sse_server import Script


class AsyncHost:
    """The agent's view of an in-process host: ``await call(method, params)``."""

    def __init__(self, host):
        self.host = host

    async def call(self, method, params=None):
        return self.host.call(method, params)


def openrouter_body(**pricing_by_model):
    """An OpenRouter-shaped model list: one entry per model, ``pricing`` as given (None: no pricing key)."""
    data = []
    for model_id, pricing in pricing_by_model.items():
        entry = {"id": model_id.replace("__", "/"), "name": model_id, "context_length": 8192}
        if pricing is not None:
            entry["pricing"] = pricing
        data.append(entry)
    return orjson.dumps({"data": data})


def serve(server, body):
    server.serve("/v1/models", Script(headers={"Content-Type": "application/json"}, framing="length", chunks=[body]))


def refresh(host, provider_id="router"):
    return asyncio.run(refresh_models(AsyncHost(host), provider_id))


def add_provider(host, pid, base_url, vendor_key):
    host.call("providers.upsert", {"provider": {"id": pid, "name": pid, "baseUrl": base_url, "vendorKey": vendor_key}})


def price_of(host, pid, model_id):
    rows = {m["modelId"]: m for m in host.call("models.list", {"providerId": pid})["models"]}
    return rows[model_id]["price"]


def usd(inp, out, source):
    return {"inputPerMillion": inp, "outputPerMillion": out, "currency": "USD", "source": source}


@pytest.fixture
def router(host, sse_server):
    add_provider(host, "router", sse_server.base_url, "openrouter")
    return sse_server


def test_discovery_stores_the_prices_the_provider_lists(host, router):
    serve(
        router,
        openrouter_body(
            a__priced={"prompt": "0.000003", "completion": "0.000015", "request": "0", "image": "0.0048"},
            a__cheap={"prompt": "0.0000001", "completion": "0.0000004"},
            a__free={"prompt": "0", "completion": "0"},
            a__variable={"prompt": "-1", "completion": "-1"},  # OpenRouter: the price varies
            a__garbled={"prompt": "three dollars", "completion": "0.000002"},
            a__bad={"prompt": "NaN", "completion": "1e999999999"},
            a__per_request={"prompt": "0.000001", "completion": "0.000002", "request": "0.005"},
            a__numbers={"prompt": 2e-6, "completion": 8e-6},
            a__none=None,
        ),
    )
    result = refresh(host)
    assert len(result["added"]) == 9
    assert price_of(host, "router", "a/priced") == usd(3.0, 15.0, "provider")
    assert price_of(host, "router", "a/cheap") == usd(0.1, 0.4, "provider")
    assert price_of(host, "router", "a/free") == usd(0, 0, "provider")
    assert price_of(host, "router", "a/variable") is None
    assert price_of(host, "router", "a/garbled") == usd(None, 2.0, "provider")  # only the readable side
    assert price_of(host, "router", "a/bad") is None
    assert price_of(host, "router", "a/per_request") is None  # token prices alone would understate the cost
    assert price_of(host, "router", "a/numbers") == usd(2.0, 8.0, "provider")
    assert price_of(host, "router", "a/none") is None


def test_a_changed_or_withdrawn_listed_price_follows_the_provider(host, router):
    serve(
        router,
        openrouter_body(
            m__one={"prompt": "0.000001", "completion": "0.000002"},
            m__two={"prompt": "0.000001", "completion": "0.000002"},
            m__three={"prompt": "0.000001", "completion": "0.000002"},
        ),
    )
    refresh(host)
    assert refresh(host) == {"added": [], "updated": [], "unlisted": []}  # nothing changed
    serve(
        router,
        openrouter_body(
            m__one={"prompt": "0.000005", "completion": "0.000002"}, m__two={"prompt": "-1", "completion": "-1"}
        ),
    )
    assert refresh(host) == {"added": [], "updated": ["m/one", "m/two"], "unlisted": ["m/three"]}
    assert price_of(host, "router", "m/one") == usd(5.0, 2.0, "provider")
    assert price_of(host, "router", "m/two") is None  # now variable: unknown
    assert price_of(host, "router", "m/three") == usd(1.0, 2.0, "provider")  # unlisted rows keep theirs


def test_the_users_price_wins_survives_a_refresh_and_clearing_it_falls_back(host, router):
    serve(router, openrouter_body(m__one={"prompt": "0.000003", "completion": "0.000015"}))
    refresh(host)
    set_price = host.call(
        "models.setPrice", {"providerId": "router", "modelId": "m/one", "inputPerMillion": 2.5, "outputPerMillion": 10}
    )
    assert set_price["price"] == usd(2.5, 10, "user")
    serve(router, openrouter_body(m__one={"prompt": "0.000004", "completion": "0.000016"}))
    assert refresh(host)["updated"] == ["m/one"]  # the listed price changed ...
    assert price_of(host, "router", "m/one") == usd(2.5, 10, "user")  # ... the person's still wins
    cleared = host.call(
        "models.setPrice",
        {"providerId": "router", "modelId": "m/one", "inputPerMillion": None, "outputPerMillion": None},
    )
    assert cleared["price"] == usd(4.0, 16.0, "provider")
    assert price_of(host, "router", "m/one") == usd(4.0, 16.0, "provider")


def test_a_user_model_row_gets_the_listed_price_but_is_otherwise_untouched(host, router):
    host.call("models.upsert", {"providerId": "router", "model": {"modelId": "m/one", "displayName": "Mine"}})
    serve(router, openrouter_body(m__one={"prompt": "0.000001", "completion": "0.000001"}))
    refresh(host)
    [row] = host.call("models.list", {"providerId": "router"})["models"]
    assert (row["source"], row["displayName"], row["price"]) == ("user", "Mine", usd(1.0, 1.0, "provider"))


def test_apply_discovery_refuses_a_price_it_cannot_store(host):
    add_provider(host, "p", "https://api.example.com/v1", "custom")
    for bad, field in (
        ({"inputPerMillion": -1}, "models[1].price.inputPerMillion"),
        ({"outputPerMillion": "3"}, "models[1].price.outputPerMillion"),
        ({"inputPerMillion": 2_000_000}, "models[1].price.inputPerMillion"),
        ("3", "models[1].price"),
    ):
        error = host.error(
            "models.applyDiscovery",
            {
                "providerId": "p",
                "models": [{"modelId": "ok", "price": {"inputPerMillion": 1}}, {"modelId": "m", "price": bad}],
            },
        )
        assert error.code == ErrorCode.INVALID_PARAMS and error.data["field"] == field
    assert host.call("models.list", {"providerId": "p"})["models"] == []  # nothing written
    host.call("models.upsert", {"providerId": "p", "model": {"modelId": "ok"}})
    assert price_of(host, "p", "ok") is None  # not even the valid entry's price
    # a price with both figures unknown is no price
    host.call(
        "models.applyDiscovery",
        {"providerId": "p", "models": [{"modelId": "m", "price": {"inputPerMillion": None, "outputPerMillion": None}}]},
    )
    assert price_of(host, "p", "m") is None


def test_models_of_a_local_server_are_free_unless_the_person_says_otherwise(host):
    add_provider(host, "ollama", "http://localhost:11434/v1", "ollama")
    add_provider(host, "studio", "http://192.168.1.20:1234/v1", "lmstudio")
    add_provider(host, "cpp", "http://[::1]:8080/v1", "llamacpp")
    add_provider(host, "hosted", "https://ollama.example.com/v1", "ollama")  # the same preset, someone's server
    add_provider(host, "custom", "http://127.0.0.1:8000/v1", "custom")  # not a local-server preset
    for pid in ("ollama", "studio", "cpp", "hosted", "custom"):
        host.call("models.applyDiscovery", {"providerId": pid, "models": [{"modelId": "llama3"}]})
    for pid in ("ollama", "studio", "cpp"):
        assert price_of(host, pid, "llama3") == usd(0, 0, "local")
    assert price_of(host, "hosted", "llama3") is None
    assert price_of(host, "custom", "llama3") is None
    set_price = host.call(
        "models.setPrice",
        {"providerId": "ollama", "modelId": "llama3", "inputPerMillion": 0.05, "outputPerMillion": None},
    )
    assert set_price["price"] == usd(0.05, None, "user")
    cleared = host.call(
        "models.setPrice",
        {"providerId": "ollama", "modelId": "llama3", "inputPerMillion": None, "outputPerMillion": None},
    )
    assert cleared["price"] == usd(0, 0, "local")


def test_usage_summary_prices_turns_of_listed_and_local_models(host, router):
    serve(
        router,
        openrouter_body(
            m__one={"prompt": "0.000003", "completion": "0.000015"}, m__vary={"prompt": "-1", "completion": "-1"}
        ),
    )
    refresh(host)
    add_provider(host, "ollama", "http://127.0.0.1:11434/v1", "ollama")
    sid = host.call("session.create", {})["session"]["id"]
    for pid, model, tokens_in, tokens_out in (
        ("router", "m/one", 1_000_000, 100_000),
        ("ollama", "qwen-not-listed", 5000, 500),
        ("router", "m/vary", 10, 10),
    ):
        tid = host.call("session.startTurn", {"sessionId": sid, "providerId": pid, "modelId": model})["turn"]["id"]
        host.call(
            "session.endTurn",
            {
                "sessionId": sid,
                "turnId": tid,
                "status": "completed",
                "createNotification": False,
                "usage": {"inputTokens": tokens_in, "outputTokens": tokens_out},
            },
        )
    summary = host.call("usage.summary", {})
    by_model = {m["modelId"]: m for m in summary["models"]}
    assert by_model["m/one"]["cost"] == pytest.approx(3.0 + 1.5)
    assert by_model["m/one"]["price"]["source"] == "provider"
    assert by_model["qwen-not-listed"]["cost"] == 0 and by_model["qwen-not-listed"]["price"]["source"] == "local"
    assert by_model["m/vary"]["cost"] is None and by_model["m/vary"]["unpricedTurns"] == 1
    totals = summary["totals"]
    assert totals["cost"] is None and totals["costPartial"] is True
    assert totals["knownCost"] == pytest.approx(4.5)


def test_the_hosts_local_vendor_keys_are_the_local_server_presets():
    local = {p.vendor_key for p in PRESETS.values() if p.base_url.startswith(("http://localhost", "http://127."))}
    assert prices.LOCAL_VENDORS == local
