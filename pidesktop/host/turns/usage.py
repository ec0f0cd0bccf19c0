"""``usage.summary``: tokens and cost of ended turns, by day and by model.

Read from the ``turns`` rows (``input_tokens`` / ``output_tokens`` are the
turn's totals, whether they came from ``session.endTurn`` or from the
operations of ``session.recordUsage``), grouped in SQL over
``idx_turns_ended_at``. Cost is priced here from ``prices``; a cost that needs
an unknown price stays unknown (null), never zero, and every total says how
much of it is known.
"""

from __future__ import annotations

import datetime
from typing import Any

from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params
from pidesktop.host.sessions import commands as sessions
from pidesktop.host.settings import prices

DAY_MS = 86_400_000
DAYS_DEFAULT = 30
DAYS_MAX = 366
TZ_OFFSET_MAX = 14 * 60  # UTC-14:00 .. UTC+14:00 covers every zone in use
_EPOCH = datetime.date(1970, 1, 1)
_DIGITS = 10  # costs are rounded to 1e-10 of the currency unit, to drop float summation noise


class _Bucket:
    __slots__ = ("input", "output", "turns", "known", "unpriced")

    def __init__(self) -> None:
        self.input = self.output = self.turns = self.unpriced = 0
        self.known = 0.0

    def add(self, tokens_in: int, tokens_out: int, turns: int, cost: float | None) -> None:
        self.input += tokens_in
        self.output += tokens_out
        self.turns += turns
        if cost is None:
            self.unpriced += turns
        else:
            self.known += cost

    def wire(self) -> dict[str, Any]:
        known = round(self.known, _DIGITS)
        return {
            "inputTokens": self.input,
            "outputTokens": self.output,
            "turns": self.turns,
            "cost": None if self.unpriced else known,
            "knownCost": known,
            "costPartial": bool(self.unpriced) and self.unpriced < self.turns,
            "unpricedTurns": self.unpriced,
        }


def _date(day: int) -> str:
    return (_EPOCH + datetime.timedelta(days=day)).isoformat()


@command("usage.summary", emits=[])
def usage_summary(ctx: HostContext, p: Params) -> dict[str, Any]:
    days = p.integer("days", required=False, default=DAYS_DEFAULT, minimum=1, maximum=DAYS_MAX)
    offset_min = p.integer("tzOffsetMinutes", required=False, default=0, minimum=-TZ_OFFSET_MAX, maximum=TZ_OFFSET_MAX)
    session_id = p.text("sessionId", required=False)
    if session_id is not None:
        sessions.require(ctx.conn, sessions.check_id(session_id))
    offset = offset_min * 60_000
    today = (ctx.clock() + offset) // DAY_MS
    first = today - days + 1
    start, end = first * DAY_MS - offset, (today + 1) * DAY_MS - offset
    # One row per (local day, model, which sides have tokens): within a group every turn needs the
    # same price figures, so a group is priced or unpriced as a whole, exactly as its turns are.
    local = "(ended_at + :offset)"
    sql = (
        f"SELECT ({local} - (({local} % {DAY_MS}) + {DAY_MS}) % {DAY_MS}) / {DAY_MS} AS day, "
        "provider_id, model_id, input_tokens > 0, output_tokens > 0, "
        "SUM(input_tokens), SUM(output_tokens), COUNT(*) FROM turns "
        "WHERE ended_at >= :start AND ended_at < :end"
        + (" AND session_id = :session" if session_id is not None else "")
        + " GROUP BY 1, 2, 3, 4, 5"
    )
    known_prices = prices.all_prices(ctx.conn)
    by_day = {day: _Bucket() for day in range(first, today + 1)}
    by_model: dict[tuple[str | None, str | None], _Bucket] = {}
    totals = _Bucket()
    for day, provider_id, model_id, _has_in, _has_out, tokens_in, tokens_out, turns in ctx.conn.execute(
        sql, {"offset": offset, "start": start, "end": end, "session": session_id}
    ):
        price = known_prices.get((provider_id, model_id))
        cost = prices.cost(price, tokens_in, tokens_out)
        for bucket in (by_day[day], by_model.setdefault((provider_id, model_id), _Bucket()), totals):
            bucket.add(tokens_in, tokens_out, turns, cost)
    names = dict(
        ((pid, mid), name)
        for pid, mid, name in ctx.conn.execute("SELECT provider_id, model_id, display_name FROM models")
    )
    models = [
        {
            "providerId": pid,
            "modelId": mid,
            "displayName": names.get((pid, mid)),
            "price": known_prices.get((pid, mid)) if pid is not None and mid is not None else None,
            **bucket.wire(),
        }
        for (pid, mid), bucket in by_model.items()
    ]
    models.sort(key=lambda m: (-(m["inputTokens"] + m["outputTokens"]), m["providerId"] or "", m["modelId"] or ""))
    return {
        "from": _date(first),
        "to": _date(today),
        "tzOffsetMinutes": offset_min,
        "currency": "USD",
        "sessionId": session_id,
        "days": [{"date": _date(day), **bucket.wire()} for day, bucket in sorted(by_day.items())],
        "models": models,
        "totals": totals.wire(),
    }
