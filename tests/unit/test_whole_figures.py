"""An excerpt keeps the page's figures whole (checks/whole_figures.py, issue 37 item 3): it neither
starts nor ends inside a figure of the page, and verify says so as a `citations.verbatim` error."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from example_run import copy_example, failing, replace_once
from web_research import formats
from web_research.checks.checklist import run_checklist
from web_research.checks.quantities import figures_in
from web_research.checks.whole_figures import cut_figures
from web_research.evidence.excerpts import match_excerpt, normalize


def cuts(page: str, excerpt: str) -> list[str]:
    """What the excerpt cuts of the page's figures ([] when whole); the excerpt must be in the page."""
    normalized = normalize(page)
    match = match_excerpt(excerpt, page, normalized=normalized)
    assert match.ok, (excerpt, match)
    return [cut.page for cut in cut_figures(normalized, match.at)]


@pytest.mark.parametrize("page, excerpt, figure", [
    ("Pro costs $9.99 per month.", "Pro costs $9.", "$9.99"),
    ("It costs $5 million a year.", "It costs $5", "$5 million"),
    ("It costs $1 000 000 a year.", "It costs $1", "$1 000 000"),
    ("Plans cost $10-15 per host.", "Plans cost $10", "$10-15"),
    ("The change is -$5 per host.", "$5 per host", "-$5"),
    ("Discounts of 10% to 30% apply.", "Discounts of 10%", "10% to 30%"),
    ("Discounts of 10% to 30% apply.", "30% apply", "10% to 30%"),
    ("It holds 1 000 000 events.", "It holds 1 000", "1 000 000"),
    ("It was cut by half a million.", "It was cut by half", "half a million"),
    ("It costs $5 million a year.", "5 million a year", "$5 million"),
    ("It costs $5 million a year.", "million a year", "$5 million"),
    ("Acme charges $1.2bn in total.", "Acme charges $1.", "$1.2bn"),
    ("Save 10% off list today.", "% off list today", "10%"),
])
def test_an_excerpt_that_cuts_a_figure_short_is_refused(page: str, excerpt: str, figure: str) -> None:
    found = cuts(page, excerpt)
    assert found and found[0].startswith(figure), found


@pytest.mark.parametrize("page, excerpt", [
    ("Pro costs $9.99 per month.", "Pro costs $9.99"),            # a "per" left after the figure
    ("Pro costs $0.10 per GB ingested.", "costs $0.10 per GB"),
    ("Released on March 12, 2024 for all.", "Released on March 12"),  # a date's year left out
    ("It is 1,600, further limited by the plan.", "It is 1,600"),
    ("Acme raised prices in 2024 to $5 per host.", "Acme raised prices in 2024"),  # a year, then a price
    ("Costs fell\u201415% lower than before.", "15% lower than before"),
    ("Plans cost $10-15 per host.", "Plans cost $10-15 per host"),
    ("Acme bills per GB. It costs $5 million.", "Acme bills per GB."),
    ("It bills 5 GB ingested per host.", "GB ingested per host"),  # a word that keeps no figure
])
def test_an_excerpt_that_keeps_every_figure_whole_passes(page: str, excerpt: str) -> None:
    assert cuts(page, excerpt) == []


_FIGURES = st.one_of(
    st.integers(1, 999).map(lambda v: f"${v}.{v % 100:02d}"),
    st.integers(2, 999).map(lambda v: f"${v} million"),
    st.integers(1, 999).map(lambda v: f"${v} 000 000"),
    st.integers(1, 999).map(lambda v: f"${v:,}-{v + 5:,}"),
    st.integers(1, 999).map(lambda v: f"-${v}"),
    st.integers(1, 99).map(lambda v: f"{v}% to {v + 10}%"),
    st.integers(1, 999).map(lambda v: f"{v * 1001:,}"),
    st.integers(2, 99).map(lambda v: f"${v}.5bn"),
)


@settings(max_examples=80, deadline=None)
@given(figure=_FIGURES, data=st.data())
def test_an_excerpt_starting_or_ending_inside_a_figure_never_passes(figure: str, data: st.DataObject) -> None:
    head, tail = "Acme lists ", " for each host today."
    page = head + figure + tail
    assert cuts(page, head + figure) == [] and cuts(page, figure + tail) == []  # whole: passes
    k = data.draw(st.integers(1, len(figure) - 1))
    for excerpt in (head + figure[:k], figure[k:] + tail):
        normalized = normalize(page)
        match = match_excerpt(excerpt, page, normalized=normalized)
        if match.ok and not cut_figures(normalized, match.at):  # the matcher's boundaries may refuse it already
            # only an end that keeps the very figure passes: "$100." of "$100.00" states $100
            kept, whole = figures_in(excerpt), figures_in(figure)
            assert excerpt.startswith(head) and kept and kept[-1].value == whole[0].value, (page, excerpt)


def test_verify_refuses_a_cut_figure_as_a_verbatim_error(tmp_path) -> None:
    from example_run import BILLING, findings_path

    run = copy_example(tmp_path)
    findings = findings_path(run, BILLING)
    replace_once(findings, "options are billed at 1.6x and 3x the 15-day rate.\"", "options are billed at 1.\"")
    check = failing(run_checklist(run))[f"findings.{BILLING}.citations.verbatim"]
    assert "cuts a figure" in check.message and "'1.6x'" in check.message, check.message
    assert f"{formats.SOURCES_DIR}/" in check.message
