"""providers.* and models.*: rows, display order, the default model, keys and discovery."""

import hashlib

import apsw
import pytest

from tests.support.hosts import InProcessHost


def add(host, name, base_url="https://api.example.com/v1", api_key=None, **fields):
    params = {"provider": {"name": name, "baseUrl": base_url, **fields}}
    if api_key is not None:
        params["apiKey"] = api_key
    return host.call("providers.upsert", params)["provider"]


def ids(host):
    return [p["id"] for p in host.call("providers.list")["providers"]]


def test_upsert_creates_with_defaults_and_updates_in_place(host):
    created = add(host, "  My OpenAI  ")
    assert created["id"].startswith("my-openai-") and len(created["id"]) == len("my-openai-") + 6
    assert {
        k: created[k]
        for k in (
            "name",
            "vendorKey",
            "type",
            "protocol",
            "authKind",
            "baseUrl",
            "enabled",
            "hasKey",
            "defaultModelId",
            "config",
            "ownerPluginId",
            "apiStyle",
        )
    } == {
        "name": "My OpenAI",
        "vendorKey": "custom",
        "type": "openai_compatible",
        "protocol": "openai_compatible",
        "authKind": "api_key_and_base_url",
        "baseUrl": "https://api.example.com/v1",
        "enabled": True,
        "hasKey": False,
        "defaultModelId": None,
        "config": {},
        "ownerPluginId": None,
        "apiStyle": None,
    }
    assert created["createdAt"] == created["updatedAt"]
    assert add(host, "深度求索")["id"].startswith("provider-")

    updated = host.call(
        "providers.upsert",
        {
            "provider": {
                "id": created["id"],
                "name": "Renamed",
                "baseUrl": "http://localhost:8080",
                "enabled": False,
                "defaultModelId": "gpt-x",
                "config": {"headers": {"X-Org": "1"}},
                "vendorKey": "openai",
            }
        },
    )["provider"]
    assert (
        updated["id"],
        updated["name"],
        updated["baseUrl"],
        updated["enabled"],
        updated["defaultModelId"],
        updated["config"],
        updated["vendorKey"],
        updated["createdAt"],
    ) == (
        created["id"],
        "Renamed",
        "http://localhost:8080",
        False,
        "gpt-x",
        {"headers": {"X-Org": "1"}},
        "openai",
        created["createdAt"],
    )
    # Absent optional fields keep their values; a null defaultModelId clears it.
    kept = add(host, "Renamed", "http://localhost:8080", id=created["id"])
    assert (kept["enabled"], kept["defaultModelId"], kept["config"], kept["vendorKey"]) == (
        False,
        "gpt-x",
        {"headers": {"X-Org": "1"}},
        "openai",
    )
    assert (
        add(host, "Renamed", "http://localhost:8080", id=created["id"], defaultModelId=None)["defaultModelId"] is None
    )

    chosen = add(host, "Chosen id", id="my-local")
    assert chosen["id"] == "my-local" and ids(host)[-1] == "my-local"
    topics = [(t, p["reason"]) for t, p in host.events if t == "providers.changed"]
    assert topics[:2] == [("providers.changed", "created")] * 2 and ("providers.changed", "updated") in topics


