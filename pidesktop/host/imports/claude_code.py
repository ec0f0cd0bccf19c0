"""Claude Code project transcripts (``~/.claude/projects/<encoded cwd>/<session uuid>.jsonl``).

One JSON entry per line. ``user``/``assistant`` entries carry an Anthropic API
message; an API response is often written as several lines sharing one
``message.id`` (one per content block), which are joined back into one
Desktop message. ``tool_use`` blocks become ``tool_call`` blocks and the
matching ``tool_result`` (in a later user entry) fills in their result and
status; a user entry holding only tool results adds no message of its own.
Sidechain entries (a subagent's conversation) are kept, marked with
``meta.parentToolCallId`` (the ``Task`` call that started the subagent) per
spec 004 section 4.7a. ``isMeta`` entries, slash-command wrappers and their
local output, hook output (``system``) and bookkeeping lines are dropped.
A ``summary`` entry whose ``leafUuid`` is in this file names the chat.
"""

from __future__ import annotations

import re
from typing import Any

from pidesktop.host.imports.common import (
    Ids,
    ImportedSession,
    ReadFailure,
    clean_text,
    json_lines,
    millis,
    rfc3339,
    stamp,
    storable,
    text_of,
    tool_args,
)

SOURCE = "claude-code"
# Entries that carry no conversation: known, dropped without being counted as unknown.
IGNORED = frozenset(
    {
        "system",
        "queue-operation",
        "progress",
        "file-history-snapshot",
        "permission-mode",
        "last-prompt",
        "attachment",
        "custom-title",
        "tag",
        "agent-name",
        "pr-link",
    }
)
# User text that is the CLI's own plumbing around slash commands, not something the person wrote.
COMMAND_NOISE = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated",
)
SUBAGENT_TOOLS = ("Task", "Agent")


def read(data: bytes, name: str = "") -> ImportedSession:
    result = ImportedSession(external_id=_stem(name))
    ids = Ids()
    calls: dict[str, dict[str, Any]] = {}  # tool_use id -> its tool_call block
    open_tasks: list[tuple[str, str]] = []  # (Task call id, its prompt), oldest first
    sidechain_parent: str | None = None
    uuids: set[str] = set()
    summaries: list[tuple[str, str]] = []
    session_ids: list[str] = []
    # The reply being read: (api id, sidechain, message). A turn's later API responses join it while only
    # tool results came between (Claude Code writes one entry per response), so a turn is one reply that folds.
    last_assistant: tuple[str | None, bool, dict[str, Any]] | None = None
    seen_entries = 0

    for _number, entry in json_lines(data, result):
        kind = entry.get("type")
        if isinstance(entry.get("uuid"), str):
            uuids.add(entry["uuid"])
        if kind == "summary":
            if isinstance(entry.get("summary"), str) and isinstance(entry.get("leafUuid"), str):
                summaries.append((entry["leafUuid"], clean_text(entry["summary"])))
            seen_entries += 1
            continue
        if kind in IGNORED:
            seen_entries += 1
            continue
        if kind not in ("user", "assistant") or not isinstance(entry.get("message"), dict):
            result.skipped[str(kind)[:40]] += 1
            continue
        seen_entries += 1
        if isinstance(entry.get("sessionId"), str) and not session_ids:
            session_ids.append(entry["sessionId"])
        if result.cwd is None and isinstance(entry.get("cwd"), str) and entry["cwd"].strip():
            result.cwd = clean_text(entry["cwd"])
        message = entry["message"]
        when = millis(entry.get("timestamp"))
        sidechain = entry.get("isSidechain") is True
        if not sidechain:
            sidechain_parent = None
        if kind == "user":
            if entry.get("isMeta") is True:
                continue
            if entry.get("isCompactSummary") is True:  # the summary /compact (or auto-compact) left
                result.add_compaction(clean_text(text_of(message.get("content"))), when, SOURCE)
                last_assistant = None
                continue
            blocks, results = _user_blocks(message.get("content"))
            for call_id, output, failed in results:
                call = calls.get(call_id)
                if call is not None:
                    call["result"] = output
                    call["status"] = "error" if failed else "ok"
                    if when is not None:
                        call["completedAt"] = rfc3339(when)
            if sidechain and sidechain_parent is None:
                sidechain_parent = _task_for(open_tasks, text_of(blocks))
            if not blocks:
                continue
            desktop: dict[str, Any] = {"id": ids.make(entry.get("uuid")), "role": "user", "blocks": blocks}
            if sidechain:
                desktop["meta"] = _subagent_meta(sidechain_parent, calls)
            if _SHELL.search(text_of(message.get("content"))):
                desktop.setdefault("meta", {})["localCommand"] = True  # a "!" command the person ran, or its output
            stamp(desktop, when, result)
            result.messages.append(desktop)
            last_assistant = None
            continue

        api_id = message.get("id") if isinstance(message.get("id"), str) else None
        blocks = _assistant_blocks(message.get("content"), calls, open_tasks)
        failed = entry.get("isApiErrorMessage") is True
        if (
            last_assistant is not None
            and last_assistant[1] == sidechain
            and not failed
            and ((api_id is not None and last_assistant[0] == api_id) or _is_continuation(last_assistant[2]))
        ):
            target = last_assistant[2]
            target["blocks"].extend(blocks)
            if isinstance(message.get("stop_reason"), str):
                target.setdefault("meta", {})["stopReason"] = clean_text(message["stop_reason"])
            stamp_end(target, when, result)
            last_assistant = (api_id, sidechain, target)
            continue
        desktop = {"id": ids.make(entry.get("uuid")), "role": "assistant", "blocks": blocks}
        meta: dict[str, Any] = {}
        if isinstance(message.get("model"), str) and message["model"] != "<synthetic>":
            meta["modelId"] = clean_text(message["model"])
            result.model_id = meta["modelId"]
        if isinstance(message.get("usage"), dict):
            meta["sourceUsage"] = storable(message["usage"])
        if isinstance(message.get("stop_reason"), str):
            meta["stopReason"] = clean_text(message["stop_reason"])
        if failed:  # the CLI's own note that the request failed
            meta["status"] = "error"
        if sidechain:
            meta.update(_subagent_meta(sidechain_parent, calls))
        if meta:
            desktop["meta"] = meta
        stamp(desktop, when, result)
        result.messages.append(desktop)
        last_assistant = None if failed else (api_id, sidechain, desktop)

    if not seen_entries:
        raise ReadFailure("no Claude Code entries in this file")
    if session_ids and not result.external_id:
        result.external_id = clean_text(session_ids[0])
    if not result.external_id:
        result.external_id = "session"
    for leaf, summary in reversed(summaries):
        if leaf in uuids and summary.strip():
            result.title = summary.strip()
            break
    return result


