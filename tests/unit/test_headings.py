"""Headings are labels, not statements (issue 43; checks/headings.py, formats.HEADING_RULE).

A `###` heading cites nothing and no checker reads it: "### Acme was fined for hidden log
fees..." passed every check. Each attack below fails `report.headings.label` at its line,
and beside them the honest labels real reports use still verify: a subtopic's name, and a
few words the question, the plan or the claims use ("### 2026 list prices").
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


@pytest.fixture(scope="module")
def run_copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("headings") / "run"
    copy_example_to(target)
    return target


def _errors(run: Path, heading: str) -> dict[str, object]:
    (run / formats.REPORT_FILE).write_text(REPORT.replace(HEADING, heading, 1), encoding="utf-8")
    _parsed, checks = checklist.parse_and_check(run, extra=(checklist._claims_grounded,))
    return {c.id: c for c in checks if not c.ok and c.severity == "error"}


@pytest.mark.parametrize("heading,says", [
    ("### Acme was fined for hidden log fees", "says 'was'"),
    ("### Acme fined for hidden log fees", "uses 'fined', 'hidden'"),
    ("### Acme does not throttle overages", "says 'does', 'not'"),
    ("### No commitment needed", "says 'no'"),
    ("### Acme can raise prices", "says 'can'"),
    ("### Acme isn't throttled", "says 'isnt'"),
    ("### Acme isn\u2019t throttled", "says 'isnt'"),
    ("### Overages are billed on demand", "says 'are'"),
    ("### Commitments. Acme throttles", "ends a sentence"),
    ("### Enterprise commitments, overages, discounts, retention tiers, archives, vendors and buyers",
     "has 10 words"),
    ("### Acme's Standard plan withdrawn after breach", "uses 'standard', 'withdrawn', 'breach'"),
    ("### Acme overcharged buyers", "uses 'overcharged'"),
])
def test_a_heading_that_states_something_fails_at_its_line(run_copy: Path, heading: str, says: str) -> None:
    check = _errors(run_copy, heading)["report.headings.label"]
    assert says in check.message and check.line == LINE, check.message
    assert formats.HEADING_RULE in check.message  # the refusal quotes the rule the template states


@pytest.mark.parametrize("heading", [
    HEADING,  # a subtopic's name, as the plan gives it
    "### Enterprise Commitments  and Overages",  # ... in another case and spacing
    "### Billing units and retention tiers",  # another subtopic's name
    "### 2026 list prices",  # an identifier of the question, and the claims' words
    "### Commitments and overage billing",
    "### Acme vs Lumen vs Northwind",
    "### Committed-volume discounts",
    "### Overview",
    "### Pricing comparison",
    "### Costs after the commitment",
])
def test_honest_labels_pass(run_copy: Path, heading: str) -> None:
    assert _errors(run_copy, heading) == {}


def test_a_subtopic_name_of_the_second_wave_is_held_as_a_label(tmp_path: Path) -> None:
    """A second wave is planned after the findings came back: a report heading that is one of
    its names is held as a label (its words count as the plan's), never taken as plan words."""
    from example_run import copy_example

    from web_research.checks.headings import Vocabulary, label_problem

    assert label_problem("Acme fined for hidden fees", Vocabulary(["Acme fees"])) is not None
    assert label_problem("Acme fined for hidden fees", Vocabulary(["Acme fined for hidden fees"])) is None
    assert label_problem("Acme was fined for hidden fees", Vocabulary(["Acme was fined for hidden fees"])) \
        is not None
    run = copy_example(tmp_path)
    plan = run / formats.PLAN_FILE
    plan.write_text(plan.read_text(encoding="utf-8").replace("Searches per subagent: 5", "Searches per subagent: 5\n"
                    "Deepen: yes") + "\n## Second wave\n\n### Acme was fined for rate cards\n- 1.1\n\n"
                    "### Overage rate cards\n- 1.2\n", encoding="utf-8")
    for heading, failing in (("### Acme was fined for rate cards", True), ("### Overage rate cards", False)):
        (run / formats.REPORT_FILE).write_text(REPORT.replace(HEADING, heading, 1), encoding="utf-8")
        bad = {c.id for c in checklist.run_checklist(run) if not c.ok and c.severity == "error"}
        assert ("report.headings.label" in bad) == failing, (heading, bad)


def test_a_label_word_is_matched_without_its_inflection_only() -> None:
    from web_research.checks.headings import Vocabulary, stem

    words = Vocabulary(["Acme prices logs per GB, with fees of a few cents in tiers; commitment overages billed"])
    for word in ("pricing", "priced", "price", "fee", "log", "gb", "tier", "committed", "overage", "billing"):
        assert words.has(word), (word, stem(word))
    for word in ("offers", "inflated", "withdrawn", "overcharged", "ab", "perks", "fined"):
        assert not words.has(word), (word, stem(word))


# --- plan subtopic names (plan.names; refused before briefs are rendered) ---------------------------

@pytest.mark.parametrize("name,figures", [("Acme's $250,000 enterprise plan", "'$250,000'"),
                                          ("Acme's 20% discount", "'20%'"), ("Top 3 vendors", "'3'"),
                                          ("Retention beyond 400 days", "'400 days'")])
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
                                  "HTTP/2 and S3 support", "Retention tiers", "Phase 2 rollout", "Tier 1 support"])
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
