"""Every command declares the events it emits (``@command(name, emits=...)``) and docs/rpc.md says the same.

A command is documented under a heading that names it (``## session.rename``,
``### data.crashDumps / data.removeCrashDumps``, ``## session.queueList /
queueRemove``) with an ``events:`` line (``events: none`` when it emits
nothing), or in a table row with an events column. The topics named there must
be exactly those the commands of that heading or row declare together.
"""

from __future__ import annotations

import re

from pidesktop.bus import topics
from pidesktop.host import commands, handlers  # noqa: F401 - registers every command
from tests.support.repo import REPO

NAME = re.compile(r"[a-z][A-Za-z0-9]*\.[a-z][A-Za-z0-9.]*")  # data.snapshotS3 too
TOPIC = re.compile(r"`([a-z][A-Za-z0-9]*\.[a-z][A-Za-z0-9]*)")
EVENTS = re.compile(r"\bevents?:", re.IGNORECASE)


def heading_commands(title: str) -> list[str]:
    """``session.queueList / queueRemove`` -> both full names; anything that is not a name ends the list."""
    found: list[str] = []
    prefix = None
    for part in re.split(r"\s*/\s*|,\s*", title.strip().strip("`")):
        part = part.strip("` ")
        if NAME.fullmatch(part):
            found.append(part)
            prefix = part.rsplit(".", 1)[0]
        elif prefix is not None and re.fullmatch(r"[a-z][A-Za-z0-9]*", part):
            found.append(f"{prefix}.{part}")
        else:
            break
    return found


def events_statement(body: str) -> set[str] | None:
    """The topics of a section's ``events:`` statement (to the end of its bullet or paragraph); None without one."""
    match = EVENTS.search(body)
    if match is None:
        return None
    rest = body[match.end() :]
    end = re.search(r"\n\s*\n|\n- ", rest)
    return set(TOPIC.findall(rest[: end.start() if end else len(rest)])) & topics.ALL


def documented() -> list[tuple[list[str], set[str] | None]]:
    """(commands, topics) for every heading and table row of docs/rpc.md that names commands."""
    lines = (REPO / "docs" / "rpc.md").read_text(encoding="utf-8").splitlines()
    units: list[tuple[list[str], set[str] | None]] = []
    headings = [(i, line) for i, line in enumerate(lines) if re.match(r"#{2,4} ", line)]
    for number, (start, line) in enumerate(headings):
        names = heading_commands(line.lstrip("#"))
        if names:
            end = headings[number + 1][0] if number + 1 < len(headings) else len(lines)
            units.append((names, events_statement("\n".join(lines[start + 1 : end]))))
    table_has_events = False
    for line in lines:
        if not line.startswith("|"):
            table_has_events = False
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0] == "command":
            table_has_events = cells[-1] == "events"
        elif table_has_events and NAME.fullmatch(cells[0].strip("`")):
            units.append(([cells[0].strip("`")], set(TOPIC.findall(cells[-1])) & topics.ALL))
    return units


def test_every_command_has_one_place_in_the_docs_that_says_which_events_it_emits():
    places: dict[str, int] = {}
    for names, events in documented():
        for name in names:
            if events is not None:
                places[name] = places.get(name, 0) + 1
    assert [name for name in commands.names() if places.get(name) != 1] == []


def test_the_documented_events_are_the_declared_ones():
    wrong = []
    for names, events in documented():
        if events is None or not all(commands.lookup(name) for name in names):
            continue
        declared = set().union(*(commands.emits(name) for name in names))
        if events != declared:
            wrong.append(f"{' / '.join(names)}: docs {sorted(events)}, declared {sorted(declared)}")
    assert wrong == []


def test_the_parser_reads_each_form_of_the_docs():
    assert heading_commands(" session.queueList / queueRemove / queuePrioritize") == [
        "session.queueList",
        "session.queueRemove",
        "session.queuePrioritize",
    ]
    assert heading_commands("Data maintenance: `data.*`") == []
    assert events_statement("- params: x\n- events: `session.changed {sessionId}`, `queue.changed`\n- y") == {
        topics.SESSION_CHANGED,
        topics.QUEUE_CHANGED,
    }
    assert events_statement("- events: none\n") == set()
    assert events_statement("- result: `{session}`\n") is None


def test_a_declared_event_must_be_a_topic():
    try:
        commands.command("probe.unknownTopic", emits=["session.renamed"])
    except ValueError as exc:
        assert "session.renamed" in str(exc)
    else:
        raise AssertionError("an unknown topic was accepted")
    assert commands.lookup("probe.unknownTopic") is None


def test_the_events_a_command_emits_while_it_runs_are_declared(tmp_path):
    """Each command run on a seeded host with params that reach past its checks (the fuzz harvest): what it
    emits on the host thread is in its declaration (a job's later events come from its own thread)."""
    import threading

    from pidesktop import paths
    from pidesktop.host.core import Host
    from tests.test_fuzz_commands import harvest, seed

    caller = threading.get_ident()
    running: list[str] = []
    undeclared: set[tuple[str, str]] = set()
    seen: set[str] = set()

    def record(topic: str, payload: dict) -> None:
        if running and threading.get_ident() == caller:
            seen.add(topic)
            if topic not in commands.emits(running[-1]):
                undeclared.add((running[-1], topic))

    root = tmp_path / "data"
    host = Host.open(paths.resolve(data_dir=root), record, role="events host")
    try:
        ids = seed(host, root)
        for method in commands.names():
            running.append(method)
            try:
                harvest(host, ids, method)
            finally:
                running.pop()
    finally:
        host.close()
    assert sorted(undeclared) == []
    assert len(seen) >= 5, seen  # the check saw events of many kinds


def test_event_names_are_the_constants_of_the_bus_not_strings():
    """Outside ``bus/topics.py`` an event name is written ``topics.X``; a string equal to one is allowed only as
    the name of a command that happens to share it (``data.dailyBackup``, called or registered)."""
    import ast

    offences = []
    for path in sorted((REPO / "pidesktop").rglob("*.py")):
        if path == REPO / "pidesktop" / "bus" / "topics.py" or "workflows" in path.parts:
            continue  # the Workflows store is a product of its own with its own vocabulary
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named_commands = {
            id(node.args[0])
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and node.args
            and (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) in ("command", "call")
        }
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        offences += [
            f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and node.value in topics.ALL
            and id(node) not in named_commands | docstrings
        ]
    assert offences == [], "write these as topics constants:\n" + "\n".join(offences)
