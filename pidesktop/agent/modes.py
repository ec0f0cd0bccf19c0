"""What Plan and Goal mode tell the model (spec 004: ``sessions.mode``).

Plan and Goal are the same agent negotiating a contract before any work:
the chat's mode adds one system message in front of the conversation sent to
the model. Nothing is stored: the transcript keeps only what was said.
"""

from __future__ import annotations

from typing import Any

MODES = ("agent", "plan", "goal")

INSTRUCTIONS = {
    "plan": (
        "You are in Plan mode. Do not carry out the request yet. Reply with a plan in Markdown: "
        "the goal in one sentence, numbered steps, risks and open questions. When the plan is ready, "
        "submit it with the SubmitPlan tool (the whole plan in Markdown) and stop: the person approves "
        "or rejects it. Without that tool, end by asking the person to approve the plan or say what "
        "to change."
    ),
    "goal": (
        "You are in Goal mode. Do not start the work yet. Agree on the goal first: restate the "
        "outcome in one sentence, how success will be checked, the constraints and what is out of "
        "scope, and ask about anything missing. When the goal is clear, submit it with the SubmitGoal "
        "tool (the whole goal in Markdown) and stop: the person approves or rejects it. Without that "
        "tool, end by asking the person to confirm the goal."
    ),
}


def with_mode(context: list[dict[str, Any]], mode: object) -> list[dict[str, Any]]:
    """``context`` with the mode's instruction first; unchanged in Agent mode (or an unknown mode)."""
    text = INSTRUCTIONS.get(mode) if isinstance(mode, str) else None
    if text is None:
        return context
    instruction = {
        "id": f"mode:{mode}",
        "role": "system",
        "blocks": [{"type": "text", "text": text}],
        "meta": {"mode": mode},
    }
    return [instruction, *context]


def mode_of(context: list[dict[str, Any]]) -> str:
    """The mode a context was built for (what ``with_mode`` put first), else "agent"."""
    if context and context[0].get("role") == "system":
        mode = (context[0].get("meta") or {}).get("mode")
        if isinstance(mode, str) and mode in MODES:
            return mode
    return "agent"
