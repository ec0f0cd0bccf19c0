"""Projects in the window: New project, the header's picker, the sidebar's project actions, the notes editor."""

from __future__ import annotations

import shutil

import shiboken6
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMenu, QMessageBox

from pidesktop.ui.chat import export_dialog
from pidesktop.ui.kit.tasks import spawn
from pidesktop.ui.sidebar import project_rows
from pidesktop.ui.sidebar.project_memory import LIMIT
from tests.support.waits import spin_until


def call(chat, method, params=None):
    return chat.client.call_blocking(method, params or {})


def header_labels(chat) -> list[str]:
    model = chat.model
    return [model.group_at(model.index(row, 0)).label for row in range(model.rowCount())]


def send(chat, qloop, text):
    qloop.run_until_complete(chat.chats.send_prompt(text, []))
    spin_until(qloop, lambda: chat.current_session_id and not chat.runner.is_running(chat.current_session_id))
    return chat.current_session_id


def closed(dialog) -> bool:
    """Gone from the screen (deleted on close, or only hidden)."""
    return not shiboken6.isValid(dialog) or not dialog.isVisible()


def add_project(chat, qloop, folder):
    project = qloop.run_until_complete(chat.projects.add_project(str(folder)))
    spin_until(qloop, lambda: project["id"] in chat.projects.projects)
    return project


def test_new_project_names_it_after_the_folder_and_ctrl_n_starts_chats_in_it(chat, qloop, tmp_path):
    folder = tmp_path / "garden-planner"
    folder.mkdir()
    project = add_project(chat, qloop, folder)
    assert project["name"] == "garden-planner"
    assert chat.project_picker.text().removesuffix(" ▾") == "garden-planner"  # the next chat goes there
    spin_until(qloop, lambda: "garden-planner" in header_labels(chat))  # shown before it has a chat
    sid = send(chat, qloop, "Where do the beans go?")
    assert call(chat, "session.get", {"sessionId": sid})["session"]["projectPath"] == str(folder)
    spin_until(qloop, lambda: "garden-planner" in header_labels(chat))
    assert call(chat, "workspace.get")["currentProjectId"] == project["id"]  # remembered by the host

    chat.new_chat_action.trigger()  # Ctrl+N: a new chat in the current project
    assert chat.current_session_id is None and chat.project_picker.text().removesuffix(" ▾") == "garden-planner"
    second = send(chat, qloop, "And the tomatoes?")
    assert second != sid
    assert call(chat, "session.get", {"sessionId": second})["session"]["projectId"] == project["id"]
    # the same folder again is the same project
    again = qloop.run_until_complete(chat.projects.add_project(str(folder) + "/"))
    assert again["id"] == project["id"]


