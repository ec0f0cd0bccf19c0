"""The Automations window and its editor (pytest-qt, a real host thread, the offline demo provider)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from pidesktop.agent.runner import TurnRunner
from pidesktop.agent.scheduler import Scheduler
from pidesktop.ui import theme as themes
from pidesktop.ui.automations import AutomationsDialog
from pidesktop.ui.automations_editor import TaskEditor

from .support.waits import spin_until


@pytest.fixture(autouse=True)
def berlin(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")


def test_the_editor_checks_as_you_type_and_keeps_what_was_typed(qtbot, shots):
    editor = TaskEditor()
    editor.resize(640, 440)
    qtbot.addWidget(editor)
    editor.show()
    saved = []
    editor.saveRequested.connect(saved.append)
    editor.load(None)
    editor.save()
    assert saved == [] and editor.errors["name"].isVisible() and editor.errors["prompt"].isVisible()
    qtbot.keyClicks(editor.name, "Standup notes")
    assert not editor.errors["name"].isVisible()
    editor.prompt.setPlainText("List yesterday's commits")
    editor.at.clear()
    qtbot.keyClicks(editor.at, "9:")  # could still become a time: no message while typing
    assert not editor.errors["schedule"].isVisible()
    qtbot.keyClicks(editor.at, "7x")
    assert editor.errors["schedule"].isVisible() and "HH:MM" in editor.errors["schedule"].text()
    editor.at.setText("09:15")
    editor.kind.setCurrentIndex(editor.kind.findData("weekly"))
    assert editor.days_row.isVisible()
    for box in editor.days:
        box.setChecked(False)
    assert "day" in editor.errors["schedule"].text()
    editor.grab().save(str(shots / "automations-editor-alone.png"))
    editor.days[2].setChecked(True)
    editor.mode.setCurrentIndex(editor.mode.findData("plan"))
    assert editor.mode_hint.isVisible()
    editor.save()
    assert saved == [
        {
            "name": "Standup notes",
            "prompt": "List yesterday's commits",
            "schedule": {"kind": "weekly", "at": "09:15", "days": [2]},
            "providerId": None,
            "modelId": None,
            "projectId": None,
            "mode": "plan",
            "enabled": True,
        }
    ]
    assert editor.name.text() == "Standup notes"  # nothing typed is thrown away


def test_the_page_creates_runs_and_opens_a_run_chat(qtbot, qloop, host_client, shots, keep_running):
    runner = TurnRunner(host_client, offline_delay=0.0, interactive=False)
    scheduler = Scheduler(host_client, runner)
    dialog = AutomationsDialog.ask(host_client, themes.LIGHT, scheduler.run_now)
    qtbot.addWidget(dialog)
    dialog.show()
    qloop.run_until_complete(dialog.loading)
    assert dialog.list_stack.currentWidget() is dialog.empty and not dialog.run_button.isEnabled()
    dialog.grab().save(str(shots / "automations-empty.png"))

    editor = dialog.editor
    editor.name.setText("Morning digest")
    editor.prompt.setPlainText("Summarise what changed in my projects since yesterday")
    editor.at.setText("7:30")  # wrong: the host is never asked
    editor.save()
    assert "HH:MM" in editor.errors["schedule"].text()
    qtbot.waitUntil(lambda: editor.errors["schedule"].isVisible())  # laid out before the picture
    dialog.grab().save(str(shots / "automations-editor.png"))
    spin_until(qloop, lambda: True)
    assert dialog.tasks == []
    editor.at.setText("07:30")
    editor.save()
    spin_until(qloop, lambda: len(dialog.tasks) == 1 and dialog.list.topLevelItemCount() == 1)
    task = dialog.tasks[0]
    assert (task["name"], task["schedule"]) == ("Morning digest", {"kind": "daily", "at": "07:30"})
    assert dialog.current_task_id() == task["id"] and dialog.run_button.isEnabled()
    assert dialog.list.topLevelItem(0).text(2) == "Never run"

    # a refusal from the host stands under the field it names
    qloop.run_until_complete(
        host_client.call(
            "tasks.create",
            {
                "name": "Weekly review",
                "prompt": "Review my week",
                "schedule": {"kind": "weekly", "days": [4], "at": "16:00"},
                "enabled": False,
            },
        )
    )
    spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 2)
    dialog._select_id(task["id"])
    editor.kind.setCurrentIndex(editor.kind.findData("once"))
    editor.once.setDateTime(editor.once.dateTime().addYears(-30))
    editor.save()
    assert editor.errors["schedule"].isVisible()

    editor.kind.setCurrentIndex(editor.kind.findData("daily"))
    dialog.run_now()
    spin_until(qloop, lambda: dialog.history.topLevelItemCount() == 1 and dialog.runs[0]["status"] == "completed")
    qloop.run_until_complete(scheduler.wait_idle())
    run = dialog.runs[0]
    assert dialog.history.topLevelItem(0).text(1) == "Done" and dialog.history.topLevelItem(0).text(2) == "Open chat"
    spin_until(qloop, lambda: dialog.list.topLevelItem(0).text(2) == "Done")
    opened = []
    dialog.openSession.connect(opened.append)
    item = dialog.history.topLevelItem(0)
    qtbot.mouseClick(
        dialog.history.viewport(),
        Qt.MouseButton.LeftButton,
        pos=dialog.history.visualItemRect(item)
        .center()
        .__class__(dialog.history.header().sectionPosition(2) + 10, dialog.history.visualItemRect(item).center().y()),
    )
    assert opened == [run["sessionId"]]
    dialog.grab().save(str(shots / "automations-page.png"))
    qloop.run_until_complete(scheduler.stop())


def test_the_main_window_opens_automations_and_a_run_chat(qtbot, qloop, chat, host_client, shots):
    chat.scheduler = Scheduler(host_client, TurnRunner(host_client, offline_delay=0.0, interactive=False))
    chat.scheduler.listeners.append(chat.tray.announce_run)
    task = qloop.run_until_complete(
        host_client.call(
            "tasks.create",
            {"name": "Inbox sweep", "prompt": "What is new?", "schedule": {"kind": "hourly", "everyHours": 4}},
        )
    )["task"]
    qtbot.mouseClick(chat.sidebar.automations_button, Qt.MouseButton.LeftButton)
    dialog = chat.automations_dialog
    qloop.run_until_complete(dialog.loading)
    chat.automations_action.trigger()  # one window at a time
    assert chat.automations_dialog is dialog
    spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 1)
    dialog._select_id(task["id"])
    dialog.run_now()
    spin_until(qloop, lambda: dialog.runs and dialog.runs[0]["status"] == "completed")
    run = dialog.runs[0]
    assert run["sessionId"] in chat.tray.automation_chats  # its inbox event is not told twice in the tray
    assert chat.model.session(run["sessionId"]) is None  # a run's chat is no row of the sidebar (spec 4.11)
    notes = qloop.run_until_complete(host_client.call("session.create", {"title": "Notes"}))["session"]
    spin_until(qloop, lambda: chat.model.session(notes["id"]) is not None)
    chat.sidebar.select(notes["id"])
    spin_until(qloop, lambda: chat.current_session_id == notes["id"])
    dialog.openSession.emit(run["sessionId"])  # the run history opens it by itself
    spin_until(qloop, lambda: chat.current_session_id == run["sessionId"])
    spin_until(
        qloop, lambda: chat.transcript_model.session_id == run["sessionId"] and chat.transcript_model.rowCount() >= 2
    )  # the prompt and the reply
    assert chat.header_title.text() == "Inbox sweep"
    assert not chat.sidebar.tree.currentIndex().isValid() and chat.model.session(run["sessionId"]) is None
    qloop.run_until_complete(chat.load_sessions())  # the list read again does not select the chat left before
    assert not chat.sidebar.tree.currentIndex().isValid() and chat.current_session_id == run["sessionId"]
    chat.grab().save(str(shots / "automations-run-chat.png"))
    qloop.run_until_complete(chat.scheduler.stop())


def test_run_times_read_in_iso_order_whatever_the_locale():
    import re

    from pidesktop.ui.automations import when

    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", when(1_764_579_600_000))
    assert when(None) == "—"
