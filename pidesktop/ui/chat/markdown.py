"""Markdown to the HTML subset ``QTextDocument`` draws well.

markdown-it-py parses (CommonMark + tables + strikethrough; raw HTML is shown
as text, never interpreted). Fenced code becomes a panel: a small language
label over a monospace block on the theme's code background, highlighted by
Pygments with inline styles (``QTextDocument`` has no class-based CSS).

Both libraries are imported when the first message is rendered, not with this
module: the window's first paint does not wait for them (``warm_up`` loads
them right after it).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from pidesktop.ui.kit.theme import Theme


@lru_cache(maxsize=1)
def _md():
    """The one parser, made on first use."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")


def warm_up() -> None:
    """Load the parser and the highlighter now (after the first paint), so the first message is not slowed."""
    _md().parse("**a** `b`")
    import pygments.formatters.html
    import pygments.lexers  # noqa: F401 - imported only to load it now


COPY_LINK = "pidesktop-copy:"  # href of a code panel's Copy link; the number is the block's position


def _code_panel(code: str, language: str, theme: Theme, number: int, copy_label: str) -> str:
    style = "monokai" if theme.name == "dark" else "friendly"
    body = _highlight(code, language, style)
    label = html.escape(language) if language else "text"
    return (
        f'<table width="100%" cellspacing="0" cellpadding="10" '
        f'style="background-color:{theme.code_panel}; border: 1px solid {theme.border}; margin-top: 6px; '
        f'margin-bottom: 6px;">'
        f'<tr><td><table width="100%" cellspacing="0" cellpadding="0"><tr>'
        f'<td><span style="color:{theme.muted}; font-size: small;">{label}</span></td>'
        f'<td align="right"><a href="{COPY_LINK}{number}" style="color:{theme.muted}; font-size: small; '
        f'text-decoration: none;">{html.escape(copy_label)}</a></td></tr></table>'
        f'<pre style="margin: 4px 0 0 0;">{body}</pre></td></tr></table>'
    )


def code_blocks(markdown: str) -> list[str]:
    """The code of each fenced or indented block, in order (what the Copy links copy)."""
    return [token.content.rstrip("\n") for token in _md().parse(markdown) if token.type in ("fence", "code_block")]


# A block without a language is coloured only when Pygments' guess is one of these: for prose, logs and
# command output it guesses at random ("Tera Term macro", "scdoc", "GDScript") and colours words as code.
TRUSTED_GUESSES = frozenset(
    {
        "Bash",
        "Bash Session",
        "C",
        "C++",
        "CSS",
        "Diff",
        "Docker",
        "Go",
        "HTML",
        "INI",
        "Java",
        "JavaScript",
        "JSON",
        "Makefile",
        "PHP",
        "Python",
        "Python console session",
        "Python Traceback",
        "Ruby",
        "Rust",
        "SQL",
        "TOML",
        "TypeScript",
        "XML",
        "YAML",
    }
)


@lru_cache(maxsize=512)
def _highlight(code: str, language: str, style: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name, guess_lexer
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(language) if language else guess_lexer(code)
    except ClassNotFound:
        return html.escape(code)
    if not language and lexer.name not in TRUSTED_GUESSES:
        return html.escape(code)
    formatter = HtmlFormatter(noclasses=True, nowrap=True, style=style)
    return highlight(code, lexer, formatter).rstrip("\n")


def to_html(markdown: str, theme: Theme, copy_label: str = "Copy") -> str:
    """Render one message's Markdown as rich text for a ``QTextDocument``."""
    parser = _md()
    tokens = parser.parse(markdown)
    renderer = parser.renderer
    panels = iter(range(len(tokens)))  # numbers the code panels in order, as code_blocks() lists them

    def fence(tokens, idx, options, env):
        token = tokens[idx]
        language = token.info.strip().split(" ")[0] if token.info else ""
        return _code_panel(token.content.rstrip("\n"), language, theme, next(panels), copy_label)

    def code_block(tokens, idx, options, env):
        return _code_panel(tokens[idx].content.rstrip("\n"), "", theme, next(panels), copy_label)

    def code_inline(tokens, idx, options, env):
        return f'<code style="background-color:{theme.code_panel};">{html.escape(tokens[idx].content)}</code>'

    rules = {"fence": fence, "code_block": code_block, "code_inline": code_inline}
    saved = {name: renderer.rules.get(name) for name in rules}
    renderer.rules.update(rules)
    try:
        body = renderer.render(tokens, parser.options, {})
    finally:
        renderer.rules.update(saved)
    return (
        f'<div style="color:{theme.text};">'
        + body.replace(
            "<table>",
            '<table cellpadding="4" '
            f'cellspacing="0" border="1" style="border-color:{theme.border}; border-style: solid;">',
        )
        + "</div>"
    )


_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})", re.M)
_TAIL_TOKEN = re.compile(r"`+|\*\*|__|~~|\*|_")


