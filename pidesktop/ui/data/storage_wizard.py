"""Settings > Data > Move data folder…: a wizard that schedules a cold move, and its confirmation.

Pages: choose a folder (checked with ``storage.move.preflight`` as it is
typed; Next stays disabled with the reason shown until it is acceptable) →
what will be moved (bytes and files per category, free space at the
destination) → confirm. Finishing journals the move in the installation
anchor and restarts pidesktop: the host holds the data folder's writer lock
while the app runs, so the copy runs at the next start, before any host opens
a data folder, with a progress window (``ui/startup/move_window.py``). The old folder
stays active until the verified copy is published, and is kept afterwards as
a backup. The first start in the new folder says once where the data now
lives (``completed_move_notice``).
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import QFileDialog, QLabel, QTreeWidgetItem, QVBoxLayout, QWidget, QWizard, QWizardPage

from pidesktop import paths
from pidesktop.bus import HostClient, HostError
from pidesktop.clock import now_ms
from pidesktop.sizes import human_size
from pidesktop.storage import inventory, journal, move, old_roots
from pidesktop.storage.errors import StorageJobError
from pidesktop.storage.journal import PendingMove
from pidesktop.ui.data.host_jobs import job_error_text, run_job
from pidesktop.ui.data.relaunch import relaunch_pidesktop
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.counts import chats_and_messages
from pidesktop.ui.kit.dialog_style import current_theme, error_text, path_row, set_severity, stylesheet
from pidesktop.ui.kit.dialog_style import right as _right
from pidesktop.ui.kit.dialog_style import tree as _tree
from pidesktop.ui.kit.tasks import spawn

log = logging.getLogger("pidesktop.ui.data.storage_wizard")
READABLE = (StorageJobError,)  # failures whose message is already a sentence for a person

CHECK_DELAY_MS = 250  # preflight once typing pauses
WIZARD_SIZE = (660, 520)
ANNOUNCED_FILE = "announced-move.txt"  # in the front-end folder: the id of the move already confirmed
ANNOUNCE_WITHIN_MS = 7 * 86_400_000  # an older move is not news

# Categories of ``inventory.by_category``, shown translated (context "StorageWizard").
CATEGORY_NAMES = {
    "database": QT_TRANSLATE_NOOP("StorageWizard", "Chat database"),
    "transcripts": QT_TRANSLATE_NOOP("StorageWizard", "Transcripts"),
    "attachments": QT_TRANSLATE_NOOP("StorageWizard", "Attachments"),
    "secrets": QT_TRANSLATE_NOOP("StorageWizard", "Secrets"),
    "config-sync": QT_TRANSLATE_NOOP("StorageWizard", "Synced configuration"),
    "plugins": QT_TRANSLATE_NOOP("StorageWizard", "Plugins"),
    "logs": QT_TRANSLATE_NOOP("StorageWizard", "Logs"),
    "cache": QT_TRANSLATE_NOOP("StorageWizard", "Caches"),
    "scratch": QT_TRANSLATE_NOOP("StorageWizard", "Scratch files"),
    "visualizations": QT_TRANSLATE_NOOP("StorageWizard", "Visualizations"),
    "review-snapshots": QT_TRANSLATE_NOOP("StorageWizard", "Review snapshots"),
    "crash-dumps": QT_TRANSLATE_NOOP("StorageWizard", "Crash reports"),
    "other": QT_TRANSLATE_NOOP("StorageWizard", "Other"),
    "ui": QT_TRANSLATE_NOOP("StorageWizard", "Window state"),
}


def schedule_move(destination: str | os.PathLike) -> PendingMove:
    """Check ``destination`` and journal a move to it without running it; the next start runs it.

    The journal is the one a crashed move leaves, so start-up recovery
    (``recovery.before_host_start``) recopies, verifies and publishes it before
    any host opens a data folder.
    """
    job = move.preflight(destination).journal_entry()
    journal.write(job)
    return job


def completed_move_notice(location: paths.StorageLocation, now: int | None = None) -> str | None:
    """ "Your data now lives in …", once, at the first start after a move into ``location`` finished.

    A finished move is recorded in the kept-roots list (``storage.old_roots``)
    with the folder it moved to. When the newest such record points at the
    data folder in use and has not been confirmed yet, its id is written to
    ``ANNOUNCED_FILE`` in the front-end folder and the sentence returned;
    otherwise None. Small file reads only, so it may run on the UI thread.
    """
    if location.source == "env":
        return None
    try:
        entry = next(
            (kept for kept in reversed(old_roots.entries()) if move.data_root_at(kept.moved_to) == location.data_root),
            None,
        )
    except StorageJobError:
        return None
    if entry is None or (now if now is not None else now_ms()) - entry.moved_at > ANNOUNCE_WITHIN_MS:
        return None
    marker = location.ui_root / ANNOUNCED_FILE
    try:
        if marker.read_text(encoding="utf-8").strip() == entry.id:
            return None
    except OSError:
        pass
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(entry.id + "\n", encoding="utf-8")
    except OSError as exc:  # said again at the next start; better than never
        log.warning("could not note the move confirmation in %s: %s", marker, exc)
    # The folder the person chose, as the wizard named it ("Your data goes into …"), not the data folder in it.
    return i18n.arg(QCoreApplication.translate("StorageWizard", "Your data now lives in %1."), entry.moved_to)


class StorageWizard(QWizard):
    """Choose → review → confirm. Show with ``open()``; it deletes itself when closed."""

    # Replaceable (tests): what runs once the move is journalled.
    relaunch = staticmethod(relaunch_pidesktop)

    def __init__(
        self,
        location: paths.StorageLocation,
        client: HostClient,
        theme: themes.Theme | None = None,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.location = location
        self.client = client  # the running host: what the data folder holds is asked of it (data.status)
        self.theme = theme or current_theme(parent)
        self.scheduled: PendingMove | None = None
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.setWindowTitle(self.tr("Move data folder"))
        self.setWizardStyle(QWizard.WizardStyle.ClassicStyle)  # the pages draw their own headings
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.NoCancelButtonOnLastPage, False)
        self.resize(*WIZARD_SIZE)
        self.choose = ChoosePage(location)
        self.review = ReviewPage()
        self.confirm = ConfirmPage()
        for page in (self.choose, self.review, self.confirm):
            self.addPage(page)
        self.setButtonText(QWizard.WizardButton.FinishButton, self.tr("Restart and move"))
        self.setButtonText(QWizard.WizardButton.NextButton, self.tr("Next"))
        self.setButtonText(QWizard.WizardButton.BackButton, self.tr("Back"))
        self.setButtonText(QWizard.WizardButton.CancelButton, self.tr("Cancel"))
        self.button(QWizard.WizardButton.FinishButton).setObjectName("primary")
        self.setStyleSheet(stylesheet(self.theme))

    @property
    def destination(self) -> Path | None:
        return self.choose.plan.destination if self.choose.plan else None

    @property
    def new_data_root(self) -> Path | None:
        """Where the data will live after the move: a folder inside the chosen one."""
        return move.data_root_at(self.destination) if self.destination is not None else None

    def accept(self) -> None:
        """Finish: journal the move on a worker thread, then restart."""
        if self.confirm.working:
            return
        spawn(self._schedule(), name="schedule-move")

    async def _schedule(self) -> None:
        self.confirm.set_working(True)
        try:
            self.scheduled = await asyncio.to_thread(schedule_move, self.destination)
        except Exception as exc:
            self.confirm.set_working(False)
            self.confirm.show_error(error_text(exc, READABLE))
            return
        log.info("data folder move to %s scheduled for the next start", self.scheduled.destination)
        super().accept()
        type(self).relaunch()


def _heading(title: str, subtitle: str) -> QVBoxLayout:
    """A page's title and one muted line under it (the look of the Settings pages)."""
    box = QVBoxLayout()
    box.setSpacing(4)
    heading = QLabel(title)
    heading.setObjectName("pageTitle")
    line = QLabel(subtitle)
    line.setObjectName("muted")
    line.setWordWrap(True)
    line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.addWidget(heading)
    box.addWidget(line)
    box.addSpacing(8)
    box.subtitle = line
    return box