def _is_continuation(reply: dict[str, Any]) -> bool:
    """The reply ended on a tool call (its results came back since): the next response goes on with it."""
    blocks = reply.get("blocks") or []
    return bool(blocks) and blocks[-1].get("type") == "tool_call"


def stamp_end(message: dict[str, Any], ms: int | None, result: ImportedSession) -> None:
    """A later line of the same response: only the session's span moves."""
    if ms is not None and (result.updated_at is None or ms > result.updated_at):
        result.updated_at = ms


def _stem(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return clean_text(base[:-6] if base.endswith(".jsonl") else base)


def _user_blocks(content: Any) -> tuple[list[dict[str, Any]], list[tuple[str, Any, bool]]]:
    """The user's own blocks (noise dropped) and the tool results it carries."""
    blocks: list[dict[str, Any]] = []
    results: list[tuple[str, Any, bool]] = []
    if isinstance(content, str):
        text = clean_text(content)
        if text.strip() and not _is_noise(text):
            blocks.append({"type": "text", "text": _local_command(text)})
        return blocks, results
    if not isinstance(content, list):
        return blocks, results
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "tool_result" and isinstance(block.get("tool_use_id"), str):
            results.append(
                (block["tool_use_id"], clean_text(text_of(block.get("content"))), block.get("is_error") is True)
            )
        elif kind == "text" and isinstance(block.get("text"), str):
            text = clean_text(block["text"])
            if text.strip() and not _is_noise(text):
                blocks.append({"type": "text", "text": _local_command(text)})
        elif kind == "image":
            blocks.append({"type": "text", "text": "[image]"})
    return blocks, results


def _assistant_blocks(
    content: Any, calls: dict[str, dict[str, Any]], open_tasks: list[tuple[str, str]]
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if isinstance(content, str):
        return [{"type": "text", "text": clean_text(content)}] if content else []
    if not isinstance(content, list):
        return blocks
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            blocks.append({"type": "text", "text": clean_text(block["text"])})
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            blocks.append({"type": "thinking", "text": clean_text(block["thinking"])})
        elif kind == "tool_use":
            raw_id = block.get("id")
            call_id = raw_id if isinstance(raw_id, str) else f"call{len(calls) + 1}"
            name = clean_text(block.get("name")) or "tool"
            call = {
                "type": "tool_call",
                "callId": clean_text(call_id),
                "name": name,
                "args": tool_args(block.get("input")),
                "status": "ok",
            }
            calls[call_id] = call
            blocks.append(call)
            if name in SUBAGENT_TOOLS:
                args = call["args"] if isinstance(call["args"], dict) else {}
                open_tasks.append((call["callId"], clean_text(args.get("prompt")).strip()))
    return blocks


def _task_for(open_tasks: list[tuple[str, str]], prompt: str) -> str | None:
    """The Task call a subagent's first prompt came from: the one with that prompt, else the latest."""
    prompt = prompt.strip()
    for call_id, task_prompt in reversed(open_tasks):
        if task_prompt and task_prompt == prompt:
            return call_id
    return open_tasks[-1][0] if open_tasks else None


def _subagent_meta(parent: str | None, calls: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"sidechain": True}
    if parent:
        meta["parentToolCallId"] = parent
        args = (calls or {}).get(parent, {}).get("args")
        kind = args.get("subagent_type") if isinstance(args, dict) else None
        if isinstance(kind, str) and kind:
            meta["agentName"] = kind
    return meta


_SHELL_MARK = "$ "
_SHELL = re.compile(r"<(bash-input|bash-stdout|bash-stderr)>(.*?)</\1>", re.S)


def _local_command(text: str) -> str:
    """A "!" shell command and its output, as the CLI wrapped them, made readable ("$ cmd", then a code block)."""
    parts: dict[str, str] = dict((tag, body) for tag, body in _SHELL.findall(text))
    if not parts or _SHELL.sub("", text).strip():
        return text
    if "bash-input" in parts:
        return _SHELL_MARK + parts["bash-input"].strip()
    output = "\n".join(p.rstrip() for p in (parts.get("bash-stdout", ""), parts.get("bash-stderr", "")) if p.strip())
    return "```\n" + output + "\n```" if output else "```\n```"


def _is_noise(text: str) -> bool:
    head = text.lstrip()
    return head.startswith(COMMAND_NOISE)


# -- subagent files --------------------------------------------------------------------------------
# Newer CLIs write each subagent's conversation to <session>/subagents/agent-<agentId>.jsonl
# instead of inline sidechain rows; the Task call's result names the agent ("agentId: a1b2c3").
_AGENT_ID = re.compile(r"\bagent_?[iI]d:\s*([A-Za-z0-9@._-]{1,80})")


def subagent_id(file_name: str) -> str | None:
    """The agent id of ``agent-<id>.jsonl``; None for other files and the CLI's own compaction agents."""
    base = file_name.rsplit("/", 1)[-1]
    if not (base.startswith("agent-") and base.endswith(".jsonl")) or base.startswith("agent-acompact-"):
        return None
    return base[len("agent-") : -len(".jsonl")] or None


def read_with_subagents(data: bytes, name: str, subagents: dict[str, bytes]) -> ImportedSession:
    """``read`` plus the session's subagent files (agent id -> bytes), each placed after the message holding
    the Task call that started it and attributed to that call (``meta.parentToolCallId``, ``meta.agentName``).
    A subagent file no Task call names is kept at the end, marked as a subagent's; one that cannot be read
    is skipped and counted."""
    result = read(data, name)
    if not subagents:
        return result
    taken = {m["id"] for m in result.messages}
    placed: dict[int, list[dict[str, Any]]] = {}
    used: set[str] = set()
    for index, message in enumerate(result.messages):
        for block in message["blocks"]:
            if block.get("type") != "tool_call" or block.get("name") not in SUBAGENT_TOOLS:
                continue
            match = _AGENT_ID.search(block.get("result") or "") if isinstance(block.get("result"), str) else None
            agent = match.group(1) if match else None
            if agent is None or agent not in subagents or agent in used:
                continue
            used.add(agent)
            args = block["args"] if isinstance(block.get("args"), dict) else {}
            rows = _subagent_rows(
                subagents[agent], agent, block["callId"], clean_text(args.get("subagent_type")), taken, result
            )
            placed.setdefault(index, []).extend(rows)
    messages: list[dict[str, Any]] = []
    for index, message in enumerate(result.messages):
        messages.append(message)
        messages.extend(placed.get(index, []))
    for agent in sorted(set(subagents) - used):
        messages.extend(_subagent_rows(subagents[agent], agent, None, "", taken, result))
    result.messages = messages
    return result


def _subagent_rows(
    data: bytes, agent: str, call_id: str | None, agent_name: str, taken: set[str], result: ImportedSession
) -> list[dict[str, Any]]:
    try:
        sub = read(data, f"agent-{agent}.jsonl")
    except ReadFailure:
        result.skipped["subagent file"] += 1
        return []
    for kind, lines in sub.skipped.items():
        result.skipped[kind] += lines
    rows = []
    for message in sub.messages:
        row_id, n = f"{agent}.{message['id']}"[:100], 1
        while row_id in taken:
            n += 1
            row_id = f"{agent}.{message['id']}"[:96] + f".{n}"
        taken.add(row_id)
        meta = dict(message.get("meta") or {})
        meta["sidechain"] = True
        meta.pop("parentToolCallId", None)
        if call_id:
            meta["parentToolCallId"] = call_id
        meta["agentName"] = agent_name or "agent"
        rows.append({**message, "id": row_id, "meta": meta})
        when = millis(message.get("createdAt"))
        if when is not None and (result.updated_at is None or when > result.updated_at):
            result.updated_at = when
    return rows
