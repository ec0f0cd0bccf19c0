"""``attachments.replay``: a stored picture as a file a model can be pointed to (spec 004, section 2).

A model that cannot see pictures (it refused them, or the picture is over the
inline bound) gets the picture's path instead, ``@<path>``, so its tools can
still open it. The file is a copy of the content-addressed blob in
``scratch/<sessionId>/replayed/<first 16 hex digits>-<name>``: it goes with the
chat, the start-up sweep removes it once the chat has been idle for 30 days,
and asking again for the same picture reuses the copy.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.sessions.attachments import ref_param
from pidesktop.paths import ensure_private_dir

NAME_MAX = 80
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """A file name made only of safe characters, never hidden or empty."""
    cleaned = _UNSAFE.sub("_", name).strip("._")[:NAME_MAX]
    return cleaned or "image"


@command("attachments.replay", emits=[])
def replay(ctx: HostContext, p: Params) -> dict[str, Any]:
    session_id = sessions.session_id_param(p)
    ref = ref_param(p)
    name = safe_name(p.text("name", required=False, default="image") or "image")
    sessions.require(ctx.conn, session_id)
    source = ctx.data_root / ref
    if not source.is_file() or source.is_symlink():
        raise HostError(ErrorCode.NOT_FOUND, f"Attachment {ref} is not stored.")
    folder = ctx.data_root / "scratch" / session_id / "replayed"
    for part in (folder.parent, folder):
        if part.is_symlink():  # never write through a link out of the data root
            raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"{part} is a link; the picture is not copied there.")
    target = folder / f"{ref.rsplit('/', 1)[-1][:16]}-{name}"
    try:
        if not target.is_file():
            ensure_private_dir(folder)
            _copy(source, target)
    except OSError as exc:
        raise HostError(ErrorCode.STORAGE_UNAVAILABLE, f"Could not copy {ref}: {exc.strerror or exc}.") from exc
    return {"path": str(target)}


def _copy(source: Path, target: Path) -> None:
    """Streamed into a sibling temp file, then renamed: a reader never sees half a picture."""
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        shutil.copyfile(source, temporary)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)
