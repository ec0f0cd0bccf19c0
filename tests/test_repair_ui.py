"""Settings > Data > Repair: the dialog runs ``data.repair`` on a real host and says what it did.

A real host thread on real files: a sound database with a line the index
missed, and a database with a page of ``messages`` overwritten with garbage.
"""

from __future__ import annotations

import pytest

from pidesktop.ui.data.repair_dialog import RepairDialog
from pidesktop.ui.data.settings_data import DataPage
from tests.support.hosts import InProcessHost
from tests.support.waits import spin_until
from tests.test_repair import damage

pytestmark = pytest.mark.usefixtures("keep_running")  # the dialog deletes itself on close


def seed(location) -> list[str]:
    host = InProcessHost(location)
    try:
        host.call("settings.set", {"patch": {"theme": "dark"}})
        host.call("providers.upsert", {"provider": {"id": "acme", "name": "Acme", "baseUrl": "https://a.example/v1"}})
        sids = []
        for title in ("Trip to Kyoto", "Groceries"):
            sid = host.call("session.create", {"title": title})["session"]["id"]
            message = {"id": f"{sid[:6]}-u", "role": "user", "blocks": [{"type": "text", "text": f"about {title}"}]}
            host.call("session.appendMessage", {"sessionId": sid, "message": message})
            sids.append(sid)
        return sids
    finally:
        host.stop()


def finished(qloop, dialog: RepairDialog) -> None:
    spin_until(qloop, lambda: dialog.report.isVisible() and not dialog.busy.isVisible())


def test_repair_on_a_sound_database_adds_what_the_index_missed(qtbot, qloop, loop_hosts, location, theme, shot):
    (sid, _) = seed(location)
    client = loop_hosts.start()
    qloop.run_until_complete(client.call("session.list", {}))  # started: its own reconcile has run
    line = b'{"type":"message","id":"late","role":"user","blocks":[{"type":"text","text":"written by hand"}]}\n'
    with open(location.data_root / "sessions" / f"{sid}.jsonl", "ab") as transcript:
        transcript.write(line)  # what a commit lost to a full disk leaves behind
    page = DataPage(client)
    qtbot.addWidget(page)
    dialog = page.open_repair()
    assert not dialog.report.isVisible() and dialog.repair_button.isEnabled()  # nothing runs until asked
    shot(dialog, f"repair-ready-{theme.name}")
    dialog.repair_button.click()
    assert dialog.phase.text() == "Checking the database…"
    spin_until(qloop, lambda: not dialog.repair_button.isEnabled() or dialog.report.isVisible())
    finished(qloop, dialog)
    assert dialog.report.text() == ("The database is sound. A message missing from the chat and from search was added.")
    assert not dialog.details_button.isVisible() and dialog.repair_button.isEnabled()
    shot(dialog, f"repair-sound-{theme.name}")
    dialog.repair_button.click()  # a second time: nothing left to do
    spin_until(qloop, lambda: dialog.report.text() == "The database is sound. Nothing needed repair.")
    dialog.close()


def test_repair_rebuilds_a_damaged_database_and_keeps_the_details_aside(
    qtbot, qloop, loop_hosts, location, theme, shot
):
    seed(location)
    damage(location.data_root, "messages")
    client = loop_hosts.start()
    dialog = RepairDialog(client)
    dialog.open()
    dialog.repair_button.click()
    finished(qloop, dialog)
    text = dialog.report.text()
    assert text.startswith("The database was damaged and has been rebuilt from your chat files: 2 chats came back.")
    assert "Recovered from the damaged copy: settings, providers" in text
    assert "pi.sqlite.damaged-" not in text and "malformed" not in text  # codes and paths stay behind Details
    assert dialog.details_button.isVisible() and not dialog.details.isVisible()
    shot(dialog, f"repair-rebuilt-{theme.name}")
    dialog.details_button.click()
    assert dialog.details.isVisible() and "pi.sqlite.damaged-" in dialog.details.text()
    shot(dialog, f"repair-rebuilt-details-{theme.name}")
    listed = qloop.run_until_complete(client.call("session.list", {}))["sessions"]
    assert sorted(s["title"] for s in listed) == ["Groceries", "Trip to Kyoto"]
    dialog.close()


def test_the_window_lists_a_chat_the_repair_brought_back(qtbot, qloop, loop_hosts, location):
    from tests.support.windows import started_window

    (sid, _) = seed(location)
    win = started_window(qtbot, qloop, loop_hosts.start(), size=None)
    assert win.model.find(sid) is not None
    lost = "11111111-2222-3333-4444-555555555555"  # a chat file the index has never seen, as a lost row leaves it
    sessions = location.data_root / "sessions"
    (sessions / f"{lost}.jsonl").write_bytes(
        (sessions / f"{sid}.jsonl").read_bytes().replace(sid.encode(), lost.encode())
    )
    assert win.model.find(lost) is None
    dialog = RepairDialog(win.client)
    dialog.open()
    dialog.repair_button.click()
    finished(qloop, dialog)
    assert dialog.report.text() == "The database is sound. A chat came back from its file."
    spin_until(qloop, lambda: win.model.find(lost) is not None)  # data.repaired: the list is read again
    dialog.close()
    win.close()


def test_a_failed_repair_says_what_to_do_and_keeps_the_reason_behind_details(qtbot, loop_hosts, theme, shot):
    from pidesktop.bus import ErrorCode, HostError

    dialog = RepairDialog(loop_hosts.start())
    qtbot.addWidget(dialog)
    dialog.show()
    reason = "integrity_check: *** in database main *** Tree 46 page 46: btreeInitPage() returns error code 11"
    dialog.failed(
        HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            "The database is damaged and could not be rebuilt now. Restart pidesktop: it rebuilds the "
            "database from your chat files when it starts.",
            {"reason": reason, "damaged": True, "error": "[Errno 28] No space left on device"},
        )
    )
    assert dialog.report.text().startswith("The database is damaged and could not be rebuilt now. Restart pidesktop")
    assert "btreeInitPage" not in dialog.report.text() and not dialog.details.isVisible()
    dialog.details_button.click()
    assert "STORAGE_UNAVAILABLE" in dialog.details.text() and "btreeInitPage" in dialog.details.text()
    assert "Errno 28" in dialog.details.text() and "Errno" not in dialog.report.text()
    shot(dialog, f"repair-failed-{theme.name}")
