"""A few trials of the crash campaign's ``indexDamage`` kind (tools/crash_index_damage.py), in every run.

A host SIGKILLed at a random instant of 90 chat changes and appends, then its
``pi.sqlite`` deleted, cut, or with a page of ``sessions``, ``messages``, the
search index or the schema overwritten with garbage: the next host must give
back every chat, title, project, mode and message, and append afterwards.
"""

import random

import apsw

from tools import crash_index_damage
from tools.crash_campaign import run_campaign

TRIALS = 4


def test_a_few_kills_followed_by_a_damaged_database_lose_nothing(tmp_path):
    summary = run_campaign(tmp_path, {"indexDamage": TRIALS}, 0, seed_value=20261203, log=None)
    print("\n" + summary.table())
    assert summary.instants == TRIALS
    assert summary.failures == []
    outcomes = summary.kinds["indexDamage"].outcomes
    damaged = sum(n for outcome, n in outcomes.items() if "set aside" in outcome)
    assert damaged, f"no trial damaged a page the host had to set aside: {dict(outcomes)}"


def test_each_way_of_damage_breaks_the_database(tmp_path):
    """The damage is real: every page way leaves a file SQLite's own check refuses."""
    for way in crash_index_damage.PAGE_WAYS:
        root = tmp_path / way
        root.mkdir()
        conn = apsw.Connection(str(root / "pi.sqlite"))
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE sessions(id TEXT PRIMARY KEY, title TEXT)")
        conn.execute("CREATE TABLE messages(id TEXT PRIMARY KEY, text TEXT)")
        conn.execute("CREATE VIRTUAL TABLE messages_fts USING fts5(text)")
        with conn:
            for n in range(400):
                conn.execute("INSERT INTO sessions VALUES (?, ?)", (f"s{n}", "title " * 20))
                conn.execute("INSERT INTO messages VALUES (?, ?)", (f"m{n}", f"words {n} " * 40))
                conn.execute("INSERT INTO messages_fts VALUES (?)", (f"words {n} " * 40,))
        conn.close()
        rng = random.Random(7)
        rng.choice = lambda options, way=way: way if way in options else options[0]  # this way, every time
        assert crash_index_damage.damage_database(root, rng) == way
        try:
            check = apsw.Connection(str(root / "pi.sqlite"))
            rows = [row[0] for row in check.execute("PRAGMA quick_check")]
        except apsw.Error as exc:
            rows = [str(exc)]
        assert rows != ["ok"], way
