"""Cited claims and the figures rule: each figure a claim states appears in an excerpt it cites."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from web_research import formats
from web_research.checks.checklist import run_checklist
from web_research.checks.claims import Claim, find_claims, grounding
from web_research.checks.quantities import (KIND_DATE, KIND_MONEY, KIND_PERCENT, KIND_VERSION, KIND_YEAR,
                                             extract_quantities)
from example_run import copy_example_to

EXAMPLE = formats.PLUGIN_ROOT / "examples" / "observability-pricing"


def grounded(claim: str, *excerpts: str):
    return grounding(Claim(1, claim, (1,)), excerpts)


# --- Quantities ------------------------------------------------------------------

@pytest.mark.parametrize("claim, excerpt", [
    ("Ingest costs $0.10 per GB", "Ingest is billed at $0.10/GB."),
    ("Up to 1,000 hosts", "up to 1000 hosts"),
    ("Logs are kept for 7 days", "a 7-day retention window"),
    ("The round raised $1.5M", "The round raised $1.5 million."),
    ("a 10% discount", "a 10 percent discount"),
    ("discounts of 10% to 30% off list", "came down 10 to 30 percent once we committed"),
    ("plans of 7, 30 or 90 days", "choose 7-, 30- and 90-day retention"),
    ("priced at 1.6x and 3x the base rate", "billed at 1.6x and 3x the 15-day rate"),
    ("costs $0.10 per GB", "costs 0.10 USD per GB"),
    ("seven vendors charge per host", "Every vendor charges per host."),  # a count in words without a unit
    ("Acme is on S3 and reports p99 latency", "Acme reports latency."),   # identifiers are not figures
])
def test_faithful_figures_are_grounded(claim: str, excerpt: str) -> None:
    result = grounded(claim, excerpt)
    assert result.checked and result.ok, result


@pytest.mark.parametrize("claim, excerpt, missing", [
    ("Acme bills $0.059 per GB", "Acme bills $0.095 per GB.", "$0.059 per GB"),
    ("The tier holds 45 units", "The tier holds 999 units.", "45"),
    ("a 10% discount", "a 10 GB allowance", "10%"),          # a percent needs a percent
    ("costs $10 per month", "costs 10 euros per month", "$10 per month"),  # currency counts
    ("costs $0.10 per GB", "costs $0.10 per host", "$0.10 per GB"),  # per-unit counts
    ("kept for 30 days", "kept for 30 hours", "30 days"),
    ("raised $1.5M", "raised $1.5 billion", "$1.5M"),
])
def test_drifted_figures_are_not_grounded(claim: str, excerpt: str, missing: str) -> None:
    result = grounded(claim, excerpt)
    assert result.checked and not result.ok
    assert [q.text for q in result.missing] == [missing]


def test_years_and_dates_missing_from_the_excerpt_are_errors_like_other_figures() -> None:
    result = grounded("In 2026, Acme charged $5 per host as of 18 April 2026", "Acme charges $5 per host.")
    assert not result.ok
    assert {q.kind for q in result.missing} == {KIND_YEAR, KIND_DATE}
    assert grounded("Prices changed in 2026", "Pricing, updated March 2026: ...").ok


def test_kinds_and_values() -> None:
    found = {q.text: q for q in extract_quantities("USD 340 million, 15%, in 2026, 2026-04-18 and v1.2.3 of HTTP/2")}
    assert found["USD 340 million"].kind == KIND_MONEY and found["USD 340 million"].value == Decimal(340_000_000)
    assert found["15%"].kind == KIND_PERCENT
    assert found["2026"].kind == KIND_YEAR and found["2026-04-18"].kind == KIND_DATE
    assert found["v1.2.3"].kind == KIND_VERSION and "2" not in found


@settings(max_examples=200, deadline=None)
@given(cents=st.integers(1, 10**7), style=st.sampled_from(["{:,}", "{}"]), per=st.sampled_from([" per GB", "/GB"]))
def test_spelling_of_a_price_never_matters(cents: int, style: str, per: str) -> None:
    dollars, rest = divmod(cents, 100)
    written = "$" + style.format(dollars) + f".{rest:02d}" + per
    plain = f"${dollars}.{rest:02d} per GB"
    assert grounded(f"It costs {plain}.", f"It costs {written}.").ok
    assert not grounded(f"It costs ${dollars + 1}.{rest:02d} per GB.", f"It costs {written}.").ok


# --- Claims in Markdown ------------------------------------------------------------

def test_a_claim_is_a_cited_sentence_without_markers_numbering_or_markup() -> None:
    text = ("# Heading 2026 with 45 units\n\n"
            "1. Acme bills **$0.10/GB**[^1]. Lumen charges [per GB](https://x.example/p/99) too[^2].\n"
            "2. An uncited item with 45 units.\n\n"
            "## Sources\n\n[^1]: **Title**: T\n      **URL**: https://a.example/1\n      **Excerpt**: \"$0.10/GB\"\n")
    claims = find_claims(text)
    assert [(c.line, c.text, c.footnotes) for c in claims] == [
        (3, "Acme bills $0.10/GB.", (1,)), (3, "Lumen charges per GB too.", (2,))]


def test_uncited_sentences_belong_to_the_claim_beside_them() -> None:
    text = ("Acme lists 45 units for the tier. It bills per host[^1]. That makes 90 units in total.\n"
            "\nIt is cheap. Lumen bills per GB[^2] and per host.\n")
    [first, second] = find_claims(text)
    assert first.text == "Acme lists 45 units for the tier. It bills per host. That makes 90 units in total."
    assert second.text == "It is cheap. Lumen bills per GB and per host." and second.footnotes == (2,)
    assert second.line == 3


def test_the_hash_ignores_footnote_numbers_and_markup() -> None:
    [a] = find_claims("Acme bills **$0.10/GB**[^1].\n")
    [b] = find_claims("Acme bills $0.10/GB[^7].\n")
    assert a.hash == b.hash and a.hash.startswith("sha256:") and len(a.hash) == 71


# --- The checklist and the command ---------------------------------------------------

@pytest.fixture
def run(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    copy_example_to(folder)
    return folder


def failing(checks):
    return [c for c in checks if not c.ok and c.severity == "error"]


def test_the_bundled_example_is_grounded() -> None:
    checks = [c for c in run_checklist(EXAMPLE) if ".claims." in c.id]
    assert checks and all(c.ok for c in checks), [c.message for c in checks if not c.ok]


def test_a_report_figure_that_drifted_from_its_excerpt_fails_verify(run: Path) -> None:
    report = run / formats.REPORT_FILE
    text = report.read_text(encoding="utf-8")
    report.write_text(text.replace("Northwind throttles ingestion above 150%",
                                   "Northwind throttles ingestion above 120%"), encoding="utf-8")
    [bad] = failing(run_checklist(run))
    assert bad.id == "report.claims.grounded" and bad.path == str(report)
    assert bad.line == 28 and "'120%'" in bad.message and "[^8]" in bad.message


def test_a_findings_figure_that_drifted_fails_under_its_slug(run: Path) -> None:
    path = run / "findings" / "billing-units-and-retention-tiers.md"
    path.write_text(path.read_text(encoding="utf-8").replace("(1.6x and 3x)", "(1.6x and 4x)"), encoding="utf-8")
    [bad] = failing(run_checklist(run))
    assert bad.id == "findings.billing-units-and-retention-tiers.claims.grounded"
    assert bad.line == 23 and "'4x'" in bad.message and "[^4]" in bad.message


def test_a_missing_year_fails_like_any_figure(run: Path) -> None:
    report = run / formats.REPORT_FILE
    text = report.read_text(encoding="utf-8")
    report.write_text(text.replace("Lumen Logs bills per GB", "Since 2024, Lumen Logs bills per GB"),
                      encoding="utf-8")
    [bad] = failing(run_checklist(run))
    assert bad.id == "report.claims.grounded" and "'2024'" in bad.message


def test_the_claims_command_lists_every_claim(run: Path) -> None:
    report = run / formats.REPORT_FILE
    report.write_text(report.read_text(encoding="utf-8").replace("throttles ingestion above 150%",
                                                                             "throttles ingestion above 120%"), encoding="utf-8")
    cmd = [sys.executable, "-m", "web_research", "claims"]
    listed = json.loads(subprocess.run(cmd + ["--json", str(run)], capture_output=True, text=True, check=True).stdout)
    claims = listed["claims"]
    assert len(claims) == 26
    [bad] = [c for c in claims if c["grounded"] is False]
    assert bad["line"] == 28 and bad["missing"] == ["120%"] and bad["footnotes"] == [8]
    assert bad["excerpts"][0]["url"] == "https://docs.northwind.example/limits/committed-ingestion"
    text = subprocess.run(cmd + [str(run)], capture_output=True, text=True, check=True).stdout
    assert f"report.md:28 {bad['hash']} [^8] UNGROUNDED missing=120%" in text


# --- the month hint: a plain string test standing in for a case-insensitive pattern -----

_MONTH_PATTERN = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("janfebmrpyulgsoctvdJANFEBMRPYULGSOCTVD\u017f\u0130\u212a 0123456789,."),
               max_size=30))
def test_the_month_hint_holds_wherever_a_case_insensitive_month_pattern_matches(text: str) -> None:
    """`_may_name_a_month` replaced a re.I pattern (ten times slower per claim): it must be
    true wherever that pattern matches, or a date would go unread."""
    from web_research.checks.quantities import _may_name_a_month

    if _MONTH_PATTERN.search(text):
        assert _may_name_a_month(text)


def test_a_month_written_with_a_long_s_is_still_a_date() -> None:
    """re.I matches the long s (U+017F) for "s"; casefolding the text keeps that."""
    assert [q.kind for q in extract_quantities("Due 5 \u017fep 2026")] == \
        [q.kind for q in extract_quantities("Due 5 Sep 2026")] == ["date"]


# --- the claim as the report has it: code spans verbatim, spaces kept (issue 36) ---

CODE_REPORT = """\
So `.1 + .1 + .1 == .3` is false in binary floating point [^1].
Python writes an up-to-date `.pyc` next to the module [^2].
The call `asyncio.timeout(delay)` returns a context manager; `when()` gives its deadline [^3].
Set `search_path` with `SET search_path TO myschema, public;` before `CREATE TABLE` [^1].
- Cells `a  b` keep their spaces, and `x`, `y` and `z` stay apart [^2].
- Run `pip install -U "pkg>=1.0"` then `pkg --help` [^3].

