"""A streamed reply closes its HTTP response in the task that read it, under the app's Qt event loop.

The window runs asyncio on qasync, which installs no async-generator hooks:
a generator left half-read is finalised by the garbage collector wherever it
happens to run, and httpcore then prints ``Exception ignored ... RuntimeError``
(``async generator ignored GeneratorExit`` or ``Attempted to exit cancel scope
in a different task``) on the terminal after every reply. These tests read real
HTTP from the replay server in a fresh interpreter on a qasync loop, exactly as
the window does, and require a silent stderr.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.support.repo import REPO
from tests.support.sse_server import Script, chunk, fixture_bytes, split_every, sse_body

# Streams one reply the way TurnRunner does (through ImageFallback), under QCoreApplication + qasync.
# argv: base_url, how ("all" | "cancel" | "stop-early"); prints the number of events read.
READER = textwrap.dedent("""
    import asyncio, gc, sys
    from PySide6.QtCore import QCoreApplication
    import qasync
    from pidesktop.agent.openai_compat import OpenAICompatibleProvider
    from pidesktop.agent.errors import ProviderError
    from pidesktop.agent.turn import ImageFallback

    base_url, how = sys.argv[1], sys.argv[2]
    app = QCoreApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    HELLO = [{"id": "m1", "role": "user", "blocks": [{"type": "text", "text": "Hello"}]}]

    async def main():
        provider = OpenAICompatibleProvider(base_url=base_url, api_key=None, model="m", timeout=10)
        cancel = asyncio.Event()
        count = 0
        try:
            stream = ImageFallback().stream(provider, HELLO, cancel=cancel)
            try:
                async for _event in stream:
                    count += 1
                    if how == "cancel" and count == 2:
                        cancel.set()
                    if how == "stop-early" and count == 2:
                        break
            finally:
                await stream.aclose()
        except ProviderError as exc:
            print("error", exc.code)
        finally:
            await provider.aclose()
        gc.collect()
        await asyncio.sleep(0.1)  # the loop runs its close callbacks: a leaked transport would warn here
        print("events", count)

    with loop:
        loop.run_until_complete(main())
    gc.collect()
""")


def read_in_qt_loop(base_url: str, how: str = "all") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", READER, base_url, how], cwd=REPO, capture_output=True, text=True, timeout=60, env=_env()
    )


def _env() -> dict:
    import os

    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHONPATH"] = str(REPO)
    return env


def assert_silent(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 0, result.stderr
    assert "Exception ignored" not in result.stderr, result.stderr
    assert "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("framing", ["chunked", "length"])
def test_a_completed_recorded_reply_closes_its_stream_quietly(sse_server, framing):
    sse_server.stream(split_every(fixture_bytes("plain-text"), 50), framing=framing)
    result = read_in_qt_loop(sse_server.base_url)
    assert_silent(result)
    assert "events " in result.stdout and "events 0" not in result.stdout


def test_a_reply_the_person_stops_closes_its_stream_quietly(sse_server):
    body = sse_body(*(chunk(f"word{n} ") for n in range(20)), chunk(finish="stop"))
    sse_server.stream(split_every(body, 40), delay=0.05)
    result = read_in_qt_loop(sse_server.base_url, "cancel")
    assert_silent(result)


def test_a_reader_that_stops_early_closes_the_stream_quietly(sse_server):
    body = sse_body(*(chunk(f"word{n} ") for n in range(20)), chunk(finish="stop"))
    sse_server.stream(split_every(body, 40), delay=0.02)
    result = read_in_qt_loop(sse_server.base_url, "stop-early")
    assert_silent(result)


def test_a_reply_broken_mid_stream_closes_its_stream_quietly(sse_server):
    body = sse_body(chunk("Hello "), "this is not json", chunk(finish="stop"))
    sse_server.serve("/v1/chat/completions", Script(chunks=split_every(body, 30)))
    result = read_in_qt_loop(sse_server.base_url)
    assert_silent(result)
    assert "error bad_response" in result.stdout
