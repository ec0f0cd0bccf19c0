"""Plan and Goal need a person: an unattended run in those modes is refused before any model request.

Spec 004 (scheduled tasks, acceptance list): a scheduled or unattended run
whose mode is Plan or Goal fails before provider work, artifact creation or
approval with ``PLAN_REQUIRES_INTERACTIVE_SESSION``; nothing in the
background may approve a proposal.
"""

from __future__ import annotations

from typing import Any

from pidesktop.agent.errors import ProviderError
from pidesktop.bus import ErrorCode

CONTRACT_MODES = ("plan", "goal")


def is_contract_mode(mode: object) -> bool:
    return mode in CONTRACT_MODES


def refuse_unattended(session: dict[str, Any]) -> None:
    """Raise the turn's error when ``session`` is in Plan or Goal mode and nobody is there to approve."""
    mode = session.get("mode")
    if not is_contract_mode(mode):
        return
    kind = "plan" if mode == "plan" else "goal"
    raise ProviderError(
        ErrorCode.PLAN_REQUIRES_INTERACTIVE_SESSION,
        f"This chat is in {kind.capitalize()} mode, where every {kind} waits for someone to approve it, "
        f"and this run has nobody to ask. Switch the chat (or the task) to Agent mode, or run it "
        f"interactively.",
    )
