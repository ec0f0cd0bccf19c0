"""SIGKILL the host at random instants of every kind of write, and the data-folder move; check what survives.

    python tools/crash_campaign.py [--per-kind 125] [--moves 100] [--kinds K1,K2] [--seed 20261201] [--work DIR]

Host kinds: appends, history rewrites (truncateFrom, replaceMessages,
deleteMessage), forks, revision switches (activateRevision after a
saveActiveRevision), turns ending with a notification, inbox writes, and
chat changes followed by the loss of ``pi.sqlite`` (``crash_index_loss.py``) or
by damage to its pages (``crash_index_damage.py``). Each
kind seeds one template data root; every trial copies it, starts
``pidesktop host --stdio`` on the copy, sends the kind's commands without
waiting, and SIGKILLs the process after a delay drawn from one of N equal
strata of the commands' measured duration, so the instants cover the whole
operation. Afterwards, on the killed root:

- ``PRAGMA integrity_check`` is ok;
- a new host opens it, every acknowledged command's effect is there (and
  nothing that is not a whole outcome of a prefix of the commands sent);
- for every session, windows (``messageLimit``, ``messageAround``, forward
  and backward paging) equal the matching slices of a full ``session.get``;
- the host still writes: one more append reads back.

Moves run ``pidesktop data move`` on a seeded root and SIGKILL it at random
instants: the old root must be byte-for-byte intact, and the move either
completed (the new root verifies) or is pending and then, in turn, resumed,
abandoned (rolled back to the old root) or relaunched; a move killed before
its journal leaves the old root active.

Failing trials keep their data root under ``<work>/failed``; the summary
lists them. ``run_campaign`` is also what the test suite runs, on a subset.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pidesktop import paths
from pidesktop.storage import journal, recovery
from tests.support.crash_support import (
    Replies,
    db_rows,
    integrity_ok,
    kill_after,
    reference,
    send_all,
    start_ready,
    transcript_ids,
    without_rewrite_id,
)
from tests.support.hosts import InProcessHost, StdioHost
from tests.test_history_stdio import AFTER_MIDDLE, BIG, MIDDLE, big_messages, big_template, marker
from tests.test_storage_crash import (
    assert_new_root_is_complete,
    forget_the_move,
    published_root,
    start_move,
)
from tests.test_storage_seed import seed, snapshot
from tools import crash_index_damage, crash_index_loss

HOST_KINDS = (
    "append",
    "truncateFrom",
    "replaceMessages",
    "deleteMessage",
    "fork",
    "revision",
    "endTurn",
    "inbox",
    "indexLoss",
    "indexDamage",
)
MOVE_KIND = "move"
FULL_PER_KIND = 125  # 10 kinds: 1,250 host instants
FULL_MOVES = 100
MOVE_BULK_MB = 24
APPENDS = 240
TURNS = 40
NOTIFICATIONS = 160


# -- results ------------------------------------------------------------------------------------------
@dataclass
class KindResult:
    instants: int = 0
    acknowledged: int = 0  # trials in which at least one command was answered before the kill
    outcomes: Counter = field(default_factory=Counter)
    duration: float = 0.0  # the measured duration of the kind's commands, s
    failures: list[str] = field(default_factory=list)


@dataclass
class Summary:
    seed: int
    kinds: dict[str, KindResult] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def failures(self) -> list[str]:
        return [f"{kind}: {failure}" for kind, result in self.kinds.items() for failure in result.failures]

    @property
    def instants(self) -> int:
        return sum(result.instants for result in self.kinds.values())

    def table(self) -> str:
        rows = [
            f"crash campaign, seed {self.seed}: {self.instants} instants in {self.seconds:.0f} s, "
            f"{len(self.failures)} failures",
            f"{'kind':<16}{'instants':>9}{'acked':>7}{'failed':>7}{'op ms':>8}  outcomes",
        ]
        for kind, r in self.kinds.items():
            outcomes = ", ".join(f"{k} {v}" for k, v in sorted(r.outcomes.items()))
            rows.append(
                f"{kind:<16}{r.instants:>9}{r.acknowledged:>7}{len(r.failures):>7}{r.duration * 1e3:>8.0f}  {outcomes}"
            )
        rows += [f"FAIL {failure}" for failure in self.failures]
        return "\n".join(rows)


class TrialFailure(AssertionError):
    pass


def check(condition, message: str) -> None:
    if not condition:
        raise TrialFailure(message)


# -- hosts ----------------------------------------------------------------------------------------------
class Hosts:
    """Starts stdio hosts; every one still running is killed at the end."""

    def __init__(self):
        self.started: list[StdioHost] = []

    def __call__(self, root: Path, env: dict | None = None) -> StdioHost:
        h = StdioHost(root, env)
        self.started.append(h)
        return h

    def reap(self) -> None:
        for h in self.started:
            if h.proc.poll() is None:
                h.kill()
        self.started.clear()


def in_process(root: Path) -> InProcessHost:
    return InProcessHost(paths.resolve(data_dir=root))


def cmd(method: str, **params) -> dict:
    return {"method": method, "params": params}


def msg(mid: str, role: str, text: str, **extra) -> dict:
    return {"id": mid, "role": role, "blocks": [{"type": "text", "text": text}], **extra}


# -- what every trial checks ---------------------------------------------------------------------------
def check_windows(h: InProcessHost, sid: str, rng: random.Random) -> list[dict]:
    """Windows of ``sid`` (tail, around, forward and backward pages) equal the slices of a full read."""
    full = h.call("session.get", {"sessionId": sid})
    messages = full["messages"]
    n = len(messages)
    check(full["totalMessages"] == n, f"{sid}: totalMessages {full['totalMessages']} != {n} messages read")
    if n == 0:
        return messages
    for limit in (1, 7, 250):
        w = h.call("session.get", {"sessionId": sid, "messageLimit": limit})
        check(w["messages"] == messages[max(0, n - limit) :], f"{sid}: the last-{limit} window differs")
        check(w["compactions"] == full["compactions"], f"{sid}: a window's compactions differ")
    for anchor in rng.sample([m["id"] for m in messages], min(3, n)):
        limit = rng.choice((5, 40))
        w = h.call("session.get", {"sessionId": sid, "messageAround": anchor, "messageLimit": limit})
        check(anchor in [m["id"] for m in w["messages"]], f"{sid}: the window around {anchor} misses it")
        check(
            w["messages"] == messages[w["messageStart"] : w["messageEnd"]],
            f"{sid}: the window around {anchor} is not the full read's slice",
        )
    page = rng.choice((97, 333))
    forward, start = [], 0
    while True:
        w = h.call("session.get", {"sessionId": sid, "messageStart": start, "messageLimit": page})
        forward += w["messages"]
        if not w["hasMoreAfter"] or not w["messages"]:
            break
        start = w["messageEnd"]
    check(forward == messages, f"{sid}: forward pages of {page} differ from the full read")
    backward, before = [], n
    while True:
        w = h.call("session.get", {"sessionId": sid, "messageBefore": before, "messageLimit": page})
        backward = w["messages"] + backward
        if not w["hasMoreBefore"] or not w["messages"]:
            break
        before = w["messageStart"]
    check(backward == messages, f"{sid}: backward pages of {page} differ from the full read")
    return messages


def check_reopened(
    root: Path, rng: random.Random, verify: Callable[[InProcessHost], None], database_lost: bool = False
) -> None:
    """A new host on ``root``: the kind's checks, every session's windows, and one more append."""
    if not database_lost:
        check(integrity_ok(root), "PRAGMA integrity_check is not ok")
    h = in_process(root)
    try:
        verify(h)
        sessions = h.call("session.list", {})["sessions"]
        for summary in sessions:
            check_windows(h, summary["id"], rng)
        if sessions:
            sid = sessions[0]["id"]
            h.call("session.appendMessage", {"sessionId": sid, "message": msg("after-kill", "user", "after the kill")})
            last = h.call("session.get", {"sessionId": sid, "messageLimit": 1})["messages"]
            check([m["id"] for m in last] == ["after-kill"], "the host does not write after the kill")
    finally:
        h.stop()
    check(integrity_ok(root), "PRAGMA integrity_check is not ok after the reopened host wrote")


# -- kinds ---------------------------------------------------------------------------------------------
@dataclass
class Variant:
    """One list of commands sent to a copy of ``template``, and how to judge a root killed during it."""

    name: str
    template: Path
    sid: str
    commands: list[dict]
    judge: Callable[[Path, Replies, InProcessHost], str]  # raises TrialFailure; returns the outcome's name
    duration: float = 0.0
    # done to the killed root before it is reopened (indexLoss: the database is lost); names what it did
    after_kill: Callable[[Path, random.Random], str] | None = None


def acked_prefix(replies: Replies, count: int) -> int:
    """How many of the commands 1..count were answered (the host answers in order)."""
    return max((i for i in range(1, count + 1) if i in replies.got), default=0)


def measure(start: Hosts, variant: Variant, work: Path) -> float:
    """Run the variant's commands to completion once: their duration (every reply must be a result)."""
    root = work / f"measure-{variant.name}"
    shutil.copytree(variant.template, root)
    h = start_ready(start, root, variant.sid)
    replies = Replies(h)
    began = time.perf_counter()
    send_all(h, variant.commands).join(30)
    n = len(variant.commands)
    deadline = time.monotonic() + 60
    while n not in replies.got and time.monotonic() < deadline:
        time.sleep(0.001)
    check(n in replies.got, f"{variant.name}: the commands did not finish")
    duration = replies.when[n] - began
    errors = [r for r in replies.got.values() if "error" in r]
    check(not errors, f"{variant.name}: a command failed: {errors[:1]}")
    h.proc.stdin.close()
    h.proc.wait(30)
    replies.thread.join(5)
    shutil.rmtree(root)
    return duration


