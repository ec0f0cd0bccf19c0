"""Plan/Goal approvals: the structured question, the deadline and ``expired``, the explicit permission mode
(spec 004, 4.6a and section 5)."""

import pytest

from pidesktop.bus.errors import HostError
from pidesktop.host import handlers  # noqa: F401 - registers every command
from pidesktop.host.core import Host
from pidesktop.host.turns.plans import EXPIRY_MS

NOW = 1_780_000_000_000


class ClockHost:
    def __init__(self, location):
        self.events = []
        self.host = Host.open(location, emit=lambda topic, payload: self.events.append((topic, payload)))
        self.now = NOW
        self.host.ctx.clock = lambda: self.now

    def call(self, method, params=None):
        return self.host.dispatch(method, params or {})

    def error(self, method, params=None) -> HostError:
        with pytest.raises(HostError) as info:
            self.call(method, params)
        return info.value


@pytest.fixture
def h(location):
    opened = ClockHost(location)
    yield opened
    opened.host.close()


def submit(h, sid, call="c1", **extra):
    params = {"sessionId": sid, "kind": "plan", "markdown": "# Plan\n", "turnId": "t1", "toolCallId": call, **extra}
    return h.call("plan.submit", params)["approval"]


def test_the_question_and_the_deadline_are_stored(h):
    sid = h.call("session.create", {"mode": "plan"})["session"]["id"]
    approval = submit(h, sid, question="Shall I migrate the tests too?")
    assert approval["question"] == "Shall I migrate the tests too?"
    assert approval["expiresAt"] == NOW + EXPIRY_MS
    listed = h.call("plan.list", {"sessionId": sid})["approvals"][0]
    assert (listed["question"], listed["expiresAt"]) == ("Shall I migrate the tests too?", NOW + EXPIRY_MS)
    too_long = h.error(
        "plan.submit",
        {
            **{"sessionId": sid, "kind": "plan", "markdown": "x"},
            "turnId": "t",
            "toolCallId": "c9",
            "question": "q" * 5000,
        },
    )
    assert too_long.data["field"] == "question"


def test_a_proposal_past_its_deadline_is_expired_and_cannot_be_approved(h):
    sid = h.call("session.create", {"mode": "plan"})["session"]["id"]
    approval = submit(h, sid)
    h.now = NOW + EXPIRY_MS - 1
    assert [a["id"] for a in h.call("plans.pending")["approvals"]] == [approval["id"]]
    h.now = NOW + EXPIRY_MS
    assert h.call("plans.pending")["approvals"] == []
    error = h.error("plan.respond", {"approvalId": approval["id"], "decision": "approve"})
    assert error.code == "CONFLICT" and error.data["status"] == "expired"
    assert "expired" in error.message
    row = h.call("plan.list", {"sessionId": sid})["approvals"][0]
    assert row["status"] == "expired" and row["decidedAt"] == NOW + EXPIRY_MS
    session = h.call("session.get", {"sessionId": sid})["session"]
    assert session["mode"] == "plan"  # expiry stays in the contract mode
    assert ("plan.changed", "expired") in [(t, p["approval"]["status"]) for t, p in h.events if t == "plan.changed"]
    assert submit(h, sid, call="c2")["status"] == "pending"  # a new proposal is not blocked by the expired one


def test_approval_makes_the_permission_mode_explicit(h):
    h.call("settings.set", {"patch": {"permissionMode": "accept-edits"}})
    sid = h.call("session.create", {"mode": "plan"})["session"]["id"]
    assert h.call("session.get", {"sessionId": sid})["session"]["permissionMode"] == "inherit"
    approval = h.call("plan.respond", {"approvalId": submit(h, sid)["id"], "decision": "approve"})["approval"]
    assert approval["targetPermissionMode"] == "accept-edits"
    session = h.call("session.get", {"sessionId": sid})["session"]
    assert (session["mode"], session["permissionMode"]) == ("agent", "accept-edits")
    h.call("settings.set", {"patch": {"permissionMode": "auto"}})  # later changes of the default do not move it
    assert h.call("session.get", {"sessionId": sid})["session"]["permissionMode"] == "accept-edits"


def test_an_explicit_choice_at_approval_wins(h):
    sid = h.call("session.create", {"mode": "plan"})["session"]["id"]
    approval = h.call(
        "plan.respond", {"approvalId": submit(h, sid)["id"], "decision": "approve", "permissionMode": "ask"}
    )["approval"]
    assert approval["targetPermissionMode"] == "ask"
    assert h.call("session.get", {"sessionId": sid})["session"]["permissionMode"] == "ask"