def destination_text(destination: Path | None) -> str:
    """Where the data ends up, in the words of the folder the person chose (its layout in brackets)."""
    if destination is None:
        return ""
    return i18n.arg(
        QCoreApplication.translate(
            "StorageWizard", "Your data goes into %1\n(chats and files in %2, window settings in %3)"
        ),
        destination,
        move.data_root_at(destination),
        destination / "ui",
    )


class ChoosePage(QWizardPage):
    def __init__(self, location: paths.StorageLocation):
        super().__init__()
        self.location = location
        self.plan: move.MovePlan | None = None
        self.checking: asyncio.Task | None = None
        self.checked_text: str | None = None  # the text the shown verdict is about
        self.heading = _heading(
            self.tr("Choose a new place for your data"),
            i18n.arg(self.tr("Your chats, attachments and settings are now in %1."), location.data_root),
        )
        self.path_edit, row = path_row(
            self.tr("An empty folder, or a new folder name, e.g. /mnt/big/pidesktop"), self.browse
        )
        self.verdict = QLabel()
        self.verdict.setObjectName("report")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict.hide()
        note = QLabel(
            self.tr(
                "pidesktop copies everything there, checks the copy, and then uses it. The current "
                "folder is kept as a backup until you remove it."
            )
        )
        note.setObjectName("muted")
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        layout.addLayout(self.heading)
        layout.addWidget(QLabel(self.tr("New folder")))
        layout.addLayout(row)
        layout.addWidget(self.verdict)
        layout.addStretch(1)
        layout.addWidget(note)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(CHECK_DELAY_MS)
        self.timer.timeout.connect(self.check)
        self.path_edit.textChanged.connect(self._edited)

    def browse(self) -> None:
        chooser = QFileDialog(self, self.tr("Choose a new place for your data"), str(Path.home()))
        chooser.setFileMode(QFileDialog.FileMode.Directory)
        chooser.setOption(QFileDialog.Option.ShowDirsOnly, True)
        chooser.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        chooser.fileSelected.connect(self.path_edit.setText)
        chooser.open()

    def _edited(self) -> None:
        self.plan = None
        self.checked_text = None
        self.completeChanged.emit()
        self.timer.start()

    def check(self) -> None:
        text = self.path_edit.text().strip()
        if self.checking is not None and not self.checking.done():
            self.checking.cancel()
        self.checking = spawn(self._check(text), name="move-preflight")

    async def _check(self, text: str) -> None:
        if not text:
            self.verdict.hide()
            self.checked_text = text
            return
        expanded = os.path.expanduser(text)
        if self.location.source == "env":
            self._show(
                self.tr(
                    "This data folder was chosen with PI_DESKTOP_DATA_DIR (or --data-dir); it cannot be "
                    "moved from here."
                ),
                "error",
            )
            self.checked_text = text
            return
        if not os.path.isabs(expanded):
            self._show(self.tr("Enter the full path of the folder, starting with /."), "error")
            self.checked_text = text
            return
        try:
            plan = await asyncio.to_thread(move.preflight, expanded)
        except Exception as exc:
            if self.path_edit.text().strip() == text:
                self._show(error_text(exc, READABLE), "error")
                self.checked_text = text
            return
        if self.path_edit.text().strip() != text:
            return  # typed on meanwhile; that check will answer
        self.plan = plan
        self.checked_text = text
        if plan.retry:
            verdict = self.tr(
                "This folder holds an earlier, unfinished copy of your data; the move picks up from there."
            )
        elif plan.destination.exists():
            verdict = self.tr("This empty folder can be used.")
        else:
            verdict = self.tr("This folder will be created.")
        self._show(verdict + "\n" + destination_text(plan.destination), "ok")
        self.completeChanged.emit()

    def _show(self, text: str, severity: str) -> None:
        self.verdict.setText(text)
        set_severity(self.verdict, severity)
        self.verdict.show()

    def isComplete(self) -> bool:
        return self.plan is not None


