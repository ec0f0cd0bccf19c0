"""The system libraries Qt's xcb platform plugin loads, the packages that hold them, and which are missing.

One list serves the start-up failure message (only the libraries ``ldd``
finds missing on this machine, and the packages to install for them), the
README, CI's ``.ci/system-packages`` and the ``.deb``'s ``Depends:``.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Library:
    soname: str
    debian: str
    fedora: str


XCB_LIBRARIES = (
    Library("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    Library("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    Library("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    Library("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    Library("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    Library("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    Library("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    Library("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    Library("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    Library("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    Library("libEGL.so.1", "libegl1", "mesa-libEGL"),
    Library("libGL.so.1", "libgl1", "mesa-libGL"),
    Library("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    Library("libdbus-1.so.3", "libdbus-1-3", "dbus-libs"),
)
DEBIAN_PACKAGES = tuple(library.debian for library in XCB_LIBRARIES)
FEDORA_PACKAGES = tuple(dict.fromkeys(library.fedora for library in XCB_LIBRARIES))

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$")
# What ldd prints when the dynamic loader finds a library it cannot load (a broken or foreign file).
_CANNOT_LOAD = re.compile(r"error while loading shared libraries: (\S+?): (.+)$")


def install_commands(sonames: list[str] | None = None) -> dict[str, str]:
    """The commands that install the packages holding ``sonames`` (all of the list when None), per system.

    A library this list does not know is left out: the caller names it.
    """
    wanted = XCB_LIBRARIES if sonames is None else [lib for lib in XCB_LIBRARIES if lib.soname in sonames]
    if not wanted:
        return {}
    debian = " ".join(dict.fromkeys(lib.debian for lib in wanted))
    fedora = " ".join(dict.fromkeys(lib.fedora for lib in wanted))
    return {"Debian/Ubuntu": f"sudo apt-get install {debian}", "Fedora": f"sudo dnf install {fedora}"}


def unloadable(ldd_output: str) -> dict[str, str]:
    """The libraries ``ldd`` could not load, by name, with why ("not found", or the loader's reason)."""
    problems: dict[str, str] = {}
    for line in ldd_output.splitlines():
        if match := _NOT_FOUND.match(line):
            problems.setdefault(match.group(1), "not found")
        elif match := _CANNOT_LOAD.search(line):
            problems.setdefault(Path(match.group(1)).name, match.group(2).strip())
    return problems


def missing_for(plugin: Path, timeout: float = 10) -> dict[str, str] | None:
    """What ``ldd`` says ``plugin`` cannot load on this machine; None when ldd could not be asked."""
    try:
        done = subprocess.run(
            ["ldd", str(plugin)], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return unloadable(done.stdout + "\n" + done.stderr)
