"""The window's openers and its settings: the inbox, search, settings and automations, opened from their
shortcuts and buttons, and the app's settings (theme, display, composer) applied as they come and change.

The dialogs are imported when first opened (or by the warm-up after the first paint), not before it. The window
keeps the open ones (``search_dialog``, ``settings_dialog``) and the settings (``settings``), which other parts
read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from pidesktop.ui.kit import theme as themes

if TYPE_CHECKING:
    from pidesktop.ui.window.main_window import MainWindow


class Dialogs(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window

    # -- the inbox ----------------------------------------------------------------
    def toggle_inbox(self) -> None:
        inbox = self.window.inbox
        if inbox.isVisible():
            inbox.dismiss()
        else:
            inbox.slide_in()

    def open_from_inbox(self, session_id: str) -> None:
        self.window.chat_view.open_chat(session_id)
        self.window.inbox.dismiss()

    def unread_changed(self, count: int) -> None:
        w = self.window
        w.bell.set_count(count + w.plans.pending.count)  # proposals waiting elsewhere count too
        w.sidebar.delegate.unread = {row["sessionId"] for row in w.inbox.model.rows if row["readAt"] is None}
        w.sidebar.tree.viewport().update()
        w.chat_view.mark_read(w.current_session_id)  # a reply finished in the chat being read

    # -- search, settings, automations ------------------------------------------------
    def open_search(self) -> None:
        w = self.window
        if w.search_dialog is None:
            from pidesktop.ui.search.search_dialog import SearchDialog

            w.search_dialog = SearchDialog.ask(w.client, w.theme, w)
            w.search_dialog.chosen.connect(self.open_search_hit)
        w.search_dialog.open()

    def open_search_hit(self, session_id: str, message_id: str, query: str = "") -> None:
        w = self.window
        # An automation's run chat has no sidebar row: open_chat shows it all the same.
        w.chat_view.open_chat(session_id, around=message_id or None, find=query)
        w.composer.focus_prompt()

    def open_settings(self, page: str = "") -> None:
        """Settings, one at a time; ``page``: the page to show (``SettingsDialog.show_page``'s names)."""
        from pidesktop.ui.kit.tasks import spawn

        w = self.window
        if w.settings_dialog is not None:
            if page:
                w.settings_dialog.show_page(page)
            w.settings_dialog.raise_()
            return
        from pidesktop.ui.settings.settings_dialog import SettingsDialog

        dialog = SettingsDialog.ask(w.client, w.theme, w)
        dialog.destroyed.connect(lambda: setattr(w, "settings_dialog", None))
        dialog.settingsChanged.connect(lambda settings: spawn(self.apply_settings(settings), name="apply-settings"))
        dialog.providersChanged.connect(lambda: spawn(self.refresh_model_chip(), name="model-chip"))
        w.settings_dialog = dialog
        if page:
            dialog.show_page(page)
        dialog.open()

    def open_automations(self):
        """The Automations dialog (one at a time)."""
        from pidesktop.ui.automations.automations import open_automations

        return open_automations(self.window)

    # -- settings applied -------------------------------------------------------------
    async def apply_settings(self, settings: dict) -> None:
        """Theme and display settings take effect at once; the language at the next start."""
        w = self.window
        w.settings = settings
        self.remember_language(settings.get("language"))
        theme = themes.pick(w.forced_theme or settings.get("theme"))
        if theme != w.theme:
            self.set_theme(theme)
        w.transcript.set_show_thinking(bool(settings.get("showThinking", True)))
        w.transcript.set_display_mode(settings.get("transcriptDisplayMode"))
        w.composer.set_default_permission(settings.get("permissionMode"))
        threshold = settings.get("largePasteThreshold")
        if isinstance(threshold, int) and threshold > 0:
            w.composer.edit.paste_threshold = threshold

    def remember_language(self, language) -> None:
        """Keep the language setting where start-up can read it before the host answers."""
        prefs = self.window.prefs
        if not isinstance(language, str) or prefs.data["window"].get("language") == language:
            return
        prefs.data["window"]["language"] = language
        prefs.save()

    def set_theme(self, theme: themes.Theme) -> None:
        from PySide6.QtWidgets import QApplication

        w = self.window
        w.theme = theme
        app = QApplication.instance()
        if app is not None:
            themes.apply(app, theme)
        w.sidebar.set_theme(theme)
        w.conversation.set_theme(theme)
        if w.search_dialog is not None:
            w.search_dialog.set_theme(theme)
        if w.settings_dialog is not None:
            w.settings_dialog.apply_theme(theme)

    async def refresh_model_chip(self) -> None:
        from pidesktop.ui.chat.model_choices import chip_text, model_choices
        from pidesktop.ui.chat.usage_format import price_table
        from pidesktop.ui.kit.ops import host_op

        w = self.window
        listed = await host_op(w.client, "providers.list", parent=w, failure=lambda _e: None)
        if listed is None:
            return
        w.model_chip.setText(chip_text(listed, self.tr("Offline demo (no AI)")))
        w.model_chip.setVisible(bool(w.model_chip.text()))
        models = await host_op(w.client, "models.list", parent=w, failure=lambda _e: None)
        rows = (models or {}).get("models", [])
        recent = await host_op(w.client, "models.recent", parent=w, failure=lambda _e: None)
        w.composer.set_models(model_choices(listed, rows, (recent or {}).get("models")), w.model_chip.text())
        w.transcript.set_prices(price_table(rows))  # the cost under each reply, where the price is known
