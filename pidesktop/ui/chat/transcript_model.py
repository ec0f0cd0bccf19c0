"""The transcript as a list model that holds only the pages it has loaded.

Opening a chat asks the host for the newest window; older pages are asked
for by message position (``messageBefore``) when the reader nears the top,
newer ones (``messageEnd``) after a jump into the middle. ``rowCount`` counts
only what is loaded. A reply being streamed is one extra "live" row at the
bottom until its stored message arrives.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal

from pidesktop.bus import HostClient
from pidesktop.ui.chat import tool_rows
from pidesktop.ui.kit.ops import task_op

log = logging.getLogger("pidesktop.ui.transcript")

# The row key only; views read whole rows with ``row_at`` rather than
# converting a dict through a QVariant on every paint.
KeyRole = Qt.ItemDataRole.UserRole + 1
PAGE = 50
CONTENT_LIMIT = 20_000
# Rows go in a few at a time, each laid out (``prepare``) before it is inserted,
# until this much of an event-loop tick is spent: a page of Markdown costs about
# 2 ms a message, so no tick lays out a whole page. Kept well under a frame: the
# same tick may still relay out and paint the view.
INSERT_BUDGET_S = 0.002
# At most this many rows stay loaded: paging further drops rows at the far end,
# so each relayout stays cheap however far the reader scrolls.
MAX_ROWS = 240
LIVE_UPDATE_MS = 50

_Index = QModelIndex | QPersistentModelIndex
_revisions = itertools.count(1)


def message_row(message: dict, live: bool = False, read_only: bool = False) -> dict:
    """``read_only``: a pi session's message; the layout turns off the actions the host would refuse."""
    return {
        "kind": "message",
        "key": message["id"],
        "message": message,
        "index": message.get("index"),
        "live": live,
        "rev": next(_revisions),
        "readOnly": read_only,
    }


def compaction_row(compaction: dict) -> dict:
    return {
        "kind": "compaction",
        "key": f"cp:{compaction['id']}",
        "compaction": compaction,
        "index": None,
        "live": False,
        "rev": next(_revisions),
    }


def is_model_system(message: dict) -> bool:
    """An internal ``role: system`` row holding what the model was told (``meta.modelSystem``): not for people."""
    return message.get("role") == "system" and bool((message.get("meta") or {}).get("modelSystem"))


