"""The host: the only owner of ``pi.sqlite`` and every file in the data root.

``Host.open`` runs on the host thread: it takes the data root's writer lock,
opens the database, runs the boot pass, and only then serves commands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.clock import now_ms
from pidesktop.formats.index.db import open_migrated
from pidesktop.formats.index.schema import DB_NAME
from pidesktop.host import boot, commands, storage_errors
from pidesktop.host import handlers as _handlers  # noqa: F401 - registers every command
from pidesktop.host import state_snapshot as snapshot
from pidesktop.host.context import Emit, HostContext, Post
from pidesktop.host.data import repair
from pidesktop.host.data.index_rebuild import repair_and_boot, repair_in_place
from pidesktop.host.native import guard as native_guard
from pidesktop.host.native import watcher as native_watcher
from pidesktop.host.params import Params
from pidesktop.host.search import commands as search
from pidesktop.locks import WRITER_LOCK, FileLock, LockHeld
from pidesktop.paths import StorageLocation, prepare_data_root

log = logging.getLogger("pidesktop.host")

__all__ = ["WRITER_LOCK", "Host", "opener"]


class Host:
    def __init__(self, ctx: HostContext, lock: FileLock):
        self.ctx = ctx
        self._lock = lock

    @classmethod
    def open(cls, location: StorageLocation, emit: Emit, role: str = "host", clock: Callable[[], int] = now_ms) -> Host:
        """``clock`` (epoch ms) stamps everything the host writes; tests pass one that always moves on."""
        try:
            root = prepare_data_root(location)
        except OSError as exc:
            raise storage_errors.unusable_folder(
                f"Cannot create the data folder {location.data_root}: {exc}", exc
            ) from exc
        lock = _take_writer_lock(root, role)
        try:
            unclean = repair.mark_open(root)
            try:
                ctx = _open_and_boot(root, emit, clock, check=unclean)
            except apsw.CorruptError as exc:  # the index is derived: set it aside and rebuild it
                ctx = repair_and_boot(root, emit, clock, str(exc))
        except BaseException:
            lock.release()
            raise
        try:
            native_watcher.start_watching(ctx)
        except Exception:
            log.exception("could not watch pi session folders")
        log.info("host ready on %s", root)
        return cls(ctx, lock)

    def dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        handler = commands.lookup(method)
        if handler is None:
            raise HostError(ErrorCode.METHOD_NOT_FOUND, f"There is no command named {method!r}.")
        native_guard.check(method, params)  # pi's own sessions are read-only here
        try:
            result = handler(self.ctx, Params(method, params))
            if method in snapshot.COMMANDS:  # what only the database holds, kept beside it too
                snapshot.write(self.ctx)
            return result
        except apsw.CorruptError as exc:
            log.error("%s met a damaged database: %s", method, exc)
            raise self._repair_in_place(str(exc)) from exc
        except (OSError, apsw.Error) as exc:
            coded = storage_errors.classify(exc)
            if coded is None:
                raise
            log.warning("%s refused by the disk: %s", method, exc)
            raise coded from exc

    def _repair_in_place(self, reason: str) -> HostError:
        """Set the damaged database aside and rebuild it now; the error that tells the command's caller so."""
        try:
            rebuilt = repair_in_place(self.ctx, reason)
        except Exception as exc:
            self.ctx.damaged = True  # the next start checks and repairs
            log.exception("repairing the damaged database failed")
            return HostError(
                ErrorCode.STORAGE_UNAVAILABLE,
                f"The database is damaged. Restart pidesktop to rebuild it from your chat files ({exc}).",
                {"reason": reason, "damaged": True},
            )
        repaired = rebuilt.get("repaired", {})
        return HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            "The database was damaged and has been rebuilt from your chat files; nothing you wrote is lost. "
            f"Try again. The damaged copy is kept as {repaired.get('damagedFile')}.",
            {"reason": reason, "damaged": True, "repaired": repaired},
        )

    def attach_post(self, post: Post) -> None:
        """The bus's way to queue work on this host's thread (a job thread's writes go through it)."""
        self.ctx.post = post

    def close(self) -> None:
        for closer in reversed(self.ctx.on_close):
            try:
                closer()
            except Exception:
                log.exception("a close hook failed")
        try:
            self.ctx.conn.close()
            if not self.ctx.damaged:
                repair.mark_closed(self.ctx.data_root)
        finally:
            self._lock.release()
        log.info("host closed")


def _open_and_boot(root: Path, emit: Emit, clock: Callable[[], int], *, check: bool) -> HostContext:
    """The database opened (a quick_check first when the last run did not close), its boot pass run."""
    conn, migration = open_migrated(root / DB_NAME)
    try:
        problem = repair.quick_check(conn) if check else None
        if problem is not None:
            raise apsw.CorruptError(f"quick_check after an unclean close: {problem}")
        search.register_functions(conn)
        ctx = HostContext(conn=conn, data_root=root, emit=emit, clock=clock, migration=migration)
        boot.boot_pass(ctx)
    except BaseException:
        conn.close()
        raise
    return ctx


def check_and_repair(
    location: StorageLocation, role: str = "pidesktop data repair", emit: Emit | None = None
) -> dict[str, Any] | None:
    """``pidesktop data repair``: a full integrity check of the closed data folder, and the repair if it fails.

    The report of the repair, or None when the database is sound. ``HostError``
    (STORAGE_UNAVAILABLE) when a running pidesktop holds the folder. ``emit``
    is told the rebuild's events (``index.progress``).
    """
    root = prepare_data_root(location)
    lock = _take_writer_lock(root, role)
    try:
        conn, _migration = open_migrated(root / DB_NAME)
        try:
            rows = [str(row[0]) for row in conn.execute("PRAGMA integrity_check(20)")]
            problem = None if rows == ["ok"] else "; ".join(rows)
        except apsw.CorruptError as exc:
            problem = str(exc)
        finally:
            conn.close()
        if problem is None:
            return None
        ctx = repair_and_boot(root, emit or (lambda topic, payload: None), now_ms, f"integrity_check: {problem}")
        ctx.conn.close()
        repair.mark_closed(root)
        return ctx.rebuilt
    finally:
        lock.release()


def opener(location: StorageLocation, role: str = "host", clock: Callable[[], int] = now_ms) -> Callable[[Emit], Host]:
    """An opener for ``bus.HostThread``: opens a ``Host`` on the host thread."""

    def open_host(emit: Emit) -> Host:
        return Host.open(location, emit, role, clock)

    return open_host


def _take_writer_lock(root: Path, role: str) -> FileLock:
    try:
        return FileLock(root / WRITER_LOCK, role).acquire()
    except LockHeld as exc:
        raise HostError(
            ErrorCode.STORAGE_UNAVAILABLE,
            f"The data folder {root} is already in use by {exc.holder}. "
            f"Close that pidesktop first; two hosts must never write one database.",
            {"inUseBy": str(exc.holder)},
        ) from exc
    except OSError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Cannot lock the data folder {root}: {exc}") from exc
