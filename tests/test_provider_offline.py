"""The offline demo provider: deterministic, honest, prompt-aware, and it stops when asked."""

import asyncio
import contextlib
import io
import math
import re

from pidesktop.agent.events import Finished, TextDelta, ThinkingDelta, Usage
from pidesktop.agent.offline import OfflineDemoProvider, find_code
from pidesktop.agent.provider import ChatProvider
from tests.support.sse_server import collect


def user(text: str) -> list[dict]:
    return [{"id": "u", "role": "user", "blocks": [{"type": "text", "text": text}]}]


def stream(messages: list[dict], **options) -> list:
    events, error = asyncio.run(collect(OfflineDemoProvider(delay=0), messages, **options))
    assert error is None
    return events


def joined(events, kind) -> str:
    return "".join(e.text for e in events if isinstance(e, kind))


PROSE = "What is the capital of France? I need it for a quiz tonight.\nSee https://example.org/quiz."


def test_same_input_same_events():
    assert stream(user(PROSE)) == stream(user(PROSE))
    assert stream(user(PROSE)) != stream(user(PROSE + " More."))


def test_thinking_then_text_then_usage_then_finished():
    events = stream(user(PROSE), thinking_level="low")
    kinds = [type(e) for e in events]
    first_text = kinds.index(TextDelta)
    assert set(kinds[:first_text]) == {ThinkingDelta}
    assert set(kinds[first_text:-2]) == {TextDelta}
    assert kinds[-2:] == [Usage, Finished]
    assert events[-1] == Finished("stop", "offline-demo")
    assert joined(events, ThinkingDelta).startswith("Looking at the prompt: 15 words, 2 lines.")
    assert len(events) > 40  # word-sized pieces, not one block


def test_reply_is_honest_and_summarises_the_prompt():
    text = joined(stream(user(PROSE)), TextDelta)
    assert text.startswith("## ")
    assert "No AI model is connected" in text and "Settings > Providers" in text
    assert "- **Size:** 15 words on 2 lines" in text
    assert "“What is the capital of France?”" in text
    assert "- **Links:** https://example.org/quiz\n" in text
    assert "- **Code:** none" in text


def test_without_code_the_python_snippet_counts_the_prompt_words():
    text = joined(stream(user(PROSE)), TextDelta)
    snippet = re.search(r"```python\n(.*?)\n```", text, re.S).group(1)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(snippet, "snippet", "exec"), {})
    assert printed.getvalue() == "15 words\n"


def test_code_in_the_prompt_is_shown_in_its_language():
    fenced = 'Why does this fail?\n```rust\nfn main() {\n    println!("hi")\n}\n```'
    text = joined(stream(user(fenced)), TextDelta)
    assert '```rust\nfn main() {\n    println!("hi")\n}\n```' in text
    assert "- **Code:** rust, 3 lines" in text
    loose = "Can you fix this\n\ndef add(a, b):\n    return a - b\n\nThanks!"
    assert find_code(loose) == ("python", "def add(a, b):\n    return a - b")
    assert "```python\ndef add(a, b):" in joined(stream(user(loose)), TextDelta)


def test_backticks_in_code_get_a_longer_fence():
    text = joined(stream(user("```md\nuse ``` to fence\n```")), TextDelta)
    assert "````md\nuse ``` to fence\n````" in text


def test_usage_estimates_tokens_from_words():
    events = stream(user(PROSE))
    usage = events[-2]
    assert usage.input_tokens == math.ceil(15 * 1.3)
    reply_words = len((joined(events, ThinkingDelta) + " " + joined(events, TextDelta)).split())
    assert usage.output_tokens == math.ceil(reply_words * 1.3)


def test_an_empty_conversation_still_gets_a_reply():
    events = stream([], thinking_level="low")
    assert "0 words, 0 lines" in joined(events, ThinkingDelta) and isinstance(events[-1], Finished)


def test_cancel_between_chunks():
    async def scenario():
        cancel = asyncio.Event()
        seen = []
        async for event in OfflineDemoProvider(delay=0).stream(user(PROSE), cancel=cancel):
            seen.append(event)
            if len(seen) == 3:
                cancel.set()
        return seen

    assert len(asyncio.run(scenario())) == 3


def test_cancel_during_a_pause_stops_promptly():
    async def scenario():
        cancel = asyncio.Event()
        asyncio.get_running_loop().call_later(0.05, cancel.set)
        loop = asyncio.get_running_loop()
        started = loop.time()
        events, error = await collect(OfflineDemoProvider(delay=0.02), user(PROSE), cancel=cancel)
        return events, error, loop.time() - started

    events, error, took = asyncio.run(scenario())
    assert error is None and 0 < len(events) < 10 and not any(isinstance(e, Finished) for e in events)
    assert took < 0.5


def test_identity_and_models():
    source = OfflineDemoProvider()
    assert (source.provider_id, source.label) == ("offline", "Offline demo (no AI)")
    assert isinstance(source, ChatProvider)
    assert asyncio.run(source.list_models())[0]["id"] == "offline-demo"


def test_plan_and_goal_mode_are_named_under_the_heading():
    from pidesktop.agent.modes import with_mode

    agent = joined(stream(with_mode(user(PROSE), "agent")), TextDelta)
    assert "mode." not in agent
    planned = joined(stream(with_mode(user(PROSE), "plan")), TextDelta)
    heading, _, rest = planned.partition("\n\n")
    assert heading.startswith("## ") and rest.startswith("> **Plan mode.**")
    assert "> **Goal mode.**" in joined(stream(with_mode(user(PROSE), "goal")), TextDelta)
    assert "> **" not in joined(stream(with_mode(user(PROSE), "weird")), TextDelta)


def test_the_offline_demo_thinks_only_when_thinking_is_on():
    import asyncio

    from pidesktop.agent.events import TextDelta, ThinkingDelta
    from pidesktop.agent.offline import OfflineDemoProvider

    messages = [{"id": "u", "role": "user", "blocks": [{"type": "text", "text": "hello there"}]}]

    async def kinds(level: str) -> set:
        return {type(event) async for event in OfflineDemoProvider(delay=0).stream(messages, thinking_level=level)}

    assert ThinkingDelta not in asyncio.run(kinds("off")) and TextDelta in asyncio.run(kinds("off"))
    assert ThinkingDelta in asyncio.run(kinds("medium"))


def test_the_agent_types_every_provider_it_is_handed_by_the_protocol():
    """A parameter or field named ``provider`` in the agent runtime is a ``ChatProvider``, never ``Any``."""
    import ast

    from tests.support.repo import REPO

    untyped = []
    for path in sorted((REPO / "pidesktop" / "agent").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                named = [(a.arg, a.annotation) for a in node.args.args + node.args.kwonlyargs]
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                named.append((node.target.id, node.annotation))
            untyped += [
                f"{path.relative_to(REPO)}:{node.lineno} {name}: {ast.unparse(note) if note else '(none)'}"
                for name, note in named
                if name == "provider" and (note is None or "ChatProvider" not in ast.unparse(note))
            ]
    assert untyped == []
