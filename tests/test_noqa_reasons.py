"""Every ``# noqa`` says why: a silenced lint rule with no reason is a finding nobody can judge later."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.repo import REPO

THIS = Path(__file__).resolve()

NOQA = re.compile(r"#\s*noqa(?P<codes>:\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?(?P<reason>.*)$")


def test_every_noqa_names_its_rule_and_a_reason():
    bare = []
    for folder in ("pidesktop", "tests", "bench", "tools"):
        for path in sorted((REPO / folder).rglob("*.py")):
            if path == THIS:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                found = NOQA.search(line)
                if found is None:
                    continue
                reason = found.group("reason").strip(" -()")
                if not found.group("codes") or len(reason) < 3:
                    bare.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not bare, "a # noqa without its rule or its reason:\n" + "\n".join(bare)