@pytest.mark.parametrize(
    "params, field",
    [
        ({"provider": {"name": "x", "baseUrl": "ftp://host"}}, "provider.baseUrl"),
        ({"provider": {"name": "x", "baseUrl": "https://"}}, "provider.baseUrl"),
        ({"provider": {"name": "x", "baseUrl": "not a url"}}, "provider.baseUrl"),
        ({"provider": {"name": "x", "baseUrl": "https://user:pw@host"}}, "provider.baseUrl"),
        ({"provider": {"name": "x", "baseUrl": "https://host:99999"}}, "provider.baseUrl"),
        ({"provider": {"name": "x"}}, "provider.baseUrl"),
        ({"provider": {"name": "   ", "baseUrl": "https://h"}}, "provider.name"),
        ({"provider": {"name": "n" * 81, "baseUrl": "https://h"}}, "provider.name"),
        ({"provider": {"baseUrl": "https://h"}}, "provider.name"),
        ({"provider": {"name": "x", "baseUrl": "https://h", "enabled": "yes"}}, "provider.enabled"),
        ({"provider": {"name": "x", "baseUrl": "https://h", "config": []}}, "provider.config"),
        ({"provider": {"name": "x", "baseUrl": "https://h", "id": "has space"}}, "provider.id"),
        ({"provider": {"name": "x", "baseUrl": "https://h", "id": "offline"}}, "provider.id"),
        ({"provider": {"name": "x", "baseUrl": "https://h"}, "apiKey": "  "}, "apiKey"),
        ({"provider": {"name": "x", "baseUrl": "https://h"}, "apiKey": "a\nb"}, "apiKey"),
        ({"provider": {"name": "x", "baseUrl": "https://h"}, "apiKey": 42}, "apiKey"),
        ({"provider": "x"}, "provider"),
        ({}, "provider"),
    ],
)
def test_upsert_validation_names_the_field_and_writes_nothing(host, params, field):
    error = host.error("providers.upsert", params)
    assert error.code == "INVALID_PARAMS" and error.data["field"] == field
    assert ids(host) == [] and not host.events
    assert list((host.location.data_root / "secrets").iterdir()) == []


def test_a_bad_field_on_update_leaves_the_row_as_it_was(host):
    row = add(host, "Keep", api_key="k1")
    error = host.error(
        "providers.upsert", {"provider": {"id": row["id"], "name": "Changed", "baseUrl": "x"}, "apiKey": "k2"}
    )
    assert error.code == "INVALID_PARAMS" and error.data["field"] == "provider.baseUrl"
    assert error.message == "The base URL must start with http:// or https://, like http://localhost:11434/v1."
    assert host.call("providers.list")["providers"] == [row]
    assert host.call("providers.credentials", {"providerId": row["id"]})["apiKey"] == "k1"


def test_api_key_set_replace_keep_and_remove(host):
    row = add(host, "Keyed", api_key="  first-key \n")
    assert row["hasKey"] and "apiKey" not in row
    creds = host.call("providers.credentials", {"providerId": row["id"]})
    assert creds == {
        "providerId": row["id"],
        "baseUrl": row["baseUrl"],
        "apiKey": "first-key",
        "defaultModelId": None,
        "name": "Keyed",
    }
    add(host, "Keyed", id=row["id"], api_key="second-key")
    assert host.call("providers.credentials", {"providerId": row["id"]})["apiKey"] == "second-key"
    kept = add(host, "Keyed again", id=row["id"])  # no apiKey: unchanged
    assert kept["hasKey"]
    assert host.call("providers.credentials", {"providerId": row["id"]})["apiKey"] == "second-key"
    events_before = len(host.events)
    host.call("providers.credentials", {"providerId": row["id"]})
    assert len(host.events) == events_before  # credentials emits nothing

    removed = host.call(
        "providers.upsert", {"provider": {"id": row["id"], "name": "Keyed", "baseUrl": row["baseUrl"]}, "apiKey": None}
    )["provider"]
    assert not removed["hasKey"]
    assert host.call("providers.credentials", {"providerId": row["id"]})["apiKey"] is None
    assert [p.name for p in (host.location.data_root / "secrets").iterdir()] == [".machine-key"]
    assert host.error("providers.credentials", {"providerId": "nope"}).code == "NOT_FOUND"


def test_display_order_saved_ids_first_then_creation_order_and_stale_ids_ignored(host):
    a, b, c = (add(host, n, id=n) for n in ("a", "b", "c"))
    assert ids(host) == ["a", "b", "c"]
    reordered = host.call("providers.reorder", {"order": ["c", "a"]})["providers"]
    assert [p["id"] for p in reordered] == ["c", "a", "b"]
    add(host, "d", id="d")
    assert ids(host) == ["c", "a", "b", "d"]  # a new id follows the saved ones
    host.call("providers.delete", {"providerId": "a"})
    assert ids(host) == ["c", "b", "d"]

    # A saved order naming ids that are gone (written by an older build) is read past.
    host.stop()
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    conn.execute(
        'UPDATE kv SET value_json = \'["ghost", "d", "c", "d"]\' WHERE ns = \'app\' AND key = \'providers.order\''
    )
    conn.close()
    again = InProcessHost(host.location)
    try:
        assert ids(again) == ["d", "c", "b"]
        for bad, field in ((["d", "nope"], "order[1]"), (["d", "d"], "order[1]"), ([3], "order[0]")):
            error = again.error("providers.reorder", {"order": bad})
            assert error.code == "INVALID_PARAMS" and field in error.message and error.data["field"] == field
        assert again.error("providers.reorder", {}).code == "INVALID_PARAMS"
        assert ids(again) == ["d", "c", "b"]
        assert [p["id"] for p in again.call("providers.reorder", {"order": []})["providers"]] == ["b", "c", "d"]
    finally:
        again.stop()


