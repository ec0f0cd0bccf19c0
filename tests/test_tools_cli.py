"""``pidesktop chat --project DIR --permission-mode ...`` against a scripted server: the tools change the
project, ``ask`` without ``--interactive`` denies (audited) and goes on, ``--interactive`` asks on stdin,
Ctrl+C kills a running command, and kill -9 while a call waits for permission leaves no half-written file
and the turn aborted after a restart."""

import os
import signal
import subprocess
import sys

import pytest

from pidesktop import paths
from pidesktop.agent import sandbox
from tests.support.hosts import InProcessHost
from tests.support.repo import REPO
from tests.support.sse_server import Script
from tests.test_plan_approval import text_body, tool_call_body


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("<h1>Hi</h1>\n")
    return folder


def script(server, *calls, final="Finished."):
    bodies = [Script(chunks=[tool_call_body(name, args, f"call_{n}")]) for n, (name, args) in enumerate(calls)]
    server.serve_in_turn("/v1/chat/completions", *bodies, Script(chunks=[text_body(final)]))


def command(data_dir, server, project, *extra):
    return [
        sys.executable, "-m", "pidesktop", "chat", "--data-dir", str(data_dir), "--base-url", server.base_url,
        "--model", "m", "--project", str(project), *extra,
    ]  # fmt: skip


def chat(data_dir, server, project, *extra, stdin=None):
    env = {**os.environ, sandbox.FORCE_OFF: "1"}  # the sandbox has its own tests; here commands run plainly
    return subprocess.run(
        command(data_dir, server, project, *extra),
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=90,
        env=env,
    )


def with_host(data_dir, fn):
    host = InProcessHost(paths.resolve(data_dir=data_dir))
    try:
        return fn(host)
    finally:
        host.stop()


def session_of(done):
    return done.stderr.strip().rsplit("session: ", 1)[1]


def test_auto_runs_the_tools_in_the_project(tmp_path, sse_server, project):
    script(
        sse_server,
        ("edit", {"path": "index.html", "oldText": "Hi", "newText": "Hello"}),
        ("bash", {"command": "ls && echo from-bash"}),
    )
    done = chat(tmp_path / "d", sse_server, project, "--permission-mode", "auto", "Greet better")
    assert done.returncode == 0, done.stderr
    assert project.joinpath("index.html").read_text() == "<h1>Hello</h1>\n"
    assert done.stdout == "Finished.\n"
    assert "from-bash" in done.stderr and "[edit: done]" in done.stderr
    assert "unconfined" in done.stderr  # said once: auto without a sandbox
    sid = session_of(done)

    def check(host):
        session = host.call("session.get", {"sessionId": sid})["session"]
        assert session["permissionMode"] == "auto"
        [registered] = host.call("projects.list")["projects"]
        assert registered["path"] == str(project.resolve())
        return [e["payload"]["tool"] for e in host.call("audit.list", {"sessionId": sid})["entries"]]

    assert sorted(with_host(tmp_path / "d", check)) == ["bash", "edit"]


def test_every_tool_works_in_the_project_and_an_escape_is_refused_and_audited(tmp_path, sse_server, project):
    (tmp_path / "secret.txt").write_text("top secret\n")  # beside the project, not in it
    script(
        sse_server,
        ("read", {"path": "index.html"}),
        ("write", {"path": "notes/todo.txt", "content": "greet\n"}),
        ("edit", {"path": "index.html", "oldText": "Hi", "newText": "Hello"}),
        ("bash", {"command": "cat notes/todo.txt index.html"}),
        ("grep", {"pattern": "hello", "ignoreCase": True}),
        ("find", {"pattern": "*.txt"}),
        ("ls", {}),
        ("read", {"path": "../secret.txt"}),
    )
    done = chat(tmp_path / "d", sse_server, project, "--permission-mode", "auto", "Use every tool")
    assert done.returncode == 0, done.stderr
    assert project.joinpath("index.html").read_text() == "<h1>Hello</h1>\n"
    assert project.joinpath("notes", "todo.txt").read_text() == "greet\n"
    results = [m["content"] for m in sse_server.requests[-1].json["messages"] if m["role"] == "tool"]
    assert len(results) == 8
    read, written, edited, ran, grepped, found, listed, escaped = results
    assert read == "     1\t<h1>Hi</h1>\n"
    assert written.startswith("Created notes/todo.txt") and edited.startswith("Edited index.html")
    assert ran == "greet\n<h1>Hello</h1>\n"
    assert grepped == "index.html:1:<h1>Hello</h1>" and found == "notes/todo.txt" and listed == "index.html\nnotes/"
    assert "not here to approve" in escaped and str(tmp_path.resolve() / "secret.txt") in escaped
    assert "top secret" not in escaped

    def audited(host):
        return [(e["kind"], e["payload"]) for e in host.call("audit.list", {"sessionId": session_of(done)})["entries"]]

    rows = list(reversed(with_host(tmp_path / "d", audited)))  # oldest first
    assert [(kind, payload["tool"]) for kind, payload in rows] == [
        *(("tool_execute", tool) for tool in ("read", "write", "edit", "bash", "grep", "find", "ls")),
        ("tool_denied", "read"),
    ]
    assert rows[-1][1]["outsideWorkspace"] is True and rows[-1][1]["nobodyToAsk"] is True


