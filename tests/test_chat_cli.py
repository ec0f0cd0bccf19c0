"""`pidesktop chat` as a person uses it: messages about the command line, no chat left behind by a run
that never got a reply, and a data folder the app has open. Real subprocesses; the provider is the
replay server in sse_server.py, over real HTTP."""

from pidesktop import paths
from tests.support.cli import chat_cli
from tests.support.hosts import InProcessHost
from tests.support.sse_server import Script, chunk, closed_port, sse_body


def sessions_in(root):
    host = InProcessHost(paths.resolve(data_dir=root))
    try:
        return host.call("session.list")["sessions"]
    finally:
        host.stop()


def test_a_bad_base_url_is_named_as_the_option_it_came_from(tmp_path):
    root = tmp_path / "d"
    done = chat_cli(root, "--base-url", "htp:/x", "--model", "m", "hi")
    assert done.returncode == 2
    assert done.stderr == (
        "pidesktop chat: --base-url 'htp:/x' must start with http:// or https://, like http://localhost:11434/v1.\n"
    )
    assert "Settings" not in done.stderr
    assert not root.exists()  # refused before anything was opened or stored


def test_an_unreachable_base_url_leaves_no_chat_behind(tmp_path):
    root = tmp_path / "d"
    done = chat_cli(root, "--base-url", f"http://127.0.0.1:{closed_port()}/v1", "--model", "m-used", "hi")
    assert done.returncode == 1 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("pidesktop chat: Could not connect to ")
    assert "--base-url value" in line and "Settings" not in line
    assert line.endswith("No reply arrived, so no chat was kept.")
    assert sessions_in(root) == []


def test_a_refused_request_leaves_no_chat_behind(tmp_path, sse_server):
    sse_server.serve(
        "/v1/chat/completions",
        Script(status=401, headers={"Content-Type": "application/json"}, chunks=[b'{"error": {"message": "bad key"}}']),
    )
    root = tmp_path / "d"
    done = chat_cli(root, "--base-url", sse_server.base_url, "--model", "m-used", "hi")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert "401" in line and "--api-key-env" in line and "Settings" not in line
    assert sessions_in(root) == []
    assert [r.path for r in sse_server.requests] == ["/v1/chat/completions"]


def test_a_failed_turn_in_an_existing_chat_keeps_the_chat(tmp_path, sse_server):
    root = tmp_path / "d"
    sse_server.stream([sse_body(chunk("Hello"), chunk(finish="stop"))])
    first = chat_cli(root, "--base-url", sse_server.base_url, "--model", "m-used", "hi")
    assert first.returncode == 0, first.stderr
    session_id = first.stderr.strip().rsplit("session: ", 1)[1]
    sse_server.serve(
        "/v1/chat/completions",
        Script(status=500, headers={"Content-Type": "application/json"}, chunks=[b'{"error": {"message": "down"}}']),
    )
    again = chat_cli(root, "--session", session_id, "--base-url", sse_server.base_url, "--model", "m-used", "more")
    assert again.returncode == 1
    assert again.stderr.strip().splitlines()[-1] == f"session: {session_id}"
    assert [s["id"] for s in sessions_in(root)] == [session_id]


def test_a_reply_printed_to_the_terminal_is_not_unread_in_the_inbox(tmp_path, sse_server):
    root = tmp_path / "d"
    sse_server.stream([sse_body(chunk("Hello"), chunk(finish="stop"))] * 2)
    for prompt in ("one", "two"):
        done = chat_cli(root, "--base-url", sse_server.base_url, "--model", "m", prompt)
        assert done.returncode == 0, done.stderr
    host = InProcessHost(paths.resolve(data_dir=root))
    try:
        assert host.call("notifications.list") == {"notifications": [], "unreadCount": 0, "nextCursor": None}
    finally:
        host.stop()


def test_while_the_app_has_the_folder_open_it_says_what_to_do(tmp_path):
    root = tmp_path / "d"
    app = InProcessHost(paths.resolve(data_dir=root))  # the app's host holds the folder
    try:
        done = chat_cli(root, "hi")
    finally:
        app.stop()
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("pidesktop chat: the data folder is in use by ")
    assert "close the app first, or pass --data-dir with another folder" in line
    assert sessions_in(root) == []