class ReviewPage(QWizardPage):
    def __init__(self):
        super().__init__()
        self.ready = False
        self.loading: asyncio.Task | None = None
        self.total_bytes = 0
        self.heading = _heading(
            self.tr("What will be moved"), self.tr("Everything in the data folder is copied and checked file by file.")
        )
        self.table = _tree([self.tr("Kind"), self.tr("Files"), self.tr("Size")])
        self.total = QLabel()
        self.total.setObjectName("rowTitle")
        self.space = QLabel()
        self.space.setObjectName("report")
        self.space.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        layout.addLayout(self.heading)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.total)
        layout.addWidget(self.space)

    def initializePage(self) -> None:
        self.ready = False
        self.table.clear()
        self.total.setText(self.tr("Counting…"))
        self.space.hide()
        wizard: StorageWizard = self.wizard()
        self.loading = spawn(self._load(wizard.location, wizard.destination), name="move-inventory")

    async def _load(self, location: paths.StorageLocation, destination: Path) -> None:
        # The data folder is the host's: it measures it (data.status). The destination is not, so it is
        # measured here.
        try:
            report = await run_job(self.wizard().client, "data.status")
            free = await asyncio.to_thread(inventory.free_bytes, destination)
        except HostError as error:
            self._failed(job_error_text(error))
            return
        except Exception as exc:
            self._failed(error_text(exc, READABLE))
            return
        categories = dict(report["categories"])
        ui_files = int(report.get("uiFiles") or 0)
        rows = []
        for name, slot in categories.items():
            rows.append(
                (
                    QCoreApplication.translate("StorageWizard", CATEGORY_NAMES.get(name, name)),
                    slot["files"],
                    slot["bytes"],
                )
            )
        if report["uiBytes"]:
            rows.append(
                (QCoreApplication.translate("StorageWizard", CATEGORY_NAMES["ui"]), ui_files, report["uiBytes"])
            )
        rows.sort(key=lambda row: -row[2])
        for label, files, size in rows:
            item = QTreeWidgetItem([label, str(files) if files else "", human_size(size)])
            _right(item, 1, 2)
            self.table.addTopLevelItem(item)
        self.total_bytes = report["dataBytes"] + report["uiBytes"]
        files = sum(slot["files"] for slot in categories.values()) + ui_files
        self.total.setText(i18n.arg(self.tr("In all: %1 in %2 files."), human_size(self.total_bytes), files))
        counts = report.get("counts") or {}
        if counts:
            self.total.setText(
                self.total.text()
                + " "
                + i18n.arg(self.tr("%1."), chats_and_messages(counts.get("sessions", 0), counts.get("messages", 0)))
            )
        needed = self.total_bytes + move.SPACE_MARGIN
        if free < needed:
            self.space.setText(
                i18n.arg(
                    self.tr("Not enough room: %1 is free there, the move needs %2. Go back and choose another place."),
                    human_size(free),
                    human_size(needed),
                )
            )
            set_severity(self.space, "error")
        else:
            self.space.setText(i18n.arg(self.tr("%1 free at the new place."), human_size(free)))
            set_severity(self.space, "ok")
            self.ready = True
        self.space.show()
        self.completeChanged.emit()

    def _failed(self, text: str) -> None:
        self.total.setText("")
        self.space.setText(text)
        set_severity(self.space, "error")
        self.space.show()

    def isComplete(self) -> bool:
        return self.ready


