"""Cold maintenance of the local data: move, relocate, verify, back up, clean up.

Everything here runs with no host serving the data root it works on: a job
takes the root's writer lock (``host.lock``) itself, so a running host and a
job can never write the same files. The installation anchor holds the state
that must survive a crash mid-job: the pending-maintenance journal and the
list of old roots kept as backups.

Entry points a front end calls (each documented in its module):

- :func:`pidesktop.storage.move.run` - move the data folder to a new location;
- :func:`pidesktop.storage.recovery.resume_pending` and
  :func:`pidesktop.storage.recovery.check_default_root` - start-up recovery;
- :mod:`pidesktop.storage.relocate` - offline path relocation of a copied root;
- :mod:`pidesktop.storage.cache` and :mod:`pidesktop.storage.cleanup` - cache and
  old-root cleanup;
- :mod:`pidesktop.storage.status`, :mod:`pidesktop.storage.verify`,
  :mod:`pidesktop.storage.backup` - reports and database backups.
"""
