"""Property: a misquoted figure, in any form the figure reader knows, placed in a cited
TL;DR or Findings statement of the bundled example's report, always fails verification."""
from __future__ import annotations

import re
import tempfile
from functools import lru_cache
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from example_run import EXAMPLE_DIR, copy_example_to
from web_research import formats
from web_research.checks.checklist import run_checklist
from web_research.checks.citation_entries import parse_citations
from web_research.checks.claims import Claim, find_claims, grounding
from web_research.checks.figure_arithmetic import Operand, derive
from web_research.checks.quantities import figures_in, identifiers_in
from web_research.evidence.snapshots import SnapshotIndex

_WORDS = "two three four five six seven eight nine eleven twelve thirteen fourteen".split()
_SUPERSCRIPT = str.maketrans("0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")
_MONTHS = ("January", "March", "June", "October")


def _dotted(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _spaced(n: int) -> str:
    return f"{n:,}".replace(",", " ")


_n = st.integers(11, 999_999)
_FIGURES = st.one_of(
    _n.map(lambda v: f"${v:,}"),
    _n.map(lambda v: f"\u20ac{_dotted(v * 1000)}"),
    _n.map(lambda v: f"{_spaced(v * 1000)} events"),
    _n.map(lambda v: f"USD {v} million"),
    st.integers(11, 99).map(lambda v: f"{v}%"),
    st.integers(1, 99).map(lambda v: f"-{v}%"),
    st.integers(11, 99).map(lambda v: f"{v} percent"),
    st.tuples(st.integers(11, 40), st.integers(41, 99)).map(lambda r: f"{r[0]} to {r[1]} percent"),
    st.sampled_from(_WORDS).map(lambda w: f"{w} million dollars"),
    st.sampled_from(_WORDS).map(lambda w: f"{w} hundred GB"),
    st.tuples(st.integers(2, 99), st.integers(1, 9)).map(lambda r: f"{r[0]},{r[1]} GB"),
    st.integers(4, 99).map(lambda v: f"{v}x"),
    st.integers(4, 99).map(lambda v: f"{v}\u00d7"),
    st.integers(1900, 2100).map(lambda v: f"{v} customers"),
    st.integers(1990, 2025).map(lambda v: f"since {v}"),
    st.tuples(st.sampled_from(_MONTHS), st.integers(1, 28), st.integers(2027, 2040)).map(
        lambda r: f"on {r[0]} {r[1]}, {r[2]}"),
    st.tuples(st.integers(2, 9), st.integers(0, 20), st.integers(1, 9)).map(lambda r: f"version {r[0]}.{r[1]}.{r[2]}"),
    _n.map(lambda v: f"`${v}`"),
    st.integers(7, 30).map(lambda v: f"10{str(v).translate(_SUPERSCRIPT)} events"),
    # issue 37: shares, multiples, notations, minor units, dates
    st.sampled_from(["cut by half", "halved", "a third of it", "two-thirds of it", "a quarter of it",
                     "three quarters of it", "doubled", "tripled", "twice as much", "quadrupled"]),
    st.tuples(st.integers(2, 9), st.integers(7, 12)).map(lambda r: f"{r[0]}e{r[1]} events"),
    st.tuples(st.integers(2, 99), st.integers(1, 9)).map(lambda r: f"{r[0]}.{r[1]}k hosts"),
    st.tuples(st.integers(2, 99), st.integers(1, 9)).map(lambda r: f"${r[0]}.{r[1]}bn"),
    st.integers(11, 99).map(lambda v: f"{v} cents"),
    st.tuples(st.sampled_from(_MONTHS), st.integers(2027, 2040)).map(lambda r: f"in {r[0]} {r[1]}"),
    _n.map(lambda v: f"{v * 1000:,}, at most"),
)
# A figure the report states, changed the way a slip changes it (sign, value, unit).
_SLIPS = st.sampled_from([
    ("above 150%", "above -150%"), ("above 150%", "above 15%"), ("1.6x and 3x the 15-day rate", "1.6x and 4x the 15-day rate"),
    ("10% to 30% off list", "10% to 35% off list"), ("up to 30% off", "up to 30x off"),
    ("1.6x and 3x its 15-day rate", "1.6x and 3x its 16-day rate"),
])


@lru_cache(maxsize=1)
def _statements() -> tuple[str, tuple[int, ...], tuple]:
    """The report, the offsets of its footnote markers in TL;DR and Findings, and every figure
    any excerpt or page title of the run states (an inserted figure must state none of them)."""
    text = (EXAMPLE_DIR / formats.REPORT_FILE).read_text(encoding="utf-8")
    body_start = text.index("## TL;DR")
    body_end = text.index("## Gaps & Limitations")
    markers = tuple(m.start() for m in re.finditer(r"\[\^\d+\]", text) if body_start < m.start() < body_end)
    index = SnapshotIndex.build(EXAMPLE_DIR)
    excerpts = [c.excerpt or "" for c in parse_citations(text)]
    titles = [t for snap in index.by_key.values() for t in snap.titles]
    available = tuple(f for t in excerpts for f in figures_in(t, bare_words=True)) + \
        tuple(f for t in titles for f in identifiers_in(t))
    return text, markers, available


def _fails(report_text: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        copy_example_to(run)
        (run / formats.REPORT_FILE).write_text(report_text, encoding="utf-8")
        return [c.id for c in run_checklist(run) if not c.ok and c.severity == "error"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(figure=_FIGURES, where=st.integers(0, 10_000))
def test_an_inserted_misquoted_figure_always_fails_verification(figure: str, where: int) -> None:
    text, markers, available = _statements()
    stated = figures_in(figure)
    assert stated, f"the figure reader does not read {figure!r}"
    assume(not any(mine.matches(theirs) for mine in stated for theirs in available))
    at = markers[where % len(markers)]
    changed = text[:at] + f" ({figure})" + text[at:]
    assume(not _derivable(changed, figure))  # arithmetic on the claim's cited figures that holds is grounded
    assert "report.claims.grounded" in _fails(changed), figure


def _derivable(report_text: str, figure: str) -> bool:
    """Whether arithmetic on the figures the claim holding `figure` cites gives it (issue 44:
    such a figure is grounded; figure_arithmetic.py's own tests hold what `derive` accepts)."""
    cites = {c.number: c.excerpt or "" for c in parse_citations(report_text)}
    for claim in find_claims(report_text):
        if f"({figure})" in claim.text:
            stated = figures_in(claim.text)
            operands = [Operand(f, i, any(s.matches(f) for s in stated))
                        for i, n in enumerate(claim.footnotes) for f in figures_in(cites.get(n, ""), bare_words=True)]
            return any(derive(q, operands) is not None for q in figures_in(figure))
    return False


def _replaced_before_gaps(text: str, old: str, new: str) -> str:
    """The report with the first `old` above Gaps & Limitations written as `new` (it must be there)."""
    body, gaps, rest = text.partition("## Gaps & Limitations")
    assert old in body
    return body.replace(old, new, 1) + gaps + rest


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slip=_SLIPS)
def test_a_figure_changed_in_place_always_fails_verification(slip: tuple[str, str]) -> None:
    text, _markers, _available = _statements()
    assert "report.claims.grounded" in _fails(_replaced_before_gaps(text, *slip))


def test_the_unchanged_example_passes() -> None:
    text, _markers, _available = _statements()
    assert _fails(text) == []


# --- issue 37: honest restatements are grounded both ways; a title grounds no amount -----------------

def _honest_pairs(n: int) -> list[tuple[str, str]]:
    """(one form, another form) of the same figure built from `n`."""
    words = _WORDS[n % len(_WORDS)]
    value = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "eleven": 11,
             "twelve": 12, "thirteen": 13, "fourteen": 14}[words]
    return [
        (f"{value} regions", f"{words} regions"),
        (f"${n // 100}.{n % 100:02d} per GB", f"{n} cents per GB"),
        (f"{n}e6 events", f"{n * 10**6:,} events"),
        (f"{n:,}", f"{n:,}, further limited"),
        ("doubled", "2x"), ("tripled", "3x"), ("half", "50%"), ("a quarter of it", "25% of it"),
    ]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(101, 99_999), which=st.integers(0, 7), reverse=st.booleans())
