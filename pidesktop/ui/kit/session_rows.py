"""What the window reads off a chat's row from the host: the title it shows, whether it is blank, whether it
is a pi session's file. Shared by the sidebar, the chat views and the guards, so none imports another's."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from pidesktop.bus.native_sessions import names_a_pi_session

UNTITLED = str(QT_TRANSLATE_NOOP("SessionTreeModel", "New chat"))


def display_title(session: dict) -> str:
    """A session's title as shown: the host's title, or "New chat" (translated) while it has none."""
    return session.get("title") or QCoreApplication.translate("SessionTreeModel", UNTITLED)


def is_blank(session: dict) -> bool:
    """A chat nobody has written in yet: no messages, no title of its own (never a pi session's file)."""
    return (
        not session.get("messageCount")
        and not (session.get("title") or "").strip()
        and not session.get("archived")
        and not session.get("readOnly")
    )


is_native_id = names_a_pi_session


def is_native(session: dict | None) -> bool:
    """A row of a pi session file (read in place, never written by the app's own commands)."""
    return session is not None and (session.get("origin") == "native-pi" or is_native_id(session.get("id")))
