"""Settings > Data > Crash reports: says whether dumps are kept and removes them, through a real host."""

from PySide6.QtCore import Qt

from tests.support.waits import spin_until


def test_the_data_page_shows_kept_crash_reports_and_removes_them(qtbot, qloop, location, open_settings, shots):
    folder = location.data_root / "crash-dumps"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101T000000Z-11.txt").write_text("Fatal Python error: Segmentation fault\n")
    (folder / "20260102T000000Z-12.txt").write_text("Fatal Python error: Aborted\n")
    dialog = open_settings()
    dialog.show_page("Data")
    row = dialog.data.crash_reports
    spin_until(qloop, lambda: len(row.dumps) == 2)
    assert "2 crash reports, the newest from" in row.summary.text() and "never sent" in row.summary.text()
    assert row.isVisible() and row.remove_button.isVisible()
    dialog.grab().save(str(shots / "settings-data-crash-reports.png"))
    assert (location.data_root / "crash-dumps.json").exists()  # shown: marked as reported
    qtbot.mouseClick(row.remove_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: not row.dumps)
    assert list(folder.iterdir()) == []
    assert row.isHidden()  # nothing kept, nothing to say
