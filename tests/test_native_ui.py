"""A pi session in the window, against a real in-process host over a copy of the pi fixture files.

What it shows (read-only banner, system notes, label chips, disabled actions), the branch switcher,
following a file pi is writing, and Fork / Continue in pidesktop.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest

from pidesktop.agent.runner import TurnRunner
from pidesktop.ui.chat.message_layout import layout_row
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.prefs import Preferences
from tests.support.repo import FIXTURES as RECORDED
from tests.support.sse_server import chunk, sse_body, usage_chunk
from tests.support.waits import spin_until
from tests.support.windows import started_window, transcript_shows_page

FIXTURES = RECORDED / "pi-native/sessions"
WORK = "--home-ada-code-work--"
BRANCHING = f"{WORK}/2026-12-01T14-14-26-050Z_01a231f4-f201-704f-974e-b88fc345cd3d.jsonl"
RPC_EXTRAS = f"{WORK}/2026-12-01T14-16-07-462Z_01a231f6-7e25-7604-a24b-cc803de2a902.jsonl"
FIVE_TURNS = f"{WORK}/2026-12-01T14-13-52-060Z_01a231f4-6d3b-74c0-8a0e-6f9f6aede47c.jsonl"


@pytest.fixture
def agent_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "pi-agent"
    shutil.copytree(FIXTURES, folder / "sessions")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(folder))
    return folder


@pytest.fixture
def window(qtbot, qloop, agent_dir, loop_hosts, tmp_path):
    client = loop_hosts.start()
    win = started_window(
        qtbot, qloop, client, runner=TurnRunner(client, offline_delay=0.0), prefs=Preferences(tmp_path / "ui")
    )
    yield win
    win.close()


def native_row(win, file_name: str) -> dict:
    header = orjson.loads(Path(FIXTURES / file_name).read_bytes().split(b"\n", 1)[0])
    return next(s for s in win.model.shown_sessions() if s.get("nativeId") == header["id"])


def open_native(qloop, win, file_name: str) -> dict:
    row = native_row(win, file_name)
    win.sidebar.select(row["id"])
    spin_until(qloop, lambda: transcript_shows_page(win, row["id"]))
    return row


def rendered(win, key: str):
    model = win.transcript_model
    row = model.rows[model.row_of(key)]
    return layout_row(row, 900, themes.LIGHT, win.font(), frozenset())


def test_pi_sessions_are_listed_in_folder_groups_with_the_app_chats(window):
    groups = [window.model.index(r, 0).data() for r in range(window.model.rowCount())]
    assert groups == ["work · pi", "work2 · pi"]
    assert len(window.model.shown_sessions()) == 10
    assert all(s["readOnly"] for s in window.model.shown_sessions())


def test_a_pi_session_reads_read_only_with_notes_labels_and_disabled_actions(window, qloop):
    row = open_native(qloop, window, RPC_EXTRAS)
    assert window.native.banner.isVisible() and "pi session" in window.native.banner.text.text()
    assert window.composer.mode_picker.isHidden() and window.composer.attach_button.isHidden()
    assert window.composer.edit.isEnabled() and not window.compact_action.isEnabled()
    assert "pi session" in window.composer.edit.placeholderText()
    model = window.transcript_model
    assert model.read_only and all(r["readOnly"] for r in model.rows if r["kind"] == "message")
    note = spin_until(
        qloop,
        lambda: next(
            (
                r
                for r in model.rows  # older rows go in after the newest
                if r["kind"] == "message" and r["message"]["role"] == "system"
            ),
            None,
        ),
    )
    assert note["message"]["meta"]["native"]["type"] == "custom_message"
    assert [p.kind for p in rendered(window, note["key"]).parts] == ["summary"]
    labelled = next(r for r in model.rows if r["kind"] == "message" and (r["message"].get("meta") or {}).get("labels"))
    parts = rendered(window, labelled["key"]).parts
    assert "checkpoint-1" in parts[0].doc.toPlainText()
    user = next(r for r in model.rows if r["kind"] == "message" and r["message"]["role"] == "user")
    actions = {a.name: a.enabled for a in rendered(window, user["key"]).actions}
    assert actions == {"copy": True, "edit": False, "fork": True, "delete": False}
    reply = next(r for r in model.rows if r["kind"] == "message" and r["message"]["role"] == "assistant")
    actions = {a.name: a.enabled for a in rendered(window, reply["key"]).actions}
    assert actions["regenerate"] is False and actions["delete"] is False and actions["fork"] is True
    # leaving for the app's own kind of chat turns everything back on
    window.chats.new_chat()
    window.chat_view.show_session({"id": "x", "title": "t", "origin": "desktop", "messageCount": 0})
    assert not window.native.banner.isVisible() and not window.composer.mode_picker.isHidden()
    assert "pi session" not in window.composer.edit.placeholderText()
    assert row["id"] not in window.native.picks


def test_the_branch_switcher_lists_every_leaf_and_reads_the_chosen_one(window, qloop):
    open_native(qloop, window, BRANCHING)
    switcher = window.native.switcher
    assert switcher.isVisible() and len(switcher.branches) == 3
    current = [b for b in switcher.branches if b["current"]]
    assert len(current) == 1 and switcher.shown_leaf == current[0]["leafId"]
    assert "Current branch" in switcher.text()
    texts = [action.text() for action in switcher.menu().actions()]
    assert any("Alternative A" in text or "Rust" in text for text in texts) and all("—" in t for t in texts)
    other = next(a for a in switcher.menu().actions() if not a.isChecked())
    leaf = other.data()
    other.trigger()  # the menu is rebuilt once the branch is read
    spin_until(qloop, lambda: window.transcript_model.leaf_id == leaf and transcript_shows_page(window))
    assert window.transcript_model.read_params == {"leafId": leaf}
    assert switcher.shown_leaf == leaf and "Branch" in switcher.text()
    shown = [r["message"] for r in window.transcript_model.rows if r["kind"] == "message"]
    assert window.native.reading_other_branch()
    # back to the current branch
    mine = next(a for a in switcher.menu().actions() if a.data() == current[0]["leafId"])
    mine.trigger()
    spin_until(qloop, lambda: window.transcript_model.leaf_id == current[0]["leafId"] and transcript_shows_page(window))
    assert window.transcript_model.read_params == {} and not window.native.reading_other_branch()
    assert [r["message"] for r in window.transcript_model.rows if r["kind"] == "message"] != shown


def test_sending_on_another_branch_gives_the_prompt_back(window, qloop):
    open_native(qloop, window, BRANCHING)
    other = next(a for a in window.native.switcher.menu().actions() if not a.isChecked())
    leaf = other.data()
    other.trigger()
    spin_until(qloop, lambda: window.transcript_model.leaf_id == leaf and transcript_shows_page(window))
    window.composer.edit.setPlainText("keep me")
    window.composer._submit()
    spin_until(
        qloop, lambda: "keep me" in window.composer.edit.toPlainText() and window.composer.status_label.isVisible()
    )
    assert "another branch" in window.composer.status_label.text()


def test_screenshots(window, qloop, shots, theme):
    window.dialogs.set_theme(theme)
    for title in ("Refactor the parser", "Trip to Lisbon"):  # the app's own chats, above the pi groups
        window.client.call_blocking("session.create", {"title": title})
    spin_until(qloop, lambda: window.model.session_count() == 12)
    open_native(qloop, window, BRANCHING)
    menu = window.native.switcher.menu()
    menu.popup(window.native.switcher.mapToGlobal(window.native.switcher.rect().bottomLeft()))
    spin_until(qloop, menu.isVisible)
    assert not menu.grab().isNull()
    menu.grab().save(str(shots / f"native-branch-menu-{theme.name}.png"))
    menu.hide()
    window.grab().save(str(shots / f"native-branches-{theme.name}.png"))
    open_native(qloop, window, RPC_EXTRAS)
    note = spin_until(
        qloop,
        lambda: next(
            (
                r["key"]
                for r in window.transcript_model.rows
                if r["kind"] == "message" and r["message"]["role"] == "system"
            ),
            None,
        ),
    )
    spin_until(qloop, lambda: window.transcript.verticalScrollBar().maximum() > 0)
    window.transcript.scrollTo(
        window.transcript_model.index(window.transcript_model.row_of(note) - 2),
        window.transcript.ScrollHint.PositionAtTop,
    )
    window.transcript.viewport().update()
    window.grab().save(str(shots / f"native-transcript-{theme.name}.png"))


# -- live, fork and continue, end to end ------------------------------------------------------------


def pi_line(entry_id: str, parent: str, role: str, text: str) -> bytes:
    """One message entry as pi appends it."""
    message = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1796134600000}
    if role == "assistant":
        message |= {
            "provider": "fake",
            "model": "fake-coder-1",
            "stopReason": "stop",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
        }
    return (
        orjson.dumps(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-12-01T14:20:00.000Z",
                "message": message,
            }
        )
        + b"\n"
    )


def shown_texts(win) -> list[str]:
    return [
        b.get("text", "")
        for r in win.transcript_model.rows
        if r["kind"] == "message"
        for b in r["message"].get("blocks", [])
        if b.get("type") == "text"
    ]


def test_the_open_transcript_follows_pi_writing_the_file(window, qloop, agent_dir):
    open_native(qloop, window, FIVE_TURNS)
    view = window.transcript
    spin_until(qloop, lambda: view.verticalScrollBar().maximum() > 0 and not window.transcript_model.loading)
    path = agent_dir / "sessions" / FIVE_TURNS
    last = orjson.loads(path.read_bytes().splitlines()[-1])["id"]
    with path.open("ab") as out:  # pi appends one line per entry
        out.write(pi_line("live0001", last, "user", "Written by pi in a terminal"))
        out.write(pi_line("live0002", "live0001", "assistant", "And pi answered it"))
    spin_until(qloop, lambda: "And pi answered it" in shown_texts(window))
    rows = [r["key"] for r in window.transcript_model.rows if r["kind"] == "message"]
    assert rows[-2:] == ["live0001", "live0002"] and len(rows) == len(set(rows))
    bar = view.verticalScrollBar()
    spin_until(qloop, lambda: bar.value() == bar.maximum())  # the reader was at the bottom: it scrolls along
    row = window.model.session(window.current_session_id)
    assert row["nativeId"] == native_row(window, FIVE_TURNS)["nativeId"]  # moved to the top, still the one read
    assert window.sidebar.current_session_id() == row["id"] and window.transcript_model.session_id == row["id"]
    spin_until(qloop, lambda: window.model.session(row["id"])["messageCount"] == 12)  # the sidebar row moved on
    assert window.model.shown_sessions()[0]["id"] == row["id"]


def test_fork_opens_the_new_pi_session_and_leaves_the_parent_alone(window, qloop, agent_dir):
    parent = open_native(qloop, window, BRANCHING)
    before = (agent_dir / "sessions" / BRANCHING).read_bytes()
    files = set((agent_dir / "sessions" / WORK).iterdir())
    window.native.banner.fork_button.click()
    spin_until(qloop, lambda: window.current_session_id not in (None, parent["id"]))
    child = window.model.session(window.current_session_id)
    assert child["origin"] == "native-pi" and child["parentSessionId"] == parent["id"]
    new = set((agent_dir / "sessions" / WORK).iterdir()) - files
    assert len(new) == 1 and next(iter(new)).suffix == ".jsonl"
    assert (agent_dir / "sessions" / BRANCHING).read_bytes() == before
    spin_until(qloop, lambda: transcript_shows_page(window, child["id"]))


@pytest.fixture
def replay_window(untrusted_window, qloop, tmp_path):
    """The window with the five-turn session's folder trusted, as a person answered once before."""
    qloop.run_until_complete(untrusted_window.client.call("native.trust", {"cwd": str(tmp_path / "work")}))
    return untrusted_window