def close_open_markers(markdown: str) -> str:
    """A reply still streaming, with the emphasis and code markers of its last paragraph closed for now.

    Until its closing marker arrives, ``**bold`` would show its asterisks;
    closed provisionally it reads as bold from the first letter. A marker
    with nothing after it yet is left out. An open code fence needs nothing:
    it runs to the end of the text anyway.
    """
    fences = _FENCE.findall(markdown)
    if fences:
        opened: str | None = None
        for fence in fences:
            if opened is None:
                opened = fence
            elif fence[0] == opened[0] and len(fence) >= len(opened):
                opened = None
        if opened is not None:
            return markdown
    start = markdown.rfind("\n\n") + 1
    head, tail = markdown[:start], markdown[start:]
    stack: list[tuple[str, int]] = []  # open markers and where they start in ``tail``
    code: tuple[str, int] | None = None
    for match in _TAIL_TOKEN.finditer(tail):
        token, at = match.group(), match.start()
        if code is not None:
            if token == code[0]:
                code = None
            continue
        if token.startswith("`"):
            code = (token, at)
            continue
        before = tail[at - 1] if at else "\n"
        after = tail[match.end()] if match.end() < len(tail) else ""
        if token in ("*", "_", "**", "__") and before == "\n" and after in (" ", "\t"):
            continue  # a list bullet
        if token in ("_", "__") and before.isalnum() and (after.isalnum() or not after):
            continue  # inside a word: snake_case
        if stack and stack[-1][0] == token and not before.isspace():
            stack.pop()
        elif after and not after.isspace():
            stack.append((token, at))
        elif not after:
            stack.append((token, at))  # just typed: dropped below
    if code is not None:
        stack.append(code)
    if not stack:
        return markdown
    body = tail.rstrip()
    closers = []
    for token, at in reversed(stack):
        if body[at + len(token) :].strip() == "":
            body = body[:at].rstrip() if at else ""  # nothing after the marker yet: leave it out
        else:
            closers.append(token)
    return head + body + "".join(closers)


def plain_to_html(text: str, theme: Theme, color: str | None = None) -> str:
    """Text shown exactly as typed (user prompts): escaped, line breaks kept."""
    escaped = html.escape(text).replace("\n", "<br>")
    return f'<div style="color:{color or theme.text}; white-space: pre-wrap;">{escaped}</div>'


# A closed fenced block on lines of its own: ``` or ~~~ (3 or more), an optional info string, the code.
_CLOSED_FENCE = re.compile(
    r"^(?P<fence>`{3,}|~{3,})[^\n`]*\n(?P<code>.*?)\n?^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL
)


def prompt_to_html(text: str, theme: Theme) -> str:
    """A prompt as typed, except that a closed fenced block shows as code rather than as ``` marks (a prompt
    pasted from another tool often carries them). Nothing else is read as markdown."""
    parts: list[str] = []
    position = 0
    for match in _CLOSED_FENCE.finditer(text):
        before = text[position : match.start()].strip("\n")
        if before:
            parts.append(plain_to_html(before, theme))
        code = html.escape(match.group("code"))
        parts.append(
            f'<table width="100%" cellspacing="0" cellpadding="8" style="background-color:{theme.code_panel}; '
            f'border: 1px solid {theme.border}; margin-top: 4px; margin-bottom: 4px;"><tr><td>'
            f'<div style="font-family: monospace; white-space: pre-wrap; color:{theme.text};">'
            f"{code.replace(chr(10), '<br>')}</div></td></tr></table>"
        )
        position = match.end()
    if not parts:
        return plain_to_html(text, theme)
    rest = text[position:].strip("\n")
    if rest:
        parts.append(plain_to_html(rest, theme))
    return "".join(parts)
