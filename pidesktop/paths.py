"""Where pidesktop keeps its data.

The data root is chosen in this order (spec 004, section 2):

1. ``PI_DESKTOP_DATA_DIR``, trimmed and made absolute. Such a root opts out of
   the installation's single-instance lock and of settings-driven maintenance.
2. The pointer in ``storage-location.json`` inside the installation anchor
   (``platformdirs.user_config_dir("pidesktop")``). A selected storage location
   holds ``data/`` (the host profile) and ``ui/`` (front-end state).
3. ``~/.pi-desktop``.

A pointer that names a folder which is not there (an unmounted volume) is a
refusal, never a reason to create a blank profile somewhere else.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from pidesktop import small_json
from pidesktop.durable import atomic_write, fsync_dir  # noqa: F401 - fsync_dir is part of this module's API

ENV_DATA_DIR = "PI_DESKTOP_DATA_DIR"
POINTER_FILE = "storage-location.json"
DEFAULT_ROOT_NAME = ".pi-desktop"
DIR_MODE = 0o700

# Folders of the data root the host creates up front (spec 004, section 2).
DATA_SUBDIRS = ("sessions", "attachments", "logs", "cache", "scratch", "visualizations", "secrets")


class StorageLocationError(Exception):
    """The configured data root cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class StorageLocation:
    """A resolved place to keep data.

    ``data_root`` is the host profile (the database, transcripts, logs...);
    ``ui_root`` holds best-effort front-end state (window geometry, sidebar
    preferences). ``source`` says which rule chose it: ``env``, ``pointer`` or
    ``default``.
    """

    data_root: Path
    ui_root: Path
    source: str

    @property
    def uses_installation_lock(self) -> bool:
        return self.source != "env"


def anchor_dir() -> Path:
    """The installation anchor: pointer file, single-instance lock, journals."""
    return Path(platformdirs.user_config_dir("pidesktop"))


def pointer_path() -> Path:
    return anchor_dir() / POINTER_FILE


def resolve(env: dict[str, str] | None = None, *, data_dir: str | os.PathLike | None = None) -> StorageLocation:
    """Pick the data root by the precedence above. Creates nothing."""
    environ = os.environ if env is None else env
    if data_dir is not None:
        root = _absolute(str(data_dir))
        return StorageLocation(root, root / "ui", "env")
    raw = environ.get(ENV_DATA_DIR, "").strip()
    if raw:
        root = _absolute(raw)
        return StorageLocation(root, root / "ui", "env")
    pointer = pointer_path()
    if pointer.exists():
        selected = _read_pointer(pointer)
        if not selected.is_dir():
            raise StorageLocationError(
                f"The selected storage location {selected} is not available "
                f"(is the disk mounted?). pidesktop will not start a blank profile "
                f"elsewhere; reconnect the disk, or remove {pointer} to go back to "
                f"the default location."
            )
        return StorageLocation(selected / "data", selected / "ui", "pointer")
    root = Path.home() / DEFAULT_ROOT_NAME
    return StorageLocation(root, anchor_dir() / "ui", "default")


def write_pointer(selected_root: Path) -> None:
    """Atomically point the installation at ``selected_root`` (flushed first)."""
    anchor = anchor_dir()
    ensure_private_dir(anchor)
    atomic_write(anchor / POINTER_FILE, small_json.dumps({"version": 1, "root": str(selected_root)}))


def prepare_data_root(location: StorageLocation) -> Path:
    """Create the data root and its standard folders, owner-only (0700)."""
    root = location.data_root
    if location.source == "pointer" and not root.parent.is_dir():
        raise StorageLocationError(f"The selected storage location {root.parent} is not available.")
    ensure_private_dir(root)
    for name in DATA_SUBDIRS:
        ensure_private_dir(root / name)
    return root


def ensure_private_dir(path: Path) -> None:
    """mkdir -p with mode 0700 on every folder this call creates, and on ``path``."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    os.chmod(path, DIR_MODE)


def _absolute(raw: str) -> Path:
    return Path(os.path.abspath(os.path.expanduser(raw)))


def _read_pointer(pointer: Path) -> Path:
    try:
        value = small_json.loads(pointer.read_bytes())
        root = value["root"]
        if not isinstance(root, str) or not root.strip():
            raise ValueError("root is empty")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StorageLocationError(
            f"The storage location file {pointer} is damaged ({exc}). "
            f"Fix or remove it to go back to the default location."
        ) from exc
    return _absolute(root)