def appends(start: Hosts, work: Path, rng: random.Random) -> list[Variant]:
    template = work / "append-template"
    h = start(template)
    sid = h.call("session.create", {"title": "appends"})["session"]["id"]
    for i in range(3):
        h.call("session.appendMessage", {"sessionId": sid, "message": msg(f"seed{i}", "user", f"seed {i}")})
    assert h.close() == 0
    sent = [
        msg(f"m{i}", "user" if i % 2 else "assistant", "word " * rng.choice((1, 10, 200, 3000)) + f"#{i}")
        for i in range(APPENDS)
    ]
    commands = [cmd("session.appendMessage", sessionId=sid, message=m) for m in sent]
    seeded = [f"seed{i}" for i in range(3)]

    def judge(root: Path, replies: Replies, h: InProcessHost) -> str:
        acked = acked_prefix(replies, len(commands))
        got = h.call("session.get", {"sessionId": sid})["messages"]
        ids = [m["id"] for m in got]
        check(ids[:3] == seeded, "the seeded messages changed")
        kept = len(ids) - 3
        check(ids[3:] == [m["id"] for m in sent[:kept]], f"the appended ids are not a prefix of those sent: {ids[3:8]}")
        check(kept >= acked, f"{acked} appends acknowledged, {kept} present")
        for m, original in zip(got[3:], sent):
            check(m["blocks"] == original["blocks"], f"{m['id']}: a partial or altered message")
        return "all sent kept" if kept == len(sent) else "lost in flight" if kept > acked else "exactly the acked"

    return [Variant("append", template, sid, commands, judge)]


