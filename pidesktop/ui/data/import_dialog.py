"""Import chats: Claude Code, Codex and pi sessions become chats of this app.

On opening, the host looks in each tool's own folder under HOME
(``import.scan``, a host job) and the dialog lists what it found, with a
check box per tool. pi's sessions are left unticked: the sidebar already
shows them live, and an import would only add a copy of each (marked
"pi copy" in the sidebar). Import runs ``import.run`` for each checked tool, one
after the other, with a progress bar, the time left and Cancel (closing the
dialog cancels too; what was already imported stays). The summary says what
came in; files that could not be read and chats that were kept because they
were changed here are listed behind Details. Importing again only brings
what is new.
"""

from __future__ import annotations

import os
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTreeWidgetItem, QWidget
from shiboken6 import isValid

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.data.data_tools import ToolDialog
from pidesktop.ui.data.host_jobs import job_error_text, run_job
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import tree as _tree
from pidesktop.ui.kit.ops import task_op

SOURCES = ("claude-code", "codex", "pi")
DETAILS_HEIGHT = 140


def tilde(path: str) -> str:
    """A path under the home folder as ``~/...``, the way people know their tools' folders."""
    home = os.path.expanduser("~").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def source_name(source: str) -> str:
    return {"claude-code": "Claude Code", "codex": "Codex", "pi": "pi"}.get(source, source)


