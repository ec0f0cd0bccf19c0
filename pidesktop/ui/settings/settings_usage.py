"""Settings > Usage: tokens and cost of the last 30 days, by model and by day, and the price of each model.

Everything comes from the host's ``usage.summary`` (in the person's time zone).
A cost the host cannot price is "unknown", never zero. The price a person
pays is typed per model (per million tokens, input and output) and stored
with ``models.setPrice``; an empty field is an unknown price. Saving a price
reloads the summary, and the ``models.changed`` event the host sends updates
the cost under each reply in the transcript.
"""

from __future__ import annotations

from datetime import date

from PySide6.QtCore import QDateTime, QLocale, Qt, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pidesktop.bus import HostClient, HostError
from pidesktop.ui.chat.usage_format import format_cost, short_tokens
from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.ops import host_op

DAYS = 30
PRICE_WIDTH = 100


class UsagePage(QWidget):
    priceSaved = Signal(str, str)  # provider id, model id

    def __init__(self, client: HostClient, parent: QWidget | None = None):
        super().__init__(parent)
        self.client = client
        self.summary: dict | None = None
        title = QLabel(self.tr("Usage"))
        title.setObjectName("pageTitle")
        self.totals = QLabel("…")
        self.totals.setWordWrap(True)
        models_title = QLabel(self.tr("By model"))
        models_title.setObjectName("sectionTitle")
        models_hint = QLabel(
            self.tr("Type the price you pay per million tokens to see costs; leave it empty when you do not know it.")
        )
        models_hint.setObjectName("muted")
        models_hint.setWordWrap(True)
        self.models_table = _table(
            [
                self.tr("Model"),
                self.tr("Turns"),
                self.tr("Input"),
                self.tr("Output"),
                self.tr("Cost"),
                self.tr("Input / 1M"),
                self.tr("Output / 1M"),
            ]
        )
        days_title = QLabel(self.tr("By day"))
        days_title.setObjectName("sectionTitle")
        self.days_table = _table(
            [self.tr("Day"), self.tr("Turns"), self.tr("Input"), self.tr("Output"), self.tr("Cost")]
        )
        self.empty = QLabel(self.tr("No replies in the last 30 days yet."))
        self.empty.setObjectName("muted")
        self.empty.hide()
        self.error = QLabel()
        self.error.setObjectName("notice")
        self.error.setWordWrap(True)
        self.error.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(self.totals)
        layout.addWidget(self.error)
        layout.addSpacing(8)
        layout.addWidget(models_title)
        layout.addWidget(models_hint)
        layout.addWidget(self.models_table, 2)
        layout.addSpacing(8)
        layout.addWidget(days_title)
        layout.addWidget(self.empty)
        layout.addWidget(self.days_table, 3)

    # -- loading -------------------------------------------------------------------------
    async def load(self) -> None:
        offset = QDateTime.currentDateTime().offsetFromUtc() // 60
        await host_op(
            self.client,
            "usage.summary",
            {"days": DAYS, "tzOffsetMinutes": offset},
            parent=self,
            success=self.show_summary,
            failure=self._failed,
        )

    def _failed(self, error: HostError) -> None:
        self.error.setText(self.tr("Usage could not be read: %1").replace("%1", error.message))
        self.error.show()

    def show_summary(self, summary: dict) -> None:
        self.summary = summary
        self.error.hide()
        currency = summary.get("currency") or "USD"
        totals = summary.get("totals") or {}
        turns = int(totals.get("turns", 0))
        self.totals.setText(
            self.tr("Last %1 days: %2, %3 tokens in, %4 out · cost %5")
            .replace("%1", str(len(summary.get("days") or []) or DAYS))
            .replace("%2", i18n.counted(turns, self.tr("1 reply"), self.tr("%1 replies")))
            .replace("%3", short_tokens(totals.get("inputTokens", 0)))
            .replace("%4", short_tokens(totals.get("outputTokens", 0)))
            .replace("%5", self.cost_text(totals, currency))
        )
        self._fill_models(summary.get("models") or [], currency)
        days = [d for d in reversed(summary.get("days") or []) if d.get("turns")]  # newest first, used days only
        self.empty.setVisible(not days)
        self.days_table.setVisible(bool(days))
        self.days_table.setRowCount(len(days))
        for row, day in enumerate(days):
            cells = [
                _day_label(day.get("date", "")),
                str(day.get("turns", 0)),
                short_tokens(day.get("inputTokens", 0)),
                short_tokens(day.get("outputTokens", 0)),
                self.cost_text(day, currency),
            ]
            for column, text in enumerate(cells):
                self.days_table.setItem(row, column, _cell(text, column > 0))

    def _fill_models(self, models: list[dict], currency: str) -> None:
        table = self.models_table
        table.setRowCount(len(models))
        for row, model in enumerate(models):
            name = model.get("displayName") or model.get("modelId") or "?"
            cells = [
                name,
                str(model.get("turns", 0)),
                short_tokens(model.get("inputTokens", 0)),
                short_tokens(model.get("outputTokens", 0)),
                self.cost_text(model, currency),
            ]
            for column, text in enumerate(cells):
                item = _cell(text, column > 0)
                if column == 0:
                    item.setToolTip(f"{model.get('providerId')} · {model.get('modelId')}")
                table.setItem(row, column, item)
            price = model.get("price") or {}
            for column, field in ((5, "inputPerMillion"), (6, "outputPerMillion")):
                table.setCellWidget(row, column, self._price_field(model, field, price.get(field)))
        table.resizeColumnToContents(1)

    def _price_field(self, model: dict, field: str, value) -> QLineEdit:
        edit = QLineEdit(_price_text(value))
        edit.setObjectName(f"price-{field}")
        edit.setPlaceholderText(self.tr("unknown"))
        edit.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        validator = QDoubleValidator(0.0, 1_000_000.0, 6, edit)
        validator.setNotation(QDoubleValidator.Notation.StandardNotation)
        validator.setLocale(QLocale.c())
        edit.setValidator(validator)
        edit.setToolTip(self.tr("Price per million tokens (USD); empty when unknown"))
        edit.editingFinished.connect(lambda m=model, e=edit: self.save_price(m, e))
        return edit

    # -- prices -----------------------------------------------------------------------------
    def price_fields(self, row: int) -> tuple[QLineEdit, QLineEdit]:
        return self.models_table.cellWidget(row, 5), self.models_table.cellWidget(row, 6)

    def save_price(self, model: dict, changed: QLineEdit | None = None):
        """Store the row's two figures (an empty one is unknown) if they differ from what is stored."""
        row = next(
            (r for r in range(self.models_table.rowCount()) if changed is None or changed in self.price_fields(r)), None
        )
        if row is None:
            return None
        figures = [_figure(edit.text()) for edit in self.price_fields(row)]
        stored = model.get("price") or {}
        if figures == [_figure(_price_text(stored.get(k))) for k in ("inputPerMillion", "outputPerMillion")]:
            return None
        params = {
            "providerId": model["providerId"],
            "modelId": model["modelId"],
            "inputPerMillion": figures[0],
            "outputPerMillion": figures[1],
        }

        async def saved(result: dict) -> None:
            model["price"] = result.get("price")
            self.priceSaved.emit(model["providerId"], model["modelId"])
            await self.load()

        return host_op(self.client, "models.setPrice", params, parent=self, success=saved, failure=self._failed).run()

    def cost_text(self, bucket: dict, currency: str) -> str:
        """A bucket's cost: the amount, "unknown", or "at least $x" when only part of it is priced."""
        cost = bucket.get("cost")
        if isinstance(cost, (int, float)):
            return format_cost(cost, currency)
        known = bucket.get("knownCost")
        if bucket.get("costPartial") and isinstance(known, (int, float)) and known > 0:
            return self.tr("at least %1").replace("%1", format_cost(known, currency))
        return self.tr("unknown")


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setObjectName("usageTable")
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setShowGrid(False)
    table.setAlternatingRowColors(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    for column in range(1, len(headers)):  # numbers: right-aligned under right-aligned headings
        table.horizontalHeaderItem(column).setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    for column in range(5, len(headers)):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
        table.setColumnWidth(column, PRICE_WIDTH)
    table.verticalHeader().setDefaultSectionSize(32)
    return table


def _cell(text: str, number: bool) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if number:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def _day_label(iso: str) -> str:
    """The host's "2026-12-01" as it is: ISO order reads the same in every language (the system's short
    format can come out as "1 12 2026")."""
    try:
        return date.fromisoformat(iso).isoformat()
    except ValueError:
        return iso


def _price_text(value) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return ""
    return f"{value:.6f}".rstrip("0").rstrip(".") or "0"


def _figure(text: str) -> float | None:
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return None
