"""The offline demo provider: no network, no model, an honest reply built from the prompt itself.

It lets a new user see streaming, thinking (when the chat's thinking level is
not off), Markdown and code blocks before any provider is set up. The same
messages always produce the same events.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

import orjson

from pidesktop.agent import compaction, modes
from pidesktop.agent import tools as app_tools
from pidesktop.agent.events import Finished, StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta, Usage
from pidesktop.sizes import human_size

MODEL_ID = "offline-demo"
TOKENS_PER_WORD = 1.3
CODE_LINES_SHOWN = 30
SNIPPET_CHARS = 200

_FENCED = re.compile(r"```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:\n[ \t]*```|\Z)", re.S)
_URL = re.compile(r"https?://[^\s<>()\"'`]+")
_SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)")
# Strong signs of a language; plain prose rarely matches these.
_LANGUAGE_SIGNS: list[tuple[str, re.Pattern[str]]] = [
    ("python", re.compile(r"^\s*(def|class)\s+\w+.*:\s*$|^\s*(import\s+\w+|from\s+[\w.]+\s+import\s)|\bprint\(", re.M)),
    ("rust", re.compile(r"\bfn\s+\w+\s*\(|\blet\s+mut\s|\bimpl\s+\w+", re.M)),
    ("go", re.compile(r"^\s*func\s+\w+\s*\(|^package\s+main\b", re.M)),
    ("c", re.compile(r"^\s*#include\s*[<\"]|\bint\s+main\s*\(", re.M)),
    ("javascript", re.compile(r"\bfunction\s*\w*\s*\(|\b(const|let)\s+\w+\s*=|=>|\bconsole\.log\(", re.M)),
    ("sql", re.compile(r"^\s*(SELECT\b.*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|CREATE\s+TABLE)\b", re.M)),
    ("html", re.compile(r"<(html|head|body|div|span|p|a|ul|li|script)\b[^>]*>", re.M)),
    ("bash", re.compile(r"^\s*(\$ \S|#!/bin/(ba)?sh|sudo\s|apt(-get)?\s+install|pip\s+install|npm\s+install)", re.M)),
]
_CODE_PUNCTUATION = re.compile(r"[;{}]\s*$|^\s*[}\])]")


@dataclass(frozen=True, slots=True)
class PromptFacts:
    """What the demo can honestly say about a prompt."""

    text: str
    words: int
    lines: int
    first_sentence: str
    urls: tuple[str, ...]
    language: str | None
    code: str
    attachments: tuple[str, ...] = ()  # "name (kind, size)" of each attached file

    @classmethod
    def of(cls, text: str, attachments: tuple[str, ...] = ()) -> PromptFacts:
        language, code = find_code(text)
        prose = _FENCED.sub(" ", text)
        return cls(
            text,
            len(text.split()),
            len(text.splitlines()),
            first_sentence(prose),
            tuple(dict.fromkeys(url.rstrip(".,;:!?]") for url in _URL.findall(text))),
            language,
            code,
            attachments,
        )


class OfflineDemoProvider:
    provider_id = "offline"
    label = "Offline demo (no AI)"

    def __init__(self, delay: float = 0.02):
        self.delay = delay

    def __repr__(self) -> str:
        return f"OfflineDemoProvider(delay={self.delay!r})"

    async def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        thinking_level: str = "off",
        tools: list[dict[str, Any]] | None = None,
        cancel: asyncio.Event | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        call = demo_tool_call(messages, tools)
        if call is not None:  # Plan/Goal proposals and the checklist work without a model too
            for event in call:
                if not await self._pause(cancel):
                    return
                yield event
            yield Finished("tool_calls", MODEL_ID)
            return
        if compaction.is_summary_request(messages):  # asked to compact: a deterministic summary, no thinking
            reply, thinking = compaction.demo_summary(messages), ""
        elif answered_tool_calls(messages):
            reply, thinking = DEMO_TOOL_REPLY, ""
        else:
            facts = PromptFacts.of(last_user_text(messages), last_user_attachments(messages))
            reply = with_note(reply_markdown(facts), mode_note(modes.mode_of(messages)))
            thinking = thinking_text(facts) if thinking_level != "off" else ""  # like a model: none when off
        for piece in word_pieces(thinking):
            if not await self._pause(cancel):
                return
            yield ThinkingDelta(piece)
        for piece in word_pieces(reply):
            if not await self._pause(cancel):
                return
            yield TextDelta(piece)
        prompt_words = sum(len(_message_text(message).split()) for message in messages)
        input_tokens = math.ceil(prompt_words * TOKENS_PER_WORD)
        output_tokens = math.ceil(len((thinking + " " + reply).split()) * TOKENS_PER_WORD)
        yield Usage(
            input_tokens,
            output_tokens,
            {
                "prompt_tokens": input_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": input_tokens + output_tokens,
                "estimated": True,
            },
        )
        yield Finished("stop", MODEL_ID)

    async def list_models(self) -> list[dict[str, Any]]:
        return [{"id": MODEL_ID, "ownedBy": "pidesktop", "contextWindow": None}]

    async def aclose(self) -> None:
        pass

    async def _pause(self, cancel: asyncio.Event | None) -> bool:
        """Wait one beat; False when the caller asked us to stop."""
        if cancel is not None and cancel.is_set():
            return False
        await asyncio.sleep(self.delay)
        return cancel is None or not cancel.is_set()


def mode_note(mode: str) -> str:
    """In Plan or Goal mode the demo says what a connected model would be asked to do."""
    if mode == "plan":
        return (
            "> **Plan mode.** A connected model is asked to answer with a step-by-step plan for you to "
            "approve before any work starts.\n\n"
        )
    if mode == "goal":
        return (
            "> **Goal mode.** A connected model is asked to agree on the outcome and how to check it "
            "before any work starts.\n\n"
        )
    return ""


def with_note(reply: str, note: str) -> str:
    """The note goes right under the reply's heading."""
    heading, _, rest = reply.partition("\n\n")
    return f"{heading}\n\n{note}{rest}" if note else reply