| Call | Returns |
| --- | --- |
| `len(x) - 1` | the last index [^1] |
"""


def _tokens_in_source(claim_text: str, source: str) -> list[str]:
    """The claim's whitespace-separated tokens that are not in `source` as written (markup,
    footnote marks and trailing punctuation aside): a token made by gluing two of the
    source's words together ("so.1", "up-to-date.pyc") is not there."""
    plain = re.sub(r"\[\^[^\]]*\]|[`*|]", " ", source)
    words = set(plain.split())
    return [t for t in claim_text.split() if t not in words and t.rstrip(".,;:!?") not in words
            and not any(t.rstrip(".,;:!?") in w for w in words)]


@pytest.mark.parametrize("source", [CODE_REPORT, (EXAMPLE / formats.REPORT_FILE).read_text(encoding="utf-8")]
                         + [p.read_text(encoding="utf-8") for p in sorted((EXAMPLE / "findings").glob("*.md"))],
                         ids=["code-spans", "example-report"] + [f"example-{p.stem}" for p in sorted((EXAMPLE / "findings").glob("*.md"))])
def test_every_claim_keeps_the_report_s_words_and_code_spans_verbatim(source: str) -> None:
    claims = find_claims(source)
    assert claims or "status: failed" in source
    for claim in claims:
        assert not _tokens_in_source(claim.text, source), (claim.text, _tokens_in_source(claim.text, source))
    codes = re.findall(r"(?<=\s)`([^`]+)`", CODE_REPORT)
    if source is CODE_REPORT:
        texts = " | ".join(c.text for c in claims)
        for code in codes:  # each code span verbatim, with a space before it as in the report
            assert f" {code}" in texts, code
        assert "So .1 + .1 + .1 == .3 is false" in texts
        assert "an up-to-date .pyc next to" in texts
        assert "Cells a  b keep their spaces, and x, y and z stay apart." in texts
