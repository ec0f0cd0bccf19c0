"""Pi Workflows state store: one ``state.sqlite`` for all live workflow state.

Modules, one concept each:

- ``paths``: where the database lives; what counts as older live state
- ``schema`` (+ ``schema.sql``): the DDL, its digest and its exact shape
- ``db``: creating, verifying and opening (writer pragmas, read-only mode)
- ``write``: the one write-contract transaction path (``Command``, ``Permit``)
- ``ownership``: actor classes and the operations they may perform
- ``resources``: resource ids, revisions and the immutable event history
- ``blobs``, ``claims`` (lease rows and claim checks), ``outbox`` (effect
  requests and their insertion): the shared records the write path uses
- ``leases`` (acquire, renew, release): lease commands, above ``write``
- ``projects``, ``definitions``, ``runs``, ``attempts``, ``decisions``,
  ``controllers``, ``delivery``, ``channels``, ``sessions``: domain commands
- ``effects``: applying, attempting and settling effects, with the local
  handlers and settle hooks of ``runs``, ``decisions`` and ``channels``

- ``projection``: the read contract; ``status``: ``summary`` and ``verify``
- ``backup``: verified backups; ``cli``: the ``pi-workflows`` command

Imports only go down this list's layers (tests/test_layering.py checks there
is no cycle).

A closed package: the app (Settings > Data's Workflows tool) uses only the
names below, imported from ``pidesktop.workflows`` itself; an import-linter
contract in pyproject.toml refuses any import of a module inside it from
outside. See docs/workflows-state.md.
"""

from pidesktop.workflows.backup import backup as back_up
from pidesktop.workflows.errors import StateError
from pidesktop.workflows.status import summary, verify

__all__ = ["StateError", "back_up", "summary", "verify"]
