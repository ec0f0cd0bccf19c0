"""Running one call to a workspace tool: ask when the mode says so, run it, give the model its result.

File tools run in the host (``tools.run``; see ``pidesktop.host.tools`` for
why). ``bash`` runs here, in ``shell``, streaming its output to the runner's
listeners as ``tool_output``; what it printed then goes to
``tools.recordShell`` to be cut and kept. Asking is ``permission_gate``'s, the
same for MCP tools: a call that is denied, or that nobody is there to approve,
is not run and the model reads why. Every result carries the host's audit
record (``tool_execute`` or ``tool_denied``), written with the stored result.

Stop while a card waits withdraws the card (the call keeps no result); Stop
while a command runs kills its process group and the result says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pidesktop.agent import permissions, sandbox, shell, tool_permission
from pidesktop.agent.permission_gate import Card, PermissionGate, Refusal
from pidesktop.agent.workspace_tools import BASH
from pidesktop.bus import HostError

Notify = Callable[[str, str, "dict[str, Any] | None"], None]


class Result:
    """What a workspace call returned: the text the model reads, ok or not, and details for the window."""

    def __init__(
        self,
        text: str,
        ok: bool,
        details: dict[str, Any] | None = None,
        *,
        denied: bool = False,
        audit: dict[str, Any] | None = None,
    ):
        self.text, self.ok, self.details = text, ok, details
        self.denied = denied  # not run: the person (or nobody there to ask) said no
        self.audit = audit  # the host's audit record of the call, stored with its result
        self.attachments: list[dict[str, Any]] = []  # pictures a read hands the model (stored attachment blocks)

    @classmethod
    def refused(cls, refusal: Refusal) -> Result:
        return cls(refusal.text, False, denied=True, audit=refusal.audit)


class WorkspaceCalls:
    def __init__(
        self,
        client: Any,
        session_id: str,
        turn_id: str,
        cancel: asyncio.Event,
        workspace: dict[str, Any],
        *,
        asker: permissions.Asker | None,
        notify: Notify,
        confirm_unconfined: bool = True,
    ):
        self.client = client
        self.session_id = session_id
        self.turn_id = turn_id
        self.cancel = cancel
        self.workspace = workspace  # ``tools.workspace``'s answer
        self._notify = notify
        self.confirm_unconfined = confirm_unconfined
        self.gate = PermissionGate(
            client,
            session_id,
            turn_id,
            cancel,
            asker=asker,
            notify=notify,
            workspace=str(workspace.get("workspace") or ""),
        )

    @property
    def mode(self) -> str:
        return str(self.workspace.get("permissionMode") or permissions.DEFAULT_MODE)

    async def run(self, call: dict[str, Any]) -> Result:
        tool, args = str(call.get("name")), call.get("args")
        assert isinstance(args, dict)
        call_id = str(call.get("callId") or "")
        try:
            if tool == BASH:
                return await self._bash(call_id, args)
            return await self._file_tool(tool, call_id, args)
        except HostError as exc:  # bad arguments and the like: the model reads the sentence and tries again
            return Result(f"{tool} failed: {exc.message}", False)

    # -- file tools (in the host) -------------------------------------------------------
    async def _file_tool(self, tool: str, call_id: str, args: dict[str, Any]) -> Result:
        if tool_permission.must_ask(self.mode, tool) and not await self.gate.allows(tool):
            card = await self._prepare(tool, args)
            if not card.get("ok", True):
                return Result(str(card.get("result")), False)  # e.g. oldText not found: nothing to ask about
            outside = bool(card.get("outsideWorkspace"))
            refused = await self.gate.ask(call_id, tool, args, _card(card, outside))
            return Result.refused(refused) if refused else await self._run_in_host(tool, call_id, args, outside)
        answer = await self._host_run(tool, call_id, args, allow_outside=False)
        if not answer.get("outsideWorkspace"):
            return self._result(answer)
        card = await self._prepare(tool, args)
        refused = await self.gate.ask(call_id, tool, args, _card(card, True))
        return Result.refused(refused) if refused else await self._run_in_host(tool, call_id, args, True)

    async def _run_in_host(self, tool: str, call_id: str, args: dict[str, Any], outside: bool) -> Result:
        return self._result(await self._host_run(tool, call_id, args, allow_outside=outside))

    async def _host_run(self, tool: str, call_id: str, args: dict[str, Any], *, allow_outside: bool) -> dict[str, Any]:
        params = {"sessionId": self.session_id, "turnId": self.turn_id, "callId": call_id, "tool": tool}
        answer: dict[str, Any] = await self.client.call(
            "tools.run", {**params, "args": args, "allowOutside": allow_outside}
        )
        return answer

    @staticmethod
    def _result(answer: dict[str, Any]) -> Result:
        result = Result(
            str(answer.get("result", "")), bool(answer.get("ok")), answer.get("details"), audit=answer.get("audit")
        )
        result.attachments = list(answer.get("attachments") or [])
        return result

    async def _prepare(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        card: dict[str, Any] = await self.client.call(
            "tools.prepare", {"sessionId": self.session_id, "tool": tool, "args": args}
        )
        return card

    # -- bash (here) --------------------------------------------------------------------
    async def _bash(self, call_id: str, args: dict[str, Any]) -> Result:
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            return Result("bash needs 'command': the command line to run, as a string.", False)
        timeout = args.get("timeout", shell.DEFAULT_TIMEOUT_S)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= shell.MAX_TIMEOUT_S:
            return Result(f"bash 'timeout' must be a number of seconds from 1 to {shell.MAX_TIMEOUT_S}.", False)
        # The first call of a process starts bwrap once to see that it works: never on the window's thread.
        confinement = await asyncio.to_thread(sandbox.status)
        unconfined = not confinement.available
        if tool_permission.must_ask(self.mode, BASH, unconfined=unconfined, confirmed=not self.confirm_unconfined):
            grants = await self.gate.grants()
            confirmed = grants["unconfined"] or not self.confirm_unconfined
            granted = BASH in grants["tools"] and (confirmed or not unconfined)
            if not granted and tool_permission.must_ask(self.mode, BASH, unconfined=unconfined, confirmed=confirmed):
                first = command.strip().splitlines()[0]
                card = Card(f"Run {first[:120]}", command, unconfined=unconfined)
                refused = await self.gate.ask(call_id, BASH, args, card)
                if refused is not None:
                    return Result.refused(refused)

        def stream(chunk: str) -> None:
            self._notify(
                self.session_id,
                "tool_output",
                {"turnId": self.turn_id, "callId": call_id, "tool": BASH, "chunk": chunk},
            )

        ran = await shell.run(
            command,
            Path(str(self.workspace["workspace"])),
            timeout=float(timeout),
            cancel=self.cancel,
            on_output=stream,
            network=bool(self.workspace.get("sandboxNetwork", True)),
            confinement=confinement,
        )
        recorded = await self.client.call(
            "tools.recordShell",
            {
                "sessionId": self.session_id,
                "turnId": self.turn_id,
                "callId": call_id,
                "command": command,
                "output": ran.output,
                "exitCode": ran.exit_code,
                "timedOut": ran.timed_out,
                "stopped": ran.stopped,
                "sandboxed": ran.sandboxed,
                "timeoutSeconds": int(timeout),
            },
        )
        details = {"exitCode": ran.exit_code, "sandboxed": ran.sandboxed, "durationMs": ran.duration_ms}
        return Result(str(recorded["result"]), bool(recorded["ok"]), {"bash": details}, audit=recorded.get("audit"))


def _card(prepared: dict[str, Any], outside: bool) -> Card:
    """A permission card from ``tools.prepare``'s answer."""
    return Card(str(prepared.get("title") or ""), str(prepared.get("detail") or ""), outside=outside)
