"""settings.get / settings.set: normalisation on read, validation on write."""

import orjson
import pytest

from pidesktop.host.settings.commands import normalise


def test_defaults(host):
    settings = host.call("settings.get")["settings"]
    assert settings["largePasteThreshold"] == 600
    assert settings["showThinking"] is True
    assert settings["transcriptDisplayMode"] == "fully-folded"


@pytest.mark.parametrize(
    "stored,expected",
    [
        ({}, 600),
        ({"largePasteThreshold": "900"}, 600),
        ({"largePasteThreshold": 0}, 600),
        ({"largePasteThreshold": 1_000_001}, 600),
        ({"largePasteThreshold": True}, 600),
        ({"largePasteThreshold": 12.5}, 600),
        ({"largePasteThreshold": 1}, 1),
        ({"largePasteThreshold": 1_000_000}, 1_000_000),
    ],
)
def test_large_paste_threshold_normalises_to_600(stored, expected):
    assert normalise(stored)["largePasteThreshold"] == expected


@pytest.mark.parametrize(
    "stored,expected",
    [
        ({}, True),
        ({"thinkingDisplayMode": "compact"}, False),
        ({"thinkingDisplayMode": "detailed"}, True),
        ({"thinkingDisplayMode": "weird"}, True),
        ({"showThinking": False, "thinkingDisplayMode": "detailed"}, False),
        ({"showThinking": "no", "thinkingDisplayMode": "compact"}, False),
    ],
)
def test_show_thinking_falls_back_to_the_legacy_field(stored, expected):
    assert normalise(stored)["showThinking"] is expected


@pytest.mark.parametrize(
    "value,expected",
    [
        ("flat", "flat"),
        ("command-first", "command-first"),
        ("fully-folded", "fully-folded"),
        ("nested", "fully-folded"),
        (None, "fully-folded"),
    ],
)
def test_display_mode_normalises(value, expected):
    assert normalise({"transcriptDisplayMode": value})["transcriptDisplayMode"] == expected


def test_set_merges_validates_and_keeps_unknown_keys(host):
    host.call("settings.set", {"patch": {"largePasteThreshold": 2000, "futureKnob": {"a": 1}}})
    settings = host.call("settings.set", {"patch": {"showThinking": False}})["settings"]
    assert settings["largePasteThreshold"] == 2000 and settings["showThinking"] is False
    assert settings["futureKnob"] == {"a": 1}
    for bad in (
        {"largePasteThreshold": 0},
        {"largePasteThreshold": 1_000_001},
        {"largePasteThreshold": "5"},
        {"showThinking": 1},
        {"transcriptDisplayMode": "nested"},
        {"theme": "blue"},
    ):
        error = host.error("settings.set", {"patch": bad})
        assert error.code == "INVALID_PARAMS" and next(iter(bad)) in error.message
    assert host.call("settings.get")["settings"] == settings
    cleared = host.call("settings.set", {"patch": {"futureKnob": None}})["settings"]
    assert "futureKnob" not in cleared
    assert ("settings.changed", {"settings": cleared, "keys": ["futureKnob"]}) in host.events


def test_a_malformed_stored_blob_reads_as_defaults(host, location):
    import apsw

    host.stop()
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    conn.execute(
        "INSERT INTO kv(ns, key, value_json, updated_at) VALUES ('app', 'settings', ?, 1)",
        (orjson.dumps([1, 2]).decode(),),
    )
    conn.close()
    from tests.support.hosts import InProcessHost

    again = InProcessHost(location)
    try:
        assert again.call("settings.get")["settings"]["largePasteThreshold"] == 600
    finally:
        again.stop()
