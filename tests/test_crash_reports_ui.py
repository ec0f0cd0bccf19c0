"""Settings > Data > Crash reports: says whether dumps are kept and removes them, through a real host."""

from PySide6.QtCore import Qt

from .conftest import spin_until
from .test_settings_ui import client, open_settings  # noqa: F401  (fixtures)


def test_the_data_page_shows_kept_crash_reports_and_removes_them(qtbot, qloop, location, open_settings, shots):  # noqa: F811
    folder = location.data_root / "crash-dumps"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101T000000Z-11.txt").write_text("Fatal Python error: Segmentation fault\n")
    (folder / "20260102T000000Z-12.txt").write_text("Fatal Python error: Aborted\n")
    dialog = open_settings()
    dialog.show_page("Data")
    row = dialog.data.crash_reports
    spin_until(qloop, lambda: len(row.dumps) == 2)
    assert "2 crash reports are kept on this computer and never sent anywhere" in row.summary.text()
    assert row.remove_button.isVisible() and row.show_button.isVisible()
    dialog.resize(760, 640)
    dialog.grab().save(str(shots / "settings-data-crash-reports.png"))
    assert (location.data_root / "crash-dumps.json").exists()  # shown: marked as reported
    qtbot.mouseClick(row.remove_button, Qt.MouseButton.LeftButton)
    spin_until(qloop, lambda: not row.dumps)
    assert list(folder.iterdir()) == []
    assert "has not crashed" in row.summary.text()
    assert row.remove_button.isHidden()