def test_the_picker_moves_the_open_chat_in_and_out_of_a_project(chat, qloop, tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    outside = send(chat, qloop, "Hello there")
    project = call(chat, "projects.upsert", {"path": str(folder)})["project"]
    spin_until(qloop, lambda: project["id"] in chat.projects.projects)
    chat.project_picker.menu_.aboutToShow.emit()
    labels = [a.text() for a in chat.project_picker.menu_.actions() if a.text()]
    assert labels == ["No project", "site", "New project…"]
    next(a for a in chat.project_picker.menu_.actions() if a.text() == "site").trigger()
    spin_until(qloop, lambda: chat.model.session(outside)["projectId"] == project["id"])
    assert chat.project_picker.text().removesuffix(" ▾") == "site"
    assert chat.model.group_at(chat.model.index_of(outside).parent()).key == f"project:{folder}"
    chat.project_picker.picked.emit(None)
    spin_until(qloop, lambda: chat.model.session(outside)["projectId"] is None)
    assert chat.project_picker.text().removesuffix(" ▾") == "No project"
    assert chat.model.group_at(chat.model.index_of(outside).parent()).key == "chats"


def test_project_menu_renames_pins_and_removes_keeping_the_chats(chat, qloop, tmp_path, monkeypatch):
    folder = tmp_path / "blog"
    folder.mkdir()
    project = add_project(chat, qloop, folder)
    sid = send(chat, qloop, "Draft a post")
    spin_until(qloop, lambda: "blog" in header_labels(chat))
    menu = QMenu()
    chat.sidebar.projectMenuRequested.emit(menu, str(folder))
    texts = [a.text() for a in menu.actions() if a.text()]
    for wanted in (
        "New chat in this project",
        "Rename project…",
        "Project memory…",
        "Open folder",
        "Add to a project group…",
        "Remove project…",
    ):
        assert wanted in texts

    chat.projects._rename(project, "  My blog ")
    spin_until(qloop, lambda: "My blog" in header_labels(chat))
    assert chat.project_picker.text().removesuffix(" ▾") == "My blog"

    chat.sidebar._toggle_project_flag(str(folder), "pinned")
    spin_until(qloop, lambda: call(chat, "projects.list")["projects"][0]["pinned"] is True)
    call(chat, "projects.update", {"projectId": project["id"], "pinned": False})  # elsewhere: the host wins
    spin_until(qloop, lambda: not chat.model.prefs.project_meta(str(folder)).get("pinned"))

    opened = []
    monkeypatch.setattr("pidesktop.ui.sidebar.project_actions.QDesktopServices.openUrl", lambda url: opened.append(url))
    chat.projects.open_folder(chat.projects.projects[project["id"]])
    assert opened[0].toLocalFile() == str(folder)

    box = chat.projects.confirm_remove(chat.projects.projects[project["id"]])
    assert "folder on disk is not touched" in box.informativeText()
    next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole).click()
    spin_until(qloop, lambda: chat.model.session(sid)["projectId"] is None)
    assert chat.model.group_at(chat.model.index_of(sid).parent()).key == "chats"
    assert folder.is_dir()
    spin_until(qloop, lambda: not chat.projects.projects)
    spin_until(qloop, lambda: "My blog" not in header_labels(chat) and "blog" not in header_labels(chat))


def test_a_missing_folder_shows_a_warning_and_keeps_its_chats(chat, qloop, tmp_path):
    folder = tmp_path / "gone"
    folder.mkdir()
    project = add_project(chat, qloop, folder)
    sid = send(chat, qloop, "Still here?")
    shutil.rmtree(folder)
    qloop.run_until_complete(chat.projects.refresh())
    assert chat.projects.projects[project["id"]]["missing"] is True
    header = chat.model.index_of(sid).parent()
    assert "can’t be found" in chat.model.data(header, Qt.ItemDataRole.ToolTipRole)
    assert chat.project_picker.text().removesuffix(" ▾").startswith("⚠ ")
    assert chat.projects.open_folder(chat.projects.projects[project["id"]]) is False
    assert "can’t be found" in chat.notice.message()


def test_project_groups_are_a_collapsible_level(chat, qloop, tmp_path):
    ids, chats = [], []
    for name in ("api", "web", "notes"):
        (tmp_path / name).mkdir()
        ids.append(add_project(chat, qloop, tmp_path / name)["id"])
        chats.append(send(chat, qloop, f"About {name}"))
    made_elsewhere = call(chat, "session.create", {"projectPath": str(tmp_path / "cli")})["session"]
    spin_until(qloop, lambda: made_elsewhere["projectId"] in chat.projects.projects)  # a new project, read
    call(chat, "projectGroups.set", {"name": "Shop", "projectIds": [ids[1], ids[0]]})
    spin_until(qloop, lambda: "Shop" in header_labels(chat))
    labels = header_labels(chat)
    assert labels.index("Shop") + 1 == labels.index("web") and labels.index("web") + 1 == labels.index("api")
    header = chat.model.group_index(f"pgroup:{chat.projects.groups[0]['id']}")
    member_row = chat.model.group_index(f"project:{tmp_path / 'api'}").row()
    assert project_rows.indent(chat.model, chat.model.index_of(chats[0])) == project_rows.INDENT
    assert project_rows.indent(chat.model, chat.model.index_of(chats[2])) == 0

    chat.sidebar._clicked(header)  # fold the group
    assert chat.sidebar.tree.isRowHidden(member_row, header.parent())
    chat.sidebar._clicked(header)
    assert not chat.sidebar.tree.isRowHidden(member_row, header.parent())

    editor = chat.projects.edit_group_notes(chat.projects.groups[0])
    spin_until(qloop, lambda: editor.save_button.isEnabled())
    editor.fields[0].edit.setPlainText("Use the staging API.")
    editor.save()
    spin_until(
        qloop,
        lambda: (
            call(chat, "projectGroups.instructionsGet", {"groupId": chat.projects.groups[0]["id"]})["text"]
            == "Use the staging API."
        ),
    )


