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


def test_a_heading_is_shown_with_its_section_not_at_the_end_of_an_earlier_window():
    # Run D of issue 42: the words stand in a sentence shortly before their heading, so a window
    # ending at the heading once won; the section after the heading is what the researcher needs.
    section = " ".join(f"Setting {i} of the pool keeps its own queue." for i in range(20))
    fact = "The connection limit default is 100 connections per database."
    text = (FILLER[:3000] + "\nSee connection limits below for the pool.\n" + "Intro words. " * 40
            + "\nConnection limits\n" + section + "\n" + fact + "\n" + FILLER[:6000])
    heading = text.index("\nConnection limits\n") + 1
    windows = find_windows(text, "connection limits")
    assert windows[0].start == heading and windows[0].phrase
    shown = text[windows[0].start:windows[0].end]
    assert shown.startswith("Connection limits\n") and fact in shown


def test_every_window_starts_at_or_shortly_before_its_match_and_shows_what_follows():
    text = FILLER[:20_000] + " The retention tiers figure stands here. " + FILLER[20_000:40_000]
    for window in find_windows(text, "retention tiers", window_chars=1000):
        at = text.lower().index("retention", window.start)
        assert window.start <= at <= window.start + 1000 // 5 and window.end - at >= 1000 * 3 // 5
