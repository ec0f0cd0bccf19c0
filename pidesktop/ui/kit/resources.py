"""Icons and translations, shipped inside the package (``pidesktop/resources/``)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
APP_NAME = "pidesktop"  # the window's title, and after a chat's title while one is shown


def app_icon() -> QIcon:
    return QIcon(str(RESOURCES / "icons" / "pidesktop.svg"))