def last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return _message_text(message)
    return ""


def last_user_attachments(messages: list[dict[str, Any]]) -> tuple[str, ...]:
    """``name (kind, size)`` for each attachment of the last prompt; the demo names them, it cannot open them."""
    for message in reversed(messages):
        if message.get("role") == "user":
            return tuple(
                describe_attachment(block)
                for block in message.get("blocks") or []
                if isinstance(block, dict) and block.get("type") == "attachment"
            )
    return ()


def describe_attachment(block: dict[str, Any]) -> str:
    details = [block.get("kind") or "file"]
    if isinstance(block.get("size"), int):
        details.append(human_size(block["size"]))
    return f"{block.get('name') or 'unnamed'} ({', '.join(details)})"


def _message_text(message: dict[str, Any]) -> str:
    return "\n\n".join(
        block.get("text") or ""
        for block in message.get("blocks") or []
        if block.get("type") in ("text", "attachment") and block.get("text")
    )


def find_code(text: str) -> tuple[str | None, str]:
    """``(language, code)`` of the first fenced block, else of code-looking lines, else ``(None, "")``."""
    fenced = _FENCED.search(text)
    if fenced:
        code = fenced.group(2).rstrip()
        return (fenced.group(1).lower() or guess_language(code) or "text"), code
    language = guess_language(text)
    if language is None:
        return None, ""
    lines = text.splitlines()
    marked = [i for i, line in enumerate(lines) if _looks_like_code(line)]
    return language, "\n".join(lines[marked[0] : marked[-1] + 1]) if marked else text.strip()


def guess_language(text: str) -> str | None:
    for language, sign in _LANGUAGE_SIGNS:
        if sign.search(text):
            return language
    stripped = text.strip()
    if stripped and stripped[0] in "{[":
        try:
            orjson.loads(stripped)
            return "json"
        except orjson.JSONDecodeError:
            pass
    return None


def _looks_like_code(line: str) -> bool:
    if not line.strip():
        return False
    return (
        line.startswith(("    ", "\t"))
        or bool(_CODE_PUNCTUATION.search(line))
        or any(sign.search(line) for _, sign in _LANGUAGE_SIGNS)
    )


