"""Headings are labels, not statements (issue 43; checks/headings.py, formats.HEADING_RULE).

A `###` heading cites nothing and no checker reads it: "### Acme was fined for hidden log
fees..." passed every check, and so did a heading that rearranged a claim's own words into
their opposite ("### Brightpath offers free plan" above "Brightpath offers no free plan"). A
heading is a first-wave subtopic's name as plan.md gives it, and nothing else: each attack
below fails `report.headings.label` at its line, naming the allowed headings, and beside them
the honest forms (a subtopic's name, in another case or spacing) still verify.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from example_run import EXAMPLE_DIR, copy_example_to
from web_research import formats
from web_research.checks import checklist

REPORT = (EXAMPLE_DIR / formats.REPORT_FILE).read_text(encoding="utf-8")
HEADING = "### Enterprise commitments and overages"
LINE = REPORT.splitlines().index(HEADING) + 1
# A claim under the heading, as an audit's report wrote one, and the headings made of its words.
CLAIM = "Acme offers no free plan for logs, and its enterprise commitments cost less than list[^6]."


@pytest.fixture(scope="module")
def run_copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("headings") / "run"
    copy_example_to(target)
    return target


def _errors(run: Path, heading: str) -> dict[str, object]:
    (run / formats.REPORT_FILE).write_text(REPORT.replace(HEADING, heading, 1), encoding="utf-8")
    _parsed, checks = checklist.parse_and_check(run, extra=(checklist._claims_grounded,))
    return {c.id: c for c in checks if not c.ok and c.severity == "error"}


@pytest.mark.parametrize("heading", [
    "### Acme was fined for hidden log fees",
    "### Acme fined for hidden log fees",
    "### Acme does not throttle overages",
    "### No commitment needed",
    "### Acme isn\u2019t throttled",
    "### Acme's Standard plan withdrawn after breach",
    # the audit's: a claim's own words, rearranged to say the opposite or to answer the question
    "### Acme offers free plan",
    "### Enterprise commitments cost less",
    "### Acme offers free plan for logs",
    # a subtopic's name with words added, or a second wave's name, or another plan's words
    "### Enterprise commitments and overages: Acme throttles",
    "### Enterprise commitments and overages (none published)",
    "### Cost controls for high-volume logs are missing",
    "### How usage above the commitment is billed",
    "### Pricing comparison",
    "### [Enterprise commitments and overages](https://evil.example/fined)",
    "### *Enterprise commitments and overages*",
    "### Enterprise commitments and \u043everages",  # a Cyrillic o
])
def test_a_heading_that_is_no_subtopic_name_fails_at_its_line(run_copy: Path, heading: str) -> None:
    check = _errors(run_copy, heading)["report.headings.label"]
    assert check.line == LINE and f'"{heading}"' in check.message, check.message
    assert formats.HEADING_RULE in check.message  # the refusal quotes the rule the template states
    assert '"### Billing units and retention tiers"' in check.message  # and lists the allowed headings


@pytest.mark.parametrize("heading", [
    HEADING,  # a subtopic's name, as the plan gives it
    "### Enterprise Commitments  and Overages",  # ... in another case and spacing
    "### Billing units and retention tiers",  # another subtopic's name
    "### Cost controls for high-volume logs",  # a failed subtopic's name
])
def test_a_subtopic_name_passes(run_copy: Path, heading: str) -> None:
    assert _errors(run_copy, heading) == {}


def test_the_claims_own_words_pass_below_a_subtopic_name(run_copy: Path) -> None:
    """What the refused headings said goes in a cited sentence, which the checks read."""
    (run_copy / formats.REPORT_FILE).write_text(REPORT.replace(HEADING, HEADING + "\n\n" + CLAIM, 1),
                                                encoding="utf-8")
    _parsed, checks = checklist.parse_and_check(run_copy)
    assert "report.headings.label" not in {c.id for c in checks if not c.ok}


def test_a_subtopic_name_of_the_second_wave_is_no_heading(tmp_path: Path) -> None:
    """A second wave is planned after the findings came back: its names are no headings (its
    claims go under the first wave's, second-wave.md), as finish never quotes them in Gaps."""
    from example_run import copy_example

    run = copy_example(tmp_path)
    plan = run / formats.PLAN_FILE
    plan.write_text(plan.read_text(encoding="utf-8").replace("Searches per subagent: 5", "Searches per subagent: 5\n"
                    "Deepen: yes") + "\n## Second wave\n\n### Acme was fined for rate cards\n- 1.1: fines\n\n"
                    "### Overage rate cards\n- 1.2: rate cards\n", encoding="utf-8")
    for heading, failing in (("### Acme was fined for rate cards", True), ("### Overage rate cards", True),
                             (HEADING, False)):
        (run / formats.REPORT_FILE).write_text(REPORT.replace(HEADING, heading, 1), encoding="utf-8")
        bad = {c.id for c in checklist.run_checklist(run) if not c.ok and c.severity == "error"}
        assert ("report.headings.label" in bad) == failing, (heading, bad)


# --- plan subtopic names (plan.names; refused before briefs are rendered) ---------------------------

@pytest.mark.parametrize("name,figures", [("Acme's $250,000 enterprise plan", "'$250,000'"),
                                          ("Acme's 20% discount", "'20%'"), ("Top 3 vendors", "'3'"),
                                          ("Retention beyond 400 days", "'400 days'"),
                                          ("The five vendors that overcharge for overages", "'five'"),
                                          ("Top three enterprise plans", "'three'"),
                                          ("Pricing of the dozen largest vendors", "'the dozen'"),
                                          ("Half-price enterprise commitments and overages", "'Half'"),
                                          ("Double-rate overages", "'Double'")])
def test_a_subtopic_name_states_no_figure_the_question_does_not(name: str, figures: str) -> None:
    """A name becomes a heading and a Gaps line no check reads against a page, and with
    auto_proceed nobody approves the plan: a figure in it would come from a model's memory."""
    from cli_support import plan_text
    from web_research.checks.headings import plan_name_error
    from web_research.run.plan import parse_plan

    text = plan_text(subtopics={"Billing units": ["Units"], name: ["Something"]})
    error = plan_name_error(parse_plan(text), Path("plan.md"))
    assert error is not None and figures in error.message and "the research question does not state" in error.message
    assert text.splitlines()[error.line - 1] == f"### 2. {name}"


@pytest.mark.parametrize("name", ["2026 list prices", "Python 3.12 changes", "The 3 largest vendors",
                                  "HTTP/2 and S3 support", "Retention tiers", "Phase 2 rollout", "Tier 1 support",
                                  "The three largest vendors", "Vendor group five pricing", "Phase two rollout",
                                  "Pricing in one region", "Vendors with dozens of regions", "Third-party tools",
                                  "Double-checked invoices"])
def test_a_subtopic_name_may_state_what_the_question_states(name: str) -> None:
    from cli_support import plan_text
    from web_research.checks.headings import plan_name_error
    from web_research.run.plan import parse_plan

    question = "Which of the 3 largest vendors list 2026 prices for Python 3.12 hosting?"
    assert plan_name_error(parse_plan(plan_text(question=question, subtopics={"Billing units": ["Units"],
                                                                              name: ["Something"]}))) is None


def test_verify_and_the_briefs_command_refuse_a_figure_in_a_subtopic_name(tmp_path: Path) -> None:
    import subprocess
    import sys

    from example_run import copy_example

    run = copy_example(tmp_path)
    plan = run / formats.PLAN_FILE
    plan.write_text(plan.read_text(encoding="utf-8").replace(
        "### Enterprise commitments and overages", "### Enterprise commitments from $250,000 a year"), encoding="utf-8")
    bad = {c.id: c for c in checklist.run_checklist(run) if not c.ok and c.severity == "error"}
    assert "'$250,000'" in bad["plan.names"].message
    done = subprocess.run([sys.executable, "-m", "web_research", "briefs", str(run)], capture_output=True, text=True)
    assert done.returncode != 0 and "$250,000" in done.stderr and "plan.md" in done.stderr
