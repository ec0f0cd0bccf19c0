"""``pidesktop import``: the one-line summary, idempotence, failures and exit codes, in a real process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.test_import_readers import CLAUDE, CODEX


def pidesktop(home: Path, data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home), "PI_DESKTOP_DATA_DIR": str(data), "XDG_CONFIG_HOME": str(home / ".c")}
    for moved in ("PI_CODING_AGENT_DIR", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        env.pop(moved, None)
    return subprocess.run(
        [sys.executable, "-m", "pidesktop", "import", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_import_prints_the_counts_and_a_second_run_changes_nothing(tmp_path):
    home = tmp_path / "home"
    projects = home / ".claude" / "projects" / "-tmp"
    projects.mkdir(parents=True)
    for name in ("representative_messages.jsonl", "326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl"):
        shutil.copy(CLAUDE / name, projects / name)
    (projects / "broken.jsonl").write_bytes(b"not a session\n")
    data = tmp_path / "data"
    first = pidesktop(home, data, "claude-code")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "imported 2, updated 0, unchanged 0, failed 1"
    assert "broken.jsonl" in first.stderr
    second = pidesktop(home, data, "claude-code")
    assert second.stdout.strip() == "imported 0, updated 0, unchanged 2, failed 1"
    assert second.returncode == 0


def test_import_of_named_paths_and_the_exit_status_when_nothing_can_be_read(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    data = tmp_path / "data"
    codex = pidesktop(home, data, "codex", str(next(CODEX.glob("*.jsonl"))))
    assert (codex.returncode, codex.stdout.strip()) == (0, "imported 1, updated 0, unchanged 0, failed 0")
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00\x01\x02\n")
    failed = pidesktop(home, data, "pi", str(junk))
    assert failed.returncode == 1 and failed.stdout.strip() == "imported 0, updated 0, unchanged 0, failed 1"
    nothing = pidesktop(home, data, "pi")
    assert nothing.returncode == 1 and "found no pi sessions" in nothing.stderr
    missing = pidesktop(home, data, "codex", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
