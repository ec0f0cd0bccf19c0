"""Shortening a title: at a word, ending in "…", never longer than the limit."""

from __future__ import annotations


def cut_at_word(text: str, limit: int) -> str:
    """``text`` with its whitespace runs made single spaces; if longer than ``limit``, cut at the last space
    in the second half of the room left for "…" (else mid-word), trailing punctuation dropped, then "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,.;:") + "…"
