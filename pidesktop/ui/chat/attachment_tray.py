"""The attachments waiting in the composer, as removable chips.

Files (dropped, pasted or picked) and long pasted text are handed to the host,
which streams them into ``attachments/`` under their SHA-256
(``attachments.import`` / ``attachments.importText``); the UI never copies the
bytes itself. A chip shows "Adding…" until the host answers, and Send waits for
every chip to be ready.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from pidesktop.bus import ErrorCode, HostClient, HostError
from pidesktop.sizes import human_size
from pidesktop.ui.kit.ops import task_op

_ids = itertools.count(1)


class Chip(QFrame):
    removeRequested = Signal(int)

    def __init__(self, chip_id: int, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("attachmentChip")
        self.chip_id = chip_id
        self.name = name
        self.block: dict | None = None  # the host's attachment block once it is stored
        self.label = QLabel()
        self.label.setObjectName("chipLabel")
        remove = QToolButton()
        remove.setObjectName("chipRemove")
        remove.setText("×")
        remove.setToolTip(self.tr("Remove this attachment"))
        remove.setCursor(Qt.CursorShape.PointingHandCursor)
        remove.clicked.connect(lambda: self.removeRequested.emit(self.chip_id))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 2, 2)
        layout.setSpacing(2)
        layout.addWidget(self.label)
        layout.addWidget(remove)
        self.show_pending(name)

    def show_pending(self, name: str) -> None:
        self.label.setText(self.tr("Adding %1…").replace("%1", _elided(name)))

    def show_ready(self, block: dict) -> None:
        self.block = block
        size = human_size(block["size"]) if isinstance(block.get("size"), int) else ""
        self.label.setText(_elided(block.get("name") or "") + (f" · {size}" if size else ""))
        self.setToolTip(block.get("name") or "")


def _elided(name: str, limit: int = 32) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


PICKER_SIZE = (900, 560)  # wide enough for the name, size, type and date columns


class FilePicker:
    """The attach-files dialog: opens in the folder used last (the home folder at first), at a useful size."""

    last_folder: str | None = None

    @classmethod
    def choose(cls, parent: QWidget | None, title: str) -> tuple[list[str], str]:
        """The chosen files and the name filter, like ``QFileDialog.getOpenFileNames``."""
        start = cls.last_folder if cls.last_folder and os.path.isdir(cls.last_folder) else str(Path.home())
        dialog = QFileDialog(parent, title, start)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setViewMode(QFileDialog.ViewMode.Detail)
        dialog.resize(*PICKER_SIZE)
        if not dialog.exec():
            return [], ""
        paths = dialog.selectedFiles()
        if paths:
            cls.last_folder = os.path.dirname(paths[0])
        return paths, dialog.selectedNameFilter()


class AttachmentTray(QWidget):
    """A row of chips above the prompt; hidden while empty."""

    changed = Signal()
    failed = Signal(object, str)  # a HostError, and the sentence that names what could not be added

    def __init__(self, client: HostClient | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("attachmentTray")
        self.client = client
        self.chips: dict[int, Chip] = {}
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self.hide()

    # -- what the composer asks -----------------------------------------------------------
    def blocks(self) -> list[dict]:
        return [chip.block for chip in self.chips.values() if chip.block is not None]

    def pending(self) -> bool:
        return any(chip.block is None for chip in self.chips.values())

    def clear(self) -> None:
        for chip_id in list(self.chips):
            self._remove(chip_id)

    def set_blocks(self, blocks: list[dict]) -> None:
        """Show already-stored attachments (an earlier prompt being edited)."""
        self.clear()
        for block in blocks:
            self._add_chip(block.get("name") or "").show_ready(block)
        self._changed()

    # -- adding ---------------------------------------------------------------------------
    def add_files(self, paths: list[str]) -> None:
        for path in paths:
            chip = self._add_chip(Path(path).name)
            self._store(chip, "attachments.import", {"path": str(Path(path).resolve())})

    def add_text(self, text: str) -> None:
        chip = self._add_chip(self.tr("Pasted text"))
        lines = text.count("\n") + 1
        name = self.tr("Pasted text (%1 lines).txt").replace("%1", str(lines))
        self._store(chip, "attachments.importText", {"text": text, "name": name})

    def add_image(self, image: QImage) -> None:
        """A pasted picture: written as PNG to the system temp folder, imported, then deleted."""
        name = self.tr("Pasted image.png")
        chip = self._add_chip(name)
        handle, temp = tempfile.mkstemp(prefix="pidesktop-paste-", suffix=".png")
        os.close(handle)
        if not image.save(temp, "PNG"):
            os.unlink(temp)
            self._remove(chip.chip_id)
            sentence = self.tr("The pasted image could not be read.")
            self.failed.emit(HostError(ErrorCode.INVALID_PARAMS, sentence), sentence)
            return
        self._store(chip, "attachments.import", {"path": temp, "name": name}, cleanup=temp)

    def _add_chip(self, name: str) -> Chip:
        chip = Chip(next(_ids), name)
        chip.removeRequested.connect(self._remove)
        self.chips[chip.chip_id] = chip
        self._layout.insertWidget(self._layout.count() - 1, chip)
        self._changed()
        return chip

    def _store(self, chip: Chip, method: str, params: dict, cleanup: str | None = None) -> None:
        async def store() -> dict:
            try:
                return await self.client.call(method, params)
            finally:
                if cleanup:
                    Path(cleanup).unlink(missing_ok=True)

        def stored(result: dict) -> None:
            if chip.chip_id in self.chips:  # not removed while it was being added
                chip.show_ready(result["attachment"])
                self._changed()

        def refused(error: HostError) -> None:
            self._remove(chip.chip_id)
            self.failed.emit(error, self.tr("“%1” could not be added. Details says why.").replace("%1", chip.name))

        task_op(store, parent=self, name="attachment-import", success=stored, failure=refused).run()

    def _remove(self, chip_id: int) -> None:
        chip = self.chips.pop(chip_id, None)
        if chip is not None:
            self._layout.removeWidget(chip)
            chip.deleteLater()
            self._changed()

    def _changed(self) -> None:
        self.setVisible(bool(self.chips))
        self.changed.emit()
