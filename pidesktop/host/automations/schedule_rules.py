"""When an automation runs next: pure rules, no I/O (spec 004, section 4.11).

A ``Schedule`` is the wire shape of RPC-WAVE2 ("Automations"):
``{"kind": "hourly", "everyHours": 1..24}``, ``{"kind": "interval", "intervalMinutes": 5..1440}``,
``{"kind": "daily", "at": "HH:MM"}``,
``{"kind": "weekly", "days": [0..6], "at": "HH:MM"}`` (0 = Monday) or
``{"kind": "once", "at": RFC3339}``.

Daily and weekly times are wall-clock times in the person's time zone. Each
local day has exactly one slot, whatever daylight saving does: a time the
clocks skip (02:30 on a spring-forward night) runs at the same instant shifted
by the gap (03:30), and a time that happens twice (02:30 on a fall-back night)
runs at its first occurrence only. Hourly and interval schedules count
elapsed time from the moment they were armed, so they ignore the calendar
entirely.

Spec 004 4.11 stores a schedule as ``{hour, minute, weekday}`` (optional
``weekdays``) beside the ``cadence`` column and a top-level
``intervalMinutes``; ``from_spec_shape`` reads that into the wire shape.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from zoneinfo import ZoneInfo

from pidesktop.formats.transcript.records import parse_rfc3339

KINDS = ("hourly", "interval", "daily", "weekly", "once")
INTERVAL_MIN, INTERVAL_MAX = 5, 1440  # minutes (spec 004, 4.11)
MINUTE_MS = 60_000
CALENDAR_KINDS = ("daily", "weekly")
HOUR_MS = 3_600_000
_TIME = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")


class ScheduleError(ValueError):
    """A schedule that cannot be stored; ``field`` names the part (``schedule.at``)."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


def parse_time(text: object, field: str = "schedule.at") -> tuple[int, int]:
    """``(hour, minute)`` of an ``HH:MM`` text (24-hour clock, two digits each)."""
    match = _TIME.match(text) if isinstance(text, str) else None
    if match is None:
        raise ScheduleError(f"'{field}' must be a time of day written HH:MM (00:00 to 23:59), not {text!r}.", field)
    return int(match.group(1)), int(match.group(2))


def parse_instant(text: object, field: str = "schedule.at") -> int:
    """Epoch milliseconds of an RFC 3339 date and time that carries its offset (``Z`` or ``+01:00``)."""
    if isinstance(text, str) and re.match(
        r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$", text
    ):
        instant = parse_rfc3339(text)  # the pattern above has made sure it carries its offset
        if instant is not None:
            return instant
    raise ScheduleError(
        f"'{field}' must be an RFC 3339 date and time with its offset, such as "
        f"2026-05-01T09:00:00+02:00, not {text!r}.",
        field,
    )


def normalise(schedule: object, now_ms: int) -> dict[str, Any]:
    """The schedule as it is stored, or ``ScheduleError`` naming the field.

    Refuses a schedule that would never fire: no weekdays, or a one-off time
    that has already passed at ``now_ms``.
    """
    if not isinstance(schedule, dict):
        raise ScheduleError('\'schedule\' must be an object such as {"kind": "daily", "at": "09:00"}.', "schedule")
    kind = schedule.get("kind")
    if kind not in KINDS:
        raise ScheduleError(f"'schedule.kind' must be one of {', '.join(KINDS)}, not {kind!r}.", "schedule.kind")
    if kind == "hourly":
        every = schedule.get("everyHours")
        if isinstance(every, bool) or not isinstance(every, int) or not 1 <= every <= 24:
            raise ScheduleError(
                f"'schedule.everyHours' must be a whole number of hours from 1 to 24, not {every!r}.",
                "schedule.everyHours",
            )
        return {"kind": kind, "everyHours": every}
    if kind == "interval":
        minutes = schedule.get("intervalMinutes")
        if isinstance(minutes, bool) or not isinstance(minutes, int) or not INTERVAL_MIN <= minutes <= INTERVAL_MAX:
            raise ScheduleError(
                f"'schedule.intervalMinutes' must be a whole number of minutes from {INTERVAL_MIN} to "
                f"{INTERVAL_MAX}, not {minutes!r}.",
                "schedule.intervalMinutes",
            )
        return {"kind": kind, "intervalMinutes": minutes}
    if kind == "once":
        at = parse_instant(schedule.get("at"))
        if at <= now_ms:
            raise ScheduleError(
                f"'schedule.at' ({schedule.get('at')}) has already passed, so the task would "
                f"never run. Pick a later time.",
                "schedule.at",
            )
        return {"kind": kind, "at": schedule["at"]}
    hour, minute = parse_time(schedule.get("at"))
    clock = f"{hour:02d}:{minute:02d}"
    if kind == "daily":
        return {"kind": kind, "at": clock}
    days = schedule.get("days")
    if not isinstance(days, list) or any(
        isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= 6 for d in days
    ):
        raise ScheduleError(
            "'schedule.days' must be a list of weekdays from 0 (Monday) to 6 (Sunday).", "schedule.days"
        )
    if not days:
        raise ScheduleError(
            "'schedule.days' is empty, so the task would never run. Pick at least one day.", "schedule.days"
        )
    return {"kind": kind, "days": sorted(set(days)), "at": clock}


