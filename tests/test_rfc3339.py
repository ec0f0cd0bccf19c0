"""One reading of RFC 3339 times for every file the host reads: its own transcripts, pi's sessions, imports."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pidesktop.formats.transcript.records import parse_rfc3339, rfc3339
from pidesktop.host.imports.common import millis
from pidesktop.host.native import pi_format
from pidesktop.host.sessions import message_index


@given(st.integers(min_value=0, max_value=253402300799999))  # up to 9999-12-31T23:59:59.999Z
def test_what_the_host_writes_reads_back_to_the_millisecond(ms):
    assert parse_rfc3339(rfc3339(ms)) == ms


def test_offsets_and_zoneless_times():
    assert parse_rfc3339("2026-05-01T09:00:00Z") == 1777626000000
    assert parse_rfc3339("2026-05-01T11:00:00+02:00") == 1777626000000
    assert parse_rfc3339("2026-05-01t09:00:00z") == 1777626000000
    # without an offset: UTC on every machine, never the local zone
    assert parse_rfc3339("2026-05-01T09:00:00") == 1777626000000
    assert parse_rfc3339("2026-05-01T09:00:00.250") == 1777626000250


def test_what_is_not_a_time_is_none():
    for value in (None, 17, "", "yesterday", "2026-13-01T00:00:00Z", "2026-05-01T09:00:00+25:00", "x" * 41):
        assert parse_rfc3339(value) is None


def test_every_reader_agrees(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # a zoneless time must not move with the machine's zone
    import time

    time.tzset()
    try:
        zoneless = "2026-05-01T09:00:00"
        assert message_index.created_ms({"createdAt": zoneless}, 0) == 1777626000000
        assert pi_format.iso_ms(zoneless) == 1777626000000
        assert millis(zoneless) == 1777626000000
        assert message_index.created_ms({"createdAt": "not a time"}, 5) == 5
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
