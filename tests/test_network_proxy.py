"""The network proxy setting (spec 004, 4.1 ``networkProxy``): stored, validated, applied to provider requests."""

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pidesktop import network_proxy
from pidesktop.bus import ErrorCode, HostError
from tests.support.sse_server import chunk, sse_body
from tests.test_chat_runtime import run_turn


class _Forward(BaseHTTPRequestHandler):
    """A plain HTTP proxy: the request line carries the absolute URL; the answer is relayed whole."""

    def do_POST(self) -> None:
        self._relay()

    def do_GET(self) -> None:
        self._relay()

    def do_DELETE(self) -> None:
        self._relay()

    def _relay(self) -> None:
        self.server.seen.append(self.path)
        target = urlsplit(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("proxy-connection", "connection")}
        upstream.request(self.command, target.path + (f"?{target.query}" if target.query else ""), body, headers)
        answer = upstream.getresponse()
        payload = answer.read()
        self.send_response(answer.status)
        for name, value in answer.getheaders():  # an MCP server's session id comes in a header
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        upstream.close()

    def log_message(self, format: str, *args) -> None:
        pass


@pytest.fixture
def proxy():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Forward)
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def proxy_url(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def no_env_proxy(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("no_proxy", raising=False)


def answer(server):
    server.stream([sse_body(chunk("Through"), chunk(" the proxy"), chunk(finish="stop"))])


def test_custom_mode_sends_provider_requests_through_the_proxy(host, sse_server, proxy, no_env_proxy):
    answer(sse_server)
    host.call("settings.set", {"patch": {"networkProxy": {"mode": "custom", "url": proxy_url(proxy), "bypass": []}}})
    sid, result = run_turn(host, sse_server, "hello")
    assert result["status"] == "completed", result["error"]
    assert proxy.seen == [f"{sse_server.url}/v1/chat/completions"]
    reply = host.call("session.get", {"sessionId": sid})["messages"][-1]
    assert reply["blocks"][0]["text"] == "Through the proxy"


def test_a_bypassed_host_and_direct_mode_go_around_the_proxy(
    host,
    sse_server,
    proxy,
    monkeypatch,
    no_env_proxy,
):
    answer(sse_server)
    custom = {"mode": "custom", "url": proxy_url(proxy), "bypass": "localhost, 127.0.0.0/8"}
    host.call("settings.set", {"patch": {"networkProxy": custom}})
    assert run_turn(host, sse_server, "one")[1]["status"] == "completed"
    # Direct ignores a proxy in the environment; url and bypass are kept for a later switch back
    monkeypatch.setenv("HTTP_PROXY", proxy_url(proxy))
    host.call("settings.set", {"patch": {"networkProxy": {**custom, "mode": "direct"}}})
    assert run_turn(host, sse_server, "two")[1]["status"] == "completed"
    assert proxy.seen == []
    assert host.call("settings.get")["settings"]["networkProxy"]["url"] == proxy_url(proxy)


def test_system_mode_follows_the_environment(host, sse_server, proxy, monkeypatch, no_env_proxy):
    answer(sse_server)
    monkeypatch.setenv("HTTP_PROXY", proxy_url(proxy))
    host.call("settings.set", {"patch": {"networkProxy": {"mode": "system"}}})
    assert run_turn(host, sse_server, "hi")[1]["status"] == "completed"
    assert proxy.seen == [f"{sse_server.url}/v1/chat/completions"]


def test_an_mcp_server_over_http_is_reached_through_the_proxy(host, sse_server, proxy, no_env_proxy):
    from tests.mcp_helpers import HttpServer
    from tests.test_mcp_runner import calls_of, drive, script

    server = HttpServer()
    try:
        host.call("mcp.add", {"name": "web", "url": server.url})
        custom = {"mode": "custom", "url": proxy_url(proxy), "bypass": []}
        host.call("settings.set", {"patch": {"networkProxy": custom}})
        script(sse_server, ("mcp__web__add", {"a": 20, "b": 22}))
        _, [result], got, _ = drive(host, sse_server)
        assert result["status"] == "completed" and calls_of(got)[0]["result"] == "42"
        assert server.url in proxy.seen  # the MCP requests went through the proxy, like the model's
        assert f"{sse_server.url}/v1/chat/completions" in proxy.seen

        proxy.seen.clear()
        host.call("settings.set", {"patch": {"networkProxy": {**custom, "mode": "direct"}}})
        script(sse_server, ("mcp__web__add", {"a": 1, "b": 2}))
        _, [result], got, _ = drive(host, sse_server)
        assert result["status"] == "completed" and calls_of(got)[0]["result"] == "3"
        assert proxy.seen == []
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"mode": "pac"}, "mode is one of system, direct, custom"),
        ({"mode": "custom"}, "url is a proxy address"),
        ({"mode": "custom", "url": "ftp://proxy:21"}, "url is an address starting with http://"),
        ({"mode": "custom", "url": "http://proxy:port"}, "valid port"),
        ({"mode": "direct", "bypass": [1, 2]}, "bypass is a list of host names"),
        ("custom", "an object"),
    ],
)
def test_a_bad_proxy_setting_is_refused_and_nothing_changes(host, value, says):
    host.call("settings.set", {"patch": {"networkProxy": {"mode": "direct"}}})
    with pytest.raises(HostError) as caught:
        host.call("settings.set", {"patch": {"networkProxy": value}})
    assert caught.value.code == ErrorCode.INVALID_PARAMS
    assert "patch.networkProxy" in caught.value.message and says in caught.value.message
    assert host.call("settings.get")["settings"]["networkProxy"] == {"mode": "direct"}


@pytest.mark.parametrize(
    ("host_name", "bypass", "expected"),
    [
        ("example.com", "example.com", True),
        ("api.example.com", "example.com", True),
        ("badexample.com", "example.com", False),
        ("example.com", "*.example.com", False),
        ("a.example.com", ".example.com", True),
        ("intranet", "<local>", True),
        ("intranet.corp", "<local>", False),
        ("10.1.2.3", "10.0.0.0/8", True),
        ("11.1.2.3", "10.0.0.0/8", False),
        ("::1", "::1", True),
        ("anything.org", "*", True),
        ("localhost", "LOCALHOST:8080", True),
    ],
)
def test_bypass_entries(host_name, bypass, expected):
    assert network_proxy.bypassed(host_name, network_proxy.parse_bypass(bypass)) is expected


names = st.lists(st.from_regex(r"[a-z0-9][a-z0-9.\-*/<>:]{0,20}", fullmatch=True), max_size=6)


@given(names, st.sampled_from([",", ";", " ", ", ", "\n"]))
def test_a_bypass_string_and_its_list_read_the_same(entries, separator):
    assert network_proxy.parse_bypass(separator.join(entries)) == network_proxy.parse_bypass(entries)


@given(st.text(max_size=40), st.lists(st.text(max_size=20), max_size=5))
def test_bypass_never_raises_on_any_input(host_name, entries):
    network_proxy.bypassed(host_name, network_proxy.parse_bypass(entries))


@given(st.one_of(st.none(), st.text(), st.integers(), st.dictionaries(st.text(max_size=8), st.text(max_size=30))))
def test_an_unreadable_stored_value_is_the_system_proxy(value):
    setting = network_proxy.setting_of(value)
    assert setting.mode in network_proxy.MODES
    if not isinstance(value, dict) or value.get("mode") not in network_proxy.MODES:
        assert setting.mode == "system"
