"""The agent's permission modes as a person reads them, and where commands run.

``sessions.permission_mode`` (spec 004) is ``inherit`` (follow the Settings
default, ``permissionMode``) or one of the three modes; Settings > General
sets the default, the composer's permission chip sets a chat's own. The
sandbox sentence comes from the agent's ``sandbox.status()`` (bubblewrap, or
unconfined and why).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

INHERIT = "inherit"
DEFAULT_MODE = "ask"
SETTINGS_KEY = "permissionMode"
# (mode, label, what it does): English source texts, shown translated (context "PermissionModes").
MODES = (
    (
        "ask",
        QT_TRANSLATE_NOOP("PermissionModes", "Ask before changes"),
        QT_TRANSLATE_NOOP("PermissionModes", "The agent asks you before it changes a file or runs a command"),
    ),
    (
        "accept-edits",
        QT_TRANSLATE_NOOP("PermissionModes", "Allow file edits"),
        QT_TRANSLATE_NOOP(
            "PermissionModes", "The agent changes files in the project without asking; it asks before commands"
        ),
    ),
    (
        "auto",
        QT_TRANSLATE_NOOP("PermissionModes", "Allow everything"),
        QT_TRANSLATE_NOOP("PermissionModes", "The agent changes files and runs commands without asking"),
    ),
)


# The composer's chip is short: the message box's row holds four chips and Send.
CHIP_LABELS = {
    "ask": QT_TRANSLATE_NOOP("PermissionModes", "Ask first"),
    "accept-edits": QT_TRANSLATE_NOOP("PermissionModes", "Allow edits"),
    "auto": QT_TRANSLATE_NOOP("PermissionModes", "Allow all"),
}


def chip_label(mode: str) -> str:
    text = CHIP_LABELS.get(mode)
    return QCoreApplication.translate("PermissionModes", str(text)) if text else mode


def label(mode: str) -> str:
    return next((QCoreApplication.translate("PermissionModes", str(text)) for m, text, _t in MODES if m == mode), mode)


def tip(mode: str) -> str:
    return next((QCoreApplication.translate("PermissionModes", str(text)) for m, _l, text in MODES if m == mode), "")


def inherit_label(default: str | None) -> str:
    """The chip's "follow Settings" choice, naming what that is now."""
    known = default if default is not None and default in {m for m, _l, _t in MODES} else DEFAULT_MODE
    return QCoreApplication.translate("PermissionModes", "Default: %1").replace("%1", chip_label(known))


def sandbox_sentence() -> tuple[bool, str] | None:
    """(commands run in the sandbox, the sentence Settings shows); None when this build cannot tell."""
    try:
        from pidesktop.agent import sandbox  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    status = sandbox.status()
    return bool(status.available), str(status.reason)
