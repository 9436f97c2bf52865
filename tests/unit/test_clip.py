"""core/clip.py: a shortened text ends at a word, never inside a figure."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from web_research.core.clip import ELLIPSIS, clip


def test_short_text_is_kept_with_whitespace_collapsed() -> None:
    assert clip("a  b\n c", 20) == "a b c"
    assert clip("a  b", 20, collapse=False) == "a  b"


def test_cut_falls_between_words_not_inside_a_figure() -> None:
    text = "The Standard plan costs $120 per month for ten hosts"
    cut = clip(text, 27)
    assert cut == "The Standard plan costs" + ELLIPSIS
    assert "$1" not in cut


def test_one_long_token_is_cut_inside_it() -> None:
    assert clip("x" * 50, 10) == "x" * 9 + ELLIPSIS


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="ab $1.", max_size=80), st.integers(min_value=2, max_value=60))
def test_within_limit_and_a_prefix(text: str, limit: int) -> None:
    cut = clip(text, limit)
    collapsed = " ".join(text.split())
    assert len(cut) <= limit
    if cut.endswith(ELLIPSIS) and len(collapsed) > limit:
        assert collapsed.startswith(cut[:-1])
    else:
        assert cut == collapsed