@pytest.fixture
def untrusted_window(qtbot, qloop, agent_dir, loop_hosts, tmp_path, sse_server):
    from pidesktop.agent.runner import ProviderChoice

    # The five-turn session works in a folder that exists here, so it can be continued (spec 004 section 12);
    # the recorded /home/ada/code/work of the others is not on this machine.
    path = agent_dir / "sessions" / FIVE_TURNS
    stat = path.stat()
    work = tmp_path / "work"
    work.mkdir()
    head, rest = path.read_bytes().split(b"\n", 1)
    path.write_bytes(orjson.dumps({**orjson.loads(head), "cwd": str(work)}) + b"\n" + rest)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as recorded: not a pi writing it now

    client = loop_hosts.start()
    runner = TurnRunner(
        client, override=ProviderChoice(base_url=sse_server.base_url, model="gpt-test", api_key="sk-test-key")
    )
    win = started_window(qtbot, qloop, client, runner=runner, prefs=Preferences(tmp_path / "ui"))
    yield win
    win.close()


def test_continue_in_pidesktop_appends_the_exchange_to_the_pi_file(replay_window, qloop, agent_dir, sse_server):
    win = replay_window
    open_native(qloop, win, FIVE_TURNS)
    path = agent_dir / "sessions" / FIVE_TURNS
    before = path.read_bytes()
    # The answer pauses after its first words, so the streaming reply is on screen however busy the machine.
    sse_server.stream(
        [
            sse_body(chunk("Hello from "), done=False),
            sse_body(chunk("the loopback", finish="stop"), usage_chunk(40, 4)),
        ],
        delays={1: 1.5},
    )
    win.composer.edit.setPlainText("Continue here, please")
    win.composer._submit()
    spin_until(
        qloop,
        lambda: (
            [r["message"]["role"] for r in win.transcript_model.rows if r["live"]] == ["user", "assistant"]
            and any(t.startswith("Hello from") for t in shown_texts(win))
        ),
    )
    spin_until(
        qloop,
        lambda: (
            "Hello from the loopback" in shown_texts(win)
            and not any(r["live"] for r in win.transcript_model.rows)
            and not win.native.continuing
        ),
    )
    sent = sse_server.requests[-1].json["messages"]
    assert sent[-1] == {"role": "user", "content": "Continue here, please"} and len(sent) == 11
    data = path.read_bytes()
    assert data.startswith(before)
    user, reply = (orjson.loads(line) for line in data[len(before) :].splitlines())
    assert user["parentId"] == orjson.loads(before.splitlines()[-1])["id"] and reply["parentId"] == user["id"]
    assert user["message"]["content"][0]["text"] == "Continue here, please"
    assert reply["message"]["content"][-1]["text"] == "Hello from the loopback"
    assert reply["message"]["usage"]["input"] == 40 and reply["message"]["stopReason"] == "stop"
    keys = [r["key"] for r in win.transcript_model.rows if r["kind"] == "message"]
    assert keys[-2:] == [user["id"], reply["id"]] and len(keys) == len(set(keys))  # the file's entries, once
    assert win.composer.edit.toPlainText() == ""


