"""A settings-sync conflict is named in words: the setting's label, the provider's or automation's own name."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pidesktop.ui.settings.sync_conflicts import conflict_subject


def test_each_kind_of_synced_thing_is_named_as_a_person_knows_it():
    assert conflict_subject({"key": "setting/theme"}) == "the setting “Theme”"
    assert conflict_subject({"key": "setting/aNewOne"}) == "the setting “aNewOne”"
    named = {"key": "provider/p-1", "kept": "local", "local": {"name": "Work OpenAI"}, "remote": {"name": "Old"}}
    assert conflict_subject(named) == "the provider “Work OpenAI”"
    assert conflict_subject({"key": "provider/p-1", "kept": "remote", "local": None, "remote": None}) == (
        "the provider “p-1”"
    )
    assert conflict_subject({"key": "provider-key/p-1"}) == "the API key of the provider “p-1”"
    model = {"key": "model/p-1/gpt-x", "kept": "remote", "remote": {"display_name": "GPT X"}}
    assert conflict_subject(model) == "the model “GPT X” of “p-1”"
    task = {"key": "automation/t-9", "kept": "remote", "local": {"title": "Mine"}, "remote": {"title": "News"}}
    assert conflict_subject(task) == "the automation “News”"
    assert conflict_subject({"key": "automation/t-9"}) == "an automation"
    assert conflict_subject({"key": "kv/projectMemory//home/ann/site"}) == "the memory of the project “/home/ann/site”"
    assert conflict_subject({"key": "kv/mcpServers/toolbox"}) == "the MCP server “toolbox”"
    assert conflict_subject({"key": "kv/app/providerOrder"}) == "the provider order or default model"


@given(st.text(max_size=60), st.one_of(st.none(), st.dictionaries(st.text(max_size=8), st.text(max_size=8))))
def test_any_key_gets_a_phrase_that_still_names_an_unknown_one(key, value):
    phrase = conflict_subject({"key": key, "kept": "local", "local": value, "remote": value})
    assert phrase.strip()
    if not key.startswith(("setting/", "provider/", "provider-key/", "model/", "automation/", "kv/")):
        assert key in phrase
