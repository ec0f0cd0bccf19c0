"""The package build compiles the translations: a wheel carries ``pidesktop_<lang>.qm``, not only its ``.ts``.

Everything else about the package is in pyproject.toml. The compiler is the
``pyside6-lrelease`` that ``build-system.requires`` puts in the build
environment; an editable install skips it (the checkout's Makefile compiles
the catalogue in place, and the app compiles a missing one on first use).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

I18N = Path("pidesktop", "resources", "i18n")


def lrelease() -> str:
    here = Path(sys.executable).parent
    tool = here / "pyside6-lrelease"
    if tool.is_file():
        return str(tool)
    found = shutil.which("pyside6-lrelease")
    if found is None:
        raise SystemExit("building pidesktop needs pyside6-lrelease (PySide6-Essentials) to compile its translations")
    return found


class BuildWithTranslations(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for ts in sorted(I18N.glob("*.ts")):
            qm = Path(self.build_lib) / I18N / ts.with_suffix(".qm").name
            qm.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([lrelease(), "-silent", str(ts), "-qm", str(qm)], check=True)
            if not qm.is_file():
                raise SystemExit(f"lrelease made no {qm} from {ts}")


setup(cmdclass={"build_py": BuildWithTranslations})
