"""Build ``dist/pidesktop_<version>_amd64.deb`` from the bundle that ``packaging/bundle.py`` made.

Layout: the bundle in ``/opt/pidesktop/``, ``/usr/bin/pidesktop`` and
``/usr/bin/pi-workflows`` linking to it, the desktop entry, the icon and the
AppStream file where desktops and software centres look. ``Depends:`` names the
libraries Qt's xcb plugin loads (``pidesktop.system_libraries``), so the
missing-library message never shows after installing it. Removing the package
leaves every data folder alone (``postrm``). Needs ``dpkg-deb``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from artefacts import DIST, REPO, bundle_folder, deb_name, version

sys.path.insert(0, str(REPO))
from pidesktop.system_libraries import DEBIAN_PACKAGES

WORK = REPO / "build" / "deb"
PACKAGING = REPO / "packaging"
# The bundle was built against this C library (Debian 12); an older one cannot start its Python. GLib and the C++
# runtime are left to the system by the bundle (packaging/pidesktop.spec), like the display libraries.
SYSTEM = ("libc6 (>= 2.36)", "libglib2.0-0", "libstdc++6")

POSTRM = """#!/bin/sh
# Removing or purging pidesktop removes only what the package installed. Conversations, settings and keys
# live in each person's data folder (~/.pi-desktop, or the one chosen in Settings) and are never touched here.
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
    rmdir --ignore-fail-on-non-empty /opt/pidesktop 2>/dev/null || true
fi
exit 0
"""


def control(ver: str, installed_kib: int) -> str:
    depends = ", ".join([*SYSTEM, *DEBIAN_PACKAGES])
    return (
        "Package: pidesktop\n"
        f"Version: {ver}\n"
        "Architecture: amd64\n"
        "Maintainer: pidesktop maintainers <maintainers@pidesktop.invalid>\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {depends}\n"
        "Suggests: fonts-noto-cjk\n"
        "Section: net\n"
        "Priority: optional\n"
        "Description: local-first desktop chat application\n"
        " Chat with any OpenAI-compatible model. Conversations are plain JSONL files\n"
        " in your data folder, indexed by SQLite. Self-contained: it brings its own\n"
        " Python and Qt.\n"
    )


def assemble(ver: str) -> Path:
    bundle = bundle_folder()
    if not (bundle / "pidesktop").is_file():
        raise SystemExit(f"{bundle} has no bundle: run packaging/bundle.py first")
    root = WORK / "root"
    shutil.rmtree(WORK, ignore_errors=True)
    shutil.copytree(bundle, root / "opt" / "pidesktop", symlinks=True)
    usr = root / "usr"
    (usr / "bin").mkdir(parents=True)
    for name in ("pidesktop", "pi-workflows"):
        (usr / "bin" / name).symlink_to(f"/opt/pidesktop/{name}")
    share = usr / "share"
    for source, target in (
        (PACKAGING / "pidesktop.desktop", share / "applications" / "pidesktop.desktop"),
        (REPO / "pidesktop/resources/icons/pidesktop.svg", share / "icons/hicolor/scalable/apps/pidesktop.svg"),
        (PACKAGING / "io.pidesktop.PiDesktop.metainfo.xml", share / "metainfo" / "io.pidesktop.PiDesktop.metainfo.xml"),
    ):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    size = sum(path.lstat().st_size for path in root.rglob("*") if not path.is_dir())
    debian = root / "DEBIAN"
    debian.mkdir()
    (debian / "control").write_text(control(ver, (size + 1023) // 1024))
    (debian / "postrm").write_text(POSTRM)
    (debian / "postrm").chmod(0o755)
    for path in root.rglob("*"):  # dpkg-deb refuses group- or world-writable control files; the tree stays tidy too
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & ~0o022)
    return root


def main() -> int:
    if shutil.which("dpkg-deb") is None:
        print("packaging/deb.py: dpkg-deb is not installed, so no .deb was built", file=sys.stderr)
        return 0
    ver = version()
    root = assemble(ver)
    target = DIST / deb_name(ver)
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-z6", "--build", str(root), str(target)], check=True)
    print(f"{target.relative_to(REPO)}: {target.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
