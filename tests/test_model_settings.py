"""Per-model settings (context window, most output tokens, temperature, system prompt): stored, used, shown."""

import orjson
import pytest

from pidesktop.agent import model_settings
from pidesktop.agent.runner import TurnRunner
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.settings.settings_dialog import SettingsDialog
from tests.support.sse_server import Script, chunk, sse_body
from tests.support.sse_server import sse_server as sse_server  # the fixture
from tests.support.waits import spin_until
from tests.test_providers_page import draft, save, serve_models


def loopback(client, server, **config):
    made = client.call_blocking(
        "providers.upsert",
        {"provider": {"name": "Loopback", "baseUrl": server.base_url, "defaultModelId": "m", "config": config}},
    )["provider"]
    client.call_blocking("providers.setDefault", {"providerId": made["id"]})
    return made["id"]


def test_the_runner_sends_the_models_settings(host_client, qloop, sse_server):
    sse_server.serve("/v1/chat/completions", Script(chunks=[sse_body(chunk("Bonjour."), chunk(finish="stop"))]))
    config = model_settings.with_settings({}, "m", 0.3, "Answer in French.")
    provider = loopback(host_client, sse_server, **config)
    host_client.call_blocking(
        "models.upsert",
        {"providerId": provider, "model": {"modelId": "m", "contextWindow": 9000, "maxOutputTokens": 77}},
    )
    runner = TurnRunner(host_client)
    sid = host_client.call_blocking("session.create", {})["session"]["id"]
    qloop.run_until_complete(runner.send(sid, "Hello"))
    body = sse_server.requests[-1].json
    assert body["max_tokens"] == 77 and body["temperature"] == 0.3
    assert body["messages"][0] == {"role": "system", "content": "Answer in French."}
    assert qloop.run_until_complete(runner.context_usage(sid))["window"] == 9000


def test_without_settings_the_request_leaves_them_to_the_server(host_client, qloop, sse_server):
    sse_server.serve("/v1/chat/completions", Script(chunks=[sse_body(chunk("Hi."), chunk(finish="stop"))]))
    loopback(host_client, sse_server)
    runner = TurnRunner(host_client)
    sid = host_client.call_blocking("session.create", {})["session"]["id"]
    qloop.run_until_complete(runner.send(sid, "Hello"))
    body = sse_server.requests[-1].json
    assert "max_tokens" not in body and "temperature" not in body
    # the only system message is the workspace note the tools need; no system prompt of the model's
    system = [m["content"] for m in body["messages"] if m["role"] == "system"]
    assert len(system) == 1 and system[0].startswith("This chat has no project folder; your workspace is")
    assert [m["role"] for m in body["messages"]][-1] == "user"


def test_a_new_context_window_reaches_the_meter(host_client, qloop, sse_server):
    sse_server.serve("/v1/chat/completions", Script(chunks=[sse_body(chunk("Hi."), chunk(finish="stop"))]))
    provider = loopback(host_client, sse_server)
    runner = TurnRunner(host_client)
    sid = host_client.call_blocking("session.create", {})["session"]["id"]
    qloop.run_until_complete(runner.send(sid, "Hello"))
    assert qloop.run_until_complete(runner.context_usage(sid))["window"] == 32_000  # unknown model: the default
    host_client.call_blocking(
        "models.upsert", {"providerId": provider, "model": {"modelId": "m", "contextWindow": 128_000}}
    )
    spin_until(qloop, lambda: not runner.contexts.usage)  # the event reached the runner
    assert qloop.run_until_complete(runner.context_usage(sid))["window"] == 128_000
    host_client.call_blocking(
        "models.upsert", {"providerId": provider, "model": {"modelId": "m", "contextWindow": None}}
    )
    [row] = host_client.call_blocking("models.list", {"providerId": provider})["models"]
    assert row["contextWindow"] is None  # null clears it


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"modelSettings": {"m": {"temperature": 0.7, "systemPrompt": " Be brief. "}}}, (0.7, "Be brief.")),
        ({"modelSettings": {"m": {"temperature": 9, "systemPrompt": 3}}}, (None, "")),
        ({"modelSettings": "nonsense"}, (None, "")),
        (None, (None, "")),
    ],
)
def test_settings_are_read_safely(config, expected):
    settings = model_settings.read(None, config, "m")
    assert (settings.temperature, settings.system_prompt) == expected


def test_clearing_a_models_settings_leaves_the_others():
    config = model_settings.with_settings({"other": 1}, "m", 0.5, "Hi")
    config = model_settings.with_settings(config, "n", None, "Only n")
    config = model_settings.with_settings(config, "m", None, "")
    assert config == {"other": 1, "modelSettings": {"n": {"systemPrompt": "Only n"}}}
    assert len(orjson.dumps(config)) < 64 * 1024


def test_settings_providers_stores_a_models_settings_and_shows_them_again(qtbot, qloop, host_client, sse_server, shots):
    dialog = SettingsDialog.ask(host_client, themes.LIGHT)
    dialog.open()
    qloop.run_until_complete(dialog.loading)
    dialog.show_page("Providers")
    page = dialog.providers
    serve_models(sse_server)
    draft(qtbot, page, url=sse_server.base_url)
    page.model_combo.setEditText("m-1")
    form = page.model_form
    assert form.window_spin.isEnabled() and form.window_spin.text().startswith("Automatic (32k")
    form.window_spin.setValue(64_000)
    form.output_spin.setValue(2048)
    form.temperature_spin.setValue(0.4)
    form.prompt_edit.setPlainText("Be brief.")
    provider_id = save(qtbot, qloop, page)
    spin_until(qloop, lambda: page.model_combo.count() == 2)
    rows = {m["modelId"]: m for m in host_client.call_blocking("models.list", {"providerId": provider_id})["models"]}
    assert (rows["m-1"]["contextWindow"], rows["m-1"]["maxOutputTokens"]) == (64_000, 2048)
    assert rows["m-2"]["source"] == "discovered"  # a model whose settings were not touched stays discovery's
    [provider] = host_client.call_blocking("providers.list", {})["providers"]
    assert provider["config"]["modelSettings"] == {"m-1": {"temperature": 0.4, "systemPrompt": "Be brief."}}
    page.model_combo.setEditText("m-2")
    assert form.window_spin.value() == 32768 and form.temperature() is None and form.prompt_edit.toPlainText() == ""
    page.model_combo.setEditText("m-1")
    assert (form.window_spin.value(), form.output_spin.value(), form.temperature()) == (64_000, 2048, 0.4)
    assert form.prompt_edit.toPlainText() == "Be brief."
    dialog.providers.grab().save(str(shots / "providers-model-settings.png"))  # looked at
    dialog.close()
