"""Errors of the state store, each with the exit code the command line uses.

Every refusal says what happened and, where the user has to act, what to do.
"""

from __future__ import annotations


class StateError(Exception):
    """Base class. ``exit_code`` is the command line's code for this failure."""

    exit_code = 6


class StorageError(StateError):
    """The file cannot be opened, read or written (permissions, locks, disk)."""

    exit_code = 6


class UsageError(StateError):
    """The request itself is wrong (for example a relative backup path)."""

    exit_code = 2


class VerificationFailed(StateError):
    """A check found problems (for example a backup that did not verify)."""

    exit_code = 1

    def __init__(self, message: str, report: dict | None = None):
        super().__init__(message)
        self.report = report or {}


class MissingState(StateError):
    """There is no state database at the path; nothing was created."""

    exit_code = 3


class IncompatibleState(StateError):
    """The file is not a state database this version can use; it was left untouched."""

    exit_code = 4

    def __init__(self, message: str, problems: list[str] | None = None):
        super().__init__(message)
        self.problems = list(problems or [])


class OlderLiveState(StateError):
    """Older live storage sits where a new database would be created."""

    exit_code = 5

    def __init__(self, message: str, found: list[str] | None = None):
        super().__init__(message)
        self.found = list(found or [])


class CommandRejected(StateError):
    """A write command failed a check; the whole transaction was rolled back."""

    exit_code = 1


class ActorRejected(CommandRejected):
    """The actor class may not perform this operation."""


class RevisionConflict(CommandRejected):
    """The resource is not at the revision the caller expected."""


class OwnershipRejected(CommandRejected):
    """The claim token, generation or expiry does not match the durable lease."""


class LeaseHeld(OwnershipRejected):
    """Another owner holds an unexpired lease on the resource."""


class TransitionRejected(CommandRejected):
    """The domain row is not in a state that allows this command."""


class IdempotencyConflict(CommandRejected):
    """A different request was made under an existing deterministic key."""


class BlobRejected(CommandRejected):
    """A content-addressed value failed digest, length, media type or byte checks."""


class NotFound(CommandRejected):
    """The named row does not exist."""


class HostBusy(StorageError):
    """Another host holds this project's host lock (or the lock is not held by the caller)."""