def test_continuing_in_a_folder_not_trusted_asks_first_and_remembers_the_answer(
    untrusted_window, qloop, agent_dir, sse_server, tmp_path
):
    win = untrusted_window
    open_native(qloop, win, FIVE_TURNS)
    path = agent_dir / "sessions" / FIVE_TURNS
    before = path.read_bytes()
    asked = len(sse_server.requests)
    win.composer.edit.setPlainText("Only where I said so")
    win.composer._submit()
    spin_until(qloop, lambda: win.native.trust_box is not None and win.native.trust_box.isVisible())
    box = win.native.trust_box
    assert str(tmp_path / "work") in box.text()
    assert path.read_bytes() == before and len(sse_server.requests) == asked  # the model was not asked
    box.grab().save("/tmp/native-trust-question.png")
    box.button(box.StandardButton.Cancel).click()
    spin_until(qloop, lambda: win.composer.edit.toPlainText() == "Only where I said so" and not win.native.continuing)
    assert "not trusted" in win.composer.status_label.text()
    assert path.read_bytes() == before and len(sse_server.requests) == asked

    sse_server.stream([sse_body(chunk("Trusted now", finish="stop"))])
    win.composer._submit()
    spin_until(qloop, lambda: win.native.trust_box is not None and win.native.trust_box.isVisible())
    trust = next(b for b in win.native.trust_box.buttons() if b.text() == "Trust and continue")
    trust.click()
    spin_until(qloop, lambda: "Trusted now" in shown_texts(win) and not win.native.continuing)
    assert path.read_bytes().startswith(before) and len(path.read_bytes()) > len(before)
    assert win.composer.edit.toPlainText() == ""

    sse_server.stream([sse_body(chunk("No question this time", finish="stop"))])
    win.composer.edit.setPlainText("And again")
    win.composer._submit()
    spin_until(qloop, lambda: "No question this time" in shown_texts(win) and not win.native.continuing)
    assert win.native.trust_box is None


