"""Exporting a chat: lossless JSON that loads back, readable Markdown, no secrets, no data-folder paths."""

from __future__ import annotations

import asyncio
import io
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.agent import export
from pidesktop.bus import ErrorCode, HostClient, HostError
from pidesktop.formats import chat_export
from pidesktop.host.sessions import export_file
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
    assert chat_export._fenced("a ```` b", "") == "`````\na ```` b\n`````"
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
    fenced = chat_export._fenced(text, "")
    fence = fenced.split("\n", 1)[0]
    assert set(fence) == {"`"} and len(fence) >= 3 and fence not in text
    assert fenced == f"{fence}\n{text}\n{fence}"


def without_times(text: str) -> str:
    return re.sub(r'(- Exported: |"exportedAt":")[0-9TZ:-]+', r"\1", text)


def seed_odd_lines(host, sid: str) -> None:
    """Messages that take the host's slower ways: read positions stored in the line, secret keys spelled in
    other cases (a Kelvin sign for the k), the data folder in a key, a secret word that is only text."""
    root = str(host.location.data_root)
    odd = [
        {
            "id": "o1",
            "role": "user",
            "index": 7,
            "seq": 3,
            "blocks": [{"type": "text", "text": "the password is text"}],
        },
        {
            "id": "o2",
            "role": "assistant",
            "blocks": [],
            "meta": {"API\u212aEY": "sk-kelvin", "nested": [{"Secret": 1}]},
        },
        {"id": "o3", "role": "tool", "blocks": [{"type": "tool_call", "name": "x", "args": {root + "/k": "v"}}]},
    ]
    for message in odd:
        host.call("session.appendMessage", {"sessionId": sid, "message": message})


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_the_host_writes_the_bytes_paging_through_session_get_gives(host, tmp_path, fmt):
    sid = seed(host)
    seed_odd_lines(host, sid)
    path = tmp_path / f"chat.{fmt}"
    result = host.call("session.export", {"sessionId": sid, "format": fmt, "path": str(path)})
    written = path.read_text(encoding="utf-8")
    assert result == {"path": str(path), "bytes": len(written.encode()), "messages": 8}
    assert without_times(written) == without_times(run_export(host, sid, fmt))
    assert "sk-secret-123" not in written and "sk-kelvin" not in written
    assert str(host.location.data_root) not in written and not list(tmp_path.glob(".chat.*"))


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"format": "html"}, "format"),
        ({"path": "relative.md"}, "path"),
        ({"path": "{tmp}"}, "path"),
        ({"path": "{tmp}/missing/chat.md"}, "path"),
        ({"path": "{data}/chat.md"}, "path"),
    ],
)
def test_session_export_refuses_what_it_cannot_write_and_writes_nothing(host, tmp_path, params, field):
    sid = seed(host)
    out = tmp_path / "out"
    out.mkdir()
    wanted = {"sessionId": sid, "format": "md", "path": str(out / "chat.md")}
    wanted.update({k: v.format(tmp=out, data=host.location.data_root) for k, v in params.items()})
    with pytest.raises(HostError) as refused:
        host.call("session.export", wanted)
    assert refused.value.code == ErrorCode.INVALID_PARAMS and refused.value.data == {"field": field}
    assert list(out.iterdir()) == [] and not (host.location.data_root / "chat.md").exists()


