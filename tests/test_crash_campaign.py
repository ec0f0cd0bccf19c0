"""A 60-instant slice of the crash campaign (tools/crash_campaign.py; `make crash` runs 1,250 + 100).

Five or six SIGKILLs in each kind of host write (appends, truncateFrom,
replaceMessages, deleteMessage, fork, revision switch, endTurn with its
notification, inbox writes, chat changes followed by a lost or a damaged
database) and five of the data-folder move, each judged as the full campaign
judges it.
"""

import pytest

from tools.crash_campaign import HOST_KINDS, MOVE_KIND, run_campaign

pytestmark = pytest.mark.slow  # a slice of the kill -9 campaign

SUBSET = {kind: 6 if n < 5 else 5 for n, kind in enumerate(HOST_KINDS)}  # 55 host instants
MOVES = 5


def test_a_slice_of_the_crash_campaign_finds_nothing(tmp_path):
    summary = run_campaign(tmp_path, SUBSET, MOVES, seed_value=20261202, log=None)
    print("\n" + summary.table())
    assert summary.instants == sum(SUBSET.values()) + MOVES == 60
    assert set(summary.kinds) == {*HOST_KINDS, MOVE_KIND}
    assert summary.failures == []
