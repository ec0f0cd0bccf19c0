"""The Automations window and its editor (pytest-qt, a real host thread, the offline demo provider)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from shiboken6 import isValid

from pidesktop.agent.runner import TurnRunner
from pidesktop.agent.scheduler import Scheduler
from pidesktop.ui.automations.automations import AutomationsDialog
from pidesktop.ui.automations.automations_editor import TaskEditor
from pidesktop.ui.kit import theme as themes
from tests.support.waits import spin_until


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
            "thinkingLevel": None,
            "projectId": None,
            "workspacePath": None,
            "sessionMode": "perRun",
            "mode": "plan",
            "permissionMode": None,  # the default: a scheduled run asks first
            "enabled": True,
        }
    ]
    assert editor.name.text() == "Standup notes"  # nothing typed is thrown away


def test_the_editor_sets_interval_thinking_folder_and_chat_reuse(qtbot, shots):
    editor = TaskEditor()
    editor.resize(640, 520)
    qtbot.addWidget(editor)
    editor.show()
    saved = []
    editor.saveRequested.connect(saved.append)
    editor.load(
        {
            "name": "Build watch",
            "prompt": "Is the build green?",
            "schedule": {"kind": "interval", "intervalMinutes": 45},
            "thinkingLevel": "high",
            "workspacePath": "/srv/site",
            "sessionMode": "reuse",
            "permissionMode": "accept-edits",
            "enabled": True,
        }
    )
    assert editor.minutes.isVisible() and editor.minutes.value() == 45
    assert editor.permission.currentText() == "Allow file edits" and editor.permission_hint.isVisible()
    editor.permission.setCurrentIndex(editor.permission.findData("auto"))
    assert not editor.permission_hint.isVisible()  # nothing is skipped when everything is allowed
    assert editor.folder.isVisible() and editor.folder.text() == "/srv/site"
    editor.folder.setText("site")
    editor.save()
    assert saved == [] and "full path" in editor.errors["project"].text()
    editor.folder.setText("/srv/site2")
    assert not editor.errors["project"].isVisible()
    editor.grab().save(str(shots / "automations-editor-interval.png"))
    editor.save()
    fields = saved[-1]
    assert fields["schedule"] == {"kind": "interval", "intervalMinutes": 45}
    assert (fields["thinkingLevel"], fields["workspacePath"], fields["sessionMode"]) == ("high", "/srv/site2", "reuse")
    assert fields["permissionMode"] == "auto"


def test_the_page_creates_runs_and_opens_a_run_chat(qtbot, qloop, host_client, shots, keep_running):
    runner = TurnRunner(host_client, offline_delay=0.0, interactive=False)
    scheduler = Scheduler(host_client, runner)
    dialog = AutomationsDialog.ask(host_client, themes.LIGHT, scheduler.run_now)
    qtbot.addWidget(dialog)
    dialog.show()
    qloop.run_until_complete(dialog.loading)
    assert dialog.list_stack.currentWidget() is dialog.empty
    assert dialog.run_button.isEnabled() and dialog.run_button.text().replace("&", "") == "Save and run now"
    assert not dialog.delete_button.isEnabled()  # nothing to delete yet
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
    editor.permission.setCurrentIndex(editor.permission.findData("accept-edits"))
    editor.save()
    # saving selects the new automation once its own refresh is done; the tasks.changed event's refresh,
    # which lists it without choosing it, may come first
    spin_until(qloop, lambda: len(dialog.tasks) == 1 and dialog.current_task_id() is not None)
    task = dialog.tasks[0]
    assert dialog.list.topLevelItemCount() == 1
    assert (task["name"], task["schedule"]) == ("Morning digest", {"kind": "daily", "at": "07:30"})
    assert task["permissionMode"] == "accept-edits"
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
    run_chat = qloop.run_until_complete(host_client.call("session.get", {"sessionId": run["sessionId"]}))
    assert run_chat["session"]["permissionMode"] == "accept-edits"  # the task's own, not the default
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

    # Ctrl+K finds it again with the "Automation runs" filter, marked as a run; choosing it opens it
    chat.sidebar.select(notes["id"])
    spin_until(qloop, lambda: chat.current_session_id == notes["id"])
    chat.search_action.trigger()
    search = chat.search_dialog
    search.field.setText("What is new")
    qloop.run_until_complete(search.model.search(search.field.text()))
    assert search.model.rows == []  # not among the chats by default
    search.runs_filter.setChecked(True)
    spin_until(qloop, lambda: [r["sessionId"] for r in search.model.rows] == [run["sessionId"]])
    assert search.model.rows[0]["automationRun"] is True
    search.grab().save(str(shots / "search-automation-runs.png"))
    search.choose_current()
    spin_until(qloop, lambda: chat.current_session_id == run["sessionId"])
    assert chat.header_title.text() == "Inbox sweep"
    qloop.run_until_complete(chat.scheduler.stop())


def test_run_now_saves_a_new_automation_first_and_says_why_it_cannot_run(qtbot, qloop, host_client, keep_running):
    runner = TurnRunner(host_client, offline_delay=0.0, interactive=False)
    scheduler = Scheduler(host_client, runner)
    dialog = AutomationsDialog.ask(host_client, themes.LIGHT, scheduler.run_now)
    qtbot.addWidget(dialog)
    dialog.show()
    qloop.run_until_complete(dialog.loading)
    dialog.run_button.click()  # nothing typed yet: the fields say what is missing, nothing is saved
    assert dialog.editor.errors["name"].isVisible() and dialog.tasks == []
    dialog.editor.name.setText("Tidy downloads")
    dialog.editor.prompt.setPlainText("List what is old in Downloads")
    dialog.run_button.click()
    spin_until(qloop, lambda: dialog.runs and dialog.runs[0]["status"] == "completed")
    assert [t["name"] for t in dialog.tasks] == ["Tidy downloads"]
    assert dialog.run_button.text().replace("&", "") == "Run now" and dialog.run_button.isEnabled()
    qloop.run_until_complete(scheduler.wait_idle())
    qloop.run_until_complete(scheduler.stop())

    without = AutomationsDialog.ask(host_client, themes.LIGHT, None)  # no scheduler: says so rather than greying out
    qtbot.addWidget(without)
    qloop.run_until_complete(without.loading)
    assert not without.run_button.isEnabled() and "window is open" in without.run_button.toolTip()


def test_text_typed_in_the_form_is_never_lost_without_a_question(qtbot, qloop, host_client, keep_running):
    def opened():
        dialog = AutomationsDialog.ask(host_client, themes.LIGHT, None)  # deleted when it closes
        dialog.show()
        qloop.run_until_complete(dialog.loading)
        return dialog

    def answer(dialog, text):
        question = spin_until(qloop, lambda: dialog.question)
        next(b for b in question.buttons() if b.text() == text).click()
        spin_until(qloop, lambda: not isValid(dialog) or dialog.question is None)

    dialog = opened()
    editor = dialog.editor
    qtbot.keyClicks(editor.name, "Weekly pears")
    editor.prompt.setPlainText("Summarise the pear market")
    dialog.reject()  # Esc or the window's x
    assert spin_until(qloop, lambda: dialog.question).text() == "Save your new automation?"
    answer(dialog, "Keep editing")
    assert dialog.isVisible() and editor.name.text() == "Weekly pears"
    dialog.reject()
    answer(dialog, "Save")  # stored, then closed
    spin_until(qloop, lambda: not isValid(dialog) or not dialog.isVisible())
    [task] = host_client.call_blocking("tasks.list")["tasks"]
    assert (task["name"], task["prompt"]) == ("Weekly pears", "Summarise the pear market")

    dialog = opened()
    editor = dialog.editor
    dialog.list.setCurrentItem(dialog.list.topLevelItem(0))
    editor.prompt.setPlainText("Summarise the apple market")
    dialog.new_button.click()  # another automation while this one's text is not saved: asked first
    assert spin_until(qloop, lambda: dialog.question).text() == "Save your changes to “Weekly pears”?"
    answer(dialog, "Keep editing")
    assert editor.prompt.toPlainText() == "Summarise the apple market" and dialog.current_task_id() == task["id"]
    dialog.new_button.click()
    answer(dialog, "Discard")
    assert editor.task is None and editor.name.text() == "" and not editor.unsaved()
    assert host_client.call_blocking("tasks.list")["tasks"][0]["prompt"] == "Summarise the pear market"

    qtbot.keyClicks(editor.name, "Second")  # a new one half typed, then the first picked in the list
    dialog.list.setCurrentItem(dialog.list.topLevelItem(0))
    answer(dialog, "Keep editing")
    assert dialog.current_task_id() is None and editor.name.text() == "Second"
    dialog.list.setCurrentItem(dialog.list.topLevelItem(0))
    answer(dialog, "Discard")
    assert dialog.current_task_id() == task["id"] and editor.name.text() == "Weekly pears"
    dialog.reject()  # nothing typed since: closes at once
    assert not isValid(dialog) or (dialog.question is None and not dialog.isVisible())


def test_run_times_read_in_iso_order_whatever_the_locale():
    import re

    from pidesktop.ui.automations.automations import when

    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", when(1_764_579_600_000))
    assert when(None) == "—"


def test_the_list_shows_whole_names_in_the_dark_theme(qtbot, qloop, host_client, shots):
    from PySide6.QtWidgets import QApplication

    for name in ("Quick test automation", "Weekly dependency review"):
        qloop.run_until_complete(
            host_client.call(
                "tasks.create", {"name": name, "prompt": "Hi", "schedule": {"kind": "daily", "at": "09:00"}}
            )
        )
    themes.apply(QApplication.instance(), themes.DARK)
    try:
        dialog = AutomationsDialog.ask(host_client, themes.DARK, None)
        qtbot.addWidget(dialog)
        dialog.show()
        qloop.run_until_complete(dialog.loading)
        spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 2)
        qtbot.waitUntil(lambda: dialog.list.header().sectionSize(0) > 0)
        metrics = dialog.list.fontMetrics()
        for row in range(2):
            item = dialog.list.topLevelItem(row)
            assert metrics.horizontalAdvance(item.text(0)) + 16 <= dialog.list.header().sectionSize(0), item.text(0)
            assert item.toolTip(0) == item.text(0)
        dialog.grab().save(str(shots / "automations-list-dark.png"))
    finally:
        themes.apply(QApplication.instance(), themes.LIGHT)


def test_an_automation_armed_on_another_computer_says_which(
    qtbot, qloop, loop_hosts, location, bucket, tmp_path, shots
):
    from tests.test_config_sync import Machine, connection

    desk = Machine(tmp_path / "desk")
    try:
        desk.call("sync.configure", connection(bucket, machineName="Desk"))
        desk.call("tasks.create", {"name": "News", "prompt": "Summarise", "schedule": {"kind": "daily", "at": "09:00"}})
        desk.call("sync.run")
    finally:
        desk.close()
    laptop = Machine(location.data_root)
    try:
        laptop.call("sync.configure", connection(bucket, machineName="Laptop"))
        laptop.call("sync.run")
    finally:
        laptop.close()

    dialog = AutomationsDialog.ask(loop_hosts.start(), themes.LIGHT, None)
    qtbot.addWidget(dialog)
    dialog.show()
    qloop.run_until_complete(dialog.loading)
    spin_until(qloop, lambda: dialog.list.topLevelItemCount() == 1)
    item = dialog.list.topLevelItem(0)
    assert (item.text(0), item.text(1)) == ("News", "Runs on Desk")
    assert "Turned on on Desk" in item.toolTip(1) and "moves it to this one" in item.toolTip(1)
    dialog.grab().save(str(shots / "automations-armed-elsewhere.png"))


def test_a_run_cut_off_by_a_quit_says_so_in_the_history(qtbot, qloop, loop_hosts, location, shots):
    from pidesktop.clock import now_ms
    from tests.support.hosts import InProcessHost

    before = InProcessHost(location)
    task = before.call(
        "tasks.create", {"name": "Morning news", "prompt": "Summarise", "schedule": {"kind": "daily", "at": "09:00"}}
    )["task"]
    before.call("tasks.startRun", {"taskId": task["id"], "manual": True, "now": now_ms()})
    before.stop()  # pidesktop quits while the run is running; the next start's boot pass ends it
    dialog = AutomationsDialog.ask(loop_hosts.start(), themes.LIGHT, lambda task_id: None)
    qtbot.addWidget(dialog)
    dialog.resize(900, 560)
    dialog.show()
    qloop.run_until_complete(dialog.loading)
    dialog.list.setCurrentItem(dialog.list.topLevelItem(0))
    spin_until(qloop, lambda: dialog.history.topLevelItemCount() == 1)
    assert dialog.list.topLevelItem(0).text(2) == "Stopped"
    assert dialog.history.topLevelItem(0).text(1) == "Stopped: pidesktop quit while it ran."
    dialog.grab().save(str(shots / "automations-interrupted-run.png"))
    assert dialog.status_text({"status": "aborted", "errorCode": None}) == "Stopped"
    failed = {"status": "error", "errorCode": "rate_limited"}
    assert dialog.status_text(failed).startswith("Failed: ") and "rate_limited" not in dialog.status_text(failed)
