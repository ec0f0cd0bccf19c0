"""An INVALID_PARAMS error names the refused param in data.field, in process and over stdio."""

import pytest

from pidesktop.bus import ErrorCode, HostError
from pidesktop.host.params import Params, invalid
from pidesktop.host.settings.providers import validate_base_url


@pytest.mark.parametrize(
    "raw, read, field",
    [
        ({}, lambda p: p.text("title"), "title"),
        ({"title": 3}, lambda p: p.text("title"), "title"),
        ({"title": " "}, lambda p: p.text("title", strip=True, nonempty=True), "title"),
        ({"title": "abc"}, lambda p: p.text("title", max_chars=2), "title"),
        ({"limit": 0}, lambda p: p.integer("limit", minimum=1), "limit"),
        ({"limit": 9}, lambda p: p.integer("limit", maximum=5), "limit"),
        ({"limit": True}, lambda p: p.integer("limit"), "limit"),
        ({"on": "yes"}, lambda p: p.boolean("on"), "on"),
        ({"mode": "x"}, lambda p: p.choice("mode", ("a", "b")), "mode"),
        ({"provider.baseUrl": []}, lambda p: p.obj("provider.baseUrl"), "provider.baseUrl"),
        ({"order": {}}, lambda p: p.array("order"), "order"),
    ],
)
def test_every_params_check_names_its_field_in_data(raw, read, field):
    with pytest.raises(HostError) as info:
        read(Params("x.y", raw))
    error = info.value
    assert error.code == ErrorCode.INVALID_PARAMS and error.data == {"field": field}
    assert f"'{field}'" in error.message
    assert error.to_jsonrpc()["data"] == {"field": field, "code": "INVALID_PARAMS"}
    assert HostError.from_jsonrpc(error.to_jsonrpc()).data == {"field": field}


def test_an_error_about_no_one_field_has_no_field():
    assert invalid("params must be a JSON object.").data == {}
    with pytest.raises(HostError) as info:
        Params("x.y", [1])
    assert "field" not in info.value.data


@pytest.mark.parametrize(
    "url, message",
    [
        ("htp:/x", "The base URL must start with http:// or https://, like http://localhost:11434/v1."),
        ("https://", "The base URL must name a server after http:// or https://, like http://localhost:11434/v1."),
        (
            "https://host:99999",
            "The base URL is not a valid web address; it should look like http://localhost:11434/v1.",
        ),
        (
            "https://user:pw@host",
            "The base URL must not contain a user name or password; give the key as the API key instead.",
        ),
        ("https://host/a b", "The base URL must not contain spaces."),
    ],
)
def test_base_url_refusals_are_plain_sentences(url, message):
    with pytest.raises(HostError) as info:
        validate_base_url(url)
    assert info.value.message == message and info.value.data == {"field": "provider.baseUrl"}


def test_the_field_travels_over_stdio(stdio_host):
    host = stdio_host()
    try:
        reply = host.request("providers.upsert", {"provider": {"name": "Local", "baseUrl": "ftp://x"}})
        assert reply["error"]["code"] == -32602
        assert reply["error"]["data"] == {"field": "provider.baseUrl", "code": "INVALID_PARAMS"}
        assert reply["error"]["message"] == (
            "INVALID_PARAMS: The base URL must start with http:// or https://, like http://localhost:11434/v1."
        )
        reply = host.request("session.rename", {"sessionId": "0" * 26, "title": "   "})
        assert reply["error"]["data"] == {"field": "title", "code": "INVALID_PARAMS"}
    finally:
        assert host.close() == 0