def test_ask_without_interactive_denies_tells_the_model_and_goes_on(tmp_path, sse_server, project):
    script(sse_server, ("write", {"path": "new.txt", "content": "x"}), final="I was not allowed to write.")
    done = chat(tmp_path / "d", sse_server, project, "--permission-mode", "ask", "Write a file")
    assert done.returncode == 0, done.stderr
    assert not project.joinpath("new.txt").exists()
    assert done.stdout == "I was not allowed to write.\n"
    tool_message = [m for m in sse_server.requests[-1].json["messages"] if m["role"] == "tool"][-1]
    assert "not here to approve" in tool_message["content"]
    denied = with_host(
        tmp_path / "d", lambda h: h.call("audit.list", {"sessionId": session_of(done), "kind": "tool_denied"})
    )
    assert denied["entries"][0]["payload"]["nobodyToAsk"] is True


def test_interactive_asks_on_stdin(tmp_path, sse_server, project):
    script(
        sse_server,
        ("write", {"path": "yes.txt", "content": "y"}),
        ("write", {"path": "no.txt", "content": "n"}),
    )
    done = chat(
        tmp_path / "d", sse_server, project, "--permission-mode", "ask", "--interactive", "Two files",
        stdin="y\nn not this one\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert project.joinpath("yes.txt").read_text() == "y" and not project.joinpath("no.txt").exists()
    assert "--- Create yes.txt ---" in done.stderr and "+y" in done.stderr
    tool_message = [m for m in sse_server.requests[-1].json["messages"] if m["role"] == "tool"][-1]
    assert "not this one" in tool_message["content"]


def test_ctrl_c_stops_the_turn_and_kills_the_command(tmp_path, sse_server, project):
    script(sse_server, ("bash", {"command": "echo $$ > shell.pid; echo started; sleep 60; touch ran"}))
    env = {**os.environ, sandbox.FORCE_OFF: "1"}
    args = command(tmp_path / "d", sse_server, project, "--permission-mode", "auto", "Wait")
    with subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO, env=env) as p:
        for line in p.stderr:  # the command's output arrives on stderr as it runs
            if "started" in line:
                break
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    assert p.returncode == 1 and "stopped" in err
    shell_pid = int(project.joinpath("shell.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(shell_pid, 0)
    assert not project.joinpath("ran").exists()


def test_kill_9_while_asking_leaves_no_file_and_the_turn_aborted(tmp_path, sse_server, project):
    content = "big\n" * 200_000
    script(sse_server, ("write", {"path": "index.html", "content": content}))
    env = {**os.environ, sandbox.FORCE_OFF: "1"}
    args = command(tmp_path / "d", sse_server, project, "--permission-mode", "ask", "--interactive", "Rewrite")
    with subprocess.Popen(
        args, stdin=subprocess.PIPE, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO, env=env
    ) as p:
        seen = ""
        while "Allow?" not in seen:
            seen += p.stderr.read(1)
        p.kill()
        p.wait(timeout=30)
    assert project.joinpath("index.html").read_text() == "<h1>Hi</h1>\n"
    assert sorted(path.name for path in project.iterdir()) == ["index.html"]  # no temporary file left either

    def after_restart(host):
        [session] = host.call("session.list")["sessions"]
        got = host.call("session.get", {"sessionId": session["id"]})
        return got["session"]["lastTurn"]["status"], got["messages"]

    status, messages = with_host(tmp_path / "d", after_restart)
    assert status == "aborted"
    [call] = [b for m in messages for b in m["blocks"] if b["type"] == "tool_call"]
    assert call["name"] == "write" and call["status"] == "aborted" and "result" not in call


def test_ctrl_c_while_asking_withdraws_the_question_and_exits(tmp_path, sse_server, project):
    script(sse_server, ("write", {"path": "new.txt", "content": "x"}))
    env = {**os.environ, sandbox.FORCE_OFF: "1"}
    args = command(tmp_path / "d", sse_server, project, "--permission-mode", "ask", "--interactive", "Write")
    with subprocess.Popen(
        args, stdin=subprocess.PIPE, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO, env=env
    ) as p:
        seen = ""
        while "Allow?" not in seen:
            seen += p.stderr.read(1)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)  # stdin stays open: nothing may wait for a line
    assert p.returncode == 1 and "stopped" in err
    assert not project.joinpath("new.txt").exists()
