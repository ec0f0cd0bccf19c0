"""Settings > Data > Repair: check the database and, when it is damaged, rebuild it from the chat files.

Like Anki's Check Database: one button that is always safe to press. The host
does the work (``data.repair``, a job): it checks the database and either
rebuilds it from the transcripts, keeping what the damaged copy still yields,
or heals the index (chats and messages it had missed). The dialog says in one
plain sentence what happened; the checker's complaints and file names stay
behind Details.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.data.data_tools import ToolDialog
from pidesktop.ui.data.host_jobs import job_error_text
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes


class RepairDialog(ToolDialog):
    """Runs ``data.repair`` when asked and says what was rebuilt, salvaged or could not be."""

    def __init__(self, client: HostClient, theme: themes.Theme | None = None, parent: QWidget | None = None):
        super().__init__(
            self.tr("Repair data"),
            self.tr(
                "Checks the database that lists your chats. If it is damaged, pidesktop keeps it aside and "
                "rebuilds it from your chat files, with what the damaged copy still holds of your settings and "
                "providers. Your chat files are not changed. You can keep using pidesktop meanwhile."
            ),
            theme,
            parent,
            client,
        )
        self.outcome: dict | None = None
        self.phase = QLabel()
        self.phase.setObjectName("muted")
        self.phase.hide()
        self.details = QLabel()
        self.details.setObjectName("muted")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.hide()
        self.body.addWidget(self.phase)
        layout = self.layout()  # the details go under the report line they explain
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(self.report) + 1, self.details)
        self.details_button = self.add_button(self.tr("Details"), self.toggle_details)
        self.details_button.hide()
        self.repair_button = self.add_button(self.tr("Repair"), self.run, "primary")

    def run(self) -> None:
        self.outcome = None
        self.report.hide()
        self.details.hide()
        self.details_button.hide()
        self.show_phase("check")
        self.job("data.repair", success=self._show, busy=(self.repair_button,))

    def progress(self, event: dict) -> None:
        super().progress(event)
        self.show_phase(str(event.get("phase") or ""))

    def show_phase(self, phase: str) -> None:
        text = {
            "check": self.tr("Checking the database…"),
            "rebuild": self.tr("Rebuilding the database from your chat files…"),
            "reconcile": self.tr("Looking for chats and messages the database missed…"),
        }.get(phase)
        if text:
            self.phase.setText(text)
            self.phase.show()

    def _show(self, found: dict) -> None:
        self.outcome = found
        self.phase.hide()
        if found.get("damaged"):
            self._show_rebuilt(found)
        else:
            self._show_sound(found)

    def _show_sound(self, found: dict) -> None:
        restored, indexed = int(found.get("sessionsRestored") or 0), int(found.get("linesIndexed") or 0)
        if not restored and not indexed:
            self.show_report(self.tr("The database is sound. Nothing needed repair."), "ok")
            return
        parts = []
        if restored == 1:
            parts.append(self.tr("a chat came back from its file"))
        elif restored:
            parts.append(self.tr("%n chats came back from their files", "", restored))
        if indexed == 1:
            parts.append(self.tr("a message missing from the chat and from search was added"))
        elif indexed:
            parts.append(self.tr("%n messages missing from their chats and from search were added", "", indexed))
        found_text = "; ".join(parts)
        self.show_report(i18n.arg(self.tr("The database is sound. %1."), found_text[0].upper() + found_text[1:]), "ok")

    def _show_rebuilt(self, found: dict) -> None:
        rebuilt = found.get("rebuilt") or {}
        repaired = rebuilt.get("repaired") or {}
        count = int(rebuilt.get("sessions") or 0)
        if count == 1:
            text = self.tr("The database was damaged and has been rebuilt from your chat files: your chat came back.")
        else:
            text = self.tr(
                "The database was damaged and has been rebuilt from your chat files: %n chats came back.", "", count
            )
        salvaged = [self._part(name) for name, rows in (repaired.get("salvaged") or {}).items() if rows]
        lost = sorted({self._part(name) for name in (rebuilt.get("notRecovered") or [])})
        if salvaged:
            text += " " + i18n.arg(self.tr("Recovered from the damaged copy: %1."), ", ".join(salvaged))
        if lost:
            text += " " + i18n.arg(
                self.tr("Could not be recovered: %1. Set them again if you had changed them."), ", ".join(lost)
            )
        self.show_report(text, "info" if lost else "ok")
        lines = [i18n.arg(self.tr("The damaged copy is kept as %1"), repaired.get("damagedFile", ""))]
        lines += [f"• {problem}" for problem in found.get("problems") or []]
        self._set_details(lines)

    def _part(self, name: str) -> str:
        """What was salvaged or lost, by the host's table name, in words."""
        words = {
            "kv": self.tr("settings"),
            "settings": self.tr("settings"),
            "providers": self.tr("providers"),
            "models": self.tr("models"),
            "projects": self.tr("projects"),
            "projectMemory": self.tr("project memory"),
            "scheduled_tasks": self.tr("automations"),
        }
        return words.get(name, name)

    def failed(self, error: HostError) -> None:
        self.phase.hide()
        self.show_report(job_error_text(error), "error")
        self._set_details([f"{error.code}: {error.message}"] + [f"{k}: {v}" for k, v in (error.data or {}).items()])

    def _set_details(self, lines: list[str]) -> None:
        self.details.setText("\n".join(lines))
        self.details_button.setText(self.tr("Details"))
        self.details_button.show()

    def toggle_details(self) -> None:
        shown = not self.details.isVisible()
        self.details.setVisible(shown)
        self.details_button.setText(self.tr("Hide details") if shown else self.tr("Details"))
        self.fit_height()
