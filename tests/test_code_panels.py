"""Code blocks in a reply: coloured in the language they name, or in a language Pygments recognises with
confidence; prose, logs and command output in an unlabelled block stay plain text."""

import re

import pytest

from pidesktop.ui.chat.markdown import to_html
from pidesktop.ui.kit import theme as themes

COLOURED = re.compile(r'<span style="[^"]*color:')


def panel(markdown: str) -> str:
    return to_html(markdown, themes.LIGHT)


def code_of(html: str) -> str:
    """The panel's code as rendered (its <pre>), without the label and the Copy link."""
    [code] = re.findall(r"<pre[^>]*>(.*?)</pre>", html, re.S)
    return code


@pytest.mark.parametrize(
    "text",
    [
        "The person denied this call (Create todo.md). Do not try it again unchanged; ask or do something else.",
        "SELECT the rows you need; then say which.",
        "Created notes.txt (18 bytes).",
        "total 20\ndrwxr-xr-x 3 root root 4096 Dec  3 13:59 .",
        "const x = 1;\nconsole.log(x)",  # guessed as GDScript: not trusted, so plain
    ],
)
def test_an_unlabelled_block_pygments_cannot_place_stays_plain(text):
    html = panel(f"Done. The tool said:\n\n```\n{text}\n```\n")
    assert not COLOURED.search(code_of(html)), html
    assert ">text<" in html  # the label says what it is


def test_an_unlabelled_block_of_recognisable_code_is_coloured():
    assert COLOURED.search(code_of(panel("```\n#!/usr/bin/env python3\nimport os\nprint(os.getcwd())\n```\n")))


def test_a_block_that_names_its_language_is_coloured_in_it():
    html = panel("```javascript\nconst x = 1;\nconsole.log(x)\n```\n")
    assert COLOURED.search(code_of(html)) and ">javascript<" in html
