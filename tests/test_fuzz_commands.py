"""Every registered host command, fed hostile params.

The cases are generated from the command registry (``commands.names()``), so a
command added later is fuzzed without anyone listing it here. For each method
the names of the params its handler reads are harvested twice over:

- statically, every string literal the host's modules pass to a ``Params``
  reader (``p.text("name"``, ``q.integer(...``, ``"name" in p.raw`` ...) or
  look up in a raw object (``raw.get("id")``) is the vocabulary of keys;
- at run time, the handler runs on params whose dict records every key it
  looks up; a missing required field is filled (a seeded id, a valid object, a
  string, an integer ...) and the handler runs again, until it gets past its
  checks. That gives, per method, the names it reads and a template of params
  that reach its deepest checks.

The fuzzer then starts from the template or from nothing, drops, keeps or
replaces each field with a hostile value (wrong types, 1 MB strings, lone
surrogates, NUL bytes, path traversal, unknown and real ids, negative, huge
and float numbers, nested garbage) and adds unknown keys.

Properties, per call on a host whose database holds a few real sessions:

- the answer is a result or a ``HostError`` whose code is an ``ErrorCode``
  other than ``INTERNAL`` (the command is run through ``Host.dispatch`` in
  process, where any other exception is what the bus would turn into
  ``INTERNAL``);
- ``INVALID_PARAMS`` names the field in ``data["field"]``, and the field
  (up to its first ``.`` or ``[``) is one the handler actually read;
- a refused command changes nothing: every row of every table (``SELECT *``
  of each table in ``sqlite_schema``, rows sorted) and every file of the data
  root (bytes hashed) are as before, except ``pi.sqlite`` itself (WAL and
  checkpoints move its bytes without a logical change), the host lock, logs
  and the disposable ``*.jsonl.layout`` caches a read may write;
- the host keeps serving: ``app.handshake`` answers after every call.

Two commands are restricted, none excluded: ``attachments.import`` reads
the file its ``path`` names, anywhere on the machine, so its ``path`` is drawn
from a fixed list of hostile paths (traversal, devices, folders, NUL bytes,
surrogates, a real file) rather than arbitrary strings; an arbitrary absolute
path could name an endless pseudo-file such as ``/proc/self/pagemap``.
``session.export`` writes the file its ``path`` names, so its ``path`` is
always one of a fixed list that names no file it could write (``/etc/passwd``
is a hostile string elsewhere, and would be overwritten here).
"""

from __future__ import annotations

import ast
import hashlib
import math
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pidesktop import paths
from pidesktop.bus.errors import ErrorCode, HostError
from pidesktop.host import commands
from pidesktop.host.core import Host
from tests.support.fuzz_budget import fuzz_settings
from tests.support.host_helpers import msg
from tests.support.repo import REPO

pytestmark = pytest.mark.slow  # every command against hostile params

HOST_SOURCES = REPO / "pidesktop" / "host"
METHODS = commands.names()
READERS = {"text", "integer", "boolean", "choice", "obj", "array", "has", "get"}
# Data root entries whose bytes may change without a logical change.
VOLATILE = ("pi.sqlite", "host.lock", "logs")