def test_set_default_offline_provider_unknown_and_null(host):
    listed = host.call("providers.list")
    assert (listed["defaultProviderId"], listed["defaultModelId"]) == ("offline", "offline-demo")
    row = add(host, "Main", defaultModelId="m-1")
    assert host.call("providers.setDefault", {"providerId": row["id"]}) == {
        "defaultProviderId": row["id"],
        "defaultModelId": "m-1",
    }
    assert host.call("providers.setDefault", {"providerId": row["id"], "modelId": "custom-m"}) == {
        "defaultProviderId": row["id"],
        "defaultModelId": "custom-m",
    }
    listed = host.call("providers.list")
    assert (listed["defaultProviderId"], listed["defaultModelId"]) == (row["id"], "custom-m")
    assert host.error("providers.setDefault", {"providerId": "missing"}).code == "NOT_FOUND"
    error = host.error("providers.setDefault", {"providerId": "offline", "modelId": "gpt-4"})
    assert error.code == "INVALID_PARAMS" and "modelId" in error.message
    assert host.error("providers.setDefault", {}).code == "INVALID_PARAMS"
    assert host.call("providers.list")["defaultProviderId"] == row["id"]
    assert host.call("providers.setDefault", {"providerId": "offline"}) == {
        "defaultProviderId": "offline",
        "defaultModelId": "offline-demo",
    }
    host.call("providers.setDefault", {"providerId": row["id"]})
    assert host.call("providers.setDefault", {"providerId": None}) == {
        "defaultProviderId": "offline",
        "defaultModelId": "offline-demo",
    }


def test_delete_removes_row_models_secret_order_and_default(host):
    keep = add(host, "Keep", id="keep", api_key="keep-key")
    add(host, "Gone", id="gone", api_key="gone-key")
    host.call("models.upsert", {"providerId": "gone", "model": {"modelId": "m"}})
    host.call("models.applyDiscovery", {"providerId": "gone", "models": [{"modelId": "d"}]})
    host.call("providers.reorder", {"order": ["gone", "keep"]})
    host.call("providers.setDefault", {"providerId": "gone", "modelId": "m"})
    secret_file = host.location.data_root / "secrets" / hashlib.sha256(b"provider:gone:api_key").hexdigest()
    assert secret_file.exists()

    assert host.call("providers.delete", {"providerId": "gone"}) == {"deleted": True}
    assert ("providers.changed", {"reason": "deleted", "providerId": "gone"}) in host.events
    assert not secret_file.exists()
    listed = host.call("providers.list")
    assert [p["id"] for p in listed["providers"]] == ["keep"]
    assert (listed["defaultProviderId"], listed["defaultModelId"]) == ("offline", "offline-demo")
    assert host.call("models.list")["models"] == []
    assert host.error("providers.delete", {"providerId": "gone"}).code == "NOT_FOUND"
    assert host.call("providers.credentials", {"providerId": "keep"})["apiKey"] == "keep-key"
    host.stop()
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    try:
        assert conn.execute("SELECT secret_ref FROM secrets_meta").fetchall() == [("provider:keep:api_key",)]
        assert conn.execute("SELECT value_json FROM kv WHERE key = 'providers.order'").fetchone() == ('["keep"]',)
    finally:
        conn.close()
    assert keep["hasKey"]


