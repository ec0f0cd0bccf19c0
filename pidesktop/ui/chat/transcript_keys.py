"""Reaching the transcript's buttons from the keyboard: a focus that walks its painted targets.

The transcript paints its rows, so their buttons (Copy, Edit, a tool row's
Revert...) and foldable parts (a tool call, a group of calls, thinking) are
not widgets Tab can reach. While the transcript has the focus, one of these
*targets* has the keyboard focus: Up/Down (and Left/Right) move to the
previous/next one, in reading order across rows; Home/End jump to the first
or last; Enter or Space presses it (a button) or folds/unfolds it (a part).
Tab and Shift+Tab leave the transcript as usual. Entering it with Tab starts
at the last target in view (the newest work is usually what one came for),
with Shift+Tab too.

A target is ``(row key, kind, name)``: ``kind`` is ``action`` (``name`` the
action's, as clicking emits it) or ``toggle`` (``name`` the part's toggle
key). A switched-off button is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QPoint, QRectF

from pidesktop.ui.chat.message_layout import RenderedRow

if TYPE_CHECKING:
    from pidesktop.ui.chat.transcript_model import TranscriptModel
    from pidesktop.ui.chat.transcript_view import TranscriptView

ACTION, TOGGLE = "action", "toggle"


@dataclass(frozen=True)
class Target:
    key: str  # the row's key
    kind: str  # ACTION or TOGGLE
    name: str  # the action's name, or the part's toggle key

    def rect(self, rendered: RenderedRow) -> QRectF | None:
        """Where the target is in its row, or None when the row no longer has it."""
        if self.kind == ACTION:
            found = next((a for a in rendered.actions if a.name == self.name and a.enabled), None)
            return QRectF(found.rect) if found is not None else None
        part = next((p for p in rendered.parts if p.toggle == self.name), None)
        if part is None:
            return None
        # a folded part's header line: the whole part when short, else its first line
        return QRectF(part.x, part.y, part.width, min(part.height, 28.0))


def targets_of(key: str, rendered: RenderedRow) -> list[Target]:
    """A row's targets in reading order: top to bottom, then left to right."""
    found: list[tuple[float, float, Target]] = []
    for part in rendered.parts:
        if part.toggle:
            found.append((part.y, part.x, Target(key, TOGGLE, part.toggle)))
    for action in rendered.actions:
        if action.enabled:
            found.append((action.rect.top(), action.rect.left(), Target(key, ACTION, action.name)))
    found.sort(key=lambda item: (round(item[0]), item[1]))
    return [target for _y, _x, target in found]


class KeyboardFocus:
    """The transcript's keyboard focus: which target has it, moving it, pressing it, and where to draw it."""

    def __init__(self, view: TranscriptView):
        self.view = view
        self.target: Target | None = None
        self.drawn = False  # only once the keyboard is used: a click into the transcript shows no ring

    # -- what is where --------------------------------------------------------------------
    def _model(self) -> TranscriptModel:
        return cast("TranscriptModel", self.view.model())

    def _targets_at(self, row: int) -> list[Target]:
        model = self._model()
        index = model.index(row)
        entry = model.row_at(index)
        if entry is None:
            return []
        return targets_of(entry["key"], self.view.delegate.rendered(index))

    def _rect_in_view(self, target: Target) -> QRectF | None:
        """The target's rectangle in viewport coordinates, or None when it is gone."""
        model = self._model()
        row = model.row_of(target.key)
        if row < 0:
            return None
        index = model.index(row)
        rect = target.rect(self.view.delegate.rendered(index))
        if rect is None:
            return None
        top = self.view.visualRect(index)
        return rect.translated(top.left(), top.top())

    def rect_in_row(self, key: str, rendered: RenderedRow) -> QRectF | None:
        """Where to draw the focus in row ``key`` (None: the focus is elsewhere, or the view lacks it)."""
        if not self.drawn or self.target is None or self.target.key != key or not self.view.hasFocus():
            return None
        return self.target.rect(rendered)

    def _last_in_view(self) -> Target | None:
        """The last target of the lowest row in view with any; else the nearest one above the view."""
        model = self._model()
        bottom = self.view.indexAt(QPoint(8, self.view.viewport().height() - 1))
        for row in range(bottom.row() if bottom.isValid() else model.rowCount() - 1, -1, -1):
            found = self._targets_at(row)
            if found:
                return found[-1]
        return None

    # -- moving and pressing --------------------------------------------------------------
    def enter(self, by_keyboard: bool) -> None:
        """The view got the focus: keep the target when it is still there, else start in view."""
        if self.target is None or self._rect_in_view(self.target) is None:
            self.target = self._last_in_view()
        self.drawn = by_keyboard
        if by_keyboard:
            self.show()

    def leave(self) -> None:
        self.drawn = False
        self.view.viewport().update()

    def move(self, step: int) -> None:
        """To the next (``step`` 1) or previous (-1) target, across rows."""
        model = self._model()
        if self.target is None or self._rect_in_view(self.target) is None:
            self.target = self._last_in_view()
        if self.target is None or not self.drawn:  # nothing to reach, or the first key after a click: show, no move
            self.show()
            return
        row = model.row_of(self.target.key)
        here = self._targets_at(row)
        at = here.index(self.target) if self.target in here else (-1 if step > 0 else len(here))
        if 0 <= at + step < len(here):
            self.target = here[at + step]
        else:
            row += step
            while 0 <= row < model.rowCount():
                found = self._targets_at(row)
                if found:
                    self.target = found[0] if step > 0 else found[-1]
                    break
                row += step
        self.show()

    def to_end(self, last: bool) -> None:
        model = self._model()
        rows = range(model.rowCount() - 1, -1, -1) if last else range(model.rowCount())
        for row in rows:
            found = self._targets_at(row)
            if found:
                self.target = found[-1] if last else found[0]
                break
        self.show()

    def press(self) -> bool:
        """Press the focused target; False when there is none."""
        target = self.target
        if not self.drawn or target is None or self._rect_in_view(target) is None:
            return False  # the person has not moved to anything with the keyboard yet
        if target.kind == ACTION:
            self.view.actionTriggered.emit(target.name, target.key)
        else:
            self.view.toggle(target.name)
            self.show()
        return True

    def show(self) -> None:
        """Scroll the focused target into view and repaint."""
        self.drawn = True
        rect = self._rect_in_view(self.target) if self.target is not None else None
        if rect is not None:
            bar = self.view.verticalScrollBar()
            height = self.view.viewport().height()
            if rect.top() < 0:
                bar.setValue(bar.value() + int(rect.top()) - 12)
            elif rect.bottom() > height:
                bar.setValue(bar.value() + int(rect.bottom() - height) + 12)
        self.view.viewport().update()
