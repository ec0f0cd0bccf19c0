"""Projects and project groups in the sidebar: names, order, the group level, the badges.

The host's projects (``projects.list``) give a project's header its name and
a warning badge when its folder is gone; project groups (``projectGroups.list``)
add a level: a group's header row ("pgroup:<id>") comes first, then its member
projects, indented, in the group's root order. A collapsed group hides its
members' rows (the front-end preference ``collapsed`` under the key
"group:<id>"). A project's header shows a "+" while hovered: New chat in this
project.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

GROUP_PREFIX = "pgroup:"  # a project group's header row: "pgroup:<group id>"
PROJECT_PREFIX = "project:"
PREF_PREFIX = "group:"  # its collapsed flag in the sidebar preferences
INDENT = 14  # a member project (and its chats) under its group's header
PLUS_WIDTH = 26  # the hover "+" at a project header's right end
WARNING = "⚠"


class ProjectIndex:
    """What the sidebar knows of the host's projects and groups, by path."""

    def __init__(self) -> None:
        self.by_path: dict[str, dict] = {}
        self.groups: dict[str, dict] = {}  # group id -> group
        self.placement: dict[str, tuple[int, int, str]] = {}  # path -> (group rank, root position, group id)

    def set(self, projects: list[dict], groups: list[dict]) -> None:
        self.by_path = {p["path"]: p for p in projects}
        self.groups = {g["id"]: g for g in groups}
        self.placement = {}
        for rank, group in enumerate(groups):
            for position, root in enumerate(group.get("roots") or []):
                self.placement.setdefault(root, (rank, position, group["id"]))

    def project(self, path: str | None) -> dict | None:
        return self.by_path.get(path) if path else None


def is_group_key(key: str) -> bool:
    return key.startswith(GROUP_PREFIX)


def group_id(key: str) -> str:
    return key[len(GROUP_PREFIX) :]


def pref_key(group_key: str) -> str:
    return PREF_PREFIX + group_id(group_key)


def title(index: ProjectIndex, key: str) -> str | None:
    """A header's name from the host: the project's own name, or the group's; None to use the default."""
    if is_group_key(key):
        group = index.groups.get(group_id(key))
        return group["name"] if group else None
    if key.startswith(PROJECT_PREFIX):
        project = index.project(key[len(PROJECT_PREFIX) :])
        return project["name"] if project else None
    return None


def order(index: ProjectIndex, key: str, path: str | None) -> tuple | None:
    """Groups first among the projects, each header then its members; None for everything else."""
    if is_group_key(key):
        group = index.groups.get(group_id(key))
        rank = list(index.groups).index(group_id(key)) if group else 1 << 30
        return (1, -1, rank, 0, 0, "")
    placed = index.placement.get(path) if key.startswith(PROJECT_PREFIX) else None
    if placed is None:
        return None
    rank, position, _group = placed
    return (1, -1, rank, 1, position, path)


def header_of(index: ProjectIndex, key: str) -> str | None:
    """The group header key a project header sits under, if any."""
    if not key.startswith(PROJECT_PREFIX):
        return None
    placed = index.placement.get(key[len(PROJECT_PREFIX) :])
    return GROUP_PREFIX + placed[2] if placed else None


def tr(text: str) -> str:
    return QCoreApplication.translate("ProjectRows", text)


def tooltip(index: ProjectIndex, key: str, path: str | None) -> str | None:
    if is_group_key(key):
        group = index.groups.get(group_id(key))
        if group is None:
            return None
        return tr("Project group: its memory and instructions go with every chat in its projects")
    project = index.project(path)
    if project is not None and project.get("missing"):
        return tr("The folder %1 can’t be found. Its chats are kept.").replace("%1", path)
    if project is not None:
        return tr("%1\nHover and click + for a new chat in this project; right-click for more.").replace("%1", path)
    return None


def indent(model, index: QModelIndex) -> int:
    """How far a row sits in: a member project's header and chats, under their group."""
    group = model.group_at(index.parent() if index.parent().isValid() else index)
    if group is None or not group.key.startswith(PROJECT_PREFIX):
        return 0
    return INDENT if group.path in model.project_index.placement else 0


def collapsed(prefs, group_key: str) -> bool:
    return bool(prefs.project_meta(pref_key(group_key)).get("collapsed"))


def on_plus(rect: QRect, x: int) -> bool:
    return x >= rect.right() - PLUS_WIDTH - 8


def paint_header(
    delegate, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex, rect: QRect, group
) -> bool:
    """Paint a project or project-group header; False for other headers (drawn as before)."""
    model = index.model()
    key = group.key
    if not (is_group_key(key) or key.startswith(PROJECT_PREFIX)):
        return False
    theme = delegate.theme
    font = QFont(option.font)
    font.setPointSizeF(font.pointSizeF() * 0.9)
    font.setWeight(QFont.Weight.DemiBold)
    painter.setFont(font)
    metrics = painter.fontMetrics()
    inner = rect.adjusted(4, 6, -4, 0)
    if is_group_key(key):
        arrow = "▸" if collapsed(model.prefs, key) else "▾"
        painter.setPen(QColor(theme.text))
        painter.drawText(
            inner,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(f"{arrow}  {group.label}", Qt.TextElideMode.ElideRight, inner.width()),
        )
        return True
    inner.setLeft(inner.left() + indent(model, index))
    hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
    if hovered:  # New chat in this project
        plus = QRect(rect.right() - PLUS_WIDTH, rect.top() + 5, PLUS_WIDTH - 4, rect.height() - 8)
        path = QPainterPath()
        path.addRoundedRect(plus, 6, 6)
        painter.fillPath(path, QColor(theme.hover))
        painter.setPen(QColor(theme.text))
        painter.drawText(plus, Qt.AlignmentFlag.AlignCenter, "+")
        inner.setRight(plus.left() - 4)
    arrow = "▾" if delegate._view.isExpanded(index) else "▸"
    project = model.project_index.project(group.path)
    missing = bool(project and project.get("missing"))
    badge = f"  {WARNING}" if missing else ""
    label = metrics.elidedText(
        f"{arrow}  {group.label}", Qt.TextElideMode.ElideRight, inner.width() - metrics.horizontalAdvance(badge)
    )
    painter.setPen(QColor(theme.muted))
    painter.drawText(inner, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)
    if missing:
        painter.setPen(QColor(theme.danger))
        badge_rect = inner.adjusted(metrics.horizontalAdvance(label), 0, 0, 0)
        painter.drawText(badge_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, badge)
    return True