class ImportDialog(ToolDialog):
    """Finds other agents' sessions, imports the checked ones, and says what happened."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Import chats"),
            self.tr(
                "Brings your conversations from Claude Code, Codex and pi into pidesktop. "
                "Their files are only read. Importing again adds only what is new, and never "
                "overwrites a chat you changed here."
            ),
            theme,
            parent,
            client,
        )
        self.found: dict[str, dict] = {}
        self.scans: list = []  # looking at the folders (kept so they are not collected mid-run; closing cancels them)
        self.summaries: list[dict] = []
        self.list = _tree([self.tr("Source"), self.tr("Found")])
        self.list.setMinimumHeight(110)
        t = self.theme  # check boxes that show in both themes (the default frame vanishes on a dark base)
        self.list.setStyleSheet(
            f"QTreeWidget::indicator {{ width: 13px; height: 13px; border: 1px solid {t.muted}; border-radius: 3px;"
            f" background: {t.background}; }}"
            f"QTreeWidget::indicator:checked {{ background: {t.accent}; border-color: {t.accent}; }}"
            f"QTreeWidget::indicator:disabled {{ border-color: {t.border}; }}"
        )
        self.body.addWidget(self.list)
        self.items: dict[str, QTreeWidgetItem] = {}
        for source in SOURCES:
            item = QTreeWidgetItem([source_name(source), self.tr("Looking…")])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Unchecked)
            self.list.addTopLevelItem(item)
            self.items[source] = item
        self.items["pi"].setToolTip(
            0,
            self.tr("pi's own sessions already show in the sidebar, read-only; importing makes them chats of this app"),
        )
        # pi sessions are live in the sidebar already: say plainly what ticking them would add (a copy of each)
        self.pi_note = QLabel(
            self.tr(
                "pi sessions are already in the sidebar, read live from pi's folder, so they are not ticked. "
                "Tick pi only if you want a copy of each as a chat of this app: copies are marked "
                "“pi copy” in the sidebar, and changing one never changes pi's file."
            )
        )
        self.pi_note.setObjectName("muted")
        self.pi_note.setWordWrap(True)
        self.pi_note.hide()
        self.body.addWidget(self.pi_note)
        self.status = QLabel()
        self.status.setObjectName("muted")
        self.status.hide()
        self.body.addWidget(self.status)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setFixedHeight(DETAILS_HEIGHT)
        self.details.hide()
        self.body.addWidget(self.details)
        self.details_button = self.add_button(self.tr("Details"), self.toggle_details)
        self.details_button.hide()
        self.import_button = self.add_button(self.tr("Import"), self.run, "primary")
        self.import_button.setEnabled(False)
        self.cancel_button = self.add_button(self.tr("Cancel"), self.cancel)
        self.cancel_button.hide()
        self.list.itemChanged.connect(lambda *_: self._update_import_button())

    @classmethod
    def ask(cls, client: HostClient, parent: QWidget | None = None) -> ImportDialog:
        dialog = cls(client, parent=parent)
        dialog.open()
        return dialog

    def open(self) -> None:
        super().open()
        # kept with the rescans, not as the dialog's task: Import may start before every folder was looked at
        self.scans.append(task_op(self._scan_all, parent=self, name="import-scan", failure=self.failed).run())

    # -- finding -----------------------------------------------------------------------------
    async def _scan_all(self) -> None:
        for source in SOURCES:
            await self._scan(source)

    async def _scan(self, source: str, check: bool = True) -> None:
        try:
            found = await run_job(self.client, "import.scan", {"source": source})
        except HostError as error:
            self._show_found(source, None, job_error_text(error))
            return
        if isValid(self):
            self._show_found(source, found, None, check)

    def rescan(self, sources: list[str]) -> None:
        """After an import: the Found column says what is left (one scan at a time, boxes left unchecked)."""

        async def scan() -> None:
            for source in sources:
                await self._scan(source, check=False)

        self.scans.append(task_op(scan, parent=self, name="import-rescan", failure=self.failed).run())

    def done(self, result: int) -> None:
        for task in self.scans:
            if not task.done():
                task.cancel()
        super().done(result)

    def _show_found(self, source: str, found: dict | None, problem: str | None, check: bool = True) -> None:
        item = self.items[source]
        folder = tilde((found or {}).get("folders", [""])[0]) if found else ""
        item.setToolTip(1, folder)
        if found is None:
            item.setText(1, problem or "")
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            return
        self.found[source] = found
        files = found["files"]
        if files == 0:
            item.setText(1, i18n.arg(self.tr("Nothing in %1"), folder))
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            return
        fresh = found["new"] + found["changed"]
        sessions = self.tr("1 session") if files == 1 else i18n.arg(self.tr("%1 sessions"), files)
        if fresh:
            text = sessions + ", " + i18n.arg(self.tr("%1 new or changed"), fresh)
        else:
            text = sessions + ", " + self.tr("all imported already")
        item.setText(1, text)
        if source == "pi":
            self.pi_note.show()
            self.fit_height()
        if check:  # pi sessions are live in the sidebar already: copying them is asked for, never the default
            fresh_here = fresh and source != "pi"
            item.setCheckState(0, Qt.CheckState.Checked if fresh_here else Qt.CheckState.Unchecked)
        self._update_import_button()

    def checked(self) -> list[str]:
        return [
            s
            for s, item in self.items.items()
            if item.checkState(0) == Qt.CheckState.Checked and item.flags() & Qt.ItemFlag.ItemIsEnabled
        ]

    def _update_import_button(self) -> None:
        running = self.cancel_button.isVisible()
        self.import_button.setEnabled(bool(self.checked()) and not running)

    # -- importing ---------------------------------------------------------------------------
    def run(self) -> None:
        sources = self.checked()
        if not sources:
            return
        self.report.hide()
        self.details.hide()
        self.details_button.hide()
        self.summaries = []
        self.cancel_button.show()
        self.import_button.setEnabled(False)
        self.list.setEnabled(False)
        self.start(
            task_op(
                lambda: self._import_all(sources),
                parent=self,
                name="import-run",
                success=self._show_summary,
                failure=self._failed_run,
            ).run_async(),
            "import-run",
        )

    async def _import_all(self, sources: list[str]) -> list[dict]:
        self.busy.setRange(0, 0)
        self.busy.show()
        self.status.show()
        try:
            for source in sources:
                self.status.setText(i18n.arg(self.tr("Importing from %1…"), source_name(source)))
                started = time.monotonic()
                result = await run_job(
                    self.client,
                    "import.run",
                    {"source": source},
                    lambda event, s=source, t=started: self._progress(s, t, event),
                )
                self.summaries.append(result)
        finally:
            self._idle()
        return self.summaries

    def _progress(self, source: str, started: float, event: dict) -> None:
        self.progress(event)
        done, total = int(event.get("done") or 0), int(event.get("total") or 0)
        if event.get("phase") != "import" or total <= 0:
            return
        text = i18n.arg(self.tr("%1: %2 of %3 sessions"), source_name(source), done, total)
        elapsed = time.monotonic() - started
        if done >= 3 and elapsed > 1:
            left = elapsed / done * (total - done)
            text += " · " + (
                i18n.arg(self.tr("about %1 s left"), max(1, round(left)))
                if left < 90
                else i18n.arg(self.tr("about %1 min left"), round(left / 60))
            )
        self.status.setText(text)

    def _idle(self) -> None:
        for widget in (self.busy, self.status, self.cancel_button):
            widget.hide()
        self.list.setEnabled(True)
        self._update_import_button()

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()  # run_job asks the host to cancel the job
        self._idle()
        self._show_summary(self.summaries, cancelled=True)

    def _failed_run(self, error: HostError) -> None:
        self._show_summary(self.summaries)
        self.show_report(job_error_text(error), "error")

    def _show_summary(self, summaries: list[dict], cancelled: bool = False) -> None:
        total = {
            key: sum(s.get(key, 0) for s in summaries)
            for key in ("imported", "updated", "unchanged", "copied", "failed")
        }
        self.show_report(
            " ".join(self._sentences(total, cancelled)),
            "error" if total["failed"] and not (total["imported"] or total["updated"]) else "ok",
        )
        lines = []
        for summary in summaries:
            for failure in summary.get("failures", []):
                lines.append(i18n.arg(self.tr("Could not read %1: %2"), tilde(failure["path"]), failure["reason"]))
            for copy in summary.get("copies", []):
                lines.append(i18n.arg(self.tr("Kept your changed chat; %1 came in as a new chat"), tilde(copy["path"])))
        self.details.setPlainText("\n".join(lines))
        self.details_button.setVisible(bool(lines))
        self.details_button.setText(self.tr("Details"))
        imported = [source for source in SOURCES if source in {s.get("source") for s in summaries}]
        for source in imported:
            self.items[source].setCheckState(0, Qt.CheckState.Unchecked)
        if imported:
            self.rescan(imported)

    def _sentences(self, total: dict[str, int], cancelled: bool) -> list[str]:
        """The summary, one short sentence per thing that happened (nothing said about a zero)."""
        parts = [self.tr("Import stopped. What was already imported stays.")] if cancelled else []
        new = total["imported"] + total["copied"]
        if new:
            parts.append(self.tr("Imported 1 chat.") if new == 1 else i18n.arg(self.tr("Imported %1 chats."), new))
        if total["updated"]:
            parts.append(
                self.tr("Updated 1 chat with new messages.")
                if total["updated"] == 1
                else i18n.arg(self.tr("Updated %1 chats with new messages."), total["updated"])
            )
        if total["unchanged"]:
            parts.append(
                self.tr("1 chat was already up to date.")
                if total["unchanged"] == 1
                else i18n.arg(self.tr("%1 chats were already up to date."), total["unchanged"])
            )
        if total["copied"]:
            parts.append(
                i18n.arg(
                    self.tr(
                        "%1 chats you changed here were kept as they are; their sources came "
                        "in as new chats (see Details)."
                    ),
                    total["copied"],
                )
            )
        if total["failed"]:
            parts.append(
                self.tr("1 file could not be read (see Details).")
                if total["failed"] == 1
                else i18n.arg(self.tr("%1 files could not be read (see Details)."), total["failed"])
            )
        if not parts:
            parts.append(self.tr("Nothing was imported."))
        return parts

    def toggle_details(self) -> None:
        shown = not self.details.isVisible()
        self.details.setVisible(shown)
        self.details_button.setText(self.tr("Hide details") if shown else self.tr("Details"))
        self.fit_height()


def ask(client: HostClient, parent: QWidget | None = None) -> ImportDialog:
    return ImportDialog.ask(client, parent)


__all__ = ["ImportDialog", "ask", "source_name"]
