"""The one matcher (`evidence.matcher`): verify's verdict, with the excerpt's place in the page's own characters."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from web_research.evidence.excerpts import excerpt_parts, is_layout, match_excerpt, normalize, without_layout
from web_research.evidence.matcher import StoredPage, find_excerpt

PAGE = ("He said \u201cit won\u2019t\u201d \u2014 the \ufb01nal 10\u2076 items\u00a0are e\u0301te\u0301 costs.\n\n"
        "Next   line it's here. The table's rows \u2014 all of\u00adthem \u2014 stay.")


@pytest.mark.parametrize("excerpt, expected", [
    ("it won't - the final 10^6 items", ["it won\u2019t\u201d \u2014 the \ufb01nal 10\u2076 items"]),
    ("won\u2019t", ["won\u2019t"]),
    ("final 10\u2076 items are \u00e9t\u00e9 costs. Next line it's here.",
     ["\ufb01nal 10\u2076 items\u00a0are e\u0301te\u0301 costs.\n\nNext   line it's here."]),
    ("He said it won't ... Next line it's here", ["He said \u201cit won\u2019t", "Next   line it's here"]),
    ("The table\u2019s rows - all ofthem - stay.", ["The table's rows \u2014 all of\u00adthem \u2014 stay."]),
])
def test_spans_are_the_page_own_characters(excerpt: str, expected: list[str] | None) -> None:
    page = StoredPage(PAGE)
    result = find_excerpt(excerpt, page)
    assert result.ok == match_excerpt(excerpt, PAGE).ok
    if expected is None:
        return
    assert result.ok, result
    assert [PAGE[a:b] for a, b in result.spans] == expected


def test_a_missing_excerpt_has_no_spans_and_verify_s_reason() -> None:
    result = find_excerpt("it will not", StoredPage(PAGE))
    assert not result.ok and result.spans == () and result.rule == "not_found"


_TEXT = st.lists(st.sampled_from(
    list("ab c.,'\"`\n\t|") + ["|---|", "| ", "\n- ", "\n* "]  # a table's and a list's marks
    + ["\u2019", "\u201c", "\u2014", "\u00a0", "\u2009", "\u00ad", "\u200b", "\ufb01",
                               "\u2076", "\u2082", "\u0301", "e\u0301", "\u00e9", "\u2026", "\uff21", "\u1100\u1161",
                               "\u00a8", "\u3000", "\u1161"]), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_the_mapped_text_is_exactly_normalize(text: str) -> None:
    page = StoredPage(text)
    if not page.normalized:
        return
    page.span_of(0, 1)  # builds the map, which checks its text against normalize's
    assert page.normalized == normalize(text)
    for index in range(len(page.normalized)):
        a, b = page.span_of(index, index + 1)
        assert 0 <= a <= b <= len(text)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.data())
def test_any_stretch_of_a_page_is_found_where_it_stands(text: str, data: st.DataObject) -> None:
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, len(text)))
    _found_where_it_stands(text, a, b)


def test_a_superscript_run_goes_on_across_an_invisible_character() -> None:
    """Hypothesis found it: the soft hyphen inside "⁶\u00ad⁶" split the run, so the page's whole
    stretch became one piece and the span of "aaaa" took the superscripts with it."""
    _found_where_it_stands("aaaa\u2076\u00ad\u2076", 0, 4)
    _found_where_it_stands("aaaa\u2076\u00ad\u2076", 4, 7)


def _found_where_it_stands(text: str, a: int, b: int) -> None:
    page = StoredPage(text)
    piece = normalize(text[a:b])
    result = find_excerpt(text[a:b], page)
    if not piece or not result.ok:
        return
    parts = excerpt_parts(text[a:b])
    assert len(result.spans) == len(parts)
    for part, (start, end) in zip(parts, result.spans):
        # the part, and nothing more but the rest of a cluster taken whole (a letter and its
        # accent, a Hangul syllable written as its letters) or of a character that folds to several
        # ("." of "\u2026", which normalizes to "...": hypothesis drew "a\u2026." and the last ".")
        shown = without_layout(normalize(text[start:end]))
        assert shown == part or (part in shown and any(c in text for c in "\u0301\u1161\u2026"))


TABLE = ("Prices for each class are listed below.\n| Class | Price per GB | Minimum duration |\n|---|---|---|\n"
         "| Hot | $0.020 | none |\n| Cold | $0.004 | 90 days |\nRetrieval is billed per GB.")


@pytest.mark.parametrize("excerpt", [
    "Cold $0.004 90 days",  # as a person reads the row
    "Cold\t$0.004\t90 days",  # as a browser copies it
    "| Cold | $0.004 | 90 days |", "Cold | $0.004 | 90 days",  # as the stored text writes it
    "Price per GB Minimum duration Hot $0.020",  # the header and the row under it, without the delimiter row
])
def test_a_table_row_matches_as_the_page_shows_it(excerpt: str) -> None:
    page = StoredPage(TABLE)
    result = find_excerpt(excerpt, page)
    assert result.ok, result
    # placed in the normalized page with its pipes (the figure rule reads each cell on its own) and the page's text
    start, end = result.at[0][0], result.at[-1][1]
    assert without_layout(page.normalized[start:end]) == without_layout(normalize(excerpt))
    assert "|" in page.normalized[start:end] or " " not in excerpt.strip("| ")
    assert without_layout(normalize(TABLE[result.spans[0][0]:result.spans[-1][1]])) == without_layout(normalize(excerpt))


@pytest.mark.parametrize("excerpt", ["Cold $0.020 90 days", "Cold, $0.004, 90 days", "Cold $0.004 / 90 days",
                                     "Hot $0.004", "90 days Cold"])
def test_a_row_with_other_cells_or_other_separators_does_not_match(excerpt: str) -> None:
    result = find_excerpt(excerpt, StoredPage(TABLE))
    assert not result.ok and result.rule == "not_found"


LISTS = ("Each plan includes:\n- Unlimited buckets in every region\n- Versioning with lifecycle rules\n"
         "- Durability\n- Eleven nines over a given year.\nPrices range 5 - 10 dollars.")


@pytest.mark.parametrize("excerpt", [
    "Unlimited buckets in every region Versioning with lifecycle rules",  # as the page shows two items
    "Unlimited buckets in every region - Versioning with lifecycle rules",  # as the stored text writes them
    "Durability Eleven nines over a given year.",  # a definition's term and its description
    "Each plan includes: Unlimited buckets", "Prices range 5 - 10 dollars.",
])
def test_list_items_match_with_or_without_their_marks(excerpt: str) -> None:
    page = StoredPage(LISTS)
    result = find_excerpt(excerpt, page)
    assert result.ok, result
    assert normalize(LISTS[result.spans[0][0]:result.spans[-1][1]]).replace(" - ", " ") == \
        normalize(excerpt).replace(" - ", " ")


@pytest.mark.parametrize("excerpt", [
    "Prices range 5 10 dollars.",  # a dash inside a line is the page's, never optional
    "Unlimited buckets - in every region",  # nor one the page does not have
    "Versioning with lifecycle rules Unlimited buckets",
])
def test_only_a_list_mark_at_its_lines_start_is_optional(excerpt: str) -> None:
    assert not find_excerpt(excerpt, StoredPage(LISTS)).ok


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_the_readings_leave_out_only_layout_and_list_marks_and_map_back(text: str) -> None:
    from web_research.evidence.excerpts import page_readings

    page = StoredPage(text)
    readings = page.readings
    assert readings[0].text == without_layout(page.normalized)
    for reading in readings:
        for index, char in enumerate(reading.text):
            if char != " ":
                assert page.normalized[reading.to_normalized(index, index + 1)[0]] == char
    shown: list[str] = []  # as shown, line by line: layout gone, and a mark that opens its line
    for line in text.split("\n"):
        tokens = [t for t in normalize(line).split(" ") if t and not is_layout(t)]
        if tokens and line.split()[0] in ("-", "*", "+", "\u2022"):
            tokens = tokens[1:]
        shown += tokens
    assert readings[-1].text == " ".join(shown)
    assert page_readings(text, page.normalized) == readings


SIZES = "| Plan | Seats | Storage |\n|---|---|---|\n| Basic | 2 | 500 MB |\n| Pro | 10 | 2 TB |\nAlso:\n- 5\n- 100 users"


@pytest.mark.parametrize("excerpt, ok", [
    ("Basic 2 500 MB", False),  # two cells read as one figure, 2,500 MB, that the page does not state
    ("Basic | 2 500 MB", False), ("5 100 users", False),  # a list's two items alike
    ("Basic 2 | 500 MB", True), ("Basic | 2 | 500 MB", True), ("5 - 100 users", True),
    ("Pro 10 2 TB", True),  # "10 2 TB" is no one figure
    ("Seats Storage Basic 2", True), ("500 MB", True),  # borders between words may go
])
def test_a_border_between_two_numbers_is_kept(excerpt: str, ok: bool) -> None:
    result = find_excerpt(excerpt, StoredPage(SIZES))
    assert result.ok == ok, result
    if not ok:  # the passage as the page keeps it apart is shown
        assert result.rule == "not_found" and "|" in result.closest or " - " in result.closest, result


@pytest.mark.parametrize("before, after", [("2", "500 MB"), ("$2", "500"), ("12", "345 users"), ("2", "50 MB"),
                                           ("$0.004", "900 days"), ("1,000", "500 GB"), ("10%", "500 users"),
                                           ("2.5", "500 MB"), ("Cold", "90 days"), ("1234", "500")])
def test_the_border_rule_agrees_with_how_a_figure_is_read(before: str, after: str) -> None:
    """The matcher asks for the border exactly where the one reading of a figure (checks/quantities.py)
    would join the two cells into one figure."""
    from web_research.checks.quantities import extract_quantities

    joined = f"{before} {after}"
    one_figure = any(q.start < len(before) < q.end for q in extract_quantities(joined))
    page = StoredPage(f"| x | {before} | {after} |")
    assert find_excerpt(f"x {joined}", page).ok is not one_figure
    assert find_excerpt(f"x {before} | {after}", page).ok
