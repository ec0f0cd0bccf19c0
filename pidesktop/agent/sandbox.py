"""Where ``bash`` commands run: inside bubblewrap when it is installed and works, else unconfined.

Under ``bwrap`` the workspace is mounted read-write at its own path (so paths
in the output are the ones the person sees), ``/tmp`` is private and empty,
everything else is read-only, the command gets its own process namespace
(killing the sandbox kills everything it started) and, when the
``sandboxNetwork`` setting is off, no network. Without bwrap a command runs
with the person's own rights; ``status()`` says so, for Settings and for the
confirmation ``auto`` asks once.

``PIDESKTOP_NO_SANDBOX=1`` forces the unconfined path (tests, and a person
whose system refuses the namespaces bwrap needs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

FORCE_OFF = "PIDESKTOP_NO_SANDBOX"
# bwrap path -> None when it works, else why not: a fact of this machine, so shared by every host and runner
_probed: dict[str, str | None] = {}


@dataclass(frozen=True)
class Status:
    available: bool
    path: str | None  # the bwrap binary
    reason: str  # a sentence for Settings: what protects commands, or why nothing does


def status() -> Status:
    if os.environ.get(FORCE_OFF) == "1":
        return Status(False, None, "Commands run unconfined: the sandbox is turned off (PIDESKTOP_NO_SANDBOX=1).")
    path = shutil.which("bwrap")
    if path is None:
        return Status(
            False,
            None,
            "Commands run unconfined, with your full rights: bubblewrap is not installed "
            "(Debian and Ubuntu: sudo apt install bubblewrap).",
        )
    if path not in _probed:
        _probed[path] = _probe(path)
    failure = _probed[path]
    if failure is not None:
        return Status(False, path, f"Commands run unconfined: bubblewrap is installed but cannot start ({failure}).")
    return Status(True, path, "Commands run in a sandbox: only the project folder can be changed.")


def _probe(path: str) -> str | None:
    try:
        done = subprocess.run(
            [path, "--ro-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--", "true"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if done.returncode == 0 else done.stderr.decode(errors="replace").strip()[:200] or "exit status"


def shell() -> str:
    return shutil.which("bash") or "/bin/sh"


def argv(command: str, workspace: Path, *, network: bool, sandbox: Status) -> list[str]:
    """The process to start for ``command`` run in ``workspace``."""
    if not sandbox.available or sandbox.path is None:
        return [shell(), "-c", command]
    ws = str(workspace)
    confined = [sandbox.path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    confined += ["--bind", ws, ws, "--unshare-pid", "--die-with-parent", "--new-session", "--chdir", ws]
    if not network:
        confined.append("--unshare-net")
    return [*confined, "--", shell(), "-c", command]
