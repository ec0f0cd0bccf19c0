"""Running one call to a workspace tool: ask when the mode says so, run it, give the model its result.

File tools run in the host (``tools.run``; see ``pidesktop.host.tools`` for
why). ``bash`` runs here, in ``shell``, streaming its output to the runner's
listeners as ``tool_output``; what it printed then goes to
``tools.recordShell`` to be cut, kept and audited. A call that is denied, or
that nobody is there to approve, is not run: it is audited by ``tools.deny``
and the model reads why.

Stop while a card waits withdraws the card (the call keeps no result); Stop
while a command runs kills its process group and the result says so.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pidesktop.agent import permissions, sandbox, shell, tool_permission
from pidesktop.agent.permissions import Answer, Decision, PermissionRequest
from pidesktop.agent.stopping import unless_stopped
from pidesktop.agent.workspace_tools import BASH
from pidesktop.bus import HostError

Notify = Callable[[str, str, "dict[str, Any] | None"], None]


class Result:
    """What a workspace call returned: the text the model reads, ok or not, and details for the window."""

    def __init__(self, text: str, ok: bool, details: dict[str, Any] | None = None, *, denied: bool = False):
        self.text, self.ok, self.details = text, ok, details
        self.denied = denied  # not run: the person (or nobody there to ask) said no
        self.attachments: list[dict[str, Any]] = []  # pictures a read hands the model (stored attachment blocks)


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
        grants: tool_permission.Grants,
        notify: Notify,
        confirm_unconfined: bool = True,
    ):
        self.client = client
        self.session_id = session_id
        self.turn_id = turn_id
        self.cancel = cancel
        self.workspace = workspace  # ``tools.workspace``'s answer
        self.asker = asker
        self.grants = grants
        self._notify = notify
        self.confirm_unconfined = confirm_unconfined

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
        granted = self.grants.allows(self.session_id, tool)
        if not granted and tool_permission.must_ask(self.mode, tool):
            card = await self._prepare(tool, args)
            if not card.get("ok", True):
                return Result(str(card.get("result")), False)  # e.g. oldText not found: nothing to ask about
            outside = bool(card.get("outsideWorkspace"))
            refused = await self._refused(tool, call_id, args, card, outside)
            return refused or await self._run_in_host(tool, call_id, args, outside)
        answer = await self._host_run(tool, call_id, args, allow_outside=False)
        if not answer.get("outsideWorkspace"):
            return self._result(answer)
        card = await self._prepare(tool, args)
        refused = await self._refused(tool, call_id, args, card, True)
        return refused or await self._run_in_host(tool, call_id, args, True)

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
        result = Result(str(answer.get("result", "")), bool(answer.get("ok")), answer.get("details"))
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
        confinement = sandbox.status()
        unconfined = not confinement.available
        confirmed = self.session_id in self.grants.unconfined or not self.confirm_unconfined
        granted = self.grants.allows(self.session_id, BASH) and (confirmed or not unconfined)
        if not granted and tool_permission.must_ask(self.mode, BASH, unconfined=unconfined, confirmed=confirmed):
            first = command.strip().splitlines()[0]
            card = {"title": f"Run {first[:120]}", "detail": command}
            refused = await self._refused(BASH, call_id, args, card, False, unconfined=unconfined)
            if refused is not None:
                return refused
            if unconfined:
                self.grants.unconfined.add(self.session_id)

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
        return Result(str(recorded["result"]), bool(recorded["ok"]), {"bash": details})

    # -- asking -------------------------------------------------------------------------
    async def _refused(
        self,
        tool: str,
        call_id: str,
        args: dict[str, Any],
        card: dict[str, Any],
        outside: bool,
        *,
        unconfined: bool = False,
    ) -> Result | None:
        """Ask the person (or, with nobody to ask, deny): None when the call may run, else its audited denial."""
        request = PermissionRequest(
            request_id=str(uuid.uuid4()),
            session_id=self.session_id,
            turn_id=self.turn_id,
            call_id=call_id,
            tool=tool,
            args=args,
            title=str(card.get("title") or tool),
            detail=str(card.get("detail") or ""),
            outside_workspace=outside,
            workspace=str(self.workspace.get("workspace") or ""),
            unconfined=unconfined,
        )
        answer: Answer | None = None
        if self.asker is not None:
            self._notify(
                self.session_id, "permission", {"requestId": request.request_id, "callId": call_id, "pending": True}
            )
            try:
                answer = await unless_stopped(self.asker(request), self.cancel)
            finally:
                self._notify(
                    self.session_id,
                    "permission",
                    {"requestId": request.request_id, "callId": call_id, "pending": False},
                )
        if answer is not None and answer.decision != Decision.DENY:
            if answer.decision == Decision.ALLOW_FOR_CHAT and not outside:
                self.grants.allow(self.session_id, tool)
            return None
        await self.client.call(
            "tools.deny",
            {
                "sessionId": self.session_id,
                "turnId": self.turn_id,
                "callId": call_id,
                "tool": tool,
                "title": request.title[:500],
                "reason": (answer.reason if answer else None),
                "nobodyToAsk": answer is None,
                "outsideWorkspace": outside,
            },
        )
        return Result(permissions.denied_result(request, answer), False, denied=True)