def next_run(schedule: dict[str, Any], after_ms: int, zone: dt.tzinfo, *, ran_once: bool = False) -> int | None:
    """The first moment strictly after ``after_ms`` the (normalised) ``schedule`` fires, else None.

    ``ran_once``: a one-off task that has already run never fires again.
    """
    kind = schedule["kind"]
    if kind == "hourly":
        every: int = schedule["everyHours"]
        return after_ms + every * HOUR_MS
    if kind == "interval":
        minutes: int = schedule["intervalMinutes"]
        return after_ms + minutes * MINUTE_MS
    if kind == "once":
        at = parse_instant(schedule["at"])
        return None if ran_once else at
    hour, minute = parse_time(schedule["at"])
    days = set(schedule.get("days", range(7)))
    start = dt.datetime.fromtimestamp(after_ms / 1000, zone).date()
    for offset in range(8):  # a week and a day always holds the next slot of any weekday set
        day = start + dt.timedelta(days=offset)
        if day.weekday() not in days:
            continue
        slot = slot_ms(day, hour, minute, zone)
        if slot > after_ms:
            return slot
    return None  # unreachable for a normalised schedule


def from_spec_shape(schedule: object, cadence: object, interval_minutes: object) -> dict[str, Any] | None:
    """Spec 004's stored ``{hour, minute, weekday, weekdays?}`` with the row's cadence, as a wire schedule.

    ``weekday``/``weekdays`` count as JavaScript does (0 = Sunday); ours 0 =
    Monday. None for a manual cadence or anything that cannot be armed (an
    interval without ``intervalMinutes`` stays unarmed, as the spec says).
    """
    if not isinstance(schedule, dict) or "kind" in schedule:
        return None
    if cadence == "hourly":
        return {"kind": "hourly", "everyHours": 1}
    if cadence == "interval":
        return {"kind": "interval", "intervalMinutes": interval_minutes}
    hour, minute = schedule.get("hour"), schedule.get("minute")
    if cadence not in CALENDAR_KINDS or not all(isinstance(v, int) and not isinstance(v, bool) for v in (hour, minute)):
        return None
    at = f"{hour:02d}:{minute:02d}"
    if cadence == "daily":
        return {"kind": "daily", "at": at}
    days = schedule.get("weekdays")
    if not isinstance(days, list) or not days:
        days = [schedule.get("weekday")]
    if not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 6 for d in days):
        return None
    return {"kind": "weekly", "days": sorted({(d + 6) % 7 for d in days}), "at": at}


def slot_ms(day: dt.date, hour: int, minute: int, zone: dt.tzinfo) -> int:
    """The instant of ``hour:minute`` on ``day`` in ``zone`` (see the module note on DST)."""
    local = dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone, fold=0)
    return int(local.timestamp() * 1000)


def is_calendar(schedule: dict[str, Any] | None) -> bool:
    return isinstance(schedule, dict) and schedule.get("kind") in CALENDAR_KINDS


def zone_named(name: str | None) -> dt.tzinfo | None:
    """The IANA zone ``name`` (``Europe/Berlin``), else None."""
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ValueError, OSError, KeyError):
        return None


def rfc3339(ms: int | None, zone: dt.tzinfo) -> str | None:
    """``ms`` as local RFC 3339 text with its offset, for people and outside tools."""
    if ms is None:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, zone).isoformat(timespec="seconds")
