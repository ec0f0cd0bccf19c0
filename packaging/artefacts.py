"""Where `make dist` puts each installer and what it is called (shared by bundle.py and deb.py)."""

from __future__ import annotations

import platform
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DIST = REPO / "dist"
BUNDLE_WORK = REPO / "build" / "bundle"


def version() -> str:
    """pidesktop's version, read from the one place it is written (without importing the package)."""
    source = (REPO / "pidesktop" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"$', source, re.MULTILINE)
    if found is None:
        raise SystemExit("pidesktop/__init__.py has no __version__")
    return found.group(1)


def machine() -> str:
    return {"AMD64": "x86_64"}.get(platform.machine(), platform.machine())


def wheel_name(ver: str) -> str:
    return f"pidesktop-{ver}-py3-none-any.whl"


def tarball_name(ver: str) -> str:
    return f"pidesktop-{ver}-linux-{machine()}.tar.gz"


def deb_name(ver: str) -> str:
    return f"pidesktop_{ver}_amd64.deb"


def bundle_folder() -> Path:
    """The one-folder bundle PyInstaller made (``pidesktop`` and ``_internal/``)."""
    return BUNDLE_WORK / "out" / "pidesktop"
