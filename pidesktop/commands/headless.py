"""``pidesktop chat``: one turn without a window, same runtime and storage as the GUI.

The reply streams to stdout (thinking to stderr with ``--show-thinking``);
the session id goes to stderr so the conversation can be continued with
``--session``. Exit 0 on a completed turn; 1 with a one-line reason on an
error or stopped turn; 2 when the command line or the data folder cannot be
used. A new chat whose first turn fails before any reply arrives is deleted
again: nothing of a run that never reached the model is left behind.

``--project DIR`` creates the chat in that project (registered when new);
``--permission-mode`` sets what its tools may do without asking. A call that
needs permission is asked about on stdin with ``--interactive``, else denied
with a result telling the model why (the run goes on). Tool output goes to
stderr as it runs. Ctrl+C stops the turn and kills a running command.

``--context-window TOKENS`` overrides the model's context window for the run
(a long chat is compacted to fit it); ``--compact`` with ``--session`` compacts
the chat now instead of sending a prompt and prints the checkpoint's id.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from pidesktop.agent import sandbox
from pidesktop.agent.mcp.pool import McpPool
from pidesktop.agent.runner import ProviderChoice, TurnRunner
from pidesktop.bus import ErrorCode, HostClient, HostError, HostThread
from pidesktop.commands import headless_approval, headless_permission
from pidesktop.commands.command_host import start_host
from pidesktop.host.settings.providers import validate_base_url


class _Printer:
    """Writes only what is new in each streamed snapshot."""

    def __init__(self, show_thinking: bool):
        self.show_thinking = show_thinking
        self.text = 0
        self.thinking = 0
        self.message_id: str | None = None

    def __call__(self, session_id: str, phase: str, message: dict | None) -> None:
        if phase == "tool_output" and message is not None:  # a command's output, as it runs
            sys.stderr.write(str(message.get("chunk", "")))
            sys.stderr.flush()
            return
        if phase == "tool_done" and message is not None:
            mark = "done" if message.get("ok") else "failed"
            sys.stderr.write(f"[{message.get('tool')}: {mark}]\n")
            return
        if message is None or phase not in ("delta", "finished"):
            return
        if message.get("id") != self.message_id:  # a turn with tool calls stores one message per round
            self.finish()
            self.message_id, self.text, self.thinking = message.get("id"), 0, 0
        for block in message.get("blocks", []):
            if block.get("type") == "text":
                self.text = _emit(sys.stdout, block.get("text", ""), self.text)
            elif block.get("type") == "thinking" and self.show_thinking:
                self.thinking = _emit(sys.stderr, block.get("text", ""), self.thinking)

    def finish(self) -> None:
        if self.thinking:
            sys.stderr.write("\n")
        if self.text:
            sys.stdout.write("\n")
            sys.stdout.flush()
        self.text = self.thinking = 0  # each line ended once


def _emit(stream, text: str, done: int) -> int:
    if len(text) > done:
        stream.write(text[done:])
        stream.flush()
    return max(done, len(text))


def run_chat(
    prompt: str | None,
    *,
    session_id: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    data_dir: str | None = None,
    show_thinking: bool = False,
    context_window: int | None = None,
    compact: bool = False,
    mode: str | None = None,
    interactive: bool = False,
    project: str | None = None,
    permission_mode: str | None = None,
) -> int:
    if project is not None:
        if session_id:
            print("pidesktop chat: --project starts a new chat; leave out --session", file=sys.stderr)
            return 2
        if not Path(project).is_dir():
            print(f"pidesktop chat: --project {project!r} is not a folder", file=sys.stderr)
            return 2
        project = str(Path(project).resolve())
    if compact and not session_id:
        print("pidesktop chat: --compact needs --session", file=sys.stderr)
        return 2
    if compact and prompt:
        print("pidesktop chat: give either a prompt or --compact, not both", file=sys.stderr)
        return 2
    if not compact and not prompt:
        print("pidesktop chat: what to ask is missing (or pass --session ID --compact)", file=sys.stderr)
        return 2
    if context_window is not None and context_window < 256:
        print("pidesktop chat: --context-window must be at least 256 tokens", file=sys.stderr)
        return 2
    if base_url and not model:
        print("pidesktop chat: --base-url needs --model", file=sys.stderr)
        return 2
    if base_url:
        try:  # the same rules as a provider's base URL in Settings, said about the option
            base_url = validate_base_url(base_url, field="--base-url", subject=f"--base-url {base_url!r}")
        except HostError as exc:
            print(f"pidesktop chat: {exc.message}", file=sys.stderr)
            return 2
    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            print(f"pidesktop chat: the environment variable {api_key_env} is not set", file=sys.stderr)
            return 2
    override = ProviderChoice(base_url=base_url, model=model, api_key=api_key) if base_url and model else None
    host = start_host(data_dir, "pidesktop chat", "agent")
    if host is None:
        return 2
    try:
        return asyncio.run(
            _chat(
                host,
                prompt,
                session_id,
                override,
                show_thinking,
                context_window,
                compact,
                mode=mode,
                interactive=interactive,
                project=project,
                permission_mode=permission_mode,
            )
        )
    finally:
        host.stop()


async def _chat(
    host: HostThread,
    prompt: str | None,
    session_id: str | None,
    override: ProviderChoice | None,
    show_thinking: bool,
    context_window: int | None = None,
    compact: bool = False,
    *,
    mode: str | None = None,
    interactive: bool = False,
    project: str | None = None,
    permission_mode: str | None = None,
) -> int:
    client = HostClient(host, asyncio.get_running_loop())
    # Unattended unless --interactive: a Plan/Goal turn is refused before any model request,
    # and a tool call that needs permission is denied (nobody to ask). The reply is printed here,
    # to the person who asked: it is not news for the inbox (watched).
    confinement = sandbox.status()
    if permission_mode == "auto" and not confinement.available:
        print(f"pidesktop chat: {confinement.reason}", file=sys.stderr)  # the flag is the person's consent
    mcp = McpPool(client)  # the enabled MCP servers' tools; their processes end with this command
    runner = TurnRunner(
        client,
        override=override,
        context_window=context_window,
        interactive=interactive,
        asker=headless_permission.ask_on_stdin if interactive else None,
        confirm_unconfined=permission_mode != "auto",
        watched=lambda _session_id: True,
        mcp=mcp,
    )
    printer = _Printer(show_thinking)
    runner.listeners.append(printer)
    loop = asyncio.get_running_loop()
    created = session_id is None
    try:
        try:
            await client.call("app.handshake", {"protocolVersion": 1})
            if created:
                params = {"mode": mode} if mode else {}
                if project:
                    params["projectPath"] = project  # registers the project when it is new
                session_id = (await client.call("session.create", params))["session"]["id"]
            else:
                await client.call("session.get", {"sessionId": session_id, "messageLimit": 1})
                if mode:
                    await client.call("session.update", {"sessionId": session_id, "mode": mode})
            if permission_mode:
                await client.call("session.update", {"sessionId": session_id, "permissionMode": permission_mode})
        except HostError as exc:
            print(f"pidesktop chat: {_unavailable(exc)}", file=sys.stderr)
            return 2
        assert session_id is not None  # given, or created above
        if compact:
            return await _compact(runner, session_id, override)
        assert prompt is not None  # run_chat refuses a chat with neither a prompt nor --compact
        loop.add_signal_handler(signal.SIGINT, runner.stop, session_id)  # Ctrl+C stops the reply, keeps it
        try:
            result = await runner.send(session_id, prompt)
            if interactive:  # a plan or goal waiting for approval is asked about on stdin
                result = await headless_approval.answer_proposals(runner, result, printer.finish)
        except HostError as exc:
            result = {"status": "error", "error": {"message": exc.message}, "message": None}
        finally:
            loop.remove_signal_handler(signal.SIGINT)
        printer.finish()
        if result["status"] == "completed":
            print(f"session: {session_id}", file=sys.stderr)
            return 0
        reason = result["error"]["message"] if result.get("error") else "the reply was stopped"
        if (result.get("error") or {}).get("code") == ErrorCode.PLAN_REQUIRES_INTERACTIVE_SESSION:
            reason = f"{ErrorCode.PLAN_REQUIRES_INTERACTIVE_SESSION}: {reason}"  # scripts look for the code
        if override is not None:
            reason = _about_options(reason)
        if created and not _has_reply(result.get("message")):
            # Nothing came back: a chat holding only the prompt (under the app's default model,
            # not the one asked for) would only be clutter, so it goes again, and the line says so.
            try:
                await client.call("session.delete", {"sessionId": session_id, "forGood": True})
            except HostError as exc:
                print(f"pidesktop chat: could not remove the new chat again: {exc.message}", file=sys.stderr)
            else:
                print(f"pidesktop chat: {reason} No reply arrived, so no chat was kept.", file=sys.stderr)
                return 1
        print(f"pidesktop chat: {reason}", file=sys.stderr)
        print(f"session: {session_id}", file=sys.stderr)
        return 1
    finally:
        await mcp.aclose()
        client.close()


async def _compact(runner: TurnRunner, session_id: str, override: ProviderChoice | None) -> int:
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, runner.stop, session_id)  # Ctrl+C stops the summary; nothing is stored
    try:
        record = await runner.compact(session_id)
    except HostError as exc:
        reason = _about_options(exc.message) if override is not None else exc.message
        print(f"pidesktop chat: {reason}", file=sys.stderr)
        return 1
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    print(
        f"compacted: {record['id']} (through {record['throughMessageId']}, "
        f"about {record.get('tokensBefore', 0):,} tokens before)",
        file=sys.stderr,
    )
    print(f"session: {session_id}", file=sys.stderr)
    return 0


def _has_reply(message: dict | None) -> bool:
    """Whether the model answered anything at all (text, thinking or a tool call)."""
    for block in (message or {}).get("blocks", []):
        if block.get("type") in ("text", "thinking") and block.get("text"):
            return True
        if block.get("type") not in ("text", "thinking"):
            return True
    return False


def _about_options(reason: str) -> str:
    """A provider's advice points at Settings; with --base-url the endpoint came from the command line."""
    return (
        reason.replace("Open Settings > Providers.", "Check the key given with --api-key-env.")
        .replace("the base URL in Settings > Providers", "the --base-url value")
        .replace("the model and base URL in Settings > Providers", "--model and --base-url")
        .replace("the model in Settings > Providers", "--model")
        .replace("Fix it in Settings > Providers.", "Fix --base-url.")
    )


def _unavailable(error: HostError) -> str:
    """The host's reason, with what to do when the app (or another host) has the data folder open."""
    holder = error.data.get("inUseBy") if error.code == ErrorCode.STORAGE_UNAVAILABLE else None
    if not holder:
        return error.message
    return (
        f"the data folder is in use by {holder}. The app and `pidesktop chat` share one data folder: "
        f"close the app first, or pass --data-dir with another folder to chat apart from it."
    )
