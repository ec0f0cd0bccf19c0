"""Start-up windows shown before any host opens a data folder, when there is something to do.

``prepare(location, theme_name, notes)`` is the entry point ``app.run_gui`` calls: it finishes a pending move
(``move_window``), handles a missing default folder (``missing_root_window``) and updates an older database
(``migration_window``), each in a local Qt event loop so it paints while the storage job runs on a worker
thread, and returns the location to open, or None when the person chose to quit; ``notes`` receives the line
the main window shows afterwards (where the database backup of a migration is)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from pidesktop import paths
from pidesktop.storage import recovery
from pidesktop.storage.schema_update import schema_check
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.startup.migration_window import MigrationWindow, migration_note
from pidesktop.ui.startup.missing_root_window import MissingRootWindow
from pidesktop.ui.startup.move_window import MoveProgressWindow


def prepare(
    location: paths.StorageLocation, theme_name: str | None = None, notes: list[str] | None = None
) -> paths.StorageLocation | None:
    """Finish a pending move, handle a missing default folder and update an older database, with windows;
    None means quit. ``notes`` receives the line for the main window after a migration.

    Raises ``recovery.RecoveryError`` for what no window can fix (a damaged journal).
    """
    theme = None

    def window_theme() -> themes.Theme:
        nonlocal theme
        if theme is None:
            app = QApplication.instance()
            _install_language(app, location)
            theme = themes.pick(theme_name)
            themes.apply(app, theme)
        return theme

    if location.source != "env":
        recovery.refuse_maintenance_without_root(location)  # before any choice could replace that folder
        pending = recovery.pending()
        check = recovery.check_default_root() if pending is None else None
        if pending is None and check.state != "missing":
            location = recovery.before_host_start(location)
        else:
            if pending is not None:
                location = MoveProgressWindow(location, window_theme()).run()
                if location is None:
                    return None
                check = recovery.check_default_root()
            if check.state == "missing":
                location = MissingRootWindow(check, window_theme()).run()
                if location is None:
                    return None
                location = recovery.before_host_start(location)
    while (needed := schema_check(location)) is not None:
        window = MigrationWindow(location, needed, window_theme())
        chosen = window.run()
        if chosen is None:
            return None
        if window.done is not None:
            if notes is not None:
                notes.append(migration_note(window.done))
            return chosen
        location = recovery.before_host_start(chosen)  # another folder: its database is checked in turn
    return location


def needs_window(location: paths.StorageLocation) -> bool:
    """Whether ``prepare`` has a window to show for the database (older or newer than this pidesktop)."""
    return schema_check(location) is not None


def _install_language(app, location: paths.StorageLocation) -> None:
    from pidesktop.ui.kit.prefs import Preferences

    try:
        language = Preferences(location.ui_root).data["window"].get("language")
    except Exception:
        language = None
    i18n.install(app, language)
