"""The slug rule: examples for every step, then properties over arbitrary text."""
from __future__ import annotations

import datetime
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from web_research.formats import SLUG_FALLBACK, SLUG_MAX_LEN
from web_research.core.slug import dated_slug, slugify


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How do enterprise observability vendors price logs?", "how-do-enterprise-observability-vendors-price-logs"),
        ("Kubernetes: how do pods schedule?", "kubernetes-how-do-pods-schedule"),
        ("  --Leading and trailing--  ", "leading-and-trailing"),
        ("tabs\tand\nnewlines  and - hyphens", "tabs-and-newlines-and-hyphens"),
        ("a -- - b", "a-b"),
        ("C++ vs. C#: 2024 edition!", "c-vs-c-2024-edition"),
        ("em—dash and en–dash", "emdash-and-endash"),  # Pd other than '-' is punctuation: deleted
        ("Café naïve Zürich", "café-naïve-zürich"),
        ("Cafe\u0301 with a combining accent", "café-with-a-combining-accent"),  # NFKC composes
        ("Ｆｕｌｌｗｉｄｔｈ　ＴＥＸＴ", "fullwidth-text"),  # NFKC folds width, ideographic space
        ("ﬁle ligature ①", "file-ligature-1"),  # compatibility forms
        ("Emoji 🎉 party 🚀!", "emoji-party"),
        ("हिन्दी प्रश्न", "हिन्दी-प्रश्न"),  # Devanagari vowel signs are marks (Mc/Mn): kept
        ("日本語の質問", "日本語の質問"),
        ("Ⅻ roman numeral", "xii-roman-numeral"),
        ("", SLUG_FALLBACK),
        ("?!…", SLUG_FALLBACK),
        ("🎉🚀", SLUG_FALLBACK),
        ("- - -", SLUG_FALLBACK),
    ],
)
def test_examples(text: str, expected: str) -> None:
    assert slugify(text) == expected


def test_exactly_sixty_is_kept_whole() -> None:
    text = "a" * 60
    assert slugify(text) == text


def test_hyphen_at_index_sixty_keeps_first_sixty() -> None:
    word = "b" * 59
    text = f"{word}c {'d' * 10}"  # slug: 60 chars, '-' at index 60, then more
    assert slugify(text)[60:] == ""
    assert slugify(text) == f"{word}c"


def test_cut_at_last_hyphen_before_sixty() -> None:
    text = f"{'a' * 30} {'b' * 20} {'c' * 20}"  # hyphens at 30 and 51; index 60 is a 'c'
    assert slugify(text) == f"{'a' * 30}-{'b' * 20}"


def test_hyphen_at_index_fifty_nine_is_a_boundary() -> None:
    text = f"{'a' * 59} {'b' * 5}"  # '-' at 59, index 60 is 'b'
    assert slugify(text) == "a" * 59


def test_no_hyphen_before_sixty_hard_cuts() -> None:
    text = "x" * 75 + " tail"
    assert slugify(text) == "x" * 60


def test_marks_count_as_characters_when_truncating() -> None:
    text = "e\u0301" * 40  # NFKC composes e+acute into one character: 40 chars, no cut
    assert slugify(text) == "é" * 40
    decomposable = "q\u0301" * 40  # no precomposed form: 80 code points, hard cut at 60
    assert slugify(decomposable) == ("q\u0301" * 30)


def test_dated_slug() -> None:
    assert dated_slug("What is X?", datetime.date(2026, 4, 18)) == "2026-04-18-what-is-x"
    assert dated_slug("", datetime.date(2026, 1, 2)) == f"2026-01-02-{SLUG_FALLBACK}"


def _allowed(char: str) -> bool:
    return char == "-" or unicodedata.category(char)[0] in "LMN"


_texts = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(list(" \t\n-–—:?!.,'\"`$🎉éＡ①ﬁ\u0301\u3000")),
        st.sampled_from(list("abc xyz")),
    ),
    max_size=150,
)


@settings(max_examples=400, deadline=None)
@given(_texts)
@example("a" * 59 + " " + "b" * 10)
@example("a" * 60 + "-" + "b")
@example("İstanbul")
@example("A{\u0300")
def test_properties(text: str) -> None:
    slug = slugify(text)
    assert 1 <= len(slug) <= SLUG_MAX_LEN
    assert all(_allowed(char) for char in slug)
    assert not slug.startswith("-") and not slug.endswith("-")
    assert "--" not in slug
    assert slugify(slug) == slug  # idempotent


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=25), min_size=1, max_size=12))
def test_truncation_keeps_whole_words(words: list[str]) -> None:
    slug = slugify(" ".join(words))
    full = "-".join(words)
    if len(full) <= SLUG_MAX_LEN:
        assert slug == full
    else:
        assert full.startswith(slug)
        boundary_exists = "-" in full[: SLUG_MAX_LEN + 1]
        if boundary_exists:
            assert full[len(slug)] == "-"  # cut on a word boundary
            assert len(slug) == max(i for i, c in enumerate(full[: SLUG_MAX_LEN + 1]) if c == "-")
        else:
            assert slug == full[:SLUG_MAX_LEN]
