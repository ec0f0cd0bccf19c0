"""The per-key three-way merge of settings sync."""

from hypothesis import given
from hypothesis import strategies as st

from pidesktop.storage.sync_merge import Entry, from_json, merge, stamp_changes, to_json
from tests.support.fuzz_budget import fuzz_settings

keys = st.sampled_from(["a", "b", "c", "d"])
entries = st.builds(Entry, st.one_of(st.integers(0, 3), st.text(max_size=2)), st.integers(0, 10))
snapshots = st.dictionaries(keys, entries, max_size=4)


def values(snapshot):
    return {k: e.value for k, e in snapshot.items()}


@fuzz_settings(200)
@given(snapshots, snapshots)
def test_an_unchanged_side_takes_the_other(base, other):
    assert values(merge(base, base, other)[0]) == values(other)
    assert values(merge(base, other, base)[0]) == values(other)


@fuzz_settings(200)
@given(snapshots, snapshots, snapshots)
def test_every_merged_key_comes_from_a_side_and_conflicts_are_both_changed(base, local, remote):
    merged, conflicts = merge(base, local, remote)
    for key, entry in merged.items():
        assert entry in (local.get(key), remote.get(key))
    for conflict in conflicts:
        assert values(local).get(conflict.key) != values(remote).get(conflict.key)
        assert values(base).get(conflict.key) not in (values(local).get(conflict.key), values(remote).get(conflict.key))


@fuzz_settings(100)
@given(snapshots)
def test_round_trip(snapshot):
    assert from_json(to_json(snapshot)) == snapshot


def test_the_newer_change_wins_and_is_listed():
    base = {"theme": Entry("dark", 1)}
    merged, conflicts = merge(base, {"theme": Entry("light", 5)}, {"theme": Entry("system", 3)})
    assert merged["theme"].value == "light"
    assert [(c.key, c.kept, c.local, c.remote) for c in conflicts] == [("theme", "local", "light", "system")]
    merged, _ = merge(base, {"theme": Entry("light", 2)}, {"theme": Entry("system", 3)})
    assert merged["theme"].value == "system"


def test_a_deletion_on_one_side_goes_through():
    base = {"x": Entry(1, 1), "y": Entry(2, 1)}
    merged, conflicts = merge(base, {"x": Entry(1, 1)}, {"x": Entry(1, 1), "y": Entry(2, 1)})
    assert set(merged) == {"x"} and conflicts == []


def test_offline_edits_keep_when_they_were_made():
    base = {"a": Entry(1, 1)}
    pending = {"b": Entry("early", 5)}
    stamped = stamp_changes(base, {"a": 1, "b": "early", "c": 3}, pending, now=9)
    assert stamped == {"a": Entry(1, 1), "b": Entry("early", 5), "c": Entry(3, 9)}
