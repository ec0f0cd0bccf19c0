"""Running one ``bash`` call: streamed output, a timeout, and Stop, each ending the whole process group.

The command starts in a session of its own (``start_new_session``), so a
timeout or Stop kills it and every process it started with one ``killpg``;
under bwrap that kills the sandbox, whose process namespace takes the rest
with it. stdout and stderr arrive as one stream, in the order the command
wrote them, and each decoded piece goes to ``on_output`` as it is read.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pidesktop.agent import sandbox

DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 3600
KEEP_BYTES = 8 * 1024 * 1024  # what is kept of a flood of output, from its start and its end
CHUNK = 16 * 1024


@dataclass
class ShellRun:
    output: str
    exit_code: int | None
    timed_out: bool
    stopped: bool
    sandboxed: bool
    duration_ms: int


async def run(
    command: str,
    workspace: Path,
    *,
    timeout: float,
    cancel: asyncio.Event,
    on_output: Callable[[str], None] = lambda chunk: None,
    network: bool = True,
    confinement: sandbox.Status | None = None,
) -> ShellRun:
    confinement = confinement or sandbox.status()
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *sandbox.argv(command, workspace, network=network, sandbox=confinement),
        cwd=workspace,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    kept = _Kept()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    async def pump() -> None:
        assert process.stdout is not None
        while chunk := await process.stdout.read(CHUNK):
            text = decoder.decode(chunk)
            if text:
                kept.add(text)
                on_output(text)
        tail = decoder.decode(b"", final=True)
        if tail:
            kept.add(tail)
            on_output(tail)
        await process.wait()

    reading = asyncio.ensure_future(pump())
    stopping = asyncio.ensure_future(cancel.wait())
    timed_out = stopped = False
    try:
        done, _ = await asyncio.wait({reading, stopping}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if reading not in done:
            timed_out, stopped = not done, bool(done)
            _kill_group(process.pid)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(reading), 5)
    except BaseException:  # the turn itself was cancelled: leave nothing running
        _kill_group(process.pid)
        raise
    finally:
        stopping.cancel()
        if not reading.done():
            reading.cancel()
        if process.returncode is None:
            _kill_group(process.pid)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    return ShellRun(
        kept.text(),
        None if (timed_out or stopped) else process.returncode,
        timed_out,
        stopped,
        confinement.available,
        round((time.monotonic() - started) * 1000),
    )


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class _Kept:
    """The output, at most ``KEEP_BYTES`` of it: the start and the end, with a note where the middle was."""

    def __init__(self) -> None:
        self.head: list[str] = []
        self.head_size = 0
        self.tail: list[str] = []
        self.tail_size = 0
        self.dropped = 0

    def add(self, text: str) -> None:
        if self.head_size < KEEP_BYTES // 2:
            self.head.append(text)
            self.head_size += len(text)
            return
        self.tail.append(text)
        self.tail_size += len(text)
        while self.tail_size > KEEP_BYTES // 2 and len(self.tail) > 1:
            dropped = self.tail.pop(0)
            self.tail_size -= len(dropped)
            self.dropped += len(dropped)

    def text(self) -> str:
        middle = f"\n[... {self.dropped} characters of output left out ...]\n" if self.dropped else ""
        return "".join(self.head) + middle + "".join(self.tail)