class ConfirmPage(QWizardPage):
    def __init__(self):
        super().__init__()
        self.working = False
        self.heading = _heading(self.tr("Ready to move"), self.tr("pidesktop will restart to move your data."))
        self.summary = QLabel()
        self.summary.setObjectName("report")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        steps = QLabel(
            self.tr(
                "When you press Restart and move:\n"
                "1. pidesktop closes.\n"
                "2. It starts again and copies your data, showing the progress. Chats are not "
                "available until the copy is checked.\n"
                "3. It opens the new folder. If anything goes wrong, it keeps using the current "
                "one.\n\n"
                "The current folder is kept as a backup; remove it later with Settings > Data > "
                "Remove old copies."
            )
        )
        steps.setWordWrap(True)
        self.error = QLabel()
        self.error.setObjectName("formError")
        self.error.setWordWrap(True)
        self.error.hide()
        layout = QVBoxLayout(self)
        layout.setSpacing(12)
        layout.addLayout(self.heading)
        layout.addWidget(self.summary)
        layout.addWidget(steps)
        layout.addStretch(1)
        layout.addWidget(self.error)

    def initializePage(self) -> None:
        wizard: StorageWizard = self.wizard()
        self.summary.setText(
            destination_text(wizard.destination)
            + "\n"
            + i18n.arg(self.tr("From: %1\nSize: %2"), wizard.location.data_root, human_size(wizard.review.total_bytes))
        )
        set_severity(self.summary, "info")
        self.error.hide()

    def set_working(self, working: bool) -> None:
        self.working = working
        self.wizard().button(QWizard.WizardButton.FinishButton).setEnabled(not working)
        self.wizard().button(QWizard.WizardButton.BackButton).setEnabled(not working)

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()