def test_a_figure_restated_in_another_form_is_grounded(n: int, which: int, reverse: bool) -> None:
    one, other = _honest_pairs(n)[which]
    claim, excerpt = (other, one) if reverse and which else (one, other)  # a claim's bare word states nothing
    result = grounding(Claim(1, f"Acme: {claim}", (1,)), [f"Acme: {excerpt}."])
    assert result.checked and result.ok, (claim, excerpt, result)


_AMOUNTS = st.one_of(
    _n.map(lambda v: f"${v:,}"), st.integers(11, 99).map(lambda v: f"{v}%"),
    _n.map(lambda v: f"{v:,} hosts"), st.integers(4, 99).map(lambda v: f"{v}x"),
    _n.map(lambda v: f"{v} million events"), st.integers(11, 99).map(lambda v: f"{v} cents"))


@settings(max_examples=60, deadline=None)
@given(figure=_AMOUNTS, head=st.sampled_from(["Acme Pricing: ", "Top ", "Acme Pro ", "", "Over "]))
def test_a_title_never_grounds_an_amount_or_count(figure: str, head: str) -> None:
    result = grounding(Claim(1, f"Acme lists {figure}", (1,)), ["There is no list price."],
                       [f"{head}{figure} | Acme"])
    assert result.checked and not result.ok, (figure, head)


# A figure of the report restated in another form its excerpt grounds (issue 37's honest forms).
_RESTATED = st.sampled_from([
    ("1.6x and 3x its 15-day rate", "1.6x and triple its 15-day rate"),
    ("1.6x and 3x the 15-day rate", "1.6 times and three times the 15-day rate"),
    ("above 150% of", "above 150 percent of"),
    ("10% to 30% off list", "10 to 30 percent off list"),
    ("defaults to 15 days", "defaults to fifteen days"),
])


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(restated=_RESTATED)
def test_a_figure_restated_in_an_honest_form_still_verifies(restated: tuple[str, str]) -> None:
    text, _markers, _available = _statements()
    assert _fails(_replaced_before_gaps(text, *restated)) == []
