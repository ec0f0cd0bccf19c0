"""Native pi sessions: the pi coding agent's own session files, read in place (spec 004, section 12).

They are a second transcript authority beside the app's chats: listed with
them, read through the same ``session.get`` shape, never copied into the
database or the data root and never rewritten. The only writes are a fork
(a new file beside the parent) and ``native.append`` (new entries at the end
of an exact v3 file), each checked first (``writing.py``).

- ``pi_format``: the file format, pure (bytes -> entries -> tree -> branch -> UiMessages)
- ``index``: one file's byte-offset index, kept up to date as it grows
- ``discovery``: which folders and files count
- ``catalog``: ids, de-duplication and the list rows
- ``reading``: ``session.list`` rows and ``session.get`` windows
- ``guard``: the write commands a native id is refused
- ``watcher``: the file watcher thread (``session.changed`` / ``session.listChanged``)
"""

from pidesktop.host.native.catalog import PREFIX, is_native

__all__ = ["PREFIX", "is_native"]
