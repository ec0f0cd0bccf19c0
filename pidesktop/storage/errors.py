"""What a storage job (move, verify, back up, clean up, recover) can end with besides success.

Every message is written for the person who asked for the job: it says what
happened, that the active data is untouched when it is, and what to do next.
"""

from __future__ import annotations


class StorageJobError(Exception):
    """Base class: the job did not complete."""


class Refused(StorageJobError):
    """A precondition failed; nothing was created or changed."""


class Failed(StorageJobError):
    """The job started and stopped on an error; the active data root is unchanged."""


class Cancelled(StorageJobError):
    """The caller cancelled; the active data root is unchanged."""


class RecoveryError(StorageJobError):
    """Pending work left by an interrupted job cannot be completed; start-up must stop."""
