"""When an automation runs next: the pure rules, with daylight-saving properties."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop.host.automations import schedule_rules as rules

ZONES = [ZoneInfo(name) for name in ("Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "UTC")]
BERLIN = ZoneInfo("Europe/Berlin")
YEAR_2026 = int(dt.datetime(2026, 1, 1, tzinfo=dt.UTC).timestamp() * 1000)
YEAR_MS = 366 * 86_400_000


def ms(zone, *parts) -> int:
    return int(dt.datetime(*parts, tzinfo=zone).timestamp() * 1000)


def local(at: int, zone) -> dt.datetime:
    return dt.datetime.fromtimestamp(at / 1000, zone)


times = st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda hm: f"{hm[0]:02d}:{hm[1]:02d}")


@settings(max_examples=150, deadline=None)
@given(at=times, zone=st.sampled_from(ZONES), start=st.integers(YEAR_2026, YEAR_2026 + YEAR_MS))
def test_daily_runs_once_on_every_local_day_across_dst(at, zone, start):
    schedule = rules.normalise({"kind": "daily", "at": at}, 0)
    slots, after = [], start
    for _ in range(10):
        after = rules.next_run(schedule, after, zone)
        slots.append(after)
    days = [local(slot, zone).date() for slot in slots]
    assert all(b - a == dt.timedelta(days=1) for a, b in zip(days, days[1:])), "no day skipped or doubled"
    hour, minute = rules.parse_time(at)
    for slot in slots:
        wall = local(slot, zone)
        if (wall.hour, wall.minute) != (hour, minute):  # only a time the clocks skipped moves, and forward
            asked = dt.datetime.combine(wall.date(), dt.time(hour, minute))
            assert dt.timedelta(0) < wall.replace(tzinfo=None) - asked <= dt.timedelta(hours=1)


@settings(max_examples=150, deadline=None)
@given(
    at=times,
    days=st.sets(st.integers(0, 6), min_size=1),
    zone=st.sampled_from(ZONES),
    start=st.integers(YEAR_2026, YEAR_2026 + YEAR_MS),
)
def test_weekly_fires_only_on_its_days_and_nothing_is_missed(at, days, zone, start):
    schedule = rules.normalise({"kind": "weekly", "days": sorted(days), "at": at}, 0)
    first = rules.next_run(schedule, start, zone)
    assert first > start
    assert local(first, zone).weekday() in days
    assert first - start <= 8 * 86_400_000
    # the slot found is the first: asking from one millisecond before it finds the same slot
    assert rules.next_run(schedule, first - 1, zone) == first
    assert rules.next_run(schedule, first, zone) > first


@settings(max_examples=100, deadline=None)
@given(every=st.integers(1, 24), start=st.integers(0, 2**41))
def test_hourly_counts_elapsed_time(every, start):
    schedule = rules.normalise({"kind": "hourly", "everyHours": every}, 0)
    assert rules.next_run(schedule, start, BERLIN) == start + every * rules.HOUR_MS


def test_spring_forward_runs_once_at_the_shifted_time():
    schedule = rules.normalise({"kind": "daily", "at": "02:30"}, 0)
    first = rules.next_run(schedule, ms(BERLIN, 2026, 3, 28, 12), BERLIN)
    assert rules.rfc3339(first, BERLIN) == "2026-03-29T03:30:00+02:00"
    assert rules.rfc3339(rules.next_run(schedule, first, BERLIN), BERLIN) == "2026-03-30T02:30:00+02:00"


def test_fall_back_runs_the_first_of_the_two_half_past_twos_only():
    schedule = rules.normalise({"kind": "daily", "at": "02:30"}, 0)
    first = rules.next_run(schedule, ms(BERLIN, 2026, 10, 24, 12), BERLIN)
    assert rules.rfc3339(first, BERLIN) == "2026-10-25T02:30:00+02:00"
    second = rules.next_run(schedule, first, BERLIN)
    assert rules.rfc3339(second, BERLIN) == "2026-10-26T02:30:00+01:00"


def test_once_fires_at_its_instant_and_never_after_it_ran():
    schedule = rules.normalise({"kind": "once", "at": "2030-05-01T09:00:00+02:00"}, 0)
    assert rules.next_run(schedule, 0, BERLIN) == ms(BERLIN, 2030, 5, 1, 9)
    assert rules.next_run(schedule, 0, BERLIN, ran_once=True) is None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=8))
def test_only_hh_mm_is_a_time(text):
    if re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", text):
        assert rules.parse_time(text) == (int(text[:2]), int(text[3:]))
    else:
        with pytest.raises(rules.ScheduleError) as info:
            rules.parse_time(text)
        assert info.value.field == "schedule.at"


@pytest.mark.parametrize(
    ("schedule", "field"),
    [
        ({"kind": "daily", "at": "24:00"}, "schedule.at"),
        ({"kind": "daily", "at": "9:00"}, "schedule.at"),
        ({"kind": "daily"}, "schedule.at"),
        ({"kind": "weekly", "days": [], "at": "09:00"}, "schedule.days"),
        ({"kind": "weekly", "days": [7], "at": "09:00"}, "schedule.days"),
        ({"kind": "hourly", "everyHours": 0}, "schedule.everyHours"),
        ({"kind": "hourly", "everyHours": 25}, "schedule.everyHours"),
        ({"kind": "hourly", "everyHours": True}, "schedule.everyHours"),
        ({"kind": "once", "at": "2020-01-01T00:00:00Z"}, "schedule.at"),
        ({"kind": "once", "at": "2030-01-01T00:00:00"}, "schedule.at"),
        ({"kind": "monthly"}, "schedule.kind"),
        ("daily", "schedule"),
    ],
)
def test_a_schedule_that_cannot_fire_is_refused(schedule, field):
    with pytest.raises(rules.ScheduleError) as info:
        rules.normalise(schedule, ms(dt.UTC, 2026, 6, 1))
    assert info.value.field == field