def test_session_export_of_an_unknown_chat_is_not_found(host, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(HostError) as refused:
        host.call("session.export", {"sessionId": "no-such-chat", "format": "md", "path": str(out / "x.md")})
    assert refused.value.code == ErrorCode.NOT_FOUND and list(out.iterdir()) == []


SECRETISH_KEYS = st.sampled_from(["apiKey", "APIKEY", "api_key", "Secret", "api\u212aey", "x-api-key", "k", "text"])
JSONISH = st.recursive(
    st.none()
    | st.integers(-(2**63), 2**63 - 1)
    | st.text(alphabet='ab/\\"<>', max_size=8)
    | st.sampled_from(["/data/root", "C:\\d"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(SECRETISH_KEYS | st.sampled_from(["/data/root/x", "C:\\d\\y"]), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(JSONISH, st.sampled_from(["/data/root", "C:\\d", None]))
def test_writing_a_value_as_it_is_happens_only_when_cleaning_would_change_nothing(value, root):
    cleaner = chat_export.Cleaner(root)
    assert cleaner.dumps(value) == chat_export.dumps(cleaner.value(value))


def test_session_export_never_replaces_what_is_not_an_ordinary_file(host, tmp_path):
    sid = seed(host)
    for path in ("/dev/null", "/etc/passwd\x00.md", "/" + "a" * 5000):
        with pytest.raises(HostError) as refused:
            host.call("session.export", {"sessionId": sid, "format": "md", "path": path})
        assert refused.value.code == ErrorCode.INVALID_PARAMS and refused.value.data == {"field": "path"}
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_a_chat_with_nothing_to_clean_is_written_as_paging_gives_it(host, tmp_path, fmt):
    sid = host.call("session.create", {"title": "Plain"})["session"]["id"]
    for number in range(5):
        blocks = [{"type": "text", "text": f"# Step {number}\n\nplain words"}]
        blocks.append({"type": "tool_call", "id": f"c{number}", "name": "run", "args": {"cmd": "ls"}, "result": "a"})
        host.call(
            "session.appendMessage",
            {"sessionId": sid, "message": {"id": f"p{number}", "role": "assistant", "blocks": blocks}},
        )
    path = tmp_path / f"plain.{fmt}"
    assert host.call("session.export", {"sessionId": sid, "format": fmt, "path": str(path)})["messages"] == 5
    assert without_times(path.read_text(encoding="utf-8")) == without_times(run_export(host, sid, fmt))


ROOTS = st.sampled_from(["/data/root", "/data/root\n\n## You", "--", "\n\n---", "·", "C:\\d", None])
PARAGRAPHS = st.lists(st.sampled_from(["/data/root", "\n", "#", "-", "·", "a", "C:\\d", " "]), max_size=12).map("".join)
MESSAGES = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["m1", "m2"]),
        "role": st.sampled_from(["user", "assistant", "tool", "odd"]),
        "blocks": st.lists(
            st.fixed_dictionaries({"type": st.sampled_from(["text", "thinking"]), "text": PARAGRAPHS})
            | st.fixed_dictionaries({"type": st.just("tool_call"), "name": PARAGRAPHS, "result": PARAGRAPHS}),
            max_size=3,
        ),
    },
    optional={"model": PARAGRAPHS, "createdAt": st.sampled_from(["2026-12-01T17:52:27.652Z", "/data/root"])},
)


@settings(max_examples=300, deadline=None)
@given(st.lists(MESSAGES, max_size=4), ROOTS, st.booleans())
def test_markdown_cleaned_a_paragraph_at_a_time_is_the_message_cleaned_whole(batch, root, summarised):
    """The host's Markdown export encodes and cleans each paragraph alone; the bytes are those of each whole
    message cleaned as agent.export cleans it, whatever the data folder's path holds."""
    cleaner = chat_export.Cleaner(root)
    summaries = {"m1": [{"id": "c1", "summary": "/data/root\n\nsaid"}]} if summarised else {}
    expected = []
    for message in batch:
        expected.append(cleaner.text(chat_export.message_markdown(message)))
        expected += [cleaner.text(chat_export.compaction_markdown(r)) for r in summaries.get(message["id"], ())]
    assert export_file._markdown_messages(batch, summaries, cleaner) == "".join(expected).encode()


@pytest.mark.parametrize("fmt", ["md", "json"])
def test_exporting_a_long_chat_builds_no_id_index(tmp_path, fmt):
    """An export reads the chat's count and checkpoints from its newest line: the id index of every line
    (130 MB at a million lines, kept with the layout) is never built for it."""
    from pidesktop.formats.index import db
    from pidesktop.host.context import HostContext
    from pidesktop.host.params import Params
    from pidesktop.host.sessions import commands as sessions

    root = tmp_path / "data"
    (root / "sessions").mkdir(parents=True)
    conn = db.open_database(root / "pi.sqlite")
    try:
        ctx = HostContext(conn, root, lambda name, payload: None)
        ctx.transcripts.create("long", "2026-07-26T09:00:00.000Z")
        line = {"type": "message", "role": "user", "blocks": [{"type": "text", "text": "hello"}]}
        ctx.transcripts.rewrite("long", [dict(line, id=f"m{i}") for i in range(1500)])
        assert sessions.restore_orphan(ctx, "long", 0) == 1500
        params = {"sessionId": "long", "format": fmt, "path": str(tmp_path / f"long.{fmt}")}
        assert export_file.session_export(ctx, Params("session.export", params))["messages"] == 1500
        assert ctx.transcripts.layout("long")._last_positions is None
    finally:
        conn.close()