def test_a_refused_continue_gives_the_prompt_back_and_writes_nothing(replay_window, qloop, agent_dir, sse_server):
    import os

    win = replay_window
    open_native(qloop, win, FIVE_TURNS)
    path = agent_dir / "sessions" / FIVE_TURNS
    os.utime(path)  # written a moment ago, as by a pi running in a terminal
    before = path.read_bytes()
    sse_server.stream([sse_body(chunk("Never stored", finish="stop"))])
    win.composer.edit.setPlainText("Do not lose me")
    win.composer._submit()
    spin_until(qloop, lambda: win.composer.status_label.isVisible() and not win.native.continuing)
    assert win.composer.edit.toPlainText() == "Do not lose me"
    assert "pi is writing" in win.composer.status_label.text()
    assert path.read_bytes() == before
    assert "Never stored" not in shown_texts(win) and not any(r["live"] for r in win.transcript_model.rows)


def test_a_session_whose_working_folder_is_not_here_is_not_continued(
    replay_window,
    qloop,
    agent_dir,
    sse_server,
):
    win = replay_window
    open_native(qloop, win, BRANCHING)  # recorded in /home/ada/code/work, not a folder on this machine
    path = agent_dir / "sessions" / BRANCHING
    before = path.read_bytes()
    asked = len(sse_server.requests)
    win.composer.edit.setPlainText("Keep going")
    win.composer._submit()
    spin_until(qloop, lambda: win.composer.status_label.isVisible() and not win.native.continuing)
    assert win.composer.edit.toPlainText() == "Keep going"
    assert "/home/ada/code/work" in win.composer.status_label.text()
    assert path.read_bytes() == before and len(sse_server.requests) == asked  # the model was not asked