def first_sentence(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    if not flat:
        return ""
    match = _SENTENCE.match(flat)
    sentence = match.group(1) if match else flat
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def thinking_text(facts: PromptFacts) -> str:
    steps = [f"Looking at the prompt: {_count(facts.words, 'word')}, {_count(facts.lines, 'line')}."]
    if facts.code:
        steps.append(f"It contains {facts.language} code, so I will show it back in a fenced block.")
    else:
        steps.append("There is no code in it, so I will write a small Python snippet that counts its words.")
    if facts.urls:
        steps.append(f"It mentions {_count(len(facts.urls), 'link')}.")
    if facts.attachments:
        steps.append(f"It comes with {_count(len(facts.attachments), 'attachment')}, which I can name but not read.")
    steps.append("No model is connected, so I can describe the prompt but not answer it.")
    return " ".join(steps)


def reply_markdown(facts: PromptFacts) -> str:
    summary = [
        f"- **Size:** {_count(facts.words, 'word')} on {_count(facts.lines, 'line')}",
        f"- **First sentence:** “{facts.first_sentence}”" if facts.first_sentence else "- **First sentence:** (none)",
        "- **Links:** " + (", ".join(facts.urls[:5]) + (" …" if len(facts.urls) > 5 else "") if facts.urls else "none"),
        f"- **Code:** {facts.language}, {_count(len(facts.code.splitlines()), 'line')}"
        if facts.code
        else "- **Code:** none",
    ]
    if facts.attachments:
        summary.append("- **Attachments:** " + ", ".join(facts.attachments))
    if facts.code:
        shown = facts.code.splitlines()[:CODE_LINES_SHOWN]
        more = f" (the first {CODE_LINES_SHOWN} lines)" if len(facts.code.splitlines()) > CODE_LINES_SHOWN else ""
        lead = f"The {facts.language} code from your message{more}, as it will look in a reply:"
        language, code = facts.language, "\n".join(shown)
    else:
        lead = "Meanwhile, here is a small Python snippet that counts the words of your message:"
        language, code = "python", word_count_snippet(facts.text)
    fence = "`" * max(3, _longest_backtick_run(code) + 1)
    return "\n".join(
        [
            "## Offline demo",
            "",
            "No AI model is connected, so this reply comes from the offline demo; "
            "add a provider in **Settings > Providers** (OpenAI, OpenRouter, or a local server such as Ollama) "
            "to get real answers.",
            "",
            "**Your message at a glance**",
            "",
            *summary,
            "",
            lead,
            "",
            f"{fence}{language}",
            code,
            fence,
            "",
        ]
    )


def word_count_snippet(prompt: str) -> str:
    excerpt = prompt[:SNIPPET_CHARS]
    note = f"  # the first {SNIPPET_CHARS} characters" if len(prompt) > SNIPPET_CHARS else ""
    return "\n".join(
        [
            f"prompt = {excerpt!r}{note}",
            "words = prompt.split()",
            f'print(len(words), "words")  # prints: {len(excerpt.split())} words',
        ]
    )


def word_pieces(text: str) -> list[str]:
    """Word-sized pieces that join back into ``text`` exactly."""
    return re.findall(r"\S+\s*|\s+", text)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


# -- the app's tools, demonstrated --------------------------------------------------------
DEMO_TOOL_REPLY = (
    "Offline demo: the checklist above is ticked off. No AI model is connected, so nothing was "
    "actually done; add a provider in **Settings > Providers** to have a plan carried out."
)


def answered_tool_calls(messages: list[dict[str, Any]]) -> bool:
    """The last message is a reply whose tool calls have their results: the model speaks again."""
    last = messages[-1] if messages else {}
    calls = [b for b in last.get("blocks") or [] if b.get("type") == "tool_call"]
    return last.get("role") == "assistant" and bool(calls) and all("result" in b for b in calls)


def demo_tool_call(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> list[StreamEvent] | None:
    """In Plan/Goal mode, propose through SubmitPlan/SubmitGoal; for an approved proposal, tick a checklist."""
    offered = app_tools.names(tools or [])
    if not messages or messages[-1].get("role") != "user":
        return None
    text = last_user_text(messages)
    for name, kind in app_tools.PROPOSAL_TOOLS.items():
        if name in offered:
            first = next((m for m in messages if m.get("role") == "user"), messages[-1])  # what the chat is about
            return _call_events(name, {kind: demo_proposal(kind, _message_text(first))}, messages[-1].get("id", ""))
    opening = next((o for o in app_tools.EXECUTION_OPENING.values() if text.startswith(o)), None)
    if opening and app_tools.TODO_WRITE in offered:
        steps = re.findall(r"^\s*\d+\.\s+(.+)$", text, re.M) or ["Carry out the approved text"]
        return _call_events(
            app_tools.TODO_WRITE,
            {"todos": [{"content": step.strip(), "status": "completed"} for step in steps[:20]]},
            messages[-1].get("id", ""),
        )
    return None


def demo_proposal(kind: str, prompt: str) -> str:
    topic = first_sentence(_FENCED.sub(" ", prompt), 80) or "your request"
    if kind == "goal":
        return "\n".join(
            [
                f"# Goal: {topic}",
                "",
                "**Outcome:** what you asked for, done and checked.",
                "",
                "**How we check it:** you look at the result and say it is right.",
                "",
                "**Out of scope:** anything you did not ask for.",
                "",
                "_Offline demo: a connected model writes a real goal here._",
                "",
            ]
        )
    return "\n".join(
        [
            f"# Plan: {topic}",
            "",
            "1. Read what is there now",
            "2. Make the change",
            "3. Check the result with you",
            "",
            "**Risks:** none known yet.",
            "",
            "_Offline demo: a connected model writes a real plan here._",
            "",
        ]
    )


def _call_events(name: str, args: dict[str, Any], prompt_id: str) -> list[StreamEvent]:
    arguments = orjson.dumps(args).decode()
    half = len(arguments) // 2  # in two fragments, as servers stream them
    return [
        ToolCallDelta(0, f"call_demo_{name.lower()}_{prompt_id}", name, arguments[:half]),
        ToolCallDelta(0, None, None, arguments[half:]),
    ]
