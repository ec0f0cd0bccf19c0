"""What went wrong, and what is worth a sentence: the notice line under the composer, the error log behind
Details, and the one-off sentences of a start (replies cut off, chats rebuilt, a failed daily backup).

Every operation's failure reaches ``report_error`` (``ops.report`` finds it on the window, which hands it here).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject

from pidesktop.bus import ErrorCode, HostError
from pidesktop.ui.kit.error_details import ErrorDetailsDialog, ErrorLog

if TYPE_CHECKING:
    from pidesktop.ui.window.main_window import MainWindow

log = logging.getLogger("pidesktop.ui")


class Notices(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.host_error: HostError | None = None  # the last failure shown
        self.error_log = ErrorLog()
        self.error_dialog: ErrorDetailsDialog | None = None

    def report_error(self, error: HostError, sentence: str = "") -> None:
        """Where every operation's failure goes (``ops.report``): one sentence, the rest behind Details.

        ``sentence`` says it better than the code can (a view that knows which file or field it was)."""
        w = self.window
        if not shiboken6.isValid(w.notice):  # a late answer after the window closed: only the log hears it
            log.info("error after the window closed: %s: %s", error.code, error.message)
            return
        from pidesktop.ui.kit import plain_errors

        self.host_error = error
        self.error_log.add(error)
        log.warning("error shown: %s: %s %s", error.code, error.message, error.data or "")
        if error.code in (ErrorCode.STORAGE_UNAVAILABLE, ErrorCode.SCHEMA_INCOMPATIBLE) and not (
            plain_errors.chat_refusal(error)  # one chat's file: the others still open
        ):
            # the host's own words name the file that failed: worth showing in this one place
            w.conversation.show_blocking_error(
                self.tr("Your data can’t be opened."), plain_errors.sentence(error), error.message
            )
            w.new_chat_action.setEnabled(False)
            w.sidebar.new_chat_button.setEnabled(False)
        w.notice.show_error(sentence or plain_errors.sentence(error))

    def tell_backup_failed(self, outcome: dict) -> None:
        """The daily backup to S3 failed while the app ran: the sentence on the notice line, the rest behind
        Details (not the data banner: the data here is fine)."""
        sentence = str(outcome.get("sentence") or self.tr("The daily backup to S3 failed."))
        self.record_error(HostError(str(outcome.get("code") or ErrorCode.STORAGE_UNAVAILABLE), sentence, outcome))
        self.window.notice.show_error(sentence)

    def record_error(self, error: HostError) -> None:
        """A failure already shown where it happened (a failed reply says why under itself): kept for the log
        and for Details, not said a second time on the notice line."""
        self.error_log.add(error)
        log.warning("error recorded: %s: %s %s", error.code, error.message, error.data or "")

    def tell_interrupted(self, replies: list[dict]) -> None:
        """Replies a quit or crash cut off (the boot pass kept them as far as they got): say so once."""
        if not replies:
            return
        if len(replies) == 1:
            title = replies[0].get("sessionTitle") or self.tr("New chat")
            text = self.tr(
                "The reply in “%1” was cut off when pidesktop last quit or crashed. It is kept as far as it got."
            ).replace("%1", title)
        else:
            text = self.tr(
                "%n replies were cut off when pidesktop last quit or crashed. They are kept as far as they got.",
                "",
                len(replies),
            )
        self.show_note(text, 30_000)

    def tell_rebuilt(self, rebuilt: dict | None) -> None:
        """Chats the host rebuilt from their files at this start (a lost or damaged index): say so once."""
        if not rebuilt:
            return
        count = int(rebuilt.get("sessions") or 0)
        if count == 1:
            text = self.tr("A chat was rebuilt from its file, with its title, project and settings.")
        else:
            text = self.tr(
                "%n chats were rebuilt from their files, with their titles, projects and settings.", "", count
            )
        from pathlib import PurePath

        from pidesktop.ui.kit import i18n

        repaired = rebuilt.get("repaired") or {}
        if repaired.get("damagedFile"):  # a damaged database, set aside: where it is, before what came back
            kept = PurePath(str(repaired["damagedFile"])).name
            text = (
                i18n.arg(
                    self.tr("Your database was damaged and has been rebuilt; the damaged copy is kept as %1."), kept
                )
                + " "
                + text
            )
        words = {
            "settings": self.tr("app settings"),
            "providers": self.tr("providers"),
            "models": self.tr("models"),
            "projects": self.tr("projects"),
            "projectMemory": self.tr("project memory"),
            "scheduled_tasks": self.tr("automations"),
        }
        lost = [words.get(str(name), str(name)) for name in rebuilt.get("notRecovered") or []]
        if lost:
            text += " " + i18n.arg(
                self.tr("These could not be recovered: %1. Set them again if you had changed them."), ", ".join(lost)
            )
        self.show_note(text, 30_000)

    def show_note(self, text: str, ms: int | None = None) -> None:
        self.window.notice.show_note(text, *([] if ms is None else [ms]))

    def open_error_details(self) -> None:
        self.window.notice.clear()
        self.error_dialog = dialog = ErrorDetailsDialog(self.error_log, self.window)
        dialog.destroyed.connect(lambda: setattr(self, "error_dialog", None) if self.error_dialog is dialog else None)
        dialog.open()
