"""The network proxy control of Settings > General: System / Direct / Custom, with address and bypass list.

The address and the bypass list stay filled in while System or Direct is
chosen (the host keeps them too) and count only in Custom. Custom without an
address is not saved yet: the address field asks for one, and the choice is
saved when the field is left with something in it.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Signal
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QVBoxLayout, QWidget

from pidesktop import network_proxy

MODES = (
    ("system", QT_TRANSLATE_NOOP("ProxyFields", "Use the system's proxy settings")),
    ("direct", QT_TRANSLATE_NOOP("ProxyFields", "No proxy")),
    ("custom", QT_TRANSLATE_NOOP("ProxyFields", "This proxy…")),
)


class ProxyFields(QWidget):
    changed = Signal(dict)  # the networkProxy value to store

    def __init__(self, mode_box: QComboBox, width: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.mode_combo = mode_box
        for value, label in MODES:
            self.mode_combo.addItem(QCoreApplication.translate("ProxyFields", str(label)), value)
        self.mode_combo.setFixedWidth(width)
        self.mode_combo.setToolTip(self.tr("How pidesktop reaches model providers and MCP servers"))
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("http://proxy.example.com:8080")
        self.url_edit.setAccessibleName(self.tr("Proxy address"))
        self.url_edit.setFixedWidth(width)
        self.url_edit.setObjectName("proxyField")
        self.bypass_label = QLabel(self.tr("Go around the proxy for"))
        self.bypass_label.setObjectName("muted")
        self.bypass_edit = QLineEdit()
        self.bypass_edit.setPlaceholderText(self.tr("localhost, 10.0.0.0/8, .corp"))
        self.bypass_edit.setAccessibleName(self.tr("Addresses that go around the proxy"))
        self.bypass_edit.setToolTip(
            self.tr("Host names, addresses or networks, separated by commas; example.com also covers its subdomains")
        )
        self.bypass_edit.setFixedWidth(width)
        self.bypass_edit.setObjectName("proxyField")
        self.note = QLabel()
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)
        self.note.setFixedWidth(width)
        self.note.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        for widget in (self.mode_combo, self.url_edit, self.note, self.bypass_label, self.bypass_edit):
            layout.addWidget(widget)
        self.mode_combo.currentIndexChanged.connect(self._mode_picked)
        self.url_edit.editingFinished.connect(self._fields_done)
        self.bypass_edit.editingFinished.connect(self._fields_done)
        self._stored: dict = {"mode": "system"}
        self._refresh()

    def show_value(self, value: object) -> None:
        """Show the stored ``networkProxy`` without saving anything."""
        setting = network_proxy.setting_of(value)
        self._stored = self.value_of(setting.mode, setting.url or "", ", ".join(setting.bypass))
        self.mode_combo.blockSignals(True)
        self.mode_combo.setCurrentIndex(max(0, self.mode_combo.findData(setting.mode)))
        self.mode_combo.blockSignals(False)
        self.url_edit.setText(setting.url or "")
        self.bypass_edit.setText(", ".join(setting.bypass))
        self._refresh()

    @staticmethod
    def value_of(mode: str, url: str, bypass: str) -> dict:
        value: dict = {"mode": mode}
        if url.strip():
            value["url"] = url.strip()
        entries = list(network_proxy.parse_bypass(bypass))
        if entries:
            value["bypass"] = entries
        return value

    def current(self) -> dict:
        return self.value_of(str(self.mode_combo.currentData()), self.url_edit.text(), self.bypass_edit.text())

    def _refresh(self) -> None:
        custom = self.mode_combo.currentData() == "custom"
        self.url_edit.setVisible(custom)
        self.bypass_edit.setVisible(custom)
        self.bypass_label.setVisible(custom)
        waiting = custom and not self.url_edit.text().strip()
        self.note.setText(self.tr("Type the proxy's address; it is used once you leave the field."))
        self.note.setVisible(waiting)

    def _mode_picked(self) -> None:
        self._refresh()
        if self.mode_combo.currentData() == "custom" and not self.url_edit.text().strip():
            self.url_edit.setFocus()
            return  # nothing to save until there is an address
        self._save()

    def _fields_done(self) -> None:
        self._refresh()
        if self.mode_combo.currentData() == "custom" and self.url_edit.text().strip():
            self._save()

    def _save(self) -> None:
        value = self.current()
        if value != self._stored:
            self.changed.emit(value)
