"""plan.md parsing: the accepted format, and one test per error naming its line."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_support import VALID_PLAN, plan_text
from web_research.formats import DEFAULT_SEARCH_BUDGET, MAX_SUBTOPICS, PLAN_SECTIONS
from web_research.formats import CLIENT_REFUSED_FILE_PREFIXES
from web_research.run.plan import PlanError, load_plan, parse_plan
from web_research.core.slug import slugify


def _line_of(text: str, needle: str, occurrence: int = 1) -> int:
    hits = [i for i, line in enumerate(text.split("\n"), start=1) if line.startswith(needle)]
    return hits[occurrence - 1]


def _error(text: str) -> PlanError:
    with pytest.raises(PlanError) as info:
        parse_plan(text, Path("/runs/x/plan.md"))
    return info.value


def test_valid_plan() -> None:
    plan = parse_plan(VALID_PLAN)
    assert plan.title == "Plan: logs pricing"
    assert plan.question == "How do enterprise observability vendors price their logs tier in 2026?"
    assert [s.name for s in plan.subtopics] == ["Pricing models", "Enterprise discounts"]
    assert [s.slug for s in plan.subtopics] == ["pricing-models", "enterprise-discounts"]
    assert plan.subtopics[0].establish == [
        "Which units vendors bill logs by (GB ingested, events, hosts)",
        "Whether retention is priced separately",
    ]
    assert plan.subtopics[1].establish == ["Published volume discounts", "Minimum commitments"]
    assert plan.subtopics[0].line == _line_of(VALID_PLAN, "### 1.")
    assert plan.synthesis.startswith("Compare the vendors")
    assert plan.budget == 4


def test_question_is_verbatim_and_blockquote_is_unwrapped() -> None:
    question = 'Kubernetes: how do `pods` schedule "fast" at $5/hr?'
    assert parse_plan(plan_text(question=question)).question == question
    assert parse_plan(plan_text(question=f"> {question}")).question == question
    two_lines = "First line of the question\n  second line, indented"
    assert parse_plan(plan_text(question=two_lines)).question == two_lines


def test_budget_defaults_and_variants() -> None:
    assert parse_plan(plan_text(budget_line=None)).budget == DEFAULT_SEARCH_BUDGET
    assert parse_plan(plan_text(budget_line="Free text about the budget.")).budget == DEFAULT_SEARCH_BUDGET
    assert parse_plan(plan_text(budget_line="* Searches per subagent: 7")).budget == 7
    assert parse_plan(plan_text(budget_line="- **Searches per subagent:** 3")).budget == 3
    assert parse_plan(plan_text(budget_line="searches per subagent : 2")).budget == 2


def test_headings_are_parsed_with_care() -> None:
    plan = parse_plan(plan_text(subtopics={"C# tooling": ["x"], "2024 outlook": ["y"]}))
    assert [s.name for s in plan.subtopics] == ["C# tooling", "2024 outlook"]
    unnumbered = VALID_PLAN.replace("### 1. Pricing models", "### Pricing models ###")
    assert parse_plan(unnumbered).subtopics[0].name == "Pricing models"


def test_bullet_continuation_lines_join() -> None:
    text = VALID_PLAN.replace("- Whether retention is priced separately",
                              "- Whether retention is priced\n  separately")
    assert parse_plan(text).subtopics[0].establish[1] == "Whether retention is priced separately"


def test_five_subtopics_allowed() -> None:
    subtopics = {f"Topic {n}": ["point"] for n in range(1, MAX_SUBTOPICS + 1)}
    assert len(parse_plan(plan_text(subtopics=subtopics)).subtopics) == MAX_SUBTOPICS


def test_error_str_is_path_line_message() -> None:
    error = _error(VALID_PLAN.replace("## Synthesis approach", "## Synthesis"))
    # one line per mistake (an unknown section, and the section then missing), the first first
    assert str(error).splitlines() == [f"/runs/x/plan.md:{e.line}: {e.message}" for e in error.errors]
    assert str(error).splitlines()[0] == f"/runs/x/plan.md:{error.line}: {error.message}"


@pytest.mark.parametrize("section", PLAN_SECTIONS)
def test_missing_section_names_where_it_was_expected(section: str) -> None:
    heading = f"## {section}"
    start = VALID_PLAN.index(heading)
    following = [VALID_PLAN.index(f"## {s}") for s in PLAN_SECTIONS if VALID_PLAN.index(f"## {s}") > start]
    end = min(following) if following else len(VALID_PLAN)
    text = VALID_PLAN[:start] + VALID_PLAN[end:]
    error = _error(text)
    assert f"missing section '{heading}'" in error.message
    later = [s for s in PLAN_SECTIONS[PLAN_SECTIONS.index(section) + 1:]]
    if later:
        assert error.line == _line_of(text, f"## {later[0]}")
    else:
        assert error.line == text.count("\n") + (0 if text.endswith("\n") else 1)  # the last line


def test_missing_everything_is_line_one() -> None:
    assert _error("").line == 1


def test_duplicate_section() -> None:
    text = VALID_PLAN + "\n## Budget\n\nSearches per subagent: 2\n"
    error = _error(text)
    assert error.line == _line_of(text, "## Budget", 2)
    assert "duplicate section '## Budget'" in error.message
    assert f"line {_line_of(text, '## Budget')}" in error.message


def test_unknown_section() -> None:
    text = VALID_PLAN.replace("## Synthesis approach", "## Synthesis plan")
    error = _error(text)
    assert error.line == _line_of(text, "## Synthesis plan")
    assert "unknown section" in error.message and "## Synthesis approach" in error.message


def test_text_before_first_section() -> None:
    text = "# Title\nstray words\n" + VALID_PLAN.split("\n", 1)[1]
    error = _error(text)
    assert error.line == 2 and "before the first section" in error.message


def test_zero_subtopics() -> None:
    text = plan_text(subtopics={})
    error = _error(text)
    assert error.line == _line_of(text, "## Subtopics")
    assert "found 0 subtopics" in error.message and "1 to 5" in error.message


def test_six_subtopics_points_at_the_sixth() -> None:
    text = plan_text(subtopics={f"Topic {n}": ["point"] for n in range(1, 7)})
    error = _error(text)
    assert error.line == _line_of(text, "### 6.")
    assert "found 6 subtopics" in error.message


def test_subtopic_without_bullets() -> None:
    text = plan_text(subtopics={"Pricing": ["x"], "Discounts": []})
    error = _error(text)
    assert error.line == _line_of(text, "### 2. Discounts")
    assert "'Discounts' has no bullets" in error.message


@pytest.mark.parametrize("heading", ["### ", "###", "### 3. ", "###   "])
def test_empty_subtopic_name(heading: str) -> None:
    text = VALID_PLAN.replace("### 2. Enterprise discounts", heading)
    error = _error(text)
    assert error.line == _line_of(VALID_PLAN, "### 2.")
    assert "empty subtopic name" in error.message


def test_duplicate_subtopic_slug_names_both_lines() -> None:
    text = plan_text(subtopics={"Pricing models": ["x"], "Other": ["y"], "pricing: models!": ["z"]})
    error = _error(text)
    first, third = _line_of(text, "### 1."), _line_of(text, "### 3.")
    assert error.line == third
    assert f"line {first}" in error.message and "pricing-models" in error.message


def test_text_that_is_not_a_bullet_under_a_subtopic() -> None:
    text = VALID_PLAN.replace("* Minimum commitments", "Minimum commitments")
    error = _error(text)
    assert error.line == _line_of(text, "Minimum commitments")
    assert "expected a bullet" in error.message


def test_text_before_first_subtopic_heading() -> None:
    text = VALID_PLAN.replace("### 1. Pricing models", "Intro sentence.\n\n### 1. Pricing models")
    error = _error(text)
    assert error.line == _line_of(text, "Intro sentence.")
    assert "expected a subtopic heading" in error.message


def test_empty_question() -> None:
    text = plan_text(question="")
    error = _error(text)
    assert error.line == _line_of(text, "## Research question")
    assert "empty" in error.message


def test_empty_synthesis() -> None:
    text = plan_text(synthesis="")
    error = _error(text)
    assert error.line == _line_of(text, "## Synthesis approach")


@pytest.mark.parametrize("value", ["five", "0", "-2", "3.5", "", "4 searches"])
def test_bad_budget(value: str) -> None:
    text = plan_text(budget_line=f"- Searches per subagent: {value}")
    error = _error(text)
    assert error.line == _line_of(text, "- Searches per subagent")
    assert "expected a whole number from 1 to 8 (the most any tier allows: 'Tier: deep')" in error.message


def test_duplicate_budget_line() -> None:
    text = plan_text(budget_line="Searches per subagent: 3\nSearches per subagent: 4")
    error = _error(text)
    assert error.line == _line_of(text, "Searches per subagent", 2)
    assert "duplicate" in error.message


def test_crlf_line_endings() -> None:
    assert parse_plan(VALID_PLAN.replace("\n", "\r\n")) == parse_plan(VALID_PLAN)


def test_load_plan_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(PlanError) as missing:
        load_plan(tmp_path / "plan.md")
    assert str(missing.value).startswith(f"{tmp_path / 'plan.md'}:1: ")
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(PlanError, match="is not UTF-8 text: line 1, column 1 holds the byte 0xff"):
        load_plan(bad)
    good = tmp_path / "good.md"
    good.write_text(VALID_PLAN, encoding="utf-8")
    assert load_plan(good) == parse_plan(VALID_PLAN)


_words = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40)
_names = _words.map(str.strip).filter(
    lambda s: s and not s.startswith("#") and not s[0].isdigit()
    and not slugify(s).startswith(CLIENT_REFUSED_FILE_PREFIXES)
)
_bullets = _words.map(str.strip).filter(bool)


@settings(max_examples=150, deadline=None)
@given(
    question=_words.map(str.strip).filter(lambda s: s and not s.startswith(("#", ">"))),
    subtopics=st.lists(st.tuples(_names, st.lists(_bullets, min_size=1, max_size=4)), min_size=1, max_size=MAX_SUBTOPICS),
    budget=st.integers(min_value=1, max_value=8),  # 8: the most any tier allows
)
def test_round_trip(question: str, subtopics: list[tuple[str, list[str]]], budget: int) -> None:
    """Any plan written in the documented shape parses back to what was written."""
    from web_research.core.slug import slugify

    if len({slugify(name) for name, _ in subtopics}) != len(subtopics):
        return  # duplicate slugs are an error, covered above
    text = plan_text(question=question, subtopics=dict(subtopics), budget_line=f"Searches per subagent: {budget}")
    if len(dict(subtopics)) != len(subtopics):
        return
    plan = parse_plan(text)
    assert plan.question == question
    assert [(s.name, s.establish) for s in plan.subtopics] == subtopics
    assert plan.budget == budget


@pytest.mark.parametrize("name", ["Analysis of pricing models", "Reporting requirements", "SUMMARY tables", "Findings so far"])
def test_subtopic_whose_findings_file_the_client_refuses_is_a_plan_error(name: str) -> None:
    from web_research.formats import CLIENT_REFUSED_FILE_PREFIXES

    text = plan_text(subtopics={"Billing units": ["Units"], name: ["Something"]})
    with pytest.raises(PlanError) as caught:
        parse_plan(text)
    line = text.splitlines()[caught.value.line - 1]
    assert line.startswith("### ") and name in line
    assert "rename the subtopic" in str(caught.value)
    assert all(word in str(caught.value) for word in CLIENT_REFUSED_FILE_PREFIXES)


def test_refused_words_inside_a_name_are_fine() -> None:
    plan = parse_plan(plan_text(subtopics={"Cost analysis": ["Costs"], "Pre-summary notes": ["Notes"]}))
    assert [s.slug for s in plan.subtopics] == ["cost-analysis", "pre-summary-notes"]


# --- Researchers: N (the plan's budget of researchers at once) ---------------------------------

def test_researchers_line_is_parsed_and_defaults_to_the_cap():
    from web_research.formats import MAX_PARALLEL_RESEARCHERS

    assert parse_plan(plan_text(budget_line="Searches per subagent: 5")).researchers == MAX_PARALLEL_RESEARCHERS
    text = plan_text(budget_line="- Researchers: 2\n- Searches per subagent: 5")
    plan = parse_plan(text)
    assert (plan.researchers, plan.budget) == (2, 5)


@pytest.mark.parametrize("value", ["0", "4", "three", "2.5", ""])
def test_researchers_line_outside_one_to_the_cap_names_the_line(value):
    from web_research.formats import MAX_PARALLEL_RESEARCHERS

    text = plan_text(budget_line=f"Searches per subagent: 5\nResearchers: {value}")
    with pytest.raises(PlanError) as caught:
        parse_plan(text)
    assert caught.value.line == _line_of(text, "Researchers:")
    assert f"expected a whole number from 1 to {MAX_PARALLEL_RESEARCHERS}" in caught.value.message


def test_a_code_fence_left_open_names_the_headings_it_hides() -> None:
    """The one Markdown parser decides what is a heading: a fence opened in the question runs to
    the end, and each section heading under it is named with the way out."""
    text = plan_text(question="```\nHow is logging priced?")
    error = _error(text)
    assert [e.line for e in error.errors] == [_line_of(text, f"## {name}") for name in PLAN_SECTIONS[1:]]
    assert all("not read as a heading" in e.message and "close or remove it" in e.message for e in error.errors)


def test_the_second_wave_section_is_found_as_the_plan_parser_finds_it() -> None:
    from web_research.run.plan import split_second_wave

    wave = "## second wave\n\n### Deeper pricing\n- 1.1\n"
    before, section = split_second_wave(VALID_PLAN + "\n" + wave)
    assert before == VALID_PLAN and section == wave
    fenced = VALID_PLAN + "\n```\n## Second wave\n```\n"
    assert split_second_wave(fenced) == (fenced, None)


def test_the_plans_write_is_completed_with_the_persons_question_and_tier():
    """Issue 38: the model writes what it decides (subtopics, synthesis, its own budget lines); the
    question and the Tier and Deepen lines come from start's record, whatever it wrote there."""
    from web_research.run.plan import complete_plan

    written = ("# Research plan\n\n## Research question\n\nA question retyped, shortened\n\n## Subtopics\n\n"
               "### Billing units\n- list price of the entry tier, with its date\n\n## Synthesis approach\n\n"
               "By subtopic.\n\n## Budget\n\nTier: deep\n- Searches per subagent: 2\n")
    done = complete_plan(written, "How do vendors price logs in 2026?", "standard")
    assert done == ("## Research question\n\nHow do vendors price logs in 2026?\n\n## Subtopics\n\n"
                    "### Billing units\n- list price of the entry tier, with its date\n\n## Synthesis approach\n\n"
                    "By subtopic.\n\n## Budget\n\nTier: standard\n- Searches per subagent: 2\n")
    plan = parse_plan(done, expected_question="How do vendors price logs in 2026?", expected_tier="standard")
    assert plan.searches_per_subagent == 2 and [s.name for s in plan.subtopics] == ["Billing units"]
    bare = complete_plan("## Subtopics\n\n### A\n- b\n\n## Synthesis approach\n\nx\n", "Q?", "quick", deepen=True)
    assert bare.endswith("## Budget\n\nTier: quick\nDeepen: yes\n") and bare.startswith("## Research question\n\nQ?\n")
    assert complete_plan(done, "How do vendors price logs in 2026?", "standard") == done  # stable
