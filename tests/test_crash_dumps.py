"""Crash dumps (spec 004, section 2): faulthandler reports in crash-dumps/, listed and removed through the host."""

import os
import subprocess
import sys
import textwrap

from pidesktop import crash_dumps
from tests.support.hosts import InProcessHost


def run_python(code: str, data_root) -> subprocess.CompletedProcess:
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from pidesktop import crash_dumps
        crash_dumps.arm(Path({str(data_root)!r}))
        """
    ) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def test_a_fatal_error_leaves_a_report_and_a_clean_exit_leaves_nothing(tmp_path):
    assert run_python("print('fine')", tmp_path).returncode == 0
    assert list((tmp_path / "crash-dumps").iterdir()) == []

    crashed = run_python("import faulthandler; faulthandler._sigsegv()", tmp_path)
    assert crashed.returncode != 0
    [report] = crash_dumps.dumps(tmp_path)
    text = (tmp_path / "crash-dumps" / report["name"]).read_text()
    assert "Fatal Python error" in text and "Segmentation fault" in text
    assert "line" in text  # the stack of the crashing thread


def test_the_empty_file_of_a_killed_process_is_swept_and_a_live_ones_kept(tmp_path):
    folder = tmp_path / "crash-dumps"
    folder.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (folder / f"20260101T000000Z-{dead.stdout.strip()}.txt").write_text("")
    (folder / f"20260101T000000Z-{os.getppid()}.txt").write_text("")  # a running process's own file
    (folder / "20250101T000000Z-1.txt").write_text("Fatal Python error: Aborted\n")  # a real report stays
    crash_dumps.sweep_empty(folder)
    assert sorted(p.name for p in folder.iterdir()) == [
        "20250101T000000Z-1.txt",
        f"20260101T000000Z-{os.getppid()}.txt",
    ]


def test_the_host_lists_marks_and_removes_reports(location):
    folder = location.data_root / "crash-dumps"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20260101T000000Z-11.txt").write_text("Fatal Python error: Segmentation fault\n")
    os.utime(folder / "20260101T000000Z-11.txt", (1_700_000_000, 1_700_000_000))
    (folder / "20260102T000000Z-12.txt").write_text("Fatal Python error: Aborted\n")
    os.utime(folder / "20260102T000000Z-12.txt", (1_700_100_000, 1_700_100_000))
    host = InProcessHost(location)
    try:
        listed = host.call("data.crashDumps", {})
        assert [d["name"] for d in listed["dumps"]] == ["20260102T000000Z-12.txt", "20260101T000000Z-11.txt"]
        assert [d["new"] for d in listed["dumps"]] == [True, True]
        host.call("data.crashDumps", {"markReported": True})
        assert crash_dumps.last_reported(location.data_root) == 1_700_100_000
        assert [d["new"] for d in host.call("data.crashDumps", {})["dumps"]] == [False, False]
        removed = host.call("data.removeCrashDumps", {})
        assert removed == {"removed": 2, "dumps": []}
    finally:
        host.stop()
