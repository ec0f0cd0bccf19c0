"""``auditRetentionDays`` (spec 004, RT.1): how long the start-up pass keeps tool-log rows, set in Settings."""

import time

import apsw
import pytest

from pidesktop.bus import ErrorCode, HostError
from tests.support.hosts import InProcessHost

DAY_MS = 86_400_000


def audit_rows(location, *ages_in_days):
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"))
    now = int(time.time() * 1000)
    with conn:
        for age in ages_in_days:
            conn.execute(
                "INSERT INTO audit_log(ts, kind, payload_json) VALUES (?, 'tool_execute', ?)",
                (now - age * DAY_MS, f'{{"age": {age}}}'),
            )
    conn.close()


def kept_ages(location):
    conn = apsw.Connection(str(location.data_root / "pi.sqlite"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return sorted(int(row[0]) for row in conn.execute("SELECT json_extract(payload_json, '$.age') FROM audit_log"))
    finally:
        conn.close()


def test_the_start_up_pass_keeps_tool_log_rows_as_long_as_the_setting_says(location):
    host = InProcessHost(location)
    assert host.call("settings.get")["settings"]["auditRetentionDays"] == 90
    host.call("settings.set", {"patch": {"auditRetentionDays": 7}})
    host.stop()
    audit_rows(location, 2, 10, 100)
    InProcessHost(location).stop()
    assert kept_ages(location) == [2]


@pytest.mark.parametrize("value", [0, 3651, 7.5, "30", True])
def test_a_retention_outside_one_day_to_ten_years_is_refused(host, value):
    with pytest.raises(HostError) as caught:
        host.call("settings.set", {"patch": {"auditRetentionDays": value}})
    assert caught.value.code == ErrorCode.INVALID_PARAMS and "patch.auditRetentionDays" in caught.value.message
    assert host.call("settings.get")["settings"]["auditRetentionDays"] == 90
