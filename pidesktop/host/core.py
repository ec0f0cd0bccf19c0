"""The host: the only owner of ``pi.sqlite`` and every file in the data root.

``Host.open`` runs on the host thread: it takes the data root's writer lock,
opens the database, runs the boot pass, and only then serves commands.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from ..bus.errors import ErrorCode, HostError
from ..locks import WRITER_LOCK, FileLock, LockHeld
from ..paths import StorageLocation, prepare_data_root
from . import boot, commands, search
from . import handlers as _handlers  # noqa: F401 - registers every command
from .context import HostContext, now_ms
from .db import DB_NAME, open_migrated
from .native import guard as native_guard
from .native import watcher as native_watcher
from .params import Params

log = logging.getLogger("pidesktop.host")

__all__ = ["WRITER_LOCK", "Host", "opener"]


class Host:
    def __init__(self, ctx: HostContext, lock: FileLock):
        self.ctx = ctx
        self._lock = lock

    @classmethod
    def open(
        cls,
        location: StorageLocation,
        emit: Callable[[str, dict], None],
        role: str = "host",
        clock: Callable[[], int] = now_ms,
    ) -> Host:
        """``clock`` (epoch ms) stamps everything the host writes; tests pass one that always moves on."""
        try:
            root = prepare_data_root(location)
        except OSError as exc:
            raise HostError(
                ErrorCode.STORAGE_UNAVAILABLE, f"Cannot create the data folder {location.data_root}: {exc}"
            ) from exc
        lock = _take_writer_lock(root, role)
        try:
            conn, migration = open_migrated(root / DB_NAME)
        except BaseException:
            lock.release()
            raise
        search.register_functions(conn)
        ctx = HostContext(conn=conn, data_root=root, emit=emit, clock=clock, migration=migration)
        try:
            boot.boot_pass(ctx)
        except BaseException:
            conn.close()
            lock.release()
            raise
        try:
            native_watcher.start_watching(ctx)
        except Exception:
            log.exception("could not watch pi session folders")
        log.info("host ready on %s", root)
        return cls(ctx, lock)

    def dispatch(self, method: str, params: dict) -> dict:
        handler = commands.lookup(method)
        if handler is None:
            raise HostError(ErrorCode.METHOD_NOT_FOUND, f"There is no command named {method!r}.")
        native_guard.check(method, params)  # pi's own sessions are read-only here
        return handler(self.ctx, Params(method, params))

    def attach_post(self, post: Callable[[Callable[[], None]], bool]) -> None:
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
        finally:
            self._lock.release()
        log.info("host closed")


def opener(location: StorageLocation, role: str = "host", clock: Callable[[], int] = now_ms) -> Callable:
    """An opener for ``bus.HostThread``: opens a ``Host`` on the host thread."""

    def open_host(emit: Callable[[str, dict], None]) -> Host:
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