def test_a_branch_summary_is_a_divider_with_its_label_chip(window, qloop):
    open_native(qloop, window, BRANCHING)
    leaf = next(b["leafId"] for b in window.native.switcher.branches if "Alternative A" in b["preview"])
    window.native.read_branch(leaf)
    spin_until(qloop, lambda: window.transcript_model.leaf_id == leaf and transcript_shows_page(window))
    summary = spin_until(
        qloop,
        lambda: next(
            (r for r in window.transcript_model.rows if r["kind"] == "message" and r["message"]["role"] == "system"),
            None,
        ),
    )
    assert summary["message"]["meta"]["native"]["type"] == "branch_summary"
    chip, divider = rendered(window, summary["key"]).parts
    assert chip.doc.toPlainText().strip() == "alt-A"
    assert divider.kind == "divider" and "Summary of another branch" in divider.doc.toPlainText()
    assert divider.toggle and divider.y > chip.y  # the summary unfolds on a click
    window.transcript.toggle(divider.toggle)
    opened = layout_row(
        window.transcript_model.rows[window.transcript_model.row_of(summary["key"])],
        900,
        themes.LIGHT,
        window.font(),
        frozenset({divider.toggle}),
    )
    assert "explored a different conversation branch" in opened.parts[-1].doc.toPlainText()


