"""Exporting a chat: lossless JSON that loads back, readable Markdown, no secrets, no data-folder paths."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.agent import export
from pidesktop.bus import HostClient
from tests.support.repo import REPO

CODE = "```python\nprint('hi')\n```"


def seed(host) -> str:
    """A chat with every kind of block, a failed reply, a compaction, and a note naming the data folder."""
    root = str(host.location.data_root)
    attachment = host.call("attachments.importText", {"text": "long paste", "name": "notes.txt"})["attachment"]
    sid = host.call("session.create", {"title": "Deploy <the> blog"})["session"]["id"]
    messages = [
        {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "How do I print?"}, attachment]},
        {
            "id": "a1",
            "role": "assistant",
            "model": "gpt-test",
            "blocks": [
                {"type": "thinking", "text": "They want Python."},
                {"type": "text", "text": f"Like this:\n\n{CODE}\n\nScratch is in {root}/scratch/x."},
                {"type": "tool_call", "id": "c1", "name": "run", "args": {"cmd": "ls"}, "result": "a.txt\nb.txt"},
                {"type": "hostedSearch", "query": "print"},
            ],
            "meta": {"status": "completed", "usage": {"prompt_tokens": 3}, "apiKey": "sk-secret-123"},
        },
        {"id": "u2", "role": "user", "blocks": [{"type": "text", "text": "Ünïcödé 你好"}]},
        {
            "id": "a2",
            "role": "assistant",
            "blocks": [],
            "meta": {"status": "error", "error": {"code": "network", "message": "The server went away."}},
        },
        {"id": "u3", "role": "user", "blocks": [{"type": "text", "text": "Again?"}]},
    ]
    for message in messages:
        host.call("session.appendMessage", {"sessionId": sid, "message": message})
    host.call(
        "session.appendCompaction",
        {
            "sessionId": sid,
            "compaction": {
                "id": "cp-1",
                "throughMessageId": "u2",
                "firstKeptMessageId": "a2",
                "summary": "They asked about print.",
            },
        },
    )
    return sid


def run_export(host, sid: str, fmt: str, page: int = 2) -> str:
    async def scenario():
        client = HostClient(host.thread, asyncio.get_running_loop())
        out = io.StringIO()
        try:
            await export.export(client, sid, fmt, out.write, page=page)
        finally:
            client.close()
        return out.getvalue()

    return asyncio.run(scenario())


def without_read_positions(messages: list[dict]) -> list[dict]:
    return [{k: v for k, v in m.items() if k not in ("seq", "index")} for m in messages]


def test_json_export_loads_back_through_replace_messages_unchanged(host):
    sid = seed(host)
    original = host.call("session.get", {"sessionId": sid})
    text = run_export(host, sid, "json")
    data = orjson.loads(text)
    assert data["format"] == "pidesktop-chat-export" and data["version"] == 1
    assert data["session"]["id"] == sid and data["session"]["title"] == "Deploy <the> blog"
    assert [c["id"] for c in data["compactions"]] == ["cp-1"]
    assert data["compactions"][0]["summary"] == "They asked about print."
    assert len(data["messages"]) == 5  # read in windows of 2

    copy = host.call("session.create", {})["session"]["id"]
    host.call("session.replaceMessages", {"sessionId": copy, "messages": data["messages"]})
    loaded = without_read_positions(host.call("session.get", {"sessionId": copy})["messages"])
    assert loaded == data["messages"]
    # and the export is the original, except what must never leave: secrets, the data folder's path
    expected = without_read_positions(original["messages"])
    del expected[1]["meta"]["apiKey"]
    root = str(host.location.data_root)
    expected[1]["blocks"][1]["text"] = expected[1]["blocks"][1]["text"].replace(root, "<data>")
    assert data["messages"] == expected
    assert "sk-secret-123" not in text and root not in text


def test_markdown_export_reads_like_the_chat(host):
    sid = seed(host)
    text = run_export(host, sid, "md", page=1)
    assert text.startswith("# Deploy &lt;the&gt; blog\n")
    assert "- Messages: 5" in text
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert [h.split(" · ")[0] for h in headings] == ["## You", "## Assistant", "## You", "## Assistant", "## You"]
    assert "## Assistant · gpt-test" in headings[1]
    assert CODE in text  # code blocks kept as written
    assert "<details>\n<summary>Thinking</summary>\n\nThey want Python.\n\n</details>" in text
    assert "<summary>Tool call: run</summary>" in text and '"cmd": "ls"' in text and "a.txt\nb.txt" in text
    assert "Attachments:\n\n- notes.txt (text/plain, 10 B)" in text
    assert "attachments/" not in text  # listed by name only
    assert "*(The reply failed: The server went away.)*" in text
    assert "Summary of the earlier messages (compaction)" in text and "They asked about print." in text
    assert text.index("They asked about print.") > text.index("Ünïcödé 你好")  # folded where it was made
    assert "<data>/scratch/x" in text and str(host.location.data_root) not in text
    assert "sk-secret-123" not in text


def test_fences_grow_past_backticks_in_the_content():
    assert export._fenced("a ```` b", "") == "`````\na ```` b\n`````"
    assert export.suggested_name({"title": "a/b: c?"}, "md") == "a-b- c.md"


def test_the_export_command_writes_a_file_and_stdout(host, tmp_path):
    sid = seed(host)
    root = host.location.data_root
    host.stop()
    out = tmp_path / "chat.md"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pidesktop",
            "export",
            sid,
            "--format",
            "md",
            "--output",
            str(out),
            "--data-dir",
            str(root),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("# Deploy &lt;the&gt; blog") and not list(tmp_path.glob(".chat.md.*"))
    done = subprocess.run(
        [sys.executable, "-m", "pidesktop", "export", sid, "--format", "json", "--data-dir", str(root)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0 and orjson.loads(done.stdout)["session"]["id"] == sid
    missing = subprocess.run(
        [
            sys.executable,
            "-m",
            "pidesktop",
            "export",
            "no-such-chat",
            "--format",
            "md",
            "--output",
            str(tmp_path / "x.md"),
            "--data-dir",
            str(root),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert missing.returncode == 1 and "no-such-chat" in missing.stderr
    assert not (tmp_path / "x.md").exists() and not list(tmp_path.glob(".x.md.*"))


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_an_empty_chat_exports(host, fmt):
    sid = host.call("session.create", {})["session"]["id"]
    text = run_export(host, sid, fmt)
    assert ("# New chat" in text) if fmt == "md" else (orjson.loads(text)["messages"] == [])


LINES = st.lists(
    st.sampled_from(
        ["# Title", "## Sub", "text", "```", "```python", "~~~", "    # code", "#tag", "####### seven", ""]
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(LINES)
def test_demoting_headings_keeps_every_line_and_every_fenced_line(lines):
    text = "\n".join(lines)
    out = export.demote_headings(text).split("\n")
    assert len(out) == len(lines)
    fence = None
    for before, after in zip(lines, out):
        opens = fence is None and before.startswith(("```", "~~~"))
        if fence is not None or opens or not before.startswith("#"):
            assert after == before  # code and prose are never touched
        else:
            level = len(before) - len(before.lstrip("#"))
            heading = level <= 6 and before[level : level + 1] in (" ", "")
            assert after == ("#" * min(6, level + 2) + before[level:] if heading else before)
        if opens:
            fence = before[:3]
        elif fence is not None and before.strip() == fence:
            fence = None


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="`a\n ", max_size=40))
def test_a_fence_is_longer_than_any_backtick_run_inside(text):
    fenced = export._fenced(text, "")
    fence = fenced.split("\n", 1)[0]
    assert set(fence) == {"`"} and len(fence) >= 3 and fence not in text
    assert fenced == f"{fence}\n{text}\n{fence}"
