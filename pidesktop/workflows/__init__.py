"""Pi Workflows state store: one ``state.sqlite`` for all live workflow state.

Modules, one concept each:

- ``paths``: where the database lives; what counts as older live state
- ``schema`` (+ ``schema.sql``): the DDL, its digest and its exact shape
- ``db``: creating, verifying and opening (writer pragmas, read-only mode)
- ``write``: the one write-contract transaction path (``Command``, ``Permit``)
- ``ownership``: actor classes and the operations they may perform
- ``resources``: resource ids, revisions and the immutable event history
- ``leases``, ``effects``, ``blobs``: the shared record machinery
- ``projects``, ``definitions``, ``runs``, ``attempts``, ``decisions``,
  ``controllers``, ``delivery``, ``channels``, ``sessions``: domain commands
- ``projection``: the read contract; ``status``: ``summary`` and ``verify``
- ``backup``: verified backups; ``cli``: the ``pi-workflows`` command

See docs/workflows-state.md.
"""
