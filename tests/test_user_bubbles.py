"""What a person typed is shown as typed, except a fenced code block, which reads as code (not as ``` marks)."""

from __future__ import annotations

from PySide6.QtGui import QFont

from pidesktop.ui.chat import markdown
from pidesktop.ui.chat.message_layout import layout_row
from pidesktop.ui.kit import theme as themes

PROMPT = "Why does this fail?\n```python\nprint(1 +)\n```\n**not bold**, `not code`, <b>not html</b>"


def bubble(text: str):
    message = {"id": "u1", "role": "user", "blocks": [{"type": "text", "text": text}]}
    rendered = layout_row(
        {"kind": "message", "message": message, "live": False}, 800, themes.DARK, QFont(), frozenset()
    )
    return next(part for part in rendered.parts if part.kind == "bubble")


def test_a_fenced_block_in_a_prompt_reads_as_code_and_the_rest_as_typed(qapp):
    doc = bubble(PROMPT).doc
    text = doc.toPlainText()
    assert "```" not in text and "print(1 +)" in text
    assert "Why does this fail?" in text and "**not bold**, `not code`, <b>not html</b>" in text
    html = markdown.prompt_to_html(PROMPT, themes.DARK)
    assert "monospace" in html and themes.DARK.code_panel in html
    assert markdown.prompt_to_html("no fence here", themes.DARK) == markdown.plain_to_html("no fence here", themes.DARK)


def test_a_long_pasted_line_wraps_inside_the_bubble(qapp):
    part = bubble("```\n" + "x = 1; " * 80 + "\n```")
    assert part.x >= 0 and part.width <= 800  # never wider than the column (it ran under the sidebar)


def test_an_unclosed_fence_stays_as_typed(qapp):
    text = bubble("start\n```\nstill typing").doc.toPlainText()
    assert "```" in text and "still typing" in text
