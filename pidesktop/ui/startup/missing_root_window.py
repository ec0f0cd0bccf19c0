"""The default data folder is gone (not a first run): create a fresh one, select an existing one
(validated with ``recovery.validate_existing``), restore one from S3, or quit."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pidesktop import paths
from pidesktop.storage import recovery
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit import theme as themes
from pidesktop.ui.kit.dialog_style import set_severity
from pidesktop.ui.startup.window_base import FolderChoice, StartupWindow, run_in_thread


class MissingRootWindow(FolderChoice, StartupWindow):
    def __init__(
        self, check: recovery.DefaultRootCheck, theme: themes.Theme | None = None, parent: QWidget | None = None
    ):
        super().__init__(theme, parent)
        self.check = check
        self.choose_from = check.data_root.parent
        title = QLabel(self.tr("Your data folder is missing"))
        title.setObjectName("pageTitle")
        text = QLabel(
            i18n.arg(
                self.tr(
                    "pidesktop kept its data in %1, but that folder is gone. If it is on a disk "
                    "that is not connected, quit, connect it and start pidesktop again."
                ),
                check.data_root,
            )
        )
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label = QLabel()
        self.error_label.setObjectName("report")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()
        self.fresh_button = QPushButton(self.tr("Create a fresh data folder"))
        self.fresh_button.clicked.connect(self.create_fresh)
        self.select_button = QPushButton(self.tr("Select an existing one…"))
        self.select_button.setObjectName("primary")
        self.select_button.clicked.connect(self.browse)
        self.s3_button = QPushButton(self.tr("Restore from S3…"))
        self.s3_button.clicked.connect(self.show_s3_form)
        self.quit_button = QPushButton(self.tr("Quit"))
        self.quit_button.clicked.connect(lambda: self.end(None))
        from pidesktop.ui.data.backup_dialogs import S3RestoreForm

        self.s3_intro = QLabel(
            i18n.arg(
                self.tr(
                    "Rebuild %1 from the newest backup made with Back up to S3 or “pidesktop data backup s3”. "
                    "Its passphrase is the Settings > Sync one, unless another was typed:"
                ),
                check.data_root,
            )
        )
        self.s3_intro.setWordWrap(True)
        self.s3_form = S3RestoreForm(self)
        self.s3_restore_button = QPushButton(self.tr("Restore"))
        self.s3_restore_button.setObjectName("primary")
        self.s3_restore_button.clicked.connect(self.restore_from_s3)
        s3_row = QHBoxLayout()
        s3_row.addStretch(1)
        s3_row.addWidget(self.s3_restore_button)
        for widget in (self.s3_intro, self.s3_form, self.s3_restore_button):
            widget.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.quit_button)
        buttons.addStretch(1)
        for button in (self.s3_button, self.fresh_button, self.select_button):
            buttons.addWidget(button)
        for button in (self.quit_button, self.s3_button, self.fresh_button, self.select_button, self.s3_restore_button):
            button.setAutoDefault(False)
        self.page_layout = layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 20, 24, 16)
        layout.setSpacing(10)
        layout.addWidget(title)
        layout.addWidget(text)
        # The S3 form and an error line appear later: the window grows to fit them, never squeezes them.
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        layout.addWidget(self.s3_intro)
        layout.addWidget(self.s3_form)
        layout.addLayout(s3_row)
        layout.addWidget(self.error_label)
        layout.addSpacing(8)
        layout.addLayout(buttons)

    def _busy(self, busy: bool) -> None:
        buttons = (self.fresh_button, self.select_button, self.quit_button, self.s3_button, self.s3_restore_button)
        for button in buttons:
            button.setEnabled(not busy)

    def show_s3_form(self) -> None:
        for widget in (self.s3_intro, self.s3_form, self.s3_restore_button):
            widget.show()
        self.s3_button.hide()
        self.s3_form.bucket.setFocus()
        self.s3_form.fit()
        self._fit()

    def _fit(self) -> None:
        """Grow to the height the form and the error line need (a dialog's minimum ignores late children)."""
        layout = self.page_layout
        layout.invalidate()
        layout.activate()
        needed = max(layout.totalMinimumSize().height(), layout.totalSizeHint().height())
        self.setMinimumHeight(needed)
        self.resize(self.width(), max(self.height(), needed))

    def restore_from_s3(self) -> None:
        """Restore the newest S3 snapshot into the missing default data folder, then start on it."""
        from pidesktop.ui.data.backup_dialogs import restore_s3

        form = self.s3_form
        values = {
            "endpoint": form.endpoint.text(),
            "bucket": form.bucket.text(),
            "prefix": form.prefix.text(),
            "region": form.region.text(),
            "accessKey": form.access_key.text(),
            "secretKey": form.secret_key.text(),
            "passphrase": form.passphrase.text(),
        }
        target = self.check.data_root
        self.error_label.hide()
        self._busy(True)

        def restore():
            restore_s3(values, target)
            return paths.resolve({})

        run_in_thread(restore, self.end, self._failed, self)

    def _failed(self, message: str) -> None:
        self._busy(False)
        self.error_label.setText(message)
        set_severity(self.error_label, "error")
        self.error_label.show()
        self._fit()

    def create_fresh(self) -> None:
        self._busy(True)
        run_in_thread(recovery.create_fresh_default, self.end, self._failed, self)
