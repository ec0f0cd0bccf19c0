"""``python -m pidesktop ...`` run to its end in a subprocess, from the checkout, with the test's environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.repo import REPO


def run_cli(
    *args: str, env: dict | None = None, timeout: float = 120, input: str | None = None
) -> subprocess.CompletedProcess:
    """``pidesktop *args``; ``env`` adds to (or overrides) the test's environment. Text output, captured."""
    return subprocess.run(
        [sys.executable, "-m", "pidesktop", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
        env={**os.environ, **(env or {})},
    )


def chat_cli(
    data_dir: Path, *args: str, env: dict | None = None, timeout: float = 120, input: str | None = None
) -> subprocess.CompletedProcess:
    """``pidesktop chat --data-dir data_dir *args``: the headless chat."""
    return run_cli("chat", "--data-dir", str(data_dir), *args, env=env, timeout=timeout, input=input)
