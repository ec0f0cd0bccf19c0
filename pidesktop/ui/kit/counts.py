"""How many chats and messages, in words: "1 chat, 4 messages" (each count in the singular or the plural).

The data tools, the move wizard and a pi session's branches say these counts;
the texts live here once, translated in one context.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from pidesktop.ui.kit import i18n


def chats(count: int) -> str:
    return i18n.counted(
        count, QCoreApplication.translate("Counts", "1 chat"), QCoreApplication.translate("Counts", "%1 chats")
    )


def messages(count: int) -> str:
    return i18n.counted(
        count, QCoreApplication.translate("Counts", "1 message"), QCoreApplication.translate("Counts", "%1 messages")
    )


def chats_and_messages(chat_count: int, message_count: int) -> str:
    return i18n.arg(QCoreApplication.translate("Counts", "%1, %2"), chats(chat_count), messages(message_count))
