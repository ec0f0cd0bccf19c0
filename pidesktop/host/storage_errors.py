"""Failures of the disk under the data root, as codes a client can act on.

A full disk is ``STORAGE_FULL`` ("retry once there is space"), a folder the
host may not write is ``PERMISSION_DENIED``, a read-only or vanished file
system is ``STORAGE_UNAVAILABLE``; only what is left is ``INTERNAL`` (a bug).
The raw reason stays in the message and in ``data.reason`` for Details.
"""

from __future__ import annotations

import errno

import apsw

from pidesktop.bus.errors import ErrorCode, HostError

_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_DENIED_ERRNOS = {errno.EACCES, errno.EPERM}
_UNAVAILABLE_ERRNOS = {errno.EROFS, errno.EIO, errno.ENODEV, errno.ENXIO, errno.ESTALE}


def cause(exc: BaseException) -> str | None:
    """Why a data folder cannot be used, for a client to say what to do: ``"full"``, ``"readOnly"`` or
    ``"permission"`` (the disk's errno), else None."""
    if isinstance(exc, OSError):
        if exc.errno in _FULL_ERRNOS:
            return "full"
        if exc.errno == errno.EROFS:
            return "readOnly"
        if exc.errno in _DENIED_ERRNOS:
            return "permission"
    return None


def unusable_folder(message: str, exc: BaseException) -> HostError:
    """``STORAGE_UNAVAILABLE`` for a data folder the host cannot open, with the reason and its cause."""
    data: dict[str, str] = {"reason": str(exc) or type(exc).__name__}
    if (why := cause(exc)) is not None:
        data["cause"] = why
    return HostError(ErrorCode.STORAGE_UNAVAILABLE, message, data)


def classify(exc: BaseException) -> HostError | None:
    """The coded error for a disk failure, or None when ``exc`` is not one."""
    code: ErrorCode | None = None
    if isinstance(exc, apsw.FullError):
        code = ErrorCode.STORAGE_FULL
    elif isinstance(exc, (apsw.ReadOnlyError, apsw.IOError, apsw.CantOpenError)):
        code = ErrorCode.STORAGE_UNAVAILABLE
    elif isinstance(exc, apsw.PermissionsError):
        code = ErrorCode.PERMISSION_DENIED
    elif isinstance(exc, OSError) and not isinstance(exc, (FileNotFoundError, FileExistsError)):
        if exc.errno in _FULL_ERRNOS:
            code = ErrorCode.STORAGE_FULL
        elif exc.errno in _DENIED_ERRNOS:
            code = ErrorCode.PERMISSION_DENIED
        elif exc.errno in _UNAVAILABLE_ERRNOS:
            code = ErrorCode.STORAGE_UNAVAILABLE
    if code is None:
        return None
    reason = str(exc) or type(exc).__name__
    return HostError(code, f"{_SENTENCES[code]} ({reason})", {"reason": reason})


_SENTENCES = {
    ErrorCode.STORAGE_FULL: "The disk of the data folder is full; nothing was stored. Free some space and try again",
    ErrorCode.PERMISSION_DENIED: "The data folder refused the write; nothing was stored. Check its permissions",
    ErrorCode.STORAGE_UNAVAILABLE: "The data folder cannot be written (read-only or gone); nothing was stored",
}
