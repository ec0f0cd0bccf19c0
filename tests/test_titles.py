"""A shortened title: never over the limit, cut at a word where one is near, the start of the text kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pidesktop.host.titles import cut_at_word


@given(st.text(alphabet=st.sampled_from("ab c,.\n\t中"), max_size=200), st.integers(min_value=2, max_value=100))
def test_a_cut_title_fits_and_keeps_the_start(text, limit):
    spaced = " ".join(text.split())
    title = cut_at_word(text, limit)
    assert len(title) <= limit
    if len(spaced) <= limit:
        assert title == spaced
    else:
        assert title.endswith("…") and spaced.startswith(title[:-1])


def test_the_cut_falls_between_words():
    text = "Plan the garden beds for spring and order seeds before the first of March"
    assert cut_at_word(text, 40) == "Plan the garden beds for spring and…"
    assert cut_at_word("a" * 50, 10) == "a" * 9 + "…"  # no space near the end: mid-word
    assert cut_at_word("  two\n words ", 80) == "two words"