def test_pictures_pi_stored_inline_are_shown(qapp):
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage

    image = QImage(40, 30, QImage.Format.Format_RGB32)
    image.fill(QColor("#2563EB"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    block = {"type": "image", "mimeType": "image/png", "data": bytes(data.toBase64()).decode()}
    for role in ("user", "assistant"):
        message = {
            "id": f"m-{role}",
            "role": role,
            "blocks": [{"type": "text", "text": "see"}, block, {"type": "image", "data": "not base64 at all"}],
        }
        row = {"kind": "message", "key": message["id"], "message": message, "index": 0, "live": False, "rev": 1}
        laid = layout_row(row, 900, themes.LIGHT, qapp.font(), frozenset())
        html = "".join(part.doc.toHtml() for part in laid.parts)
        assert html.count("pidesktop-inline:") == 1, role


def test_stop_keeps_what_arrived_as_an_aborted_reply_in_the_file(replay_window, qloop, agent_dir, sse_server):
    win = replay_window
    open_native(qloop, win, FIVE_TURNS)
    path = agent_dir / "sessions" / FIVE_TURNS
    before = path.read_bytes()
    sse_server.stream(
        [sse_body(chunk("Half an "), done=False), sse_body(chunk("answer"), chunk(" never sent", finish="stop"))],
        delays={1: 30.0},
    )
    win.composer.edit.setPlainText("Answer slowly")
    win.composer._submit()
    spin_until(qloop, lambda: any(r["live"] and r["message"]["role"] == "assistant" for r in win.transcript_model.rows))
    mine = win.current_session_id
    open_native(qloop, win, BRANCHING)  # away and back while the answer is written: Stop is still offered
    assert not win.composer.running
    win.sidebar.select(mine)
    spin_until(qloop, lambda: win.transcript_model.session_id == mine and win.composer.running)
    win.chats.stop_reply()
    spin_until(qloop, lambda: not win.native.continuing)
    reply = orjson.loads(path.read_bytes()[len(before) :].splitlines()[-1])
    assert reply["message"]["stopReason"] == "aborted"
    assert reply["message"]["content"][-1]["text"] == "Half an "


def test_pi_files_that_appear_or_go_show_in_the_sidebar(window, qloop, agent_dir):
    """They are merged into the list: no reset, the chat being read stays selected."""
    picked = open_native(qloop, window, FIVE_TURNS)
    resets = []
    window.model.modelReset.connect(lambda: resets.append(1))
    folder = agent_dir / "sessions" / "--home-ada-code-new--"
    folder.mkdir()
    lines = (FIXTURES / FIVE_TURNS).read_bytes().splitlines(keepends=True)
    header = orjson.loads(lines[0]) | {"id": "01a23fff-0000-7000-8000-000000000001", "cwd": "/home/ada/code/new"}
    new = folder / "2026-12-01T15-00-00-000Z_01a23fff-0000-7000-8000-000000000001.jsonl"
    new.write_bytes(orjson.dumps(header) + b"\n" + b"".join(lines[1:]))
    spin_until(qloop, lambda: any(s.get("nativeId") == header["id"] for s in window.model.shown_sessions()))
    groups = [window.model.index(r, 0).data() for r in range(window.model.rowCount())]
    assert "new · pi" in groups
    new.unlink()
    spin_until(qloop, lambda: not any(s.get("nativeId") == header["id"] for s in window.model.shown_sessions()))
    assert resets == [] and window.sidebar.current_session_id() == picked["id"] == window.current_session_id


def test_a_reader_scrolled_up_keeps_their_place_while_pi_writes(window, qloop, agent_dir):
    long_one = f"{WORK}/2026-12-01T14-14-33-491Z_01a231f5-0f12-7042-be20-72f0e9b9732a.jsonl"
    open_native(qloop, window, long_one)
    bar = window.transcript.verticalScrollBar()
    spin_until(qloop, lambda: bar.maximum() > 2000 and not window.transcript_model.loading)
    bar.setValue(bar.maximum() // 2)
    place = bar.value()
    path = agent_dir / "sessions" / long_one
    last = orjson.loads(path.read_bytes().splitlines()[-1])["id"]
    with path.open("ab") as out:
        out.write(pi_line("live0003", last, "user", "Another prompt from the terminal"))
    spin_until(qloop, lambda: "Another prompt from the terminal" in shown_texts(window))
    qloop.run_until_complete(__import__("asyncio").sleep(0.05))
    assert bar.value() == place and window.transcript.jump_button.isVisible()


def test_a_pi_reply_shows_its_tokens_and_a_failed_one_says_why(window, qloop):
    open_native(qloop, window, FIVE_TURNS)
    reply = next(
        r for r in window.transcript_model.rows if r["kind"] == "message" and r["message"]["role"] == "assistant"
    )
    usage = [p for p in rendered(window, reply["key"]).parts if p.kind == "usage"]
    assert usage and " in · " in usage[0].doc.toPlainText()
    failed = {
        "id": "f1",
        "role": "assistant",
        "blocks": [],
        "meta": {"status": "error", "error": "429 rate limit from the provider", "finishReason": "error"},
    }
    row = {"kind": "message", "key": "f1", "message": failed, "index": 0, "live": False, "rev": 1, "readOnly": True}
    parts = layout_row(row, 900, themes.LIGHT, window.font(), frozenset()).parts
    assert any(p.kind == "error" and "429 rate limit" in p.doc.toPlainText() for p in parts)


def test_fork_on_another_branch_copies_the_branch_on_screen(window, qloop, agent_dir):
    parent = open_native(qloop, window, BRANCHING)
    branch = next(b for b in window.native.switcher.branches if "Alternative A" in b["preview"])
    window.native.read_branch(branch["leafId"])
    spin_until(qloop, lambda: window.transcript_model.leaf_id == branch["leafId"] and transcript_shows_page(window))
    shown = [r["message"]["id"] for r in window.transcript_model.rows if r["kind"] == "message"]
    before = (agent_dir / "sessions" / BRANCHING).read_bytes()
    assert window.native.banner.fork_button.isEnabled()
    window.native.banner.fork_button.click()
    spin_until(qloop, lambda: window.current_session_id not in (None, parent["id"]))
    spin_until(qloop, lambda: transcript_shows_page(window))
    copied = [r["message"]["id"] for r in window.transcript_model.rows if r["kind"] == "message"]
    assert copied == shown and window.notices.host_error is None
    assert (agent_dir / "sessions" / BRANCHING).read_bytes() == before


def test_a_pi_session_that_starts_empty_shows_its_first_messages_as_pi_writes_them(window, qloop, agent_dir):
    folder = agent_dir / "sessions" / WORK
    header = {
        "type": "session",
        "version": 3,
        "id": "01a23fff-0000-7000-8000-0000000000e1",
        "timestamp": "2026-12-01T15:00:00.000Z",
        "cwd": "/home/ada/code/work",
    }
    path = folder / "2026-12-01T15-00-00-000Z_01a23fff-0000-7000-8000-0000000000e1.jsonl"
    path.write_bytes(orjson.dumps(header) + b"\n")
    row = spin_until(
        qloop, lambda: next((s for s in window.model.shown_sessions() if s.get("nativeId") == header["id"]), None)
    )
    window.sidebar.select(row["id"])
    spin_until(qloop, lambda: window.transcript_model.session_id == row["id"])
    assert window.pages.currentWidget() is window.empty_page
    with path.open("ab") as out:
        out.write(pi_line("first001", None, "user", "The very first prompt"))
    spin_until(qloop, lambda: "The very first prompt" in shown_texts(window))
    spin_until(qloop, lambda: window.pages.currentWidget() is window.transcript)
    assert window.header_title.text() == "The very first prompt"


def test_files_dropped_on_a_pi_session_come_back_with_the_text(window, qloop, agent_dir):
    open_native(qloop, window, FIVE_TURNS)
    before = (agent_dir / "sessions" / FIVE_TURNS).read_bytes()
    chip = {"type": "attachment", "kind": "file", "name": "notes.txt", "ref": "attachments/" + "a" * 64, "size": 5}
    window.composer.put_draft("with a file", [chip])
    window.composer._submit()
    spin_until(qloop, lambda: window.composer.status_label.isVisible())
    assert window.composer.take_draft() == ("with a file", [chip])
    assert "files can’t be added" in window.composer.status_label.text()
    assert (agent_dir / "sessions" / FIVE_TURNS).read_bytes() == before


class SentCommands:
    """Every command the window's client sends (to the real host), and how many still wait for their reply."""

    def __init__(self, client):
        self.sent: list[tuple[str, dict]] = []
        self.in_flight = 0
        send = client.call

        async def call(method, params=None):
            self.sent.append((method, dict(params or {})))
            self.in_flight += 1
            try:
                return await send(method, params)
            finally:
                self.in_flight -= 1

        client.call = call

    def naming_pi_sessions(self) -> list[str]:
        return [method for method, params in self.sent if str(params.get("sessionId", "")).startswith("native-pi:")]


def test_reading_pi_sessions_sends_nothing_the_host_would_refuse(window, qloop):
    from pidesktop.ui.kit import native_guard

    spy = SentCommands(window.client)
    for name in (FIVE_TURNS, BRANCHING, RPC_EXTRAS):
        shown = open_native(qloop, window, name)["id"]
        spin_until(qloop, lambda shown=shown: window.permission_card.session_id == shown and spy.in_flight == 0)
    assert window.notices.host_error is None and not window.file_changes.button.isVisible()
    assert "session.get" in spy.naming_pi_sessions()
    assert set(spy.naming_pi_sessions()) <= native_guard.MAY_SEND


def test_a_write_naming_a_pi_session_is_refused_in_the_window_without_being_sent(window, qloop):
    from pidesktop.ui.kit.ops import host_op

    row = open_native(qloop, window, FIVE_TURNS)
    spy = SentCommands(window.client)
    params = {"sessionId": row["id"], "title": "Renamed"}
    assert qloop.run_until_complete(host_op(window.client, "session.update", params, parent=window)) is None
    assert "session.update" not in spy.naming_pi_sessions()
    assert window.notices.host_error.code == "PERMISSION_DENIED" and window.notices.host_error.data["native"] is True
    assert (
        window.notice.label.text()
        == "This is a pi session, so it can’t be changed here. Fork it or continue it in pidesktop."
    )
    fork = host_op(window.client, "session.fork", {"sessionId": row["id"]}, parent=window)
    assert qloop.run_until_complete(fork)["session"]["id"] != row["id"]  # what a pi session allows still goes
    assert "session.fork" in spy.naming_pi_sessions()


def test_the_window_refuses_what_the_host_refuses_on_a_pi_session():
    from pidesktop.host.native import guard
    from pidesktop.ui.kit import native_guard

    assert native_guard.MAY_SEND is guard.ALLOWED  # one list, in the bus
    assert native_guard.allows("session.update", {"sessionId": "app-chat-1"})
    assert not native_guard.allows("review.list", {"sessionId": "native-pi:abc"})
    assert native_guard.allows("session.get", {"sessionId": "native-pi:abc"})


def test_leaving_a_pi_session_whose_answer_is_written_takes_its_stop_at_once(replay_window, qloop, sse_server):
    win = replay_window
    open_native(qloop, win, FIVE_TURNS)
    sse_server.stream(
        [sse_body(chunk("Half an "), done=False), sse_body(chunk("answer", finish="stop"))], delays={1: 30.0}
    )
    win.composer.edit.setPlainText("Answer slowly")
    win.composer._submit()
    spin_until(qloop, lambda: any(r["live"] and r["message"]["role"] == "assistant" for r in win.transcript_model.rows))
    mine = win.current_session_id
    assert win.composer.running
    win.sidebar.select(native_row(win, BRANCHING)["id"])
    assert not win.composer.running  # before the other chat's transcript has loaded
    win.sidebar.select(mine)
    assert win.composer.running
    win.chats.stop_reply()
    spin_until(qloop, lambda: not win.native.continuing)
