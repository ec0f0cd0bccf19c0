"""The suite, the benches and the tools read nothing outside the checkout.

A clone on a machine with nothing beside it must pass `make test`: every
recorded fixture lives under `tests/fixtures/` with the manifest that names its
source and licence, and no code reaches for a folder above the repository.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.repo import FIXTURES, REPO

# Ways a path can leave the checkout: the workspace's shared folder, a parent of the
# repository, an absolute path into the workspace, an environment escape hatch.
ESCAPES = re.compile(
    r"\.\./shared|shared/(?:fixtures|spec)|/work/(?:shared|main)\b|parents\[2\]|REPO\.parent|PIDESKTOP_SHARED_DIR|PIDESKTOP_FIXTURES"
)


def _sources() -> list[Path]:
    files = [*REPO.glob("tests/**/*.py"), *REPO.glob("bench/**/*.py"), *REPO.glob("tools/**/*.py")]
    files += [REPO / "Makefile", *REPO.glob(".ci/*")]
    return [f for f in files if f.is_file() and f.resolve() != Path(__file__).resolve()]


def test_no_test_bench_or_tool_names_a_path_outside_the_checkout():
    offenders = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in _sources()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ESCAPES.search(line)
    ]
    assert offenders == []


def test_the_escape_pattern_catches_what_it_is_for():
    for line in (
        'Path("/work/shared/fixtures")',
        "REPO.parent / 'shared'",
        "Path(__file__).resolve().parents[2] / 'shared'",
        'os.environ["PIDESKTOP_SHARED_DIR"]',
        "open('../shared/spec/004.txt')",
    ):
        assert ESCAPES.search(line), line
    assert not ESCAPES.search('FIXTURES = Path(__file__).resolve().parent / "fixtures"')


def test_every_fixture_folder_keeps_its_manifest():
    folders = [entry for entry in FIXTURES.iterdir() if entry.is_dir()]
    assert {f.name for f in folders} >= {"openai-sse", "claude-code", "codex", "pi-sessions", "pi-native", "spec"}
    missing = [f.name for f in folders if not (f / "MANIFEST.md").is_file()]
    assert missing == []
    listed = (FIXTURES / "README.md").read_text(encoding="utf-8")
    assert [f.name for f in folders if f"`{f.name}/" not in listed] == []
