"""The checklist the model keeps (``TodoWrite``), shown just above the composer.

A header with the progress ("2 of 5 done") and a bar, then one line per
item: done items struck through, the one in progress in bold. The list
folds away by itself once every item is done (the header stays, and a click
unfolds it); an empty checklist hides the panel. It reads ``todo.get`` when
a chat opens and follows ``session.changed {reason: "todo"}`` events, whose
revision tells a newer list from an older one.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QToolButton, QVBoxLayout, QWidget

from pidesktop.bus import HostClient, topics
from pidesktop.ui.kit.ops import host_op
from pidesktop.ui.kit.theme import Theme

MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐", "cancelled": "☒"}


class TodoPanel(QFrame):
    failed = Signal(object)  # a HostError

    def __init__(self, client: HostClient, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("todoPanel")
        self.client = client
        self.theme = theme
        self.session_id: str | None = None
        self.todo: dict | None = None
        self.folded = False
        self._folded_by_person: bool | None = None  # a click wins over folding by itself

        self.fold_button = QToolButton()
        self.fold_button.setObjectName("todoFold")
        self.fold_button.setAutoRaise(True)
        self.fold_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.fold_button.clicked.connect(self._toggle)
        self.progress = QProgressBar()
        self.progress.setObjectName("todoProgress")
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(4)
        self.progress.setFixedWidth(120)
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.fold_button, 1, Qt.AlignmentFlag.AlignLeft)
        header.addWidget(self.progress, 0, Qt.AlignmentFlag.AlignVCenter)

        self.items = QWidget()
        self.items_layout = QVBoxLayout(self.items)
        self.items_layout.setContentsMargins(4, 2, 0, 0)
        self.items_layout.setSpacing(2)
        self._labels: list[QLabel] = []

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        layout.addLayout(header)
        layout.addWidget(self.items)
        self.set_theme(theme)
        self.hide()

    # -- data ---------------------------------------------------------------------------
    async def show_session(self, session_id: str | None) -> None:
        if session_id != self.session_id:
            self.set_todo(None)  # the last chat's checklist never shows under this one while its own loads
        self.session_id = session_id
        self._folded_by_person = None
        todo = None
        if session_id is not None:
            got = await host_op(
                self.client, "todo.get", {"sessionId": session_id}, parent=self, failure=self.failed.emit
            )
            todo = got["todo"] if got else None
        if session_id == self.session_id:
            self.todo = None
            self.set_todo(todo)

    def handle_event(self, topic: str, payload: dict) -> None:
        if (
            topic == topics.SESSION_CHANGED
            and payload.get("reason") == "todo"
            and payload.get("sessionId") == self.session_id
        ):
            self.set_todo(payload.get("todo"))

    def set_todo(self, todo: dict | None) -> None:
        if todo is not None and self.todo is not None and todo.get("revision", 0) < self.todo.get("revision", 0):
            return  # an older list arriving late never replaces a newer one
        self.todo = todo
        items = (todo or {}).get("items") or []
        if not items:
            self.hide()
            return
        for label in self._labels:
            label.deleteLater()
        self._labels = []
        for item in items:
            label = QLabel()
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setWordWrap(True)
            label.setText(self._item_html(item))
            self._labels.append(label)
            self.items_layout.addWidget(label)
        done = sum(1 for item in items if item["status"] in ("completed", "cancelled"))
        self.progress.setMaximum(len(items))
        self.progress.setValue(done)
        all_done = done == len(items)
        self.folded = self._folded_by_person if self._folded_by_person is not None else all_done
        self._refresh(done, len(items))
        self.show()

    def _item_html(self, item: dict) -> str:
        t = self.theme
        text = html.escape(item["content"], quote=False)
        mark = MARKS.get(item["status"], "☐")
        if item["status"] in ("completed", "cancelled"):
            return f"<span style='color:{t.muted}'>{mark}&nbsp;&nbsp;<s>{text}</s></span>"
        if item["status"] == "in_progress":
            return f"<span style='color:{t.accent}'>{mark}</span>&nbsp;&nbsp;<b>{text}</b>"
        return f"<span style='color:{t.muted}'>{mark}</span>&nbsp;&nbsp;{text}"

    def _refresh(self, done: int, total: int) -> None:
        arrow = "▸" if self.folded else "▾"
        if done == total:
            summary = self.tr("Checklist done: %1 of %2").replace("%1", str(done)).replace("%2", str(total))
        else:
            summary = self.tr("Checklist: %1 of %2 done").replace("%1", str(done)).replace("%2", str(total))
            current = next(
                (i["content"] for i in (self.todo or {}).get("items", []) if i["status"] == "in_progress"), None
            )
            if self.folded and current:
                summary += " · " + current
        self.fold_button.setText(f"{arrow}  {summary}")
        self.fold_button.setToolTip(self.tr("Show the checklist") if self.folded else self.tr("Fold the checklist"))
        self.items.setVisible(not self.folded)

    def _toggle(self) -> None:
        self.folded = not self.folded
        self._folded_by_person = self.folded
        items = (self.todo or {}).get("items") or []
        self._refresh(sum(1 for i in items if i["status"] in ("completed", "cancelled")), len(items))

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        t = theme
        self.setStyleSheet(
            f"#todoPanel {{ background: {t.sidebar}; border: 1px solid {t.border}; border-radius: 8px; }}"
            f"#todoPanel QLabel {{ color: {t.text}; }}"
            f"#todoFold {{ color: {t.text}; font-weight: 600; border: none; padding: 0; }}"
            f"#todoProgress {{ background: {t.border}; border: none; border-radius: 2px; }}"
            f"#todoProgress::chunk {{ background: {t.accent}; border-radius: 2px; }}"
        )
        if self.todo is not None:
            todo, self.todo = self.todo, None
            self.set_todo(todo)