# -- recording which keys a handler reads ------------------------------------------------
class Recording(dict):
    """Params that remember every key looked up in them (also through nested objects)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen: set[str] = set()

    def get(self, key, default=None):
        self.seen.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.seen.add(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        self.seen.add(key)
        return super().__contains__(key)


def field_head(field: str) -> str:
    for mark in ".[":
        field = field.split(mark, 1)[0]
    return field


# -- static vocabulary ------------------------------------------------------------------
def vocabulary() -> set[str]:
    """Every key name a host module reads from params or from a raw object."""
    names: set[str] = set()
    for source in sorted(HOST_SOURCES.rglob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in READERS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                names.add(node.args[0].value)
            elif (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Constant)
                and isinstance(node.left.value, str)
                and any(isinstance(op, ast.In) for op in node.ops)
            ):
                names.add(node.left.value)
            elif (
                isinstance(node, ast.Subscript)
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                names.add(node.slice.value)
    # "provider.baseUrl" read through a nested Params is the key "baseUrl" of the object "provider"
    names |= {part for name in list(names) if "." in name for part in name.split(".")}
    return {name for name in names if name and len(name) <= 40 and name.replace("_", "").replace(".", "").isalnum()}


VOCABULARY = sorted(vocabulary())


# -- a seeded host -------------------------------------------------------------------------
def open_host(root: Path) -> Host:
    return Host.open(paths.resolve(data_dir=root), lambda topic, payload: None, role="fuzz host")


def seed(host: Host, root: Path) -> dict[str, list]:
    """A few real sessions, messages, a checkpoint, a queue entry, turns, a provider, a model, a blob."""
    d = host.dispatch
    a = d("session.create", {"title": "Alpha"})["session"]["id"]
    b = d("session.create", {"title": "Beta", "projectPath": "/home/someone/project"})["session"]["id"]
    for number, role in enumerate(["user", "assistant", "user", "assistant"], 1):
        d("session.appendMessage", {"sessionId": a, "message": msg(f"m{number}", role, f"text {number}")})
    d("session.appendMessage", {"sessionId": b, "message": msg("b1", "user", "in beta")})
    d(
        "session.appendCompaction",
        {"sessionId": a, "compaction": {"id": "c1", "throughMessageId": "m2", "summary": "the first two"}},
    )
    entry = d("session.queuePush", {"sessionId": a, "content": "waiting prompt"})["entry"]["id"]
    ended = d("session.startTurn", {"sessionId": a, "turnId": "t-ended"})["turn"]["id"]
    d("session.endTurn", {"sessionId": a, "turnId": ended, "status": "completed", "createNotification": True})
    running = d("session.startTurn", {"sessionId": b, "turnId": "t-running"})["turn"]["id"]
    provider = d(
        "providers.upsert", {"provider": {"name": "Local", "baseUrl": "http://127.0.0.1:9/v1"}, "apiKey": "sk-fuzz"}
    )["provider"]["id"]
    d("models.upsert", {"providerId": provider, "model": {"modelId": "model-1"}})
    ref = d("attachments.importText", {"text": "a pasted text"})["attachment"]["ref"]
    notification = d("notifications.list", {})["notifications"][0]["id"]
    project = d("workspace.get", {})["currentProjectId"]
    projects = [row["id"] for row in d("projects.list", {})["projects"]]
    real_file = root.parent / "a-real-file.txt"
    real_file.write_text("outside the data root\n")
    return {
        "sessions": [a, b],
        "messages": ["m1", "m2", "m3", "m4", "b1"],
        "compactions": ["c1"],
        "entries": [entry],
        "turns": [ended, running],
        "providers": [provider, "offline"],
        "models": ["model-1"],
        "refs": [ref],
        "notifications": [notification],
        "projects": [p for p in [project, *projects] if p is not None],
        "file": [str(real_file)],
        "insideDataRoot": [str(root / "chat.md")],
    }


def known_for(name: str, ids: dict[str, list]) -> list:
    """Seeded values a param of this name would plausibly hold."""
    table = {
        "sessionId": "sessions",
        "messageId": "messages",
        "throughMessageId": "messages",
        "messageAround": "messages",
        "rootUserId": "messages",
        "userMessageId": "messages",
        "turnId": "turns",
        "entryId": "entries",
        "providerId": "providers",
        "modelId": "models",
        "ref": "refs",
        "id": "notifications",
        "projectId": "projects",
        "path": "file",
    }
    return list(ids.get(table.get(name, ""), []))


def good_values(name: str, ids: dict[str, list]) -> list:
    """Candidates a harvest tries for a missing field, most specific first."""
    objects = {
        "message": [msg("fz-new", "user", "fresh")],
        "compaction": [{"id": "c-new", "throughMessageId": "m3", "summary": "s"}],
        "provider": [{"name": "Fuzzed", "baseUrl": "http://127.0.0.1:9/v1"}],
        "model": [{"modelId": "model-2"}],
        "patch": [{}],
        "records": [[{"id": "r1", "inputTokens": 1, "outputTokens": 2}]],
        "messages": [[msg("m1", "user", "replaced")]],
        "models": [[{"modelId": "model-3"}]],
        "order": [list(ids["providers"][:1])],
        "usage": [{}],
        "status": ["completed"],
        "direction": ["up"],
        "protocolVersion": [1],
        "createNotification": [False],
        "revisionIndex": [1],
        "text": ["some text"],
        "content": ["a prompt"],
        "title": ["A title"],
        "query": ["text"],
    }
    return [*known_for(name, ids), *objects.get(name, []), "text", 1, True, {}, []]


class Harvest:
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.template: dict = {}


def harvest(host: Host, ids: dict[str, list], method: str) -> Harvest:
    """Run ``method`` until it stops asking for a missing field; record what it reads."""
    found = Harvest()
    for _ in range(12):
        params = Recording(found.template)
        try:
            host.dispatch(method, params)
            error = None
        except HostError as exc:
            error = exc
        except Exception:
            error = None
        found.names |= {key for key in params.seen if isinstance(key, str)}
        field = error.data.get("field") if error is not None and error.code == ErrorCode.INVALID_PARAMS else None
        if not field:
            break
        head = field_head(field)
        if head in found.template and field == head:
            # the value there is refused: try the next candidate
            tried = found.template[head]
            candidates = good_values(head, ids)
            following = candidates[candidates.index(tried) + 1 :] if tried in candidates else []
            if not following:
                break
            found.template[head] = following[0]
        elif head not in found.template:
            found.template[head] = good_values(head, ids)[0]
        else:
            break
    return found


# -- hostile values --------------------------------------------------------------------------
MB = 1 << 20
HUGE_STRINGS = ["x" * MB, "é" * (MB // 2), "\U0001f4a5" * (MB // 4), "a\x00" * (MB // 2)]
HOSTILE_STRINGS = [
    "",
    " ",
    "\t\n",
    "\x00",
    "a\x00b",
    "../../etc/passwd",
    "../../../../../../etc/shadow",
    "/etc/passwd",
    "/",
    ".",
    "..",
    "./.",
    "sessions/../pi.sqlite",
    "..\\..\\windows\\system32",
    "attachments/../pi.sqlite",
    "attachments/" + "0" * 64,
    "attachments/" + "A" * 64,
    "attachments/../../" + "a" * 64,
    "/dev/zero",
    "/dev/null",
    "\ud800",
    "x\udfffy",
    "\udc80\udcff",
    "\U0001f4a5",
    "\u202etxt.exe",
    "null",
    "NaN",
    "-1",
    "0",
    "1e999",
    "' OR 1=1 --",
    '"; DROP TABLE sessions; --',
    "%s%n%x",
    "a\r\nb",
    "{}",
    "[]",
    "<script>",
    "00000000-0000-0000-0000-000000000000",
    "offline",
    "user",
    "assistant",
    "completed",
    "up",
    "inherit",
]
HOSTILE_INTS = [0, -1, 1, 2, 3, -(2**31), 2**31, -(2**63), 2**63 - 1, 2**63, 2**64, 10**30, -(10**30)]
HOSTILE_FLOATS = [0.0, -0.0, 1.0, 1.5, -1.0, 1e300, math.inf, -math.inf, math.nan, 2.0**63]
# Where session.export must refuse to write: none of them is an ordinary file it could replace.
EXPORT_PATHS = [
    "relative/file.md",
    "../../etc/passwd",
    "/etc",
    "/dev/null",
    "/dev/zero",
    "/nonexistent/x.md",
    "/etc/passwd\x00.md",
    "/",
    "\x00",
    "/" + "a" * 5000,
    "/tmp/" + "b" * 300,
]
PATHS = [
    "relative/file.txt",
    "../../etc/passwd",
    "/etc/passwd",
    "/etc",
    "/dev/null",
    "/dev/zero",
    "/nonexistent/x",
    "/etc/passwd\x00.png",
    "/tmp/\ud800",
    "/",
    "/etc/shadow",
    "\x00",
    "/" + "a" * 5000,
    "/tmp/" + "b" * 300,
]


SURROGATES = ["\ud800", "x\udfffy", "\udc80\udcff", "ok \udbff"]
# Strings that look like numbers, or like the "<number>:<id>" cursors a listing hands out.
NUMBERISH = ["0", "-1", "\u00b2", "\u0661\u0662", "99999999999999999999999", "1e3", " 1", "o", ""]


def numberish() -> st.SearchStrategy:
    return st.one_of(
        st.sampled_from(NUMBERISH),
        st.builds(
            lambda head, tail: f"{head}:{tail}", st.sampled_from(NUMBERISH), st.sampled_from(NUMBERISH + ["x", "m1"])
        ),
    )


def scalar() -> st.SearchStrategy:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.sampled_from(HOSTILE_INTS),
        st.integers(-1000, 10**6),
        st.sampled_from(HOSTILE_FLOATS),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(HOSTILE_STRINGS),
        st.sampled_from(SURROGATES),
        numberish(),
        st.text(max_size=30),
        st.text(st.characters(categories=["Cs", "Cc", "Lo", "So"]), max_size=8),
    )


def strings() -> st.SearchStrategy:
    return st.one_of(
        st.sampled_from(HOSTILE_STRINGS), st.sampled_from(SURROGATES), numberish(), numberish(), st.text(max_size=30)
    )


def key_strategy() -> st.SearchStrategy:
    return st.one_of(st.sampled_from(VOCABULARY), st.text(max_size=12), st.sampled_from(["", "type", "__proto__"]))


def nested_garbage() -> st.SearchStrategy:
    return st.recursive(
        scalar(),
        lambda children: st.one_of(
            st.lists(children, max_size=4), st.dictionaries(key_strategy(), children, max_size=4)
        ),
        max_leaves=12,
    )


def hostile() -> st.SearchStrategy:
    return st.one_of(scalar(), nested_garbage(), st.sampled_from(HUGE_STRINGS))


def mutated(good) -> st.SearchStrategy:
    """``good`` (a valid value) with hostile values at any depth: fields dropped, replaced or added."""
    if isinstance(good, dict):

        @st.composite
        def build(draw):
            result = {}
            for key, value in good.items():
                roll = draw(st.integers(0, 9))
                if roll < 3:
                    result[key] = draw(mutated(value))
                elif roll < 5:
                    result[key] = draw(hostile())
                elif roll < 6:
                    continue  # dropped
                else:
                    result[key] = value
            result.update(draw(st.dictionaries(key_strategy(), hostile(), max_size=2)))
            return result

        return build()
    if isinstance(good, list) and good:
        return st.lists(st.one_of(mutated(good[0]), st.just(good[0]), hostile()), min_size=1, max_size=3)
    return st.one_of(hostile(), st.just(good))


def value_for(method: str, name: str, ids: dict[str, list], template: dict) -> st.SearchStrategy:
    if method == "attachments.import" and name == "path":
        return st.sampled_from(PATHS + ids["file"])
    others = [strings(), strings(), scalar(), hostile()]  # most params are text: strings get half the draws
    known = known_for(name, ids)
    if known:
        others.append(st.sampled_from(known))
    if name not in template:
        return st.one_of(others)

    @st.composite
    def build(draw):
        if draw(st.integers(0, 9)) < 6:
            return draw(mutated(template[name]))
        return draw(st.one_of(others))

    return build()


def params_strategy(method: str, found: Harvest, ids: dict[str, list]) -> st.SearchStrategy:
    names = sorted(found.names | set(found.template))

    @st.composite
    def build(draw):
        mode = draw(st.sampled_from(["one"] * 6 + ["many"] * 2 + ["not an object"]))
        if mode == "not an object" and draw(st.booleans()):
            return draw(st.one_of(st.none(), st.lists(scalar(), max_size=2), scalar()))
        params = dict(found.template)
        if not names:
            pass
        elif mode == "one":
            # everything valid but one field: reaches the checks behind the first ones
            name = draw(st.sampled_from(names))
            if draw(st.integers(0, 9)) == 9:  # (hypothesis favours 0: keep it for the hostile value)
                params.pop(name, None)
            else:
                params[name] = draw(value_for(method, name, ids, found.template))
        else:
            if draw(st.integers(0, 3)) == 0:
                params = {}
            for name in names:
                action = draw(st.sampled_from(["keep", "keep", "keep", "drop", "hostile"]))
                if action == "drop":
                    params.pop(name, None)
                elif action == "hostile":
                    params[name] = draw(value_for(method, name, ids, found.template))
        params.update(draw(st.dictionaries(key_strategy(), scalar(), max_size=2)))
        if method == "session.export" and isinstance(params, dict):  # whatever was drawn: never a real file
            params["path"] = draw(st.sampled_from(EXPORT_PATHS + ids["insideDataRoot"]))
        return params

    return build()


# -- the state a refused command must leave alone ----------------------------------------------
def snapshot(host: Host) -> dict:
    conn = host.ctx.conn
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
    state: dict = {}
    for table in tables:
        rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
        state[f"table {table}"] = sorted(repr(row) for row in rows)
    root = host.ctx.data_root
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if relative.parts[0].startswith(VOLATILE) or path.name.endswith(".layout") or not path.is_file():
            continue
        state[f"file {relative}"] = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
    return state


def check_call(host: Host, method: str, params) -> HostError | None:
    """Dispatch once and check every property; the refusal, or None after a success."""
    before = snapshot(host)
    sent = Recording(params) if isinstance(params, dict) else params
    try:
        host.dispatch(method, sent)
        refused = None
    except HostError as exc:
        refused = exc
    except Exception as exc:
        raise AssertionError(f"{method} raised {type(exc).__name__} (INTERNAL on the bus): {exc!r}") from exc
    if refused is not None:
        assert refused.code in set(ErrorCode) and refused.code != ErrorCode.INTERNAL, refused
        if refused.code == ErrorCode.INVALID_PARAMS and isinstance(params, dict):
            field = refused.data.get("field")
            assert isinstance(field, str) and field, f"{method}: INVALID_PARAMS without a field: {refused.message}"
            assert field_head(field) in sent.seen, f"{method}: field {field!r} is not a param it read ({sent.seen})"
        assert snapshot(host) == before, f"{method} was refused ({refused.code}) but changed the data"
    assert host.dispatch("app.handshake", {"protocolVersion": 1})["protocolVersion"] == 1
    return refused


# -- the fuzz test ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def harvested(tmp_path_factory) -> dict[str, Harvest]:
    root = tmp_path_factory.mktemp("harvest") / "data"
    host = open_host(root)
    try:
        ids = seed(host, root)
        return {method: harvest(host, ids, method) for method in METHODS}
    finally:
        host.close()


@pytest.fixture
def seeded(tmp_path):
    root = tmp_path / "data"
    host = open_host(root)
    ids = seed(host, root)
    yield host, ids
    host.close()


EXAMPLES_PER_COMMAND = 60


@pytest.mark.parametrize("method", METHODS)
def test_every_command_refuses_hostile_params_cleanly(method, harvested, seeded, tmp_path):
    host, ids = seeded
    found = harvested[method]

    @fuzz_settings(EXAMPLES_PER_COMMAND)
    @given(params=params_strategy(method, found, ids))
    def fuzz(params):
        check_call(host, method, params)

    fuzz()


def test_the_registry_is_fuzzed_whole(harvested):
    """A new command needs no list here: the cases come from the registry, and the harvest reaches its params."""
    assert set(harvested) == set(commands.names()) == set(METHODS)
    # spot checks that the harvest gets past the first checks to the params behind them
    assert {"sessionId", "message", "turnId"} <= harvested["session.appendMessage"].names
    assert {"sessionId", "turnId", "status", "createNotification", "usage"} <= harvested["session.endTurn"].names
    assert {"provider", "apiKey"} <= harvested["providers.upsert"].names


# -- the same over JSON-RPC: pidesktop host --stdio ----------------------------------------------------
class _OverStdio:
    """``dispatch`` through a ``pidesktop host --stdio`` subprocess, for ``seed``."""

    def __init__(self, stdio):
        self.stdio = stdio

    def dispatch(self, method, params):
        return self.stdio.call(method, params)


def _json_text(params) -> bytes | None:
    try:
        return orjson.dumps(params)
    except TypeError:
        return None  # a lone surrogate or a too large integer: JSON cannot carry it (tested in process)


def test_every_command_over_stdio_answers_hostile_params_with_a_stable_code(stdio_host, data_root, harvested):
    """The same generated params as JSON-RPC requests: every error is a stable code, never INTERNAL,
    INVALID_PARAMS names a field, and the process keeps answering."""
    stdio = stdio_host()
    ids = seed(_OverStdio(stdio), data_root)

    @fuzz_settings(STDIO_EXAMPLES)
    @given(data=st.data())
    def fuzz(data):
        method = data.draw(st.sampled_from(METHODS))
        params = data.draw(params_strategy(method, harvested[method], ids))
        if method == "attachments.import" or _json_text(params) is None:
            return
        reply = stdio.request(method, orjson.loads(_json_text(params)))
        if "error" in reply:
            error = HostError.from_jsonrpc(reply["error"])
            assert error.code in set(ErrorCode) and error.code != ErrorCode.INTERNAL, (method, error)
            if error.code == ErrorCode.INVALID_PARAMS and isinstance(params, dict):
                assert error.data.get("field"), (method, error)
        assert stdio.call("app.handshake", {"protocolVersion": 1})["protocolVersion"] == 1

    fuzz()
    assert stdio.close() == 0


STDIO_EXAMPLES = 300
