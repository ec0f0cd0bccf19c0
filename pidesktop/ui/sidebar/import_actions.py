"""Where people find importing and the trash: "Import chats…" and "Trash" in the sidebar's ⋯ menu.

The window has no menu bar, so the ⋯ menu (which already holds "New
project…") is the File menu's place; both actions are window shortcuts too.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence


def _tr(text: str) -> str:
    return QCoreApplication.translate("ImportActions", text)


def install(window) -> None:
    """Add the two actions to ``window`` (a ``MainWindow``) and to its sidebar's ⋯ menu, after "New project…"."""
    window.import_action = QAction(_tr("Import chats…"), window)
    window.import_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
    window.import_action.setToolTip(_tr("Bring in Claude Code, Codex and pi sessions (Ctrl+Shift+O)"))
    window.import_action.triggered.connect(lambda: _open(window, "import_dialog_open", _ask_import))
    window.trash_action = QAction(_tr("Trash"), window)
    window.trash_action.setToolTip(_tr("Chats you deleted: restore or delete for good"))
    window.trash_action.triggered.connect(lambda: _open(window, "trash_dialog_open", _ask_trash))
    for action in (window.import_action, window.trash_action):
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        window.addAction(action)
    menu = window.sidebar.view_button.menu()
    actions = menu.actions()
    anchor = actions[1] if len(actions) > 1 else None  # after "New project…" and before what follows it
    menu.insertAction(anchor, window.import_action)
    menu.insertAction(anchor, window.trash_action)


# The dialogs (and the data tools they use) are imported when first opened, not before the window's first paint.
def _ask_import(client, parent):
    from pidesktop.ui.data import import_dialog

    return import_dialog.ask(client, parent)


def _ask_trash(client, parent):
    from pidesktop.ui.sidebar import trash_view

    return trash_view.ask(client, parent)


def _open(window, attribute: str, ask) -> None:
    """One dialog of each kind at a time: a second click brings the open one forward."""
    dialog = getattr(window, attribute, None)
    try:
        if dialog is not None and dialog.isVisible():
            dialog.raise_()
            dialog.activateWindow()
            return
    except RuntimeError:  # deleted on close
        pass
    setattr(window, attribute, ask(window.client, window))