def test_the_memory_editor_counts_utf8_bytes_and_explains_a_disabled_save(chat, qloop, tmp_path, qtbot):
    folder = tmp_path / "novel"
    folder.mkdir()
    project = add_project(chat, qloop, folder)
    call(chat, "projects.memorySet", {"projectId": project["id"], "text": "Chapters live in ch/."})
    editor = chat.projects.edit_memory(project)
    field = editor.fields[0]
    spin_until(qloop, lambda: field.edit.toPlainText() == "Chapters live in ch/.")
    assert editor.save_button.isEnabled()
    assert field.counter.text() == f"21 of {LIMIT:,} bytes"
    field.edit.setPlainText("章" * (LIMIT // 3 + 1))  # fewer characters than the cap, more bytes
    assert not editor.save_button.isEnabled()
    assert editor.problem.isVisible() and "32 KiB" in editor.problem.text()
    assert field.counter.property("over") is True
    field.edit.setPlainText("章" * (LIMIT // 3))
    assert editor.save_button.isEnabled() and not editor.problem.isVisible()
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    spin_until(
        qloop, lambda: call(chat, "projects.memoryGet", {"projectId": project["id"]})["text"] == "章" * (LIMIT // 3)
    )


def test_closing_the_memory_editor_with_typed_text_asks_before_it_is_lost(chat, qloop, tmp_path, qtbot):
    folder = tmp_path / "novel"
    folder.mkdir()
    project = add_project(chat, qloop, folder)

    def stored():
        return call(chat, "projects.memoryGet", {"projectId": project["id"]})["text"]

    editor = chat.projects.edit_memory(project)
    spin_until(qloop, lambda: editor.save_button.isEnabled())
    qtbot.keyClick(editor.fields[0].edit, Qt.Key.Key_Escape)  # nothing typed: it just closes
    spin_until(qloop, lambda: closed(editor))

    editor = chat.projects.edit_memory(project)
    spin_until(qloop, lambda: editor.save_button.isEnabled())
    qtbot.keyClicks(editor.fields[0].edit, "Use pytest.")
    qtbot.keyClick(editor.fields[0].edit, Qt.Key.Key_Escape)
    question = spin_until(qloop, lambda: editor.question)
    assert question.text() == "Save your changes to “Project memory: novel”?"
    assert editor.isVisible() and editor.fields[0].edit.toPlainText() == "Use pytest."
    qtbot.keyClick(question, Qt.Key.Key_Escape)  # Keep editing
    spin_until(qloop, lambda: editor.question is None)
    assert editor.isVisible() and editor.fields[0].edit.toPlainText() == "Use pytest."

    editor.reject()  # Cancel, or the window's ×
    question = spin_until(qloop, lambda: editor.question)
    next(b for b in question.buttons() if b.text() == "Save").click()
    spin_until(qloop, lambda: stored() == "Use pytest." and closed(editor))

    editor = chat.projects.edit_memory(project)
    spin_until(qloop, lambda: editor.fields[0].edit.toPlainText() == "Use pytest.")
    editor.fields[0].edit.setPlainText("Something else")
    editor.reject()
    question = spin_until(qloop, lambda: editor.question)
    next(b for b in question.buttons() if b.text() == "Discard").click()
    spin_until(qloop, lambda: closed(editor))
    assert stored() == "Use pytest."


def test_export_from_the_window_writes_the_file(chat, qloop, tmp_path):
    sid = send(chat, qloop, "Export me ```code```")
    target = tmp_path / "out.md"
    done = []
    export_dialog.run(chat.client, sid, "md", target, chat, done.append)
    spin_until(qloop, lambda: done)
    text = target.read_text()
    assert text.startswith("# Export me") and "## You" in text and "## Assistant" in text
    menu_actions = [chat.sidebar.export_action.text()]
    assert menu_actions == ["Export…"]


def test_hover_plus_on_a_project_header_starts_a_chat_there(chat, qloop, tmp_path, qtbot):
    folder = tmp_path / "shed"
    folder.mkdir()
    project = add_project(chat, qloop, folder)
    send(chat, qloop, "Tools list")
    chat.projects._remember(None)
    header = chat.model.group_index(f"project:{folder}")
    rect = chat.sidebar.tree.visualRect(header)
    asked = []
    chat.sidebar.newChatInProjectRequested.connect(asked.append)
    qtbot.mouseClick(
        chat.sidebar.tree.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.right() - 10, rect.center().y())
    )
    assert asked == [str(folder)]
    assert chat.current_session_id is None and chat.project_picker.text().removesuffix(" ▾") == project["name"]
    assert chat.sidebar.tree.isExpanded(header)  # the click did not fold the project


def test_screenshots_of_projects_the_memory_editor_and_an_export(chat, qloop, tmp_path, shots):
    from PySide6.QtWidgets import QTextBrowser

    names = ("shop-api", "shop-web", "garden", "old-notes")
    for name in names:
        (tmp_path / name).mkdir()
        add_project(chat, qloop, tmp_path / name)
        send(chat, qloop, f"Plan the next step for {name}")
    ids = {p["name"]: p["id"] for p in chat.projects.projects.values()}
    call(chat, "projectGroups.set", {"name": "Shop", "projectIds": [ids["shop-api"], ids["shop-web"]]})
    shutil.rmtree(tmp_path / "old-notes")
    qloop.run_until_complete(chat.projects.refresh())
    spin_until(qloop, lambda: "Shop" in header_labels(chat))
    chat.grab().save(str(shots / "projects-sidebar.png"))

    call(
        chat,
        "projects.memorySet",
        {
            "projectId": ids["garden"],
            "text": (
                "# Garden planner\n\n- Beds are numbered from the shed (1) to the fence (6).\n"
                "- Units: centimetres. Dates: ISO.\n- Don't suggest pesticides.\n\n菜园在房子的南边。"
            ),
        },
    )
    editor = chat.projects.edit_memory(chat.projects.projects[ids["garden"]])
    spin_until(qloop, lambda: editor.fields[0].edit.toPlainText().startswith("# Garden"))
    editor.grab().save(str(shots / "project-memory.png"))
    editor.fields[0].edit.setPlainText("章" * (LIMIT // 3 + 40))
    editor.grab().save(str(shots / "project-memory-over.png"))
    editor.reject()

    sid = call(chat, "session.create", {"title": "Raised beds", "projectPath": str(tmp_path / "garden")})["session"][
        "id"
    ]
    note = call(chat, "attachments.importText", {"text": "bed,width\n1,120", "name": "beds.csv"})["attachment"]
    for message in (
        {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": "How much soil for bed 1?"}, note]},
        {
            "id": "a1",
            "role": "assistant",
            "model": "gpt-test",
            "blocks": [
                {"type": "thinking", "text": "Bed 1 is 120 cm wide; the file has no length, assume 240 cm."},
                {
                    "type": "tool_call",
                    "id": "c1",
                    "name": "calculate",
                    "args": {"expression": "1.2 * 2.4 * 0.3"},
                    "result": "0.864",
                },
                {"type": "text", "text": "## Soil\n\nAbout **0.86 m³**:\n\n```python\nprint(1.2 * 2.4 * 0.3)\n```"},
            ],
        },
    ):
        call(chat, "session.appendMessage", {"sessionId": sid, "message": message})
    target = tmp_path / "export.md"
    done = []
    export_dialog.run(chat.client, sid, "md", target, chat, done.append)
    spin_until(qloop, lambda: done)
    # rendered as a Markdown viewer shows it, each <details> opened (QTextBrowser has no <details>)
    import re

    from markdown_it import MarkdownIt

    page = MarkdownIt("commonmark", {"html": True}).render(target.read_text())
    page = re.sub(r"<summary>(.*?)</summary>", r"<p style='color:#555'><b>▾ \1</b></p>", page)
    page = page.replace("<pre>", "<pre style='background:#f3f4f6'>")
    view = QTextBrowser()
    view.resize(760, 760)
    view.setHtml(f"<div style='font-size:14px'>{page}</div>")
    view.grab().save(str(shots / "export-markdown.png"))
    assert (shots / "projects-sidebar.png").stat().st_size > 0


def test_the_export_dialog_is_deleted_once_closed(qtbot, chat):
    from shiboken6 import isValid

    dialog = export_dialog.ask(chat.client, {"id": "not-asked", "title": "Notes"}, chat)
    assert dialog.isVisible()
    dialog.reject()  # cancelled: nothing is written, and the dialog does not stay behind
    qtbot.waitUntil(lambda: not isValid(dialog))


def test_export_opens_in_the_home_folder_then_where_the_last_export_went(qtbot, qloop, chat, tmp_path, monkeypatch):
    import os
    from pathlib import Path

    from shiboken6 import isValid

    monkeypatch.chdir(tmp_path)  # the process's working folder means nothing to a person
    monkeypatch.setattr(export_dialog, "_last_folder", None)
    home = Path(os.environ["HOME"])
    sid = send(chat, qloop, "Something worth keeping")
    session = chat.model.session(sid)
    dialog = export_dialog.ask(chat.client, session, chat)
    assert Path(dialog.directory().absolutePath()) in (home, home / "Documents")
    assert Path(dialog.directory().absolutePath()).is_dir()
    target = tmp_path / "exports" / "kept.md"
    target.parent.mkdir()
    dialog.fileSelected.emit(str(target))
    spin_until(qloop, lambda: target.exists())
    dialog.reject()
    qtbot.waitUntil(lambda: not isValid(dialog))
    again = export_dialog.ask(chat.client, session, chat)
    assert Path(again.directory().absolutePath()) == target.parent
    again.reject()


def test_switching_chats_across_projects_does_not_read_every_project_again(chat, qloop, tmp_path):
    """Only the current project changes: the sidebar is not relaid out for it."""
    first, second = add_project(chat, qloop, tmp_path / "alpha"), add_project(chat, qloop, tmp_path / "beta")
    ids = [
        qloop.run_until_complete(chat.client.call("session.create", {"projectPath": project["path"]}))["session"]["id"]
        for project in (first, second)
    ]
    spin_until(qloop, lambda: all(chat.model.session(sid) for sid in ids))
    relaid = []
    real = chat.model.set_projects
    chat.model.set_projects = lambda *args: (relaid.append(1), real(*args))
    for sid, project in zip(ids, (first, second)):
        chat.sidebar.select(sid)
        spin_until(qloop, lambda wanted=project["id"]: chat.projects.current_id == wanted)
        qloop.run_until_complete(chat.client.call("workspace.get", {}))  # the host has sent its event by now
    spin_until(qloop, lambda: chat.projects.current()["id"] == second["id"])
    assert relaid == []


def test_ctrl_n_never_files_a_new_chat_under_a_missing_folder(chat, qloop, tmp_path):
    """An imported chat's project can name a folder that is not on this machine: Ctrl+N starts outside it."""
    gone = tmp_path / "elsewhere" / "imported"  # never made
    project = call(chat, "projects.upsert", {"path": str(gone)})["project"]
    call(chat, "workspace.set", {"projectId": project["id"]})  # as reading one of its chats (or a restart) leaves it
    qloop.run_until_complete(chat.projects.refresh())
    assert chat.projects.current_id == project["id"] and chat.projects.projects[project["id"]]["missing"]

    chat.new_chat_action.trigger()
    assert chat.current_session_id is None
    assert chat.project_picker.text().removesuffix(" ▾") == "No project"
    sid = send(chat, qloop, "Where does this one go?")
    assert call(chat, "session.get", {"sessionId": sid})["session"]["projectId"] is None
    assert call(chat, "workspace.get")["currentProjectId"] is None  # and it stays so after a restart


def test_adding_a_project_while_the_list_is_read_returns_once_the_reading_is_over(chat, qloop, tmp_path):
    """A refresh asked for while one runs waits for it: nothing read before lands after ``add_project``."""
    spawn(chat.projects.refresh(), name="projects-refresh")  # as a projects.changed event does
    relaid = []
    real = chat.model.set_projects
    chat.model.set_projects = lambda *args: (relaid.append(1), real(*args))
    project = qloop.run_until_complete(chat.projects.add_project(str(tmp_path / "gamma")))
    settled = len(relaid)
    assert settled >= 1 and project["id"] in chat.projects.projects
    spin_until(qloop, lambda: not chat.projects.refreshing)
    assert len(relaid) == settled  # no read still under way when add_project returned
