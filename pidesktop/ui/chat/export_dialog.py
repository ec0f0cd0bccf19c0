"""Export… in the chat menu: a save dialog, then the host writes the chat to the chosen file (``session.export``).

Markdown to read, JSON to keep (lossless). The host writes the file beside
its destination and moves it into place when complete, so a failed export
never leaves half a file over an older one.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QStandardPaths, Qt
from PySide6.QtWidgets import QFileDialog, QWidget

from pidesktop.agent import export
from pidesktop.bus import HostClient
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.ops import task_op


def _tr(text: str) -> str:
    return QCoreApplication.translate("ExportDialog", text)


def filters() -> dict[str, str]:
    return {_tr("Markdown (*.md)"): "md", _tr("JSON, lossless (*.json)"): "json"}


def format_of(path: str, chosen_filter: str) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix in export.FORMATS:
        return suffix
    return filters().get(chosen_filter, "md")


_last_folder: Path | None = None  # where the last export of this run went: the next one starts there


def start_folder() -> Path:
    """The last export's folder, else Documents, else the home folder: always one that exists (a missing one
    made the dialog open in the process's working folder)."""
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    for folder in (_last_folder, Path(documents) if documents else None):
        if folder is not None and folder.is_dir():
            return folder
    return Path.home()


def ask(client: HostClient, session: dict, parent: QWidget, on_done=None) -> QFileDialog:
    """Open the save dialog for ``session``; the export starts when a file is chosen."""
    dialog = QFileDialog(parent, _tr("Export chat"), str(start_folder() / export.suggested_name(session, "md")))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)  # one per Export…: none kept once closed
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setNameFilters(list(filters()))
    dialog.setDefaultSuffix("md")
    dialog.filterSelected.connect(lambda chosen: dialog.setDefaultSuffix(filters().get(chosen, "md")))

    def chosen(path: str) -> None:
        global _last_folder
        _last_folder = Path(path).parent
        fmt = format_of(path, dialog.selectedNameFilter())
        run(client, session["id"], fmt, Path(path), parent, on_done)

    dialog.fileSelected.connect(chosen)
    dialog.open()
    return dialog


def run(client: HostClient, session_id: str, fmt: str, target: Path, parent: QWidget, on_done=None):
    """Write the export; a note says where it went, a failure goes to the window's error line."""

    async def write() -> Path:
        await client.call("session.export", {"sessionId": session_id, "format": fmt, "path": str(target)})
        return target

    def done(path: Path) -> None:
        note = getattr(parent, "show_note", None)
        if callable(note):
            note(i18n.arg(_tr("Chat exported to %1"), str(path)))
        if on_done is not None:
            on_done(path)

    return task_op(write, parent=parent, name="export", success=done).run()