def rewrite_variant(start: Hosts, work: Path, template: Path, sid: str, name: str, command: dict) -> Variant:
    ref = reference(start, template, work / f"ref-{name}", sid, command)
    shutil.rmtree(work / f"ref-{name}")
    old = without_rewrite_id((template / "sessions" / f"{sid}.jsonl").read_bytes())
    new = without_rewrite_id(ref["transcript"])
    gone = sorted(set(transcript_ids(old)) - set(ref["ids"]))

    def judge(root: Path, replies: Replies, h: InProcessHost) -> str:
        acked = replies.acked(1)
        data = without_rewrite_id((root / "sessions" / f"{sid}.jsonl").read_bytes())
        check(data in (old, new), "the transcript is neither the old nor the new file")
        outcome = "new" if data == new else "old"
        check(outcome == "new" or not acked, "an acknowledged rewrite is not in the transcript")
        got = h.call("session.get", {"sessionId": sid})["messages"]
        check([m["id"] for m in got] == transcript_ids(data), "session.get differs from the transcript")
        if acked and gone:
            hits = h.call("search.query", {"query": marker(int(gone[-1][1:])), "sessionId": sid})["results"]
            check(hits == [], "search still finds a message an acknowledged rewrite removed")
        return outcome

    return Variant(name, template, sid, [command], judge)