class TranscriptModel(QAbstractListModel):
    pageLoaded = Signal(str)  # "open", "older", "newer", "tail"
    failed = Signal(object)  # a HostError
    rowsPrepended = Signal()  # a chunk of older rows went in above: keep the reader's place
    aboutToDropTop = Signal()  # rows above the reader are about to go

    def __init__(self, client: HostClient, parent=None):
        super().__init__(parent)
        self.client = client
        self.session_id: str | None = None
        self.rows: list[dict] = []
        self.compactions: list[dict] = []
        self.start = 0
        self.end = 0
        self.total = 0
        self.has_more_before = False
        self.has_more_after = False
        self.loading: set[str] = set()  # one request in flight per direction
        self.highlight_id: str | None = None
        # A search hit's message and the words it was found by: the view scrolls to them and marks them
        # while the chat stays open (the row's own highlight fades).
        self.found_id: str | None = None
        self.found_text = ""
        self.navigation_parent: dict | None = None  # the Task row a hit inside a subagent's run belongs to
        # A pi session's reads: every window of it carries these (``leafId``: the branch shown), and
        # what the host says of its tree (``branches``, ``leafId``) is kept from the newest window.
        self.read_params: dict = {}
        self.read_only = False
        self.branches: list[dict] = []
        self.leaf_id: str | None = None
        self._generation = 0  # bumps on every open, so late replies for another chat are ignored
        self._pending_live: dict | None = None
        self._live_timer = QTimer(self)
        self._live_timer.setInterval(LIVE_UPDATE_MS)
        self._live_timer.setSingleShot(True)
        self._live_timer.timeout.connect(self._flush_live)
        # The view lays a row out before it goes in, so inserting is cheap and the cost is timed.
        self.prepare: Callable[[dict], None] = lambda _row: None
        self._owners: dict[str, tuple[str, int]] | None = None  # tool call id -> (row key, call number)
        # A running tool's output (``bash``) and its end, by call id, until its stored block carries the result.
        self._outputs: dict[str, str] = {}
        self._earlier: dict[str, int] = {}  # lines of that output no longer kept, counted for its row
        self._done: dict[str, dict] = {}
        self._changed_calls: set[str] = set()
        self._output_timer = QTimer(self)
        self._output_timer.setInterval(LIVE_UPDATE_MS)
        self._output_timer.setSingleShot(True)
        self._output_timer.timeout.connect(self._flush_tool_output)
        for changed in (self.rowsInserted, self.rowsRemoved, self.modelReset, self.dataChanged):
            changed.connect(self._forget_owners)

    # -- Qt ------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        if role == KeyRole:
            return row["key"]
        if role == Qt.ItemDataRole.DisplayRole:
            if row["kind"] == "compaction":
                return self.tr("Earlier messages summarised")
            blocks = row["message"].get("blocks", [])
            return "\n\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        if role == Qt.ItemDataRole.AccessibleTextRole:
            role_name = row.get("message", {}).get("role", "divider")
            return f"{role_name}: {self.data(index)}"
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    # -- loading ------------------------------------------------------------------
    def clear(self) -> None:
        self.settle_live()
        self._generation += 1
        self.beginResetModel()
        self.session_id = None
        self.rows, self.compactions = [], []
        self.start = self.end = self.total = 0
        self.has_more_before = self.has_more_after = False
        self.loading.clear()
        self.highlight_id = None
        self.found_id, self.found_text = None, ""
        self.navigation_parent = None
        self.read_params, self.read_only, self.branches, self.leaf_id = {}, False, [], None
        self._forget_tool_output()
        self.endResetModel()

    async def open(
        self, session_id: str, around: str | None = None, read_params: dict | None = None, find: str = ""
    ) -> None:
        """Load the newest page, or the page centred on ``around`` (a search hit, found by the words ``find``).

        ``read_params`` (a pi session's ``leafId``) hold for this chat's later pages; without them,
        reopening the same chat keeps its branch and another chat starts from none."""
        self.settle_live()
        self._generation += 1
        generation = self._generation
        if read_params is not None:
            self.read_params = dict(read_params)
        elif session_id != self.session_id:
            self.read_params = {}
        if session_id != self.session_id:
            self._forget_tool_output()
        params = {"sessionId": session_id, "messageLimit": PAGE, "contentLimit": CONTENT_LIMIT, **self.read_params}
        if around:
            params["messageAround"] = around
        self.loading = {"open"}
        try:
            window = await self.client.call("session.get", params)
        finally:
            if generation == self._generation:
                self.loading.discard("open")
        if generation != self._generation:
            return
        parent = window.get("navigationParent") if around else None
        if parent is not None:
            reached = await self._reach_back_to(session_id, parent, window, generation)
            if reached is None:
                return
            window = reached
        rows = self._rows_for_window(window)
        # A search hit opens its whole page at once, centred on the hit, once every
        # row is laid out; the newest page shows its last rows at once, then the rest.
        if around and not await self._prepare_all(rows, generation):
            return
        first = len(rows) if around else len(rows) - self._fits_budget(rows, len(rows))
        await asyncio.sleep(0)  # the reset, its relayout and first paint in a tick after the layout, not the same
        if generation != self._generation:
            return
        self.beginResetModel()
        self.session_id = session_id
        self.highlight_id = around
        self.found_id, self.found_text = (around, find) if around and find else (None, "")
        self.navigation_parent = parent
        self._take_window(window)
        self.rows = rows[first:]
        self.endResetModel()
        self.pageLoaded.emit("open")
        await self._prepend(rows[:first], generation)

    async def _reach_back_to(self, session_id: str, parent: dict, window: dict, generation: int) -> dict | None:
        """A hit inside a Task (W.24) opens with that Task's row: the page reaches back to it when the rows
        between fit in what is kept. Farther away, the subagent's rows show without it. None: superseded."""
        gap = window["messageStart"] - parent["index"]
        if gap <= 0 or len(window["messages"]) + gap > MAX_ROWS:
            return window
        earlier = await self.client.call(
            "session.get",
            {
                "sessionId": session_id,
                "messageBefore": window["messageStart"],
                "messageLimit": gap,
                "contentLimit": CONTENT_LIMIT,
                **self.read_params,
            },
        )
        if generation != self._generation:
            return None
        return {
            **window,
            "messages": earlier["messages"] + window["messages"],
            "messageStart": earlier["messageStart"],
            "hasMoreBefore": earlier["hasMoreBefore"],
        }

    async def load_older(self) -> int:
        if not self.has_more_before or "older" in self.loading or self.session_id is None:
            return 0
        generation = self._generation
        self.loading.add("older")
        try:
            window = await self.client.call(
                "session.get",
                {
                    "sessionId": self.session_id,
                    "messageBefore": self.start,
                    "messageLimit": PAGE,
                    "contentLimit": CONTENT_LIMIT,
                    **self.read_params,
                },
            )
        finally:
            self.loading.discard("older")
        if generation != self._generation:
            return 0
        self.loading.add("older")
        try:
            self.compactions = window["compactions"]
            new_rows = self._rows_for(window["messages"], skip=self._loaded_keys())
            self.start = window["messageStart"]
            self.has_more_before = window["hasMoreBefore"]
            await self._prepend(new_rows, generation, keep=MAX_ROWS)
            self._drop_bottom()  # what is still over MAX_ROWS (a page larger than the rows kept)
        finally:
            self.loading.discard("older")
        self.pageLoaded.emit("older")
        return len(new_rows)

    async def load_newer(self, reason: str = "newer") -> int:
        """The page after the last loaded message (forward paging, or new messages at the tail)."""
        if self.session_id is None or reason in self.loading:
            return 0
        generation = self._generation
        self.loading.add(reason)
        try:
            window = await self.client.call(
                "session.get",
                {
                    "sessionId": self.session_id,
                    "messageEnd": self.end,
                    "messageLimit": PAGE,
                    "contentLimit": CONTENT_LIMIT,
                    **self.read_params,
                },
            )
        finally:
            self.loading.discard(reason)
        if generation != self._generation:
            return 0
        self.compactions = window["compactions"]
        fresh = self._rows_by_message([m for m in window["messages"] if self.row_of(m["id"]) < 0])
        self.loading.add(reason)
        try:  # new rows are laid out before they go in, like older pages
            if not await self._prepare_all([row for rows in fresh.values() for row in rows], generation):
                return 0
        finally:
            self.loading.discard(reason)
        self.end = window["messageEnd"]
        self.total = window["totalMessages"]
        self.has_more_after = window["hasMoreAfter"]
        added = 0
        for message in window["messages"]:
            added += self._put_message(message, fresh.get(message["id"]))
        if reason == "newer":
            self._drop_top()
        self.pageLoaded.emit(reason)
        return added

    async def refresh_message(self, message_id: str) -> None:
        """Re-read one message that changed in place (a streamed reply that settled)."""
        if self.session_id is None:
            return
        generation = self._generation
        window = await self.client.call(
            "session.get",
            {
                "sessionId": self.session_id,
                "messageAround": message_id,
                "messageLimit": 1,
                "contentLimit": CONTENT_LIMIT,
                **self.read_params,
            },
        )
        if generation == self._generation:
            for message in window["messages"]:
                self._put_message(message)

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:
        return not parent.isValid() and self.has_more_after and "newer" not in self.loading

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:
        self.load_in_background(self.load_newer("newer"), "transcript-fetch-more")

    def load_in_background(self, coro, name: str) -> None:
        """Qt asks synchronously; the host answers later. A failure is reported, not raised."""

        task_op(lambda: coro, parent=self, name=name, failure=self.failed.emit).run()

    # -- the live (streaming) row ---------------------------------------------------
    def set_live(self, message: dict) -> None:
        """Show or update the reply being streamed; updates are coalesced to one per LIVE_UPDATE_MS."""
        first = self._pending_live is None and not self._live_timer.isActive()
        self._pending_live = message
        if first:
            self._flush_live()
            self._live_timer.start()

    def _flush_live(self) -> None:
        message, self._pending_live = self._pending_live, None
        if message is not None:
            self._apply_live(message)

    def _apply_live(self, message: dict) -> None:
        message = self._with_tool_output(message)
        for position, row in enumerate(self.rows):
            if row["key"] == message["id"]:
                if not row["live"]:
                    return  # the stored message already arrived; never step back to a partial
                self.rows[position] = message_row(message, live=True)
                self.prepare(self.rows[position])  # laid out in this tick; the view's relayout in its own
                index = self.index(position)
                self.dataChanged.emit(index, index)
                return
        position = len(self.rows)
        self.beginInsertRows(QModelIndex(), position, position)
        self.rows.append(message_row(message, live=True))
        self.endInsertRows()

    def show_full(self, message: dict) -> None:
        """Replace a capped row with the whole stored message (fetched uncapped by the caller)."""
        position = self.row_of(message["id"])
        if position >= 0 and not self.rows[position]["live"]:
            self.rows[position] = message_row(message, read_only=self.read_only)
            index = self.index(position)
            self.dataChanged.emit(index, index)

    def settle_live(self) -> None:
        """The reply ended: forget a snapshot still waiting for its update slot."""
        self._pending_live = None
        self._live_timer.stop()

    def drop_live(self) -> None:
        self.settle_live()
        for position in reversed(range(len(self.rows))):
            if self.rows[position]["live"]:
                self.beginRemoveRows(QModelIndex(), position, position)
                del self.rows[position]
                self.endRemoveRows()

    # -- a running tool's output ------------------------------------------------------------
    def add_tool_output(self, call_id: str, chunk: str) -> None:
        """A piece of a running command's output (the runner's ``tool_output``); shown coalesced."""
        kept = self._outputs.get(call_id, "") + chunk
        if len(kept) > tool_rows.LIVE_OUTPUT_KEPT:
            cut = len(kept) - tool_rows.LIVE_OUTPUT_KEPT
            self._earlier[call_id] = self._earlier.get(call_id, 0) + kept.count("\n", 0, cut)
            kept = kept[cut:]
        self._outputs[call_id] = kept
        self._tool_changed(call_id)

    def finish_tool(self, call_id: str, ok: bool, result: object) -> None:
        """The call ended (``tool_done``): its row shows the outcome before the round's message is stored."""
        self._done[call_id] = {"ok": ok, "result": result}
        self._tool_changed(call_id)

    def _tool_changed(self, call_id: str) -> None:
        self._changed_calls.add(call_id)
        if not self._output_timer.isActive():
            self._output_timer.start()

    def _flush_tool_output(self) -> None:
        calls, self._changed_calls = self._changed_calls, set()
        keys = {owner[0] for owner in (self.task_call(call) for call in calls) if owner is not None}
        for key in keys:
            position = self.row_of(key)
            row = self.rows[position]
            self.rows[position] = message_row(
                self._with_tool_output(row["message"]), live=row["live"], read_only=row.get("readOnly", False)
            )
            self.prepare(self.rows[position])  # laid out in this tick; the view's relayout in its own
            index = self.index(position)
            self.dataChanged.emit(index, index)

    def _with_tool_output(self, message: dict) -> dict:
        """The message with what is known of its running calls (``liveOutput``, ``liveResult``) in their blocks."""
        if not self._outputs and not self._done:
            return message
        blocks = []
        for block in message.get("blocks", []):
            call = block.get("callId") if block.get("type") == "tool_call" else None
            if call and "result" not in block and (call in self._outputs or call in self._done):
                block = {
                    **block,
                    "liveOutput": self._outputs.get(call, ""),
                    "liveOutputEarlier": self._earlier.get(call, 0),
                }
                if call in self._done:
                    block["liveResult"] = self._done[call]
                    if not self._done[call]["ok"]:
                        block["status"] = "error"
            blocks.append(block)
        return {**message, "blocks": blocks}

    def _forget_tool_output(self) -> None:
        self._outputs.clear()
        self._earlier.clear()
        self._done.clear()
        self._changed_calls.clear()
        self._output_timer.stop()

    # -- subagent rows ------------------------------------------------------------------
    def parent_call(self, position: int) -> tuple[str, str, bool] | None:
        """(Task call id, agent name, first of its run) when the row at ``position`` is a subagent's."""
        meta = self._meta(position)
        call = meta.get("parentToolCallId")
        if not isinstance(call, str) or not call:
            return None
        first = self._meta(position - 1).get("parentToolCallId") != call
        agent = meta.get("agentName")
        return call, agent if isinstance(agent, str) and agent else "agent", first

    def task_call(self, call_id: str) -> tuple[str, int] | None:
        """The loaded assistant row holding the Task call ``call_id``, and that call's number."""
        if self._owners is None:
            owners = {}
            for row in self.rows:
                if row["kind"] != "message":
                    continue
                calls = (b for b in row["message"].get("blocks", []) if b.get("type") == "tool_call")
                for number, block in enumerate(calls):
                    if isinstance(block.get("callId"), str):
                        owners[block["callId"]] = (row["key"], number)
            self._owners = owners
        return self._owners.get(call_id)

    def _meta(self, position: int) -> dict:
        if not 0 <= position < len(self.rows) or self.rows[position]["kind"] != "message":
            return {}
        meta = self.rows[position]["message"].get("meta")
        return meta if isinstance(meta, dict) else {}

    def _forget_owners(self, *_args) -> None:
        self._owners = None

    # -- helpers ------------------------------------------------------------------------
    def row_at(self, index: _Index) -> dict | None:
        return self.rows[index.row()] if index.isValid() and 0 <= index.row() < len(self.rows) else None

    def row_of(self, key: str) -> int:
        return next((i for i, row in enumerate(self.rows) if row["key"] == key), -1)

    def _loaded_keys(self) -> set[str]:
        return {row["key"] for row in self.rows}

    def _take_window(self, window: dict) -> None:
        self.start, self.end = window["messageStart"], window["messageEnd"]
        self.total = window["totalMessages"]
        self.has_more_before, self.has_more_after = window["hasMoreBefore"], window["hasMoreAfter"]
        self.compactions = window["compactions"]
        self.branches, self.leaf_id = window.get("branches") or [], window.get("leafId")

    def _rows_for_window(self, window: dict) -> list[dict]:
        self.compactions = window["compactions"]
        self.read_only = bool(window["session"].get("readOnly"))
        return self._rows_for(window["messages"])

    def _fits_budget(self, rows: list[dict], end: int) -> int:
        """Prepare rows backwards from ``end`` until the tick's budget is spent; how many (at least one)."""
        started = time.perf_counter()
        count = 0
        while count < end and (count == 0 or time.perf_counter() - started < INSERT_BUDGET_S):
            self.prepare(rows[end - count - 1])
            count += 1
        return count

    async def _prepare_all(self, rows: list[dict], generation: int) -> bool:
        """Lay out every row, a budget per event-loop tick; False if another chat was opened meanwhile.

        Each chunk gets a tick of its own: the first does not join the tick that asked
        (an open's first rows and reset, a page's reply), nor the last the insert."""
        end = len(rows)
        while end > 0:
            await asyncio.sleep(0)
            if generation != self._generation:
                return False
            end -= self._fits_budget(rows, end)
        await asyncio.sleep(0)
        return generation == self._generation

    async def _prepend(self, rows: list[dict], generation: int, keep: int | None = None) -> None:
        """Insert rows above the loaded ones: laid out first, a budget per event-loop tick,
        then inserted together, so the view relays out and repaints once, not once a chunk.

        ``keep``: at most this many rows stay; the newest go in the same tick, just before
        the insert, so one relayout covers both (dropped after it, they cost a second one)."""
        if rows and await self._prepare_all(rows, generation):
            if keep is not None and keep > len(rows):
                self._drop_bottom(limit=keep - len(rows))
            self.beginInsertRows(QModelIndex(), 0, len(rows) - 1)
            self.rows[0:0] = rows
            self.endInsertRows()
            self.rowsPrepended.emit()

    def _drop_bottom(self, limit: int | None = None) -> None:
        """Keep at most MAX_ROWS (or ``limit``): forget the newest rows; forward paging brings them back."""
        excess = len(self.rows) - (MAX_ROWS if limit is None else limit)
        if excess <= 0 or any(row["live"] for row in self.rows):
            return
        cut = len(self.rows) - excess
        while cut < len(self.rows) and self.rows[cut]["kind"] == "compaction":
            cut += 1  # a divider stays with the message it follows: paging forward never brings it back alone
        if cut == len(self.rows):
            return
        first_gone = next((r["index"] for r in self.rows[cut:] if r["index"] is not None), None)
        if first_gone is None:
            return
        self.beginRemoveRows(QModelIndex(), cut, len(self.rows) - 1)
        del self.rows[cut:]
        self.endRemoveRows()
        self.end = first_gone
        self.has_more_after = True

    def _drop_top(self) -> None:
        """Keep at most MAX_ROWS after paging forward: forget the oldest rows."""
        excess = len(self.rows) - MAX_ROWS
        if excess <= 0:
            return
        while excess < len(self.rows) and self.rows[excess]["kind"] == "compaction":
            excess += 1  # its message goes, so it goes too (paging back brings both)
        kept_start = next((r["index"] for r in self.rows[excess:] if r["index"] is not None), None)
        if kept_start is None:
            return
        self.aboutToDropTop.emit()
        self.beginRemoveRows(QModelIndex(), 0, excess - 1)
        del self.rows[:excess]
        self.endRemoveRows()
        self.start = kept_start
        self.has_more_before = True
        self.rowsPrepended.emit()  # same bookkeeping for the view: restore the anchor

    def _rows_for(self, messages: list[dict], skip: set[str] | None = None) -> list[dict]:
        """Message rows in order, each compaction divider placed after its boundary message."""
        after: dict[str, list[dict]] = {}
        for compaction in self.compactions:
            after.setdefault(compaction.get("throughMessageId"), []).append(compaction)
        rows = []
        for message in messages:
            if skip and message["id"] in skip:
                continue
            if not is_model_system(message):  # the model's own instructions are never a row (T.3)
                rows.append(message_row(message, read_only=self.read_only))
            rows += [compaction_row(c) for c in after.get(message["id"], []) if not skip or f"cp:{c['id']}" not in skip]
        return rows

    def _rows_by_message(self, messages: list[dict]) -> dict[str, list[dict]]:
        """Each message's rows (its own, then the compaction dividers that follow it)."""
        return {message["id"]: self._rows_for([message]) for message in messages}

    def _put_message(self, message: dict, rows: list[dict] | None = None) -> int:
        """Replace a loaded (or live) row with the stored message, or append it (as ``rows``
        when they were built and laid out already); 1 if appended."""
        position = self.row_of(message["id"])
        if position >= 0:
            self.rows[position] = message_row(message, read_only=self.read_only)
            index = self.index(position)
            self.dataChanged.emit(index, index)
            return 0
        rows = rows or self._rows_for([message])
        live_at = next((i for i, row in enumerate(self.rows) if row["live"]), len(self.rows))
        self.beginInsertRows(QModelIndex(), live_at, live_at + len(rows) - 1)
        self.rows[live_at:live_at] = rows
        self.endInsertRows()
        return 1
