"""tools/mypy_baseline.py: the recorded type errors may only shrink, and only where a baseline is allowed."""

import importlib.util
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("mypy_baseline", REPO / "tools" / "mypy_baseline.py")
assert _spec is not None and _spec.loader is not None
baseline = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(baseline)


def error(file: str, line: int, message: str, code: str | None = "attr-defined") -> dict[str, object]:
    return {"file": file, "line": line, "column": 4, "message": message, "code": code, "severity": "error"}


def test_an_error_is_recorded_without_its_line():
    moved = [
        error("pidesktop/ui/inbox/tray.py", 41, 'Item "None" has no attribute "show"'),
        error("pidesktop/ui/inbox/tray.py", 90, 'Item "None" has no attribute "show"'),
    ]
    assert baseline.normalise(moved[0]) == baseline.normalise(moved[1])
    assert (
        baseline.normalise(moved[0]) == 'pidesktop/ui/inbox/tray.py: [attr-defined] Item "None" has no attribute "show"'
    )


def test_lines_named_inside_a_message_are_dropped_too():
    first = error("pidesktop/ui/sidebar/sidebar.py", 80, 'Name "row" already defined on line 12', "no-redef")
    second = error("pidesktop/ui/sidebar/sidebar.py", 95, 'Name "row" already defined on line 40', "no-redef")
    assert baseline.normalise(first) == baseline.normalise(second)
    assert "on line N" in baseline.normalise(first)


def test_an_error_without_a_code_is_still_recorded():
    assert baseline.normalise(error("pidesktop/ui/x.py", 1, "Syntax", None)) == "pidesktop/ui/x.py: [misc] Syntax"


def test_one_more_copy_of_a_baselined_error_is_new():
    entry = "pidesktop/ui/window/main_window.py: [misc] global rebinding"
    new, fixed = baseline.compare(Counter({entry: 3}), Counter({entry: 2}))
    assert new == [entry]
    assert fixed == []


def test_an_error_gone_from_the_code_is_reported_as_fixed_not_as_a_failure():
    kept = "pidesktop/ui/a.py: [arg-type] kept"
    gone = "pidesktop/ui/b.py: [union-attr] gone"
    new, fixed = baseline.compare(Counter({kept: 1}), Counter({kept: 1, gone: 2}))
    assert new == []
    assert fixed == [gone, gone]


def test_errors_outside_the_baselined_folders_may_not_stand():
    ui = "pidesktop/ui/a.py: [arg-type] ui"
    agent = "pidesktop/agent/runner.py: [arg-type] agent"
    baselined, strict = baseline.split([ui, agent, ui])
    assert baselined == Counter({ui: 2})
    assert strict == Counter({agent: 1})


def test_the_baseline_round_trips_through_its_file(tmp_path):
    path = tmp_path / "baseline.txt"
    entries = ["pidesktop/ui/b.py: [misc] two", "pidesktop/ui/a.py: [misc] one", "pidesktop/ui/b.py: [misc] two"]
    baseline.write_baseline(entries, path)
    assert path.read_text(encoding="utf-8").splitlines() == sorted(entries)
    assert baseline.read_baseline(path) == Counter(entries)


def test_the_committed_baseline_holds_only_baselined_folders():
    recorded = baseline.read_baseline()
    assert all(entry.startswith(baseline.BASELINED) for entry in recorded)
