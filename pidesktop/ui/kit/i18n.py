"""Translations of the desktop UI: pidesktop's own catalogue and Qt's, installed on the application.

English is the source language and needs no file. Another language is
``pidesktop/resources/i18n/pidesktop_<lang>.qm`` (compiled from the ``.ts`` next
to it by ``make`` in a checkout, and by the package build into the wheel),
plus Qt's ``qtbase_<lang>.qm`` for its standard buttons when Qt ships one. A
checkout that has not compiled its catalogue yet gets it compiled into a cache
folder with the environment's ``pyside6-lrelease``; when that is impossible the
UI stays English. Nothing here ever stops start-up.

The widgets read their texts when they are built, so a language is installed
before the main window is created and a change applies at the next start.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from pidesktop.ui.kit.resources import RESOURCES

log = logging.getLogger("pidesktop.ui.kit.i18n")

FOLDER = RESOURCES / "i18n"
CATALOGUE = "pidesktop"
SOURCE_LANGUAGE = "en"
SYSTEM = "system"

_installed: list[QTranslator] = []
_active = SOURCE_LANGUAGE
_MARKER = re.compile(r"%([1-9])")


def arg(text: str, *values) -> str:
    """Fill Qt-style markers (``%1``, ``%2``…) of a translated text in one pass, so a value is never re-read."""
    return _MARKER.sub(
        lambda m: str(values[int(m.group(1)) - 1]) if int(m.group(1)) <= len(values) else m.group(0), text
    )


def counted(count: int, one: str, many: str) -> str:
    """``one`` ("1 chat") for a count of one, else ``many`` ("%1 chats") filled in: English plurals without a
    catalogue of their own (Qt's ``%n`` needs one for the source language); both texts come translated."""
    return one if count == 1 else arg(many, count)


def catalogue(language: str, suffix: str = ".qm") -> Path:
    return FOLDER / f"{CATALOGUE}_{language}{suffix}"


def has_translation(language: str) -> bool:
    """A catalogue exists for ``language`` (compiled, or as a .ts that can be compiled)."""
    return catalogue(language).is_file() or catalogue(language, ".ts").is_file()


def resolve(language: str | None) -> str:
    """The language ``install`` would pick: ``language``, the system's for "system"/None, else English."""
    if not language or language == SYSTEM:
        language = QLocale.system().name()
    if language == SOURCE_LANGUAGE or not has_translation(language):
        return SOURCE_LANGUAGE
    return language


def active() -> str:
    """The language the UI is shown in now."""
    return _active


def install(app: QCoreApplication, language: str | None) -> str:
    """Install the translators for ``language`` ("en", "zh_CN", "system" or None); returns the language used.

    Translators installed by an earlier call are removed first, so calling it
    again switches (for windows built afterwards).
    """
    global _active
    remove(app)
    wanted = resolve(language)
    if wanted == SOURCE_LANGUAGE:
        return SOURCE_LANGUAGE
    try:
        path = _compiled(wanted)
        own = QTranslator(app)
        if path is None or not own.load(str(path)):
            log.warning("no usable translation for %s; the UI stays in English", wanted)
            return SOURCE_LANGUAGE
        app.installTranslator(own)
        _installed.append(own)
        qt = QTranslator(app)
        if qt.load(f"qtbase_{wanted}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            app.installTranslator(qt)
            _installed.append(qt)
    except Exception:  # a translation must never stop the application
        log.exception("installing the %s translation failed", wanted)
        remove(app)
        return SOURCE_LANGUAGE
    _active = wanted
    return wanted


def remove(app: QCoreApplication | None = None) -> None:
    """Back to the source language (English)."""
    global _active
    app = app or QCoreApplication.instance()
    for translator in _installed:
        if app is not None:
            app.removeTranslator(translator)
    _installed.clear()
    _active = SOURCE_LANGUAGE


def lrelease() -> str | None:
    """The ``pyside6-lrelease`` of this Python environment, else one on PATH."""
    here = Path(sys.executable).parent
    for name in ("pyside6-lrelease", "pyside6-lrelease.exe"):
        if (here / name).is_file():
            return str(here / name)
    return shutil.which("pyside6-lrelease")


def compile_catalogue(ts: Path, qm: Path, timeout: float = 60) -> bool:
    """Compile ``ts`` into ``qm`` with lrelease; False when that is not possible."""
    tool = lrelease()
    if tool is None:
        return False
    try:
        qm.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [tool, "-silent", str(ts), "-qm", str(qm)], capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("cannot compile %s: %s", ts, exc)
        return False
    if done.returncode != 0 or not qm.is_file():
        log.warning("lrelease failed on %s: %s", ts, done.stderr.decode(errors="replace").strip())
        return False
    return True


def _compiled(language: str) -> Path | None:
    """The .qm to load: the shipped one, unless its .ts is newer and can be compiled afresh."""
    qm, ts = catalogue(language), catalogue(language, ".ts")
    if qm.is_file() and (not ts.is_file() or qm.stat().st_mtime >= ts.stat().st_mtime):
        return qm
    if ts.is_file():
        digest = hashlib.sha256(ts.read_bytes()).hexdigest()[:16]
        for folder in _cache_folders():
            cached = folder / f"{CATALOGUE}_{language}-{digest}.qm"
            if cached.is_file() or compile_catalogue(ts, cached):
                return cached
    return qm if qm.is_file() else None


def _cache_folders() -> list[Path]:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return [Path(base) / "pidesktop" / "i18n", Path(tempfile.gettempdir()) / f"pidesktop-i18n-{_user()}"]


def _user() -> str:
    try:
        return str(os.getuid())
    except AttributeError:  # Windows
        return os.environ.get("USERNAME", "user")