def observed_prefix(
    start: Hosts, work: Path, name: str, template: Path, sid: str, commands: list[dict], observe: Callable
) -> Variant:
    """A variant judged by states: after the kill, what a new host observes must equal the state after
    some prefix of the commands that includes every acknowledged one."""
    root = work / f"states-{name}"
    shutil.copytree(template, root)
    h = start_ready(start, root, sid)
    states = [observe(h)]
    for command in commands:
        h.call(command["method"], command["params"])
        states.append(observe(h))
    assert h.close() == 0
    shutil.rmtree(root)

    def judge(root: Path, replies: Replies, h: InProcessHost) -> str:
        acked = acked_prefix(replies, len(commands))
        state = observe(h)
        matches = [j for j, s in enumerate(states) if s == state]
        check(matches, "the state after the kill is not the state after any prefix of the commands")
        check(max(matches) >= acked, f"the state is that of {max(matches)} commands, {acked} were acknowledged")
        return f"prefix {'<' if max(matches) < len(commands) else '='} all"

    return Variant(name, template, sid, commands, judge)


def histories(start: Hosts, work: Path, rng: random.Random) -> dict[str, list[Variant]]:
    big = work / "big-template"
    sid = big_template(start, big)  # BIG messages, two checkpoints, MIDDLE's live branch saved
    kept = [m for m in big_messages() if m["id"] not in (MIDDLE, AFTER_MIDDLE)]
    cut = big_messages()[: BIG // 2] + [msg("late", "user", "a late prompt", createdAt="2026-07-26T10:00:00.000Z")]
    lone = f"m{BIG // 4 + 1:05d}"  # an assistant message
    kinds = {
        "truncateFrom": [
            rewrite_variant(
                start, work, big, sid, "regenerate", cmd("session.truncateFrom", sessionId=sid, messageId=AFTER_MIDDLE)
            ),
            rewrite_variant(
                start, work, big, sid, "edit", cmd("session.truncateFrom", sessionId=sid, messageId=MIDDLE)
            ),
        ],
        "replaceMessages": [
            rewrite_variant(
                start, work, big, sid, "replace-drop", cmd("session.replaceMessages", sessionId=sid, messages=kept)
            ),
            rewrite_variant(
                start, work, big, sid, "replace-cut", cmd("session.replaceMessages", sessionId=sid, messages=cut)
            ),
        ],
        "deleteMessage": [
            rewrite_variant(
                start, work, big, sid, "delete-prompt", cmd("session.deleteMessage", sessionId=sid, messageId=MIDDLE)
            ),
            rewrite_variant(
                start, work, big, sid, "delete-reply", cmd("session.deleteMessage", sessionId=sid, messageId=lone)
            ),
        ],
    }

    def sessions_after_fork(expected: list[list[str]]):
        source = (big / "sessions" / f"{sid}.jsonl").read_bytes()

        def judge(root: Path, replies: Replies, h: InProcessHost) -> str:
            check((root / "sessions" / f"{sid}.jsonl").read_bytes() == source, "the fork changed its source")
            listed = h.call("session.list", {})["sessions"]
            children = [s for s in listed if s["id"] != sid]
            check(len(children) <= 1, f"{len(children)} forks after one fork command")
            check(not replies.acked(1) or children, "an acknowledged fork is missing")
            if not children:
                return "no fork"
            got = h.call("session.get", {"sessionId": children[0]["id"]})["messages"]
            texts = [m["blocks"][0]["text"].split()[0] for m in got]
            check(texts in expected, f"the fork holds {len(texts)} messages, not a whole copy")
            return "whole fork"

        return judge

    texts = [marker(i) for i in range(BIG)]
    forks = []
    for name, params, expected in (
        ("fork-whole", {}, texts),
        ("fork-through", {"throughMessageId": MIDDLE}, texts[: BIG // 2 + 1]),
    ):
        command = cmd("session.fork", sessionId=sid, **params)
        forks.append(Variant(name, big, sid, [command], sessions_after_fork([expected])))
    kinds["fork"] = forks

    # MIDDLE answered twice: variant 1 the original tail, variant 2 a short regenerated reply (live).
    revisions = work / "revision-template"
    shutil.copytree(big, revisions)
    h = start(revisions)
    h.call("session.truncateFrom", {"sessionId": sid, "messageId": AFTER_MIDDLE})
    h.call("session.appendMessage", {"sessionId": sid, "message": msg("again", "assistant", "a regenerated reply")})
    h.call("session.saveActiveRevision", {"sessionId": sid, "rootUserId": MIDDLE})
    assert h.close() == 0

    def revision_state(h) -> tuple:
        got = h.call("session.get", {"sessionId": sid})["messages"]
        rows = h.call("session.listRevisions", {"sessionId": sid, "rootUserId": MIDDLE})["revisions"]
        return ([m["id"] for m in got], [(r["revisionIndex"], r["messageCount"], r["isActive"]) for r in rows])

    save = cmd("session.saveActiveRevision", sessionId=sid, rootUserId=MIDDLE)

    def switch(index: int) -> dict:
        return cmd("session.activateRevision", sessionId=sid, rootUserId=MIDDLE, revisionIndex=index)

    kinds["revision"] = [
        observed_prefix(start, work, "switch-back", revisions, sid, [save, switch(1)], revision_state),
        observed_prefix(
            start, work, "switch-back-and-forth", revisions, sid, [save, switch(1), switch(2)], revision_state
        ),
    ]
    return kinds


def turns(start: Hosts, work: Path, rng: random.Random) -> list[Variant]:
    template = work / "turn-template"
    h = start(template)
    sid = h.call("session.create", {"title": "turns"})["session"]["id"]
    assert h.close() == 0
    commands, ends = [], {}
    for t in range(TURNS):
        turn = f"t{t:03d}"
        commands += [
            cmd("session.startTurn", sessionId=sid, turnId=turn),
            cmd("session.appendMessage", sessionId=sid, turnId=turn, message=msg(f"u{t}", "user", f"q {t}")),
            cmd(
                "session.appendMessage",
                sessionId=sid,
                turnId=turn,
                message=msg(f"a{t}", "assistant", "answer " * rng.choice((5, 500))),
            ),
            cmd("session.endTurn", sessionId=sid, turnId=turn, status="completed", createNotification=True),
        ]
        ends[len(commands)] = turn
    appended = [c["params"]["message"]["id"] for c in commands if c["method"] == "session.appendMessage"]

    def judge(root: Path, replies: Replies, h: InProcessHost) -> str:
        acked = acked_prefix(replies, len(commands))
        rows = dict(db_rows(root, "SELECT id, status FROM turns WHERE session_id = ?", (sid,)))
        check("running" not in rows.values(), "a turn is still running after the restart")
        listing = h.call("notifications.list", {"limit": 200})
        notes = Counter(n["turnId"] for n in listing["notifications"])
        check(all(v == 1 for v in notes.values()), "a turn has more than one notification")
        check(
            listing["unreadCount"] == sum(1 for n in listing["notifications"] if n["readAt"] is None),
            "unreadCount differs from the unread notifications",
        )
        # The inbox keeps one unread row per chat: the newest completed turn's, each newer one replacing it.
        completed = sorted(turn for turn, status in rows.items() if status == "completed")
        check(set(notes) <= set(completed), f"notifications {sorted(notes)} name a turn that did not complete")
        check(
            sorted(notes) == completed[-1:],
            f"the inbox holds {sorted(notes)}, not the newest completed turn {completed[-1:]}",
        )
        for position, turn in ends.items():
            if position <= acked:
                check(rows.get(turn) == "completed", f"{turn}: an acknowledged endTurn left it {rows.get(turn)}")
        ids = [m["id"] for m in h.call("session.get", {"sessionId": sid})["messages"]]
        check(ids == appended[: len(ids)], "the messages are not a prefix of those appended")
        acked_appends = sum(
            1 for i, c in enumerate(commands, start=1) if i <= acked and c["method"] == "session.appendMessage"
        )
        check(len(ids) >= acked_appends, f"{acked_appends} appends acknowledged, {len(ids)} present")
        return "aborted one" if "aborted" in rows.values() else "none running"

    return [Variant("endTurn", template, sid, commands, judge)]


def inbox(start: Hosts, work: Path, rng: random.Random) -> list[Variant]:
    template = work / "inbox-template"
    h = start(template)
    # The inbox keeps one unread row per chat (a newer one replaces it), so each row gets a chat of its own.
    sids = [h.call("session.create", {"title": f"chat {n}"})["session"]["id"] for n in range(NOTIFICATIONS)]
    for t in range(NOTIFICATIONS):
        sid = sids[t]
        h.call("session.startTurn", {"sessionId": sid, "turnId": f"t{t}"})
        h.call(
            "session.endTurn",
            {
                "sessionId": sid,
                "turnId": f"t{t}",
                "status": rng.choice(("completed", "error")),
                "createNotification": True,
            },
        )
    ids = [n["id"] for n in h.call("notifications.list", {"limit": 200})["notifications"]]
    assert h.close() == 0
    reads = rng.sample(ids, 120)
    commands = (
        [cmd("notifications.markRead", id=i) for i in reads[:60]]
        + [cmd("notifications.markAllRead", sessionId=sids[0])]
        + [cmd("notifications.markRead", id=i) for i in reads[60:]]
        + [cmd("notifications.markAllRead"), cmd("notifications.clear")]
    )

    def inbox_state(h) -> tuple:
        listing = h.call("notifications.list", {"limit": 200})
        return ([(n["id"], n["readAt"] is not None) for n in listing["notifications"]], listing["unreadCount"])

    plain = observed_prefix(start, work, "inbox", template, sids[0], commands, inbox_state)
    return [plain]


# -- one host trial ----------------------------------------------------------------------------------
def host_trial(start: Hosts, variant: Variant, root: Path, delay: float, rng: random.Random) -> tuple[bool, str]:
    replies = kill_after(start, variant.template, root, variant.sid, variant.commands, delay)
    start.reap()
    outcome = []
    lost = variant.after_kill(root, rng) if variant.after_kill is not None else None

    def verify(h: InProcessHost) -> None:
        outcome.append(variant.judge(root, replies, h))

    check_reopened(root, rng, verify, database_lost=lost is not None)
    return bool(replies.got), outcome[0] if lost is None else f"{outcome[0]} after {lost}"


def index_loss(start: Hosts, work: Path, rng: random.Random) -> list[Variant]:
    template = work / "index-loss-template"
    projects = [work / "projects" / f"p{n}" for n in range(3)]
    sid, commands, judge = crash_index_loss.build(template, projects, rng, in_process, cmd, msg, check)
    return [Variant("indexLoss", template, sid, commands, judge, after_kill=crash_index_loss.lose_database)]


def index_damage(start: Hosts, work: Path, rng: random.Random) -> list[Variant]:
    template = work / "index-damage-template"
    projects = [work / "projects-damage" / f"p{n}" for n in range(3)]
    sid, commands, judge = crash_index_loss.build(template, projects, rng, in_process, cmd, msg, check)

    def judged(root: Path, replies: Replies, h: InProcessHost) -> str:
        outcome = judge(root, replies, h)
        return f"{outcome}, set aside" if list(root.glob("pi.sqlite.damaged-*")) else outcome

    return [Variant("indexDamage", template, sid, commands, judged, after_kill=crash_index_damage.damage_database)]


# -- moves ------------------------------------------------------------------------------------------------
def move_trials(work: Path, count: int, rng: random.Random, result: KindResult, keep: Path, log) -> None:
    seeded = seed(paths.resolve(), work / "external", bulk_mb=MOVE_BULK_MB)
    roots = (seeded.root, seeded.location.ui_root)
    sessions = {seeded.a, seeded.b}
    dest = work / "dest"
    began = time.monotonic()
    if start_move(dest).wait(120) != 0 or published_root() != dest:
        result.failures.append("the reference move did not complete")
        return
    result.duration = time.monotonic() - began
    assert_new_root_is_complete(dest, sessions)
    forget_the_move(dest)
    baseline = snapshot(*roots)
    strata = list(range(count))
    rng.shuffle(strata)
    follow_ups = ("resumed", "abandoned", "relaunched")
    pending_seen = 0
    for trial, stratum in enumerate(strata):
        delay = result.duration * 1.1 * (stratum + rng.random()) / count
        where = f"move trial {trial}, kill after {delay * 1e3:.0f} ms of {result.duration * 1e3:.0f} ms"
        result.instants += 1
        try:
            proc = start_move(dest)
            time.sleep(delay)
            if proc.poll() is None:
                proc.kill()
                result.outcomes["killed"] += 1
            proc.wait(30)
            check(snapshot(*roots) == baseline, "the old root changed")
            if published_root() == dest:
                result.outcomes["published"] += 1
                assert_new_root_is_complete(dest, sessions)
                recovery.resume_pending()  # only bookkeeping can be left
                check(journal.read() is None, "a published move kept its journal")
            else:
                check(paths.resolve().data_root == seeded.root, "neither the old nor the new root is active")
                pending = journal.read()
                if pending is None:
                    result.outcomes["before the journal"] += 1
                else:
                    check(
                        pending.destination == dest and pending.source_data_root == seeded.root,
                        "the journal names another move",
                    )
                    follow_up = follow_ups[pending_seen % len(follow_ups)]
                    pending_seen += 1
                    result.outcomes[f"pending, {follow_up}"] += 1
                    if follow_up == "resumed":
                        check(recovery.resume_pending() is not None, "resume_pending found nothing to resume")
                    elif follow_up == "abandoned":
                        recovery.abandon_pending()
                        check(journal.read() is None and published_root() is None, "abandon left the move")
                    else:
                        check(start_move(dest).wait(120) == 0, "the relaunched move failed")
                    if follow_up != "abandoned":
                        check(published_root() == dest and journal.read() is None, f"{follow_up} did not publish")
                        assert_new_root_is_complete(dest, sessions)
                check(snapshot(*roots) == baseline, "the old root changed after the follow-up")
            h = InProcessHost(paths.resolve())
            try:
                got = h.call("session.get", {"sessionId": seeded.a})["messages"]
                check([m["id"] for m in got][:2] == ["u1", "a1"], "the active root lost messages")
            finally:
                h.stop()
            baseline = snapshot(*roots)  # a host that opens the old root may touch its files
        except Exception as exc:
            result.failures.append(f"{where}: {describe(exc)}")
            shutil.copytree(work, keep / f"move-{trial}", symlinks=True, dirs_exist_ok=True)
        forget_the_move(dest)
        if log and (trial + 1) % 10 == 0:
            log(f"  move: {trial + 1}/{count} ({len(result.failures)} failures)")


def describe(exc: BaseException) -> str:
    if isinstance(exc, TrialFailure):
        return str(exc)
    return "".join(traceback.format_exception_only(exc)).strip()[:500]


# -- the campaign --------------------------------------------------------------------------------------
@contextmanager
def isolated_home(folder: Path):
    """HOME and XDG_CONFIG_HOME inside ``folder`` (no real anchor or pointer is touched), restored after."""
    saved = {k: os.environ.get(k) for k in ("HOME", "XDG_CONFIG_HOME", paths.ENV_DATA_DIR)}
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["HOME"] = str(folder)
    os.environ["XDG_CONFIG_HOME"] = str(folder / ".config")
    os.environ.pop(paths.ENV_DATA_DIR, None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_campaign(
    work: Path,
    per_kind: int | dict[str, int] = FULL_PER_KIND,
    moves: int = FULL_MOVES,
    seed_value: int = 20261201,
    log: Callable[[str], None] | None = print,
) -> Summary:
    """Kill the host ``per_kind`` times for each kind in HOST_KINDS (a number, or one per kind) and the
    data-folder move ``moves`` times, under ``work``; the summary of what held and what failed."""
    counts = per_kind if isinstance(per_kind, dict) else {kind: per_kind for kind in HOST_KINDS}
    rng = random.Random(seed_value)
    summary = Summary(seed_value)
    began = time.monotonic()
    keep = work / "failed"
    start = Hosts()
    with isolated_home(work / "home"):
        try:
            variants: dict[str, list[Variant]] = {}
            wanted = [k for k in HOST_KINDS if counts.get(k, 0) > 0]
            if "append" in wanted:
                variants["append"] = appends(start, work, rng)
            if {"truncateFrom", "replaceMessages", "deleteMessage", "fork", "revision"} & set(wanted):
                variants.update(histories(start, work, rng))
            if "endTurn" in wanted:
                variants["endTurn"] = turns(start, work, rng)
            if "inbox" in wanted:
                variants["inbox"] = inbox(start, work, rng)
            if "indexLoss" in wanted:
                variants["indexLoss"] = index_loss(start, work, rng)
            if "indexDamage" in wanted:
                variants["indexDamage"] = index_damage(start, work, rng)
            for kind in wanted:
                result = summary.kinds.setdefault(kind, KindResult())
                for variant in variants[kind]:
                    variant.duration = max(measure(start, variant, work) for _ in range(3))
                result.duration = max(v.duration for v in variants[kind])
                n = counts[kind]
                strata = list(range(n))
                rng.shuffle(strata)
                for trial, stratum in enumerate(strata):
                    variant = variants[kind][trial % len(variants[kind])]
                    # a random instant in the trial's stratum of the commands' duration (and a little after)
                    delay = variant.duration * 1.25 * (stratum + rng.random()) / n
                    root = work / "trials" / f"{kind}-{trial}"
                    where = (
                        f"{variant.name} trial {trial}, kill after {delay * 1e3:.1f} ms "
                        f"of {variant.duration * 1e3:.1f} ms"
                    )
                    result.instants += 1
                    try:
                        answered, outcome = host_trial(start, variant, root, delay, rng)
                        result.acknowledged += answered
                        result.outcomes[outcome] += 1
                        shutil.rmtree(root)
                    except Exception as exc:
                        start.reap()
                        result.failures.append(f"{where}: {describe(exc)} (root kept in {keep / root.name})")
                        keep.mkdir(parents=True, exist_ok=True)
                        if root.exists():
                            shutil.move(str(root), keep / root.name)
                    if log and (trial + 1) % 25 == 0:
                        log(
                            f"  {kind}: {trial + 1}/{n} ({len(result.failures)} failures, "
                            f"{time.monotonic() - began:.0f} s)"
                        )
            if moves:
                result = summary.kinds.setdefault(MOVE_KIND, KindResult())
                move_trials(work / "move", moves, rng, result, keep, log)
        finally:
            start.reap()
    summary.seconds = time.monotonic() - began
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--per-kind",
        type=int,
        default=FULL_PER_KIND,
        help=f"instants per host kind ({len(HOST_KINDS)} kinds; default {FULL_PER_KIND})",
    )
    parser.add_argument("--moves", type=int, default=FULL_MOVES, help=f"move instants (default {FULL_MOVES})")
    parser.add_argument(
        "--kinds", help=f"only these host kinds, comma-separated (default: all of {', '.join(HOST_KINDS)})"
    )
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--work", type=Path, help="where the data roots go (default: a temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder afterwards")
    args = parser.parse_args(argv)
    kinds = args.kinds.split(",") if args.kinds else list(HOST_KINDS)
    unknown = sorted(set(kinds) - set(HOST_KINDS))
    if unknown:
        parser.error(f"unknown kinds: {', '.join(unknown)}")
    work = args.work or Path(tempfile.mkdtemp(prefix="pidesktop-crash-"))
    work.mkdir(parents=True, exist_ok=True)
    print(
        f"crash campaign in {work}: {args.per_kind} instants x {len(kinds)} host kinds, "
        f"{args.moves} moves, seed {args.seed}",
        flush=True,
    )
    counts = {kind: args.per_kind for kind in kinds}
    summary = run_campaign(work, counts, args.moves, args.seed, log=lambda line: print(line, flush=True))
    print(summary.table(), flush=True)
    if not args.keep and not summary.failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
