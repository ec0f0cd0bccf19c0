"""Offline relocation rewrites every known path field under the old root, and nothing else."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import apsw
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from pidesktop import paths
from pidesktop.storage import move
from pidesktop.storage.jsonsplice import splice
from pidesktop.storage.pathmap import PathMap
from tests.support.repo import REPO
from tests.test_storage_seed import seed


def leaf_changes(old, new, at=()) -> set:
    """Paths whose value differs; a renamed key shows as ("key", path-to-old-member)."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = set()
        for key in old.keys() - new.keys():
            found.add(("key", (*at, key)))
            renamed = [k for k in new.keys() - old.keys()]
            assert renamed, f"key {key!r} vanished at {at}"
        for key in old.keys() & new.keys():
            found |= leaf_changes(old[key], new[key], (*at, key))
        return found
    if isinstance(old, list) and isinstance(new, list):
        assert len(old) == len(new), f"list length changed at {at}"
        found = set()
        for index, (a, b) in enumerate(zip(old, new)):
            found |= leaf_changes(a, b, (*at, index))
        return found
    return set() if old == new else {at}


def line_changes(old: bytes, new: bytes) -> dict:
    """{line id or number: changed paths} for the lines that differ; the rest must be byte-identical."""
    old_lines, new_lines = old.split(b"\n"), new.split(b"\n")
    assert len(old_lines) == len(new_lines)
    changed = {}
    for number, (a, b) in enumerate(zip(old_lines, new_lines)):
        if a != b:
            record = orjson.loads(a)
            changed[record.get("id", number)] = leaf_changes(record, orjson.loads(b))
    return changed


