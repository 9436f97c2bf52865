"""An excerpt is judged in its context (issue 37, items 4 and 11): the claim-checker is shown, under
each excerpt, its page's heading, the term it describes, and the sentence before, its own and the
one after (evidence/excerpt_context.py); recheck compares that context, and a changed one is
"changed" even when the excerpt is still in the page."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from example_run import copy_example, replace_once, without_verdicts
from page_server import PageServer
from web_research import formats
from web_research.checks.checklist import parse_and_check
from web_research.evidence.excerpt_context import MAX_PIECE_CHARS, ExcerptContext, excerpt_context, find_context
from web_research.evidence.matcher import StoredPage, find_excerpt
from web_research.evidence.snapshots import SnapshotIndex, store_snapshot
from web_research.recheck.record import CHANGED, UNCHANGED
from web_research.recheck.session import recheck_run
from web_research.report.claim_checker import NO_CONTEXT, prompt_for_run

# How the stored text of a reference page reads (trafilatura's text of <h2>, <dl>, <p>).
REFERENCE = ("Configuration reference\nThis page lists every setting. Settings are read at start.\nConnections\n"
             "- max_connections\n- This parameter sets the largest number of clients. It defaults to 100 and can be "
             "raised to 10,000.\n- idle_timeout\n- This parameter closes idle sessions after 30 seconds. Set it to 0 "
             "to disable.\nPricing\nIt is a myth that Acme charges $0.10 per GB. Acme bills per host. Hosts cost "
             "$15 a month.\n| Plan | Price |\n|---|---|\n| Pro | $15 |")


def context(excerpt: str, text: str = REFERENCE) -> ExcerptContext | None:
    return find_context(excerpt, StoredPage(text))


def test_a_definition_shows_the_term_it_describes_and_the_heading() -> None:
    found = context("This parameter closes idle sessions after 30 seconds")
    assert found is not None and found.term == "idle_timeout" and found.heading == "Connections"
    found = context("It defaults to 100")
    assert found == ExcerptContext(sentence="It defaults to 100 and can be raised to 10,000.",
                                   before="- This parameter sets the largest number of clients.",
                                   after="- idle_timeout", term="max_connections", heading="Connections")


def test_the_sentence_that_negates_the_excerpt_is_shown_whole() -> None:
    found = context("Acme charges $0.10 per GB")
    assert found is not None and found.sentence == "It is a myth that Acme charges $0.10 per GB."
    assert found.heading == "Pricing" and found.after == "Acme bills per host." and found.term is None


def test_no_context_for_an_excerpt_the_page_does_not_hold() -> None:
    assert context("Acme charges $0.20 per GB") is None
    assert excerpt_context(StoredPage(REFERENCE), ()) is None


def test_each_piece_is_bounded_and_shown_without_controls() -> None:
    text = "Heading\u202e here\n" + "Lead " * 200 + ". Acme bills per host always. Tail\x07 " + "tail " * 200 + "."
    found = context("Acme bills per host always", text)
    assert found is not None and found.heading == "Heading here"
    assert found.before and len(found.before) <= MAX_PIECE_CHARS and found.after and len(found.after) <= MAX_PIECE_CHARS
    assert "\x07" not in found.after and found.after.startswith("Tail tail")


_WORDS = st.sampled_from(["Acme", "bills", "per", "host", "\u201cquoted\u201d", "\ufb01le", "caf\u00e9", "\u2014",
                          "10\u2076", "$0.10", "it's", "GB."])
_LINES = st.lists(st.lists(_WORDS, min_size=1, max_size=12).map(" ".join), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(lines=_LINES, data=st.data())
def test_the_cheap_placement_gives_the_context_the_whole_page_map_gives(lines: list[str], data) -> None:
    text = "\n".join(lines)
    line = data.draw(st.sampled_from(lines))
    words = line.split()
    first = data.draw(st.integers(0, len(words) - 1))
    excerpt = " ".join(words[first:first + data.draw(st.integers(1, 6))])
    page = StoredPage(text)
    whole = find_excerpt(excerpt, page)
    if whole.ok:
        assert find_context(excerpt, page) == excerpt_context(page, whole.spans)
    else:
        assert find_context(excerpt, page) is None


def _tiered(tmp_path: Path) -> Path:
    run = without_verdicts(copy_example(tmp_path))
    replace_once(run / formats.PLAN_FILE, "## Budget\n", "## Budget\n\nTier: standard\n")
    return run


def test_the_checker_sees_each_excerpt_in_its_context(tmp_path: Path) -> None:
    run = _tiered(tmp_path)
    url = "https://lumenlogs.example/pricing"
    snap = SnapshotIndex.build(run).find(url)
    text = snap.text().replace("Simple pricing for every team.", "It is a myth that the following holds.")
    store_snapshot(run, requested_url=url, final_url=snap.final_url, title=snap.title, status=200,
                   content_type="text/html", retrieved_at=snap.retrieved_at, text=text, extractor="test")
    prompt, why = prompt_for_run(run, parse_and_check(run, extra=())[0])
    assert prompt is not None, why
    block = prompt.text.split("Excerpt [^2] (https://lumenlogs.example/pricing)", 1)[1].split("\nExcerpt", 1)[0]
    assert '  Before: "It is a myth that the following holds."' in block
    assert '  Sentence: "Every plan is priced per GB ingested.' in block and '  Headings: "Pricing"' in block


def test_an_excerpt_with_no_stored_page_says_so(tmp_path: Path) -> None:
    run = _tiered(tmp_path)
    for meta in (run / formats.SOURCES_DIR).glob("*.json"):
        meta.unlink()
    prompt, why = prompt_for_run(run, parse_and_check(run, extra=())[0])
    assert prompt is not None, why
    assert NO_CONTEXT in prompt.text


def test_the_agent_names_every_piece_of_context_the_prompt_shows() -> None:
    from test_prompts import AGENTS_DIR, frontmatter, read

    from web_research.report.claim_checker import CONDITIONS_LABEL, CONTEXT_NAMES

    _meta, body = frontmatter(read(AGENTS_DIR / f"{formats.CHECKER_AGENT}.md"))
    for label in (*CONTEXT_NAMES.values(), CONDITIONS_LABEL):
        assert f"`{label}`" in body, label
    assert "by its excerpts alone" not in body and "in that context" in body


@pytest.fixture
def server():
    with PageServer() as page_server:
        yield page_server


@pytest.mark.parametrize("live, state", [
    ("Pricing\n\nIt is no longer true that Acme charges $0.10 per GB. Acme bills per host.\n", CHANGED),
    ("Pricing\n\nIt is a myth that Acme charges $0.10 per GB. Acme bills per host.\n", UNCHANGED),
    ("Pricing\n\nIt is a  myth that Acme charges $0.10 per GB.  Acme bills per host.\n", UNCHANGED),  # spacing
    ("Old prices\n\nIt is a myth that Acme charges $0.10 per GB. Acme bills per host.\n", CHANGED),  # heading
])
def test_recheck_says_changed_when_what_surrounds_the_excerpt_changed(server, tmp_path: Path, live: str,
                                                                      state: str) -> None:
    from test_recheck import LOOPBACK, _run

    excerpt = "Acme charges $0.10 per GB"
    url = server.serve("/pricing", live)
    run = _run(tmp_path, [(1, url, excerpt)],
               snapshots={url: "Pricing\n\nIt is a myth that Acme charges $0.10 per GB. Acme bills per host.\n"})
    [checked] = recheck_run(run, LOOPBACK).record.citations
    assert checked.state == state and checked.excerpt_found is True, checked
    if state == CHANGED:
        assert "what surrounds it changed" in checked.note and checked.differences


def test_a_wrapped_line_of_a_pdf_is_no_heading() -> None:
    text = ("Annual report\n\nThe company said that in the year\nunder review its prices for\nlogs rose. "
            "Acme bills per host.\n")
    found = context("Acme bills per host", text)
    assert found is not None and found.heading == "Annual report"


def test_a_sentence_wrapped_over_lines_is_shown_whole() -> None:
    text = ("Annual report\n\nPrices rose in the year. It is a myth that\nAcme charges $0.10 per GB for\n"
            "logs in any region. Acme bills per host.\n")
    found = context("Acme charges $0.10 per GB", text)
    assert found is not None
    assert found.sentence == "It is a myth that Acme charges $0.10 per GB for logs in any region."
    assert found.before == "Prices rose in the year." and found.after == "Acme bills per host."
