"""Starting the test MCP server (``tests/support/mcp_server.py``) over stdio or streamable HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SERVER = Path(__file__).parent / "support" / "mcp_server.py"


def stdio_params(name="t", **extra):
    """``mcp.add`` params for the test server over stdio."""
    return {"name": name, "command": sys.executable, "args": [str(SERVER), "stdio"], **extra}


class HttpServer:
    """The test server over streamable HTTP on 127.0.0.1, in its own process."""

    def __init__(self, env: dict | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), "http"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
            text=True,
        )
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"the test MCP server did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/mcp"

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone: it no longer runs anything)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