def rows(db: Path) -> dict[str, list[tuple]]:
    conn = apsw.Connection(f"file:{db}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'messages_fts%' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {t: sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}
    finally:
        conn.close()


def cells_naming(table_rows: dict[str, list[tuple]], needle: str) -> set:
    return {
        (table, value)
        for table, found in table_rows.items()
        for row in found
        for value in row
        if isinstance(value, str) and needle in value
    }


def test_a_move_relocates_exactly_the_path_fields(tmp_path):
    source = paths.resolve()
    seeded = seed(source, tmp_path / "external")
    r = str(seeded.root)
    a = seeded.a
    before = {
        p: p.read_bytes()
        for p in [
            *seeded.root.joinpath("sessions").iterdir(),
            seeded.root / "plugins" / "registry.json",
            *source.ui_root.iterdir(),
        ]
    }
    old_rows = rows(seeded.root / "pi.sqlite")

    result = move.run(tmp_path / "new-place")
    new_data, new_ui = result.data_root, result.ui_root
    n = str(new_data)

    def moved(path: Path) -> Path:
        if path.is_relative_to(seeded.root):
            return new_data / path.relative_to(seeded.root)
        return new_ui / path.relative_to(source.ui_root)

    expected = {
        f"{a}.jsonl": {
            "u1": {("blocks", 1, "ref")},
            "a1": {("blocks", 1, "args", "path"), ("blocks", 1, "result")},
            "t1": {("blocks", 0, "text")},
            "k1": {("retainedTail", 0, "blocks", 0, "ref")},
        },
        f"{seeded.b}.jsonl": {1: {("projectPath",)}},  # its session_info line: the project is under the root
        f"{a}.revisions.jsonl": {0: {("messages", 0, "blocks", 0, "args", "path")}},
        "registry.json": {0: {("plugins", 0, "installPath")}},
        "preferences.json": {
            0: {("key", ("sidebar", "projectMeta", f"{r}/scratch/projB")), ("sidebar", "openProjectPaths", 0)}
        },
        "session-message-outbox.dead-letter.json": {0: {(0, "message", "blocks", 0, "ref")}},
    }
    for path, old in before.items():
        new = moved(path).read_bytes()
        # Byte level: every difference is the old root spelled as the new one.
        assert new.replace(n.encode(), r.encode()) == old, path.name
        if path.suffix == ".jsonl":
            changes = line_changes(old, new)
        else:
            diff = leaf_changes(orjson.loads(old), orjson.loads(new))
            changes = {0: diff} if diff else {}
        assert changes == expected.get(path.name, {}), path.name
        if path.name == "preferences.json":  # indentation kept, not re-serialised
            assert new.count(b"\n") == old.count(b"\n") > 5

    lines = [orjson.loads(line) for line in (new_data / "sessions" / f"{a}.jsonl").read_bytes().splitlines()]
    transcript = next(line for line in lines if line.get("id") == "a1")  # after the header and session_info lines
    tool = transcript["blocks"][1]
    assert tool["args"] == {"path": f"{n}/scratch/{a}/out.txt", "command": f"ls {r}", "other": "/elsewhere/scratch/x"}
    assert tool["result"] == f"wrote {n}/scratch/{a}/out.txt and {n}/visualizations/{a}/v.html"
    assert transcript["blocks"][0]["text"] == f"the file is in {r}/scratch/{a}"  # thinking is narrative
    assert transcript["blocks"][2]["text"] == f"done, see {r}/visualizations/{a}/v.html"

    new_rows = rows(new_data / "pi.sqlite")
    assert {
        t: sorted([tuple(v.replace(n, r) if isinstance(v, str) else v for v in row) for row in found], key=repr)
        for t, found in new_rows.items()
    } == old_rows
    relocated = cells_naming(new_rows, n)
    assert relocated == {
        ("projects", f"{n}/scratch/projB"),
        ("worktrees", f"{n}/scratch/wt1"),
        ("artifacts", f"{n}/scratch/{a}/out.txt"),
        ("kv", orjson.dumps(f"{n}/scratch/ws").decode()),
        (
            "kv",
            orjson.dumps(
                {
                    "name": "g",
                    "roots": [str(seeded.external), f"{n}/scratch/projB"],
                    "note": f"kept in {r}/scratch/projB",
                }
            ).decode(),
        ),
        ("kv", f"{n}/scratch/projB"),  # a memory key that is a project path under the root
        ("turn_queue", orjson.dumps([{"ref": f"{n}/attachments/{'ef' * 32}", "name": "e"}]).decode()),
    }
    memory = [row for row in new_rows["kv"] if row[0] == "projectMemory" and row[1].startswith(n)]
    assert memory[0][2] == orjson.dumps(f"remember {r}/scratch/projB").decode()  # a value that is prose

    # Links: internal ones follow the copy, external ones keep their target; modes come along.
    scratch = new_data / "scratch" / a
    assert os.readlink(scratch / "abs-inside") == f"{n}/attachments/{'ab' * 32}"
    assert os.readlink(scratch / "rel-inside") == f"../../attachments/{'cd' * 32}"
    assert os.readlink(scratch / "abs-outside") == str(seeded.external / "x.txt")
    assert os.readlink(scratch / "rel-outside") == str(seeded.root.parent / "outside-target")
    assert (scratch / "notes.txt").stat().st_mode & 0o777 == 0o640
    assert scratch.stat().st_mode & 0o777 == 0o750


def test_relocate_data_flag_works_on_a_plain_copy(tmp_path, location):
    seeded = seed(location, tmp_path / "external")
    copy_root = tmp_path / "copied" / "data"
    shutil.copytree(seeded.root, copy_root, symlinks=True)
    old = (copy_root / "sessions" / f"{seeded.a}.jsonl").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "pidesktop", "--relocate-data", str(seeded.root), str(copy_root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "relocated" in done.stdout
    new = (copy_root / "sessions" / f"{seeded.a}.jsonl").read_bytes()
    assert new != old and new.replace(str(copy_root).encode(), str(seeded.root).encode()) == old
    again = subprocess.run(
        [sys.executable, "-m", "pidesktop", "--relocate-data", str(seeded.root), str(copy_root)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 0 and (copy_root / "sessions" / f"{seeded.a}.jsonl").read_bytes() == new
    overlap = subprocess.run(
        [sys.executable, "-m", "pidesktop", "--relocate-data", str(seeded.root), str(seeded.root / "sub")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert overlap.returncode == 2 and "overlap" in overlap.stderr


def test_path_fields_match_whole_components_only():
    mapping = PathMap([(Path("/data/root"), Path("/new/data"))])
    assert mapping.whole("/data/root") == "/new/data"
    assert mapping.whole("/data/root/x/y") == "/new/data/x/y"
    assert mapping.whole("file:///data/root/x") == "file:///new/data/x"
    assert mapping.whole("/data/root-2/x") is None
    assert mapping.whole("/elsewhere/data/root/x") is None
    assert (
        mapping.embedded("cat /data/root/scratch/s/a.txt; rm /data/root/pi.sqlite")
        == "cat /new/data/scratch/s/a.txt; rm /data/root/pi.sqlite"
    )
    assert mapping.embedded("/data/rootless/scratch/a") is None
    assert mapping.embedded("x/data/root/scratch/a") is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


def string_paths(value, at=()):
    if isinstance(value, str):
        yield at
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from string_paths(item, (*at, index))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from string_paths(item, (*at, key))


@settings(max_examples=150, deadline=None)
@given(json_values, st.booleans(), st.data())
def test_splice_changes_only_the_chosen_strings(value, indent, data):
    import json

    text = json.dumps(value, indent=2 if indent else None, ensure_ascii=data.draw(st.booleans())).encode()
    targets = list(string_paths(value))
    chosen = data.draw(st.lists(st.sampled_from(targets), unique=True)) if targets else []
    replacements = {at: f"new-{i}/é" for i, at in enumerate(chosen)}
    spliced = splice(text, replacements)
    expected = value
    for at, new in replacements.items():
        if not at:
            expected = new
            continue
        holder = expected
        for step in at[:-1]:
            holder = holder[step]
        holder[at[-1]] = new
    assert json.loads(spliced) == expected
    if not chosen:
        assert spliced == text
