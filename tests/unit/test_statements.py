"""Every statement of report.md's TL;DR and Findings is a claim (checks/statements.py).

Unit tests for each rule, and a property: a figure no cited passage states, inserted anywhere
in TL;DR or Findings of a report built from the bundled example, always fails verification
(as an uncited statement, an uncited figure, a heading's figure, or an ungrounded claim)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from example_run import EXAMPLE_DIR, copy_example_to
from web_research import formats
from web_research.checks import checklist
from web_research.checks.claims import find_claims
from web_research.checks.report import parse_report
from web_research.checks.statements import statement_checks
from web_research.report.gaps import is_own
from web_research.run.finish_record import read_record

REPORT = (EXAMPLE_DIR / formats.REPORT_FILE).read_text(encoding="utf-8")
NAMES = ["Billing units and retention tiers", "Enterprise commitments and overages"]


# The example's plan bullet ids, and the Gaps lines finish wrote for its recorded failures.
IDS = ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "3.1", "3.2"]
RECORDED = set(read_record(EXAMPLE_DIR)["gaps"])


def _failing(text: str) -> dict:
    return {c.id: c for c in statement_checks(Path("report.md"), parse_report(text), NAMES, None, IDS,
                                              lambda line: is_own(line, RECORDED))
            if not c.ok}


def _with_findings(paragraph: str) -> str:
    return REPORT.replace("### Enterprise commitments and overages\n",
                          f"### Enterprise commitments and overages\n\n{paragraph}\n", 1)


def test_the_bundled_example_states_nothing_uncited() -> None:
    assert _failing(REPORT) == {}


def test_an_uncited_tldr_bullet_is_an_error_even_without_a_figure() -> None:
    bad = _failing(REPORT.replace("## TL;DR\n\n", "## TL;DR\n\n- Acme is the cheapest vendor overall.\n", 1))
    assert list(bad) == ["report.tldr.uncited"]
    assert bad["report.tldr.uncited"].severity == "error" and bad["report.tldr.uncited"].line == 5
    assert '"Acme is the cheapest vendor overall."' in bad["report.tldr.uncited"].message


@pytest.mark.parametrize("block", [
    "An uncited paragraph about pricing.",
    "- an uncited item[^lumen]",  # a mark that is no reference cites nothing
    "| Vendor | Unit |\n|---|---|\n| Acme | per GB[^1] |\n| Lumen | per GB |",
])
def test_every_findings_paragraph_item_and_row_carries_a_reference(block: str) -> None:
    bad = _failing(_with_findings(block))
    assert "report.findings.uncited" in bad and bad["report.findings.uncited"].severity == "error"


def test_a_sentence_stating_a_figure_carries_its_own_reference() -> None:
    text = _with_findings("Acme bills per GB[^1]. It charges `$9.90` a month.")
    check = _failing(text)["report.figures.uncited"]
    assert check.line == 26 and "'$9.90'" in check.message  # a code span's figure is a figure
    assert _failing(_with_findings("Acme bills per GB[^1]. It charges by volume.")) == {}  # no figure: a claim's context


def test_a_heading_states_no_figure_unless_it_is_a_subtopics_name() -> None:
    bad = _failing(REPORT.replace("### Enterprise commitments and overages", "### Commitments, 30% off"))
    assert list(bad) == ["report.headings.figures"] and "'30%'" in bad["report.headings.figures"].message
    named = REPORT.replace("### Enterprise commitments and overages", "### Plans for 2 regions")
    assert list(_failing(named)) == ["report.headings.figures"]
    assert not [c for c in statement_checks(Path("report.md"), parse_report(named), ["Plans for 2 regions"])
                if not c.ok]  # the plan's words, approved by the person, pass


@pytest.mark.parametrize("mark, says", [
    ("[^lumen]", "cite by reference, [^<subtopic-slug>:<n>]"),
    ("[^billing-units-and-retention-tiers: 1]", "write [^billing-units-and-retention-tiers:1], without spaces"),
    ("[^ 3]", "write [^3], without spaces"),
    ("[^slug:1a]", "cite by reference"),
])
def test_every_footnote_like_mark_is_a_reference_or_an_error_naming_it(mark: str, says: str) -> None:
    text = REPORT.replace("pays only the ingestion fee[^1].", f"pays only the ingestion fee[^1]{mark}.")
    check = _failing(text)["report.references.form"]
    assert check.line == 15 and mark in check.message and says in check.message


def test_a_mark_in_gaps_is_held_to_the_form_too() -> None:
    text = REPORT.replace("- No page read gives", "- No page read[^acme] gives")
    assert "[^acme]" in _failing(text)["report.references.form"].message


def test_a_table_row_is_one_claim_read_with_its_column_names() -> None:
    text = "| Plan | Price per month |\n|---|---|\n| Pro | $5[^1] |\n| Team | $9[^2] |\n"
    claims = find_claims(text)
    assert [(c.line, c.text, c.footnotes) for c in claims] == [
        (3, "Plan: Pro; Price per month: $5", (1,)), (4, "Plan: Team; Price per month: $9", (2,))]


# --- the property --------------------------------------------------------------------------------

def _figure(form: int, value: int) -> str:
    """A figure in one of the forms the figure reader reads, from a value no excerpt states."""
    cents = f"{value // 100}.{value % 100:02d}"
    return [f"{value}", f"${value:,}", f"{cents}%", f"`${cents}`", f"{value:,} GB", f"{cents}x", f"\u20ac{value}",
            f"{value} events", f"-{cents}%", f"${cents}M", f"US${cents} per GB", f"{cents} million"][form]


FORMS = 12


def _sections(text: str) -> tuple[int, int]:
    lines = text.splitlines()
    return lines.index("## TL;DR"), lines.index("## Gaps & Limitations")


def _variant(order: list[int]) -> str:
    """The example report with its TL;DR bullets in another order (a report built from it)."""
    lines = REPORT.splitlines()
    start = lines.index("## TL;DR") + 2
    bullets = lines[start:start + 4]
    lines[start:start + 4] = [bullets[i] for i in order]
    return "\n".join(lines) + "\n"


@st.composite
def inserted(draw) -> str:
    text = _variant(draw(st.permutations(range(4))))
    lines = text.splitlines()
    first, last = _sections(text)
    figure = _figure(draw(st.integers(0, FORMS - 1)), draw(st.integers(10_001, 99_999)))
    row = draw(st.integers(first + 1, last - 1))
    line = lines[row]
    places = [i for i, char in enumerate(line) if char == " "] + [len(line)]
    if not line.strip() or line.startswith("## "):  # between blocks: a statement of its own
        lines[row] = draw(st.sampled_from([f"- It costs {figure}.", f"It costs {figure} in all.", f"### {figure}"]))
        lines.insert(row + 1, "")
        lines.insert(row, "")
    else:
        at = draw(st.sampled_from(places))
        lines[row] = line[:at] + " " + figure + line[at:]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def run_copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("property") / "run"
    copy_example_to(target)
    return target


def _errors(run: Path) -> list[str]:
    _parsed, checks = checklist.parse_and_check(run, extra=(checklist._claims_grounded,))
    return [f"{c.id}: {c.message}" for c in checks if not c.ok and c.severity == "error"]


def test_the_variants_verify_before_anything_is_inserted(run_copy: Path) -> None:
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]):
        (run_copy / formats.REPORT_FILE).write_text(_variant(order), encoding="utf-8")
        assert _errors(run_copy) == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=inserted())
def test_an_uncited_figure_anywhere_in_tldr_or_findings_always_fails(run_copy: Path, text: str) -> None:
    (run_copy / formats.REPORT_FILE).write_text(text, encoding="utf-8")
    assert _errors(run_copy), text
