"""`fetch --find WORDS`: the windows of a stored page around its words, best first (evidence/page_find.py)."""
from __future__ import annotations

from web_research.evidence.page_find import MAX_WINDOWS, find_windows, find_words

FILLER = " ".join(f"Paragraph {i} of the vendor's notes says nothing in particular." for i in range(3000))
FACT = "The retention tiers figure published for 2026 is 45 units per month."


def test_words_are_distinct_lower_cased_and_one_letter_words_dropped_unless_alone():
    assert find_words("Retention  tiers, RETENTION a 2026") == ["retention", "tiers", "2026"]
    assert find_words("a") == ["a"]
    assert find_words("  ") == []


def test_the_window_holding_every_word_comes_first_and_holds_the_fact():
    text = "retention is mentioned early. " + FILLER[:50_000] + " " + FACT + " " + FILLER[50_000:]
    windows = find_windows(text, "retention tiers figure")
    assert windows and windows[0].words == ("retention", "tiers", "figure") and windows[0].phrase
    assert FACT in text[windows[0].start:windows[0].end]
    assert windows[1].words == ("retention",) and windows[1].start == 0  # then the partial match, earlier first


def test_windows_never_overlap_stay_within_their_bounds_and_offsets_point_into_the_text():
    text = " ".join(f"price {i} rises." for i in range(5000))
    windows = find_windows(text, "price", max_chars=4000)
    assert 0 < len(windows) <= MAX_WINDOWS and sum(w.end - w.start for w in windows) <= 4000
    spans = sorted((w.start, w.end) for w in windows)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    assert all("price" in text[w.start:w.end] for w in windows)


def test_no_match_and_no_words_give_no_window():
    assert find_windows(FILLER, "kubernetes") == [] and find_windows(FILLER, "!!") == []


def test_case_is_ignored_and_the_page_is_not_changed():
    text = "Ünïcode first. " + "x " * 2000 + "The ENTERPRISE plan costs $20,000."
    (window,) = find_windows(text, "enterprise plan")
    assert text[window.start:window.end].endswith("The ENTERPRISE plan costs $20,000.")