def test_plugin_owned_rows_refuse_edit_and_delete(host):
    add(host, "Plugin row", id="plug", api_key="pk")
    host.stop()
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    conn.execute("UPDATE providers SET owner_plugin_id = 'acme.models' WHERE id = 'plug'")
    conn.close()
    again = InProcessHost(host.location)
    try:
        before = again.call("providers.list")["providers"]
        assert before[0]["ownerPluginId"] == "acme.models"
        error = again.error(
            "providers.upsert",
            {"provider": {"id": "plug", "name": "Mine now", "baseUrl": "https://x.example"}, "apiKey": None},
        )
        assert error.code == "PERMISSION_DENIED" and "acme.models" in error.message
        assert again.error("providers.delete", {"providerId": "plug"}).code == "PERMISSION_DENIED"
        assert again.call("providers.list")["providers"] == before
        assert again.call("providers.credentials", {"providerId": "plug"})["apiKey"] == "pk"
        assert not again.events
    finally:
        again.stop()


def test_models_upsert_list_delete(host):
    add(host, "First", id="p1")
    add(host, "Second", id="p2")
    host.call("providers.reorder", {"order": ["p2", "p1"]})
    model = host.call(
        "models.upsert",
        {
            "providerId": "p1",
            "model": {
                "modelId": "zeta",
                "displayName": "Zeta",
                "contextWindow": 128000,
                "maxOutputTokens": 4096,
                "capabilities": ["tools", "vision", "tools"],
            },
        },
    )["model"]
    assert {k: v for k, v in model.items() if k != "updatedAt"} == {
        "providerId": "p1",
        "modelId": "zeta",
        "displayName": "Zeta",
        "source": "user",
        "capabilities": ["tools", "vision"],
        "contextWindow": 128000,
        "maxOutputTokens": 4096,
        "deprecated": False,
        "discoveryState": None,
        "price": None,
    }
    host.call("models.upsert", {"providerId": "p1", "model": {"modelId": "alpha"}})
    host.call("models.upsert", {"providerId": "p2", "model": {"modelId": "m", "displayName": "Middle"}})
    listed = host.call("models.list")["models"]
    assert [(m["providerId"], m["displayName"]) for m in listed] == [("p2", "Middle"), ("p1", "alpha"), ("p1", "Zeta")]
    assert [m["modelId"] for m in host.call("models.list", {"providerId": "p1"})["models"]] == ["alpha", "zeta"]

    # An update keeps what it does not mention.
    renamed = host.call("models.upsert", {"providerId": "p1", "model": {"modelId": "zeta", "displayName": "Z2"}})
    assert (renamed["model"]["displayName"], renamed["model"]["contextWindow"], renamed["model"]["capabilities"]) == (
        "Z2",
        128000,
        ["tools", "vision"],
    )

    for params, field in (
        ({"providerId": "p1", "model": {"modelId": " "}}, "model.modelId"),
        ({"providerId": "p1", "model": {"modelId": "x", "contextWindow": 0}}, "model.contextWindow"),
        ({"providerId": "p1", "model": {"modelId": "x", "capabilities": [1]}}, "model.capabilities[0]"),
        ({"providerId": "p1"}, "model"),
    ):
        error = host.error("models.upsert", params)
        assert error.code == "INVALID_PARAMS" and field in error.message
    assert host.error("models.upsert", {"providerId": "nope", "model": {"modelId": "x"}}).code == "NOT_FOUND"
    assert host.error("models.list", {"providerId": "nope"}).code == "NOT_FOUND"

    assert host.call("models.delete", {"providerId": "p1", "modelId": "alpha"}) == {"deleted": True}
    assert host.error("models.delete", {"providerId": "p1", "modelId": "alpha"}).code == "NOT_FOUND"
    assert host.error("models.delete", {"providerId": "nope", "modelId": "zeta"}).code == "NOT_FOUND"
    assert [m["modelId"] for m in host.call("models.list", {"providerId": "p1"})["models"]] == ["zeta"]
    assert ("models.changed", {"providerId": "p1"}) in host.events


def states(host, provider_id):
    return {
        m["modelId"]: (m["source"], m["discoveryState"], m["displayName"], m["contextWindow"])
        for m in host.call("models.list", {"providerId": provider_id})["models"]
    }


