"""Who may do what: actor classes and the operations each may perform.

This is the write contract's "verify the actor and operation" step (spec 000,
"Ownership"). Owner classes additionally need a verified lease on a resource
of their kind; the write path checks that against the durable lease row.
Reading or finding a row never grants anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from pidesktop.workflows.errors import ActorRejected

CONTROL_CLASS = "control"
ACTOR_CLASSES = ("control", "run_owner", "controller_owner", "channel_owner", "human", "model")
# An owner class acts through a lease on a resource of this kind.
OWNER_KIND = {"run_owner": "run", "controller_owner": "controller", "channel_owner": "channel"}


@dataclass(frozen=True)
class Actor:
    """The class of the caller and, where applicable, its private local id.

    The id is recorded in events and never shown by status.
    """

    actor_class: str
    actor_id: str | None = None

    def __repr__(self) -> str:
        return f"Actor({self.actor_class!r})"


CONTROL = Actor(CONTROL_CLASS)

_RUN = frozenset({"run_owner"})
_CONTROLLER = frozenset({"controller_owner"})
_CHANNEL = frozenset({"channel_owner"})
_CONTROL = frozenset({"control"})
_OWNERS = frozenset(OWNER_KIND)

OPERATIONS: dict[str, frozenset[str]] = {
    # Shared records.
    "lease.acquire": frozenset({"controller_owner", "channel_owner"}),
    "lease.renew": _OWNERS,
    "lease.release": _OWNERS,
    "effect.reserve": _CONTROLLER,
    "effect.attempt": _OWNERS,
    "effect.settle": _OWNERS,
    "effect.recover": _OWNERS,
    "effect.resolve": _OWNERS,
    "effect.apply": _OWNERS,
    # Workflows.
    "project.register": _CONTROL,
    "definition.register": _CONTROL,
    "run.create": _CONTROL,
    "run.claim": _RUN,
    "run.attempt": _RUN,
    "run.update": _RUN,
    "run.wait": _RUN,
    "run.finish": _RUN,
    # Human decisions: a human answers; the run owner applies the deadline
    # policy; cancellation is a control command or the run owner's.
    "decision.answer": frozenset({"human", "model"}),
    "decision.deadline": _RUN,
    "decision.cancel": frozenset({"control", "run_owner"}),
    # Controllers.
    "controller.create": _CONTROL,
    "controller.request_delete": _CONTROL,
    "controller.status": _CONTROLLER,
    "controller.finalizer": _CONTROLLER,
    "controller.queue": _CONTROLLER,
    "controller.child": _CONTROLLER,
    # Pi delivery: created by the run owner; delivery is confirmed by a
    # narrow control command from the Pi side.
    "notification.create": frozenset({"run_owner", "controller_owner"}),
    "notification.settle": _CONTROL,
    "turn_intent.create": _RUN,
    "turn_intent.settle": _CONTROL,
    # Channels.
    "channel.create": _CONTROL,
    "channel.disable": _CONTROL,
    "channel.cursor": _CHANNEL,
    "channel.inbox": _CHANNEL,
    "channel.message": _CHANNEL,
    # Session capture belongs to the run that captured it.
    "session.open": _RUN,
    "session.capture": _RUN,
    "session.close": _RUN,
}


def verify_actor(operation: str, actor: Actor) -> None:
    allowed = OPERATIONS.get(operation)
    if allowed is None:
        raise ActorRejected(f"unknown operation {operation!r}")
    if not isinstance(actor, Actor) or actor.actor_class not in ACTOR_CLASSES:
        raise ActorRejected(f"{operation}: unknown actor class")
    if actor.actor_class not in allowed:
        raise ActorRejected(f"{operation} is not allowed for actor class {actor.actor_class}")
    if actor.actor_class in ("human", "model") and not actor.actor_id:
        raise ActorRejected(f"{operation}: a {actor.actor_class} actor needs its verified id")


def is_owner_class(actor: Actor) -> bool:
    return actor.actor_class in OWNER_KIND
