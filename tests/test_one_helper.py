"""One copy of each small helper: the wall clock in ms, the private file mode, byte sizes, eliding, escaping.

The source is read, not run: a second definition, or the helper's body written out again inline, fails here
with the place to change.
"""

import re

import pytest

from tests.support.repo import REPO

PACKAGE = REPO / "pidesktop"

# (what is written again, the one module allowed to write it, the helper to use instead)
INLINE_COPIES = [
    (re.compile(r"time\.time_ns\(\)\s*//\s*1_?000_?000|int\(time\.time\(\)\s*\*\s*1_?000\)"), "clock.py", "now_ms"),
    (re.compile(r"\b0o600\b"), "durable.py", "FILE_MODE"),
    (re.compile(r"""\.replace\(\s*["']&["']\s*,\s*["']&amp;["']"""), None, "html.escape"),
]
DEFINITIONS = [
    (re.compile(r"^def now_ms\b", re.M), "clock.py"),
    (re.compile(r"^FILE_MODE\s*=", re.M), "durable.py"),
    (re.compile(r"^def (human_size|_?format_bytes|_?human_bytes)\b", re.M), "sizes.py"),
    (re.compile(r"^class \w*Elid\w*\(", re.M), "eliding_label.py"),
    (re.compile(r"^def _?escape\(", re.M), None),
]


def sources():
    return [(path, path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))]


@pytest.mark.parametrize("pattern, home, helper", INLINE_COPIES, ids=["now_ms", "FILE_MODE", "escape"])
def test_no_helper_is_written_out_again(pattern, home, helper):
    copies = [
        f"{path.relative_to(REPO)}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)}"
        for path, text in sources()
        if path.name != home
        for match in pattern.finditer(text)
    ]
    assert copies == [], f"use {helper}:\n" + "\n".join(copies)


@pytest.mark.parametrize("pattern, home", DEFINITIONS, ids=["now_ms", "FILE_MODE", "sizes", "eliding", "escape"])
def test_each_helper_is_defined_once(pattern, home):
    homes = sorted(path.name for path, text in sources() if pattern.search(text))
    assert homes == ([home] if home else [])


def test_the_patterns_catch_a_copy():
    """Guard the guard: each pattern matches the copies the issue found."""
    assert INLINE_COPIES[0][0].search("ms = time.time_ns() // 1_000_000")
    assert INLINE_COPIES[0][0].search("now = int(time.time() * 1000)")
    assert INLINE_COPIES[1][0].search("os.open(path, flags, 0o600)")
    assert INLINE_COPIES[2][0].search("""text.replace("&", "&amp;").replace("<", "&lt;")""")
    assert DEFINITIONS[4][0].search("def _escape(text: str) -> str:")