def test_apply_discovery_adds_keeps_user_rows_unlists_and_republishes(host):
    add(host, "Disc", id="disc")
    host.call(
        "models.upsert",
        {"providerId": "disc", "model": {"modelId": "mine", "displayName": "My pick", "contextWindow": 1000}},
    )
    first = host.call(
        "models.applyDiscovery",
        {
            "providerId": "disc",
            "models": [
                {"modelId": "gpt-a", "displayName": "GPT A", "contextWindow": 8000},
                {"modelId": "gpt-b"},
                {"modelId": "mine", "displayName": "Endpoint name", "contextWindow": 99},
                {"modelId": "gpt-a", "displayName": "duplicate ignored"},
            ],
        },
    )
    assert first == {"added": ["gpt-a", "gpt-b"], "updated": [], "unlisted": []}
    assert states(host, "disc") == {
        "gpt-a": ("discovered", "published", "GPT A", 8000),
        "gpt-b": ("discovered", "published", "gpt-b", None),
        "mine": ("user", None, "My pick", 1000),
    }
    assert host.events[-1] == ("models.changed", {"providerId": "disc"})

    second = host.call("models.applyDiscovery", {"providerId": "disc", "models": [{"modelId": "gpt-b"}]})
    assert second == {"added": [], "updated": [], "unlisted": ["gpt-a"]}
    assert states(host, "disc")["gpt-a"] == ("discovered", "unlisted", "GPT A", 8000)
    assert states(host, "disc")["mine"] == ("user", None, "My pick", 1000)  # not discovered: never unlisted

    events = len(host.events)
    assert host.call("models.applyDiscovery", {"providerId": "disc", "models": [{"modelId": "gpt-b"}]}) == {
        "added": [],
        "updated": [],
        "unlisted": [],
    }
    assert len(host.events) == events  # nothing changed, nothing announced

    third = host.call(
        "models.applyDiscovery",
        {"providerId": "disc", "models": [{"modelId": "gpt-a", "contextWindow": 16000}, {"modelId": "gpt-b"}]},
    )
    assert third == {"added": [], "updated": ["gpt-a"], "unlisted": []}
    assert states(host, "disc")["gpt-a"] == ("discovered", "published", "GPT A", 16000)


def test_apply_discovery_keeps_bundled_source_and_is_validated_first(host):
    add(host, "Bundled", id="bun")
    host.call("models.applyDiscovery", {"providerId": "bun", "models": [{"modelId": "old"}]})
    host.stop()
    conn = apsw.Connection(str(host.location.data_root / "pi.sqlite"))
    conn.execute(
        "INSERT INTO models(provider_id, model_id, display_name, source, updated_at) "
        "VALUES ('bun', 'shipped', 'Shipped', 'bundled', 1)"
    )
    conn.close()
    again = InProcessHost(host.location)
    try:
        result = again.call(
            "models.applyDiscovery",
            {"providerId": "bun", "models": [{"modelId": "shipped", "displayName": "Shipped v2"}]},
        )
        assert result == {"added": [], "updated": ["shipped"], "unlisted": ["old"]}
        assert states(again, "bun")["shipped"] == ("bundled", "published", "Shipped v2", None)
        # A bundled row missing from the list is not marked.
        again.call("models.applyDiscovery", {"providerId": "bun", "models": []})
        assert states(again, "bun")["shipped"][1] == "published"

        before = states(again, "bun")
        for bad, field in (
            ([{"modelId": "ok"}, {"displayName": "no id"}], "models[1].modelId"),
            ([{"modelId": "ok"}, "x"], "models[1]"),
            ([{"modelId": "ok", "contextWindow": -1}], "models[0].contextWindow"),
        ):
            error = again.error("models.applyDiscovery", {"providerId": "bun", "models": bad})
            assert error.code == "INVALID_PARAMS" and field in error.message and error.data["field"] == field
        assert states(again, "bun") == before
        assert again.error("models.applyDiscovery", {"providerId": "nope", "models": []}).code == "NOT_FOUND"
    finally:
        again.stop()


def test_a_new_endpoint_clears_the_unlisted_marker(host):
    add(host, "Moving", id="mv", base_url="https://one.example")
    host.call("models.applyDiscovery", {"providerId": "mv", "models": [{"modelId": "a"}]})
    host.call("models.applyDiscovery", {"providerId": "mv", "models": []})
    assert states(host, "mv")["a"][1] == "unlisted"
    add(host, "Moving", id="mv", base_url="https://one.example")  # same endpoint: kept
    assert states(host, "mv")["a"][1] == "unlisted"
    add(host, "Moving", id="mv", base_url="https://two.example")
    assert states(host, "mv")["a"][1] is None
