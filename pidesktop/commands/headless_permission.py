"""``pidesktop chat --interactive``: a tool call that needs permission is asked about on stdin.

The request (what will happen, the diff or the command) goes to stderr; the
answer is one line: ``y`` allows once, ``a`` allows for the rest of the run,
``n`` (optionally followed by a reason the model reads) denies. End of input
denies. stdin is read on a daemon thread, so Ctrl+C (which stops the turn and
withdraws the question) never waits for a line that will not come.
"""

from __future__ import annotations

import asyncio
import sys
import threading

from pidesktop.agent.permissions import Answer, Decision, PermissionRequest

PROMPT = "Allow? y = once, a = for this chat (kept), n [reason] = deny: "


async def ask_on_stdin(request: PermissionRequest) -> Answer:
    sys.stderr.write(f"\n--- {request.title} ---\n")
    if request.outside_workspace:
        sys.stderr.write(f"This is outside the project folder ({request.workspace}).\n")
    if request.unconfined:
        sys.stderr.write("Commands run unconfined: no sandbox (bubblewrap) is available.\n")
    if request.detail:
        sys.stderr.write(request.detail.rstrip("\n") + "\n---\n")
    while True:
        sys.stderr.write(PROMPT)
        sys.stderr.flush()
        line = await _read_line()
        if not line:
            return Answer(Decision.DENY, "No answer was given (end of input).")
        answer = line.strip()
        word, _, rest = answer.partition(" ")
        if word.lower() in ("y", "yes"):
            return Answer(Decision.ALLOW_ONCE)
        if word.lower() in ("a", "always") and not request.outside_workspace:
            return Answer(Decision.ALLOW_FOR_CHAT)
        if word.lower() in ("n", "no"):
            return Answer(Decision.DENY, rest.strip() or None)
        sys.stderr.write("Type y, a or n (a path outside the project can only be allowed once).\n")


async def _read_line() -> str:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def read() -> None:
        line = sys.stdin.readline()

        def deliver() -> None:
            if not future.done():  # the wait may have been cancelled meanwhile
                future.set_result(line)

        loop.call_soon_threadsafe(deliver)

    threading.Thread(target=read, name="stdin-permission", daemon=True).start()
    return await future
