"""Build the self-contained bundle from the wheel in dist/: ``dist/pidesktop-<version>-linux-x86_64.tar.gz``.

PyInstaller (one folder, no Python needed where it runs) freezes the files of
the wheel, so the bundle carries exactly what ``pip install`` would: the
compiled translations, the icons, the schema files. Only the Qt modules the app
imports go in (QtCore, QtGui, QtWidgets, and the plugins they load); the rest
of PySide6 is left out. The tarball holds one folder, ``pidesktop-<version>/``,
with the ``pidesktop`` program and ``pi-workflows`` as a link to it. Prints the
tarball's size and the unpacked size.

Run from the checkout after ``python -m build``: ``python packaging/bundle.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from artefacts import BUNDLE_WORK as WORK
from artefacts import DIST, REPO, bundle_folder, tarball_name, version, wheel_name


def unpack_wheel(ver: str) -> Path:
    wheel = DIST / wheel_name(ver)
    if not wheel.is_file():
        raise SystemExit(f"{wheel} is missing: build it first (python -m build --outdir dist .)")
    into = WORK / "wheel"
    shutil.rmtree(into, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(into)
    return into


def freeze(wheel_root: Path) -> Path:
    command = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--clean",
        "--log-level=ERROR",
        f"--distpath={WORK / 'out'}",
        f"--workpath={WORK / 'work'}",
        str(REPO / "packaging" / "pidesktop.spec"),
    ]
    # The checkout's own copy must not be what PyInstaller finds: the wheel's files are the product.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(PIDESKTOP_WHEEL_ROOT=str(wheel_root), PIDESKTOP_ENTRY=str(REPO / "packaging" / "entry.py"))
    subprocess.run(command, check=True, cwd=WORK, env=env)
    folder = bundle_folder()
    (folder / "pi-workflows").symlink_to("pidesktop")
    return folder


def folder_size(folder: Path) -> int:
    return sum(path.lstat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def pack(folder: Path, ver: str) -> Path:
    DIST.mkdir(exist_ok=True)
    target = DIST / tarball_name(ver)
    with tarfile.open(target, "w:gz", compresslevel=6) as archive:
        archive.add(folder, arcname=f"pidesktop-{ver}")
    return target


def main() -> int:
    ver = version()
    WORK.mkdir(parents=True, exist_ok=True)
    folder = freeze(unpack_wheel(ver))
    tarball = pack(folder, ver)
    print(
        f"{tarball.relative_to(REPO)}: {tarball.stat().st_size / 1e6:.1f} MB "
        f"({folder_size(folder) / 1e6:.1f} MB unpacked)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
