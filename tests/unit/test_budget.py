"""Cost tiers: the one table of defaults, how a plan picks them, and that the prompts agree."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli_support import plan_text
from web_research import formats
from web_research.run.briefs import render_brief
from web_research.run.budget import (
    DEFAULT_TIER,
    TIER_NAMES,
    TIERS,
    UNTIERED,
    VOTERS,
    budget_for,
    effective_budget,
    render_tier_table,
)
from web_research.run.plan import PlanError, parse_plan

THREE = {"Pricing models": ["Billing units"], "Enterprise discounts": ["Volume discounts"],
         "Retention": ["Retention periods"]}


def _plan(budget_lines: str | None, subtopics: dict[str, list[str]] | None = None):
    return parse_plan(plan_text(subtopics=subtopics, budget_line=budget_lines))


@pytest.mark.parametrize("tier", TIER_NAMES)
def test_a_tier_line_sets_every_default(tier: str) -> None:
    plan = _plan(f"Tier: {tier}")
    budget = effective_budget(plan)
    defaults = TIERS[tier]
    assert plan.tier == tier and budget.tier == tier
    assert (budget.searches_per_researcher, budget.page_reads_per_researcher, budget.max_subtopics) == (
        defaults.searches, defaults.page_reads, defaults.max_subtopics)
    assert (budget.claim_check, budget.voting, budget.second_wave) == (
        defaults.claim_check, defaults.voting, defaults.second_wave)
    assert budget.max_parallel == formats.MAX_PARALLEL_RESEARCHERS
    assert plan.budget == defaults.searches


def test_the_suggested_tiers() -> None:
    quick, standard, deep = (TIERS[name] for name in ("quick", "standard", "deep"))
    assert DEFAULT_TIER == "standard"
    assert (quick.max_subtopics, quick.searches, quick.page_reads) == (2, 3, 4)
    # every tier judges its cited claims: a claim no model read would reach the person unread (issue 43)
    assert quick.claim_check and not (quick.voting or quick.second_wave)
    assert (standard.searches, standard.page_reads, standard.claim_check, standard.voting, standard.second_wave) == (
        5, 8, True, False, False)
    assert (deep.max_subtopics, deep.searches, deep.page_reads) == (5, 8, 12)
    assert deep.claim_check and deep.voting and deep.second_wave


def test_explicit_lines_override_the_tier_in_any_order_and_spelling() -> None:
    budget = effective_budget(_plan("- **Page reads per subagent:** 2\nSearches per subagent: 7\n* tier: `Deep`"))
    assert budget.tier == "deep"
    assert (budget.searches_per_researcher, budget.page_reads_per_researcher) == (7, 2)
    assert budget.voting and budget.second_wave  # the rest stays the tier's


def test_a_plan_without_a_tier_line_keeps_its_old_budget() -> None:
    for lines, searches in ((None, 5), ("Searches per subagent: 4", 4), ("Free text.", 5)):
        plan = _plan(lines)
        budget = effective_budget(plan)
        assert plan.tier is None and budget.tier is None
        assert budget.searches_per_researcher == searches == plan.budget
        assert budget.claim_check is False and budget.voting is False and budget.second_wave is False
        assert budget.page_reads_per_researcher == UNTIERED.page_reads
        assert budget.max_subtopics == formats.MAX_SUBTOPICS


def test_the_bundled_example_has_no_tier_line_and_no_model_check() -> None:
    from web_research.run.plan import load_plan

    budget = effective_budget(load_plan(formats.PLUGIN_ROOT / "examples" / "observability-pricing" / "plan.md"))
    assert budget.tier is None and budget.claim_check is False and budget.second_wave is False
    assert budget.searches_per_researcher == formats.DEFAULT_SEARCH_BUDGET


@pytest.mark.parametrize("lines,line_offset,message", [
    ("Tier: fast", 0, "'Tier' is 'fast'; expected one of quick, standard, deep"),
    ("Tier:", 0, "'Tier' is ''; expected one of quick, standard, deep"),
    ("Tier: quick\nTier: deep", 1, "duplicate 'Tier' line (first at line"),
    ("Page reads per subagent: 0", 0, "'Page reads per subagent' is '0'; expected a whole number from 1 to 12 "
                                      "(the most any tier allows: 'Tier: deep')"),
    ("Searches per subagent: 99999", 0, "'Searches per subagent' is '99999'; expected a whole number from 1 to 8"),
    ("Page reads per subagent: many", 0, "expected a whole number"),
    ("Page reads per subagent: 3\npage reads per subagent: 4", 1, "duplicate 'Page reads per subagent' line"),
])
def test_bad_budget_lines_name_their_line(lines: str, line_offset: int, message: str) -> None:
    text = plan_text(budget_line=lines)
    first = text.split("\n").index(lines.split("\n")[0]) + 1
    with pytest.raises(PlanError) as info:
        parse_plan(text, Path("/r/plan.md"))
    assert info.value.line == first + line_offset and message in info.value.message, str(info.value)


def test_a_tier_caps_the_subtopics_and_points_at_the_first_one_too_many() -> None:
    text = plan_text(subtopics=THREE, budget_line="Tier: quick")
    with pytest.raises(PlanError) as info:
        parse_plan(text)
    third = text.split("\n").index("### 3. Retention") + 1
    assert info.value.line == third
    assert "found 3 subtopics; 'Tier: quick' allows at most 2" in info.value.message
    assert "'Tier: standard'" in info.value.message
    assert len(parse_plan(plan_text(subtopics=THREE, budget_line="Tier: standard")).subtopics) == 3


def test_upper_bounds_follow_the_budget() -> None:
    standard = effective_budget(_plan("Tier: standard", THREE))
    # one checker a round on the report's claims: the first check and one after each round of fixes
    assert (standard.researchers, standard.searches, standard.page_reads, standard.checker_agents) == \
        (3, 15, 24, 1 + formats.MAX_VERIFY_ROUNDS)
    deep = effective_budget(_plan("Tier: deep", THREE))
    # the second wave adds at most 3 researchers; each round of the claim check has VOTERS checkers
    assert deep.researchers == 6 and deep.searches == 48 and deep.page_reads == 72
    assert deep.checker_agents == (1 + formats.MAX_VERIFY_ROUNDS) * VOTERS
    assert budget_for("deep", 5).researchers == 5 + formats.MAX_SECOND_WAVE_SUBTOPICS
    quick = effective_budget(_plan("Tier: quick"))
    # one checker a round, no voting
    assert (quick.researchers, quick.searches, quick.page_reads, quick.checker_agents) == \
        (2, 6, 8, 1 + formats.MAX_VERIFY_ROUNDS)
    assert quick.to_json()["checker_agents"] == 1 + formats.MAX_VERIFY_ROUNDS and quick.to_json()["tier"] == "quick"


@pytest.mark.parametrize("tier", [*TIER_NAMES, None])
def test_the_brief_states_the_researchers_search_and_page_read_budget(tier: str | None, tmp_path: Path) -> None:
    plan = _plan(f"Tier: {tier}" if tier else None)
    budget = effective_budget(plan)
    text = render_brief(plan, plan.subtopics[0], tmp_path)
    assert (f"Budget: at most {budget.searches_per_researcher} web searches and "
            f"{budget.page_reads_per_researcher} page reads") in text


# --- one table, shown identically everywhere ---------------------------------------------------

def _tables(path: Path) -> list[str]:
    """Every Markdown table in a file, as text ending with a newline."""
    text = path.read_text(encoding="utf-8")
    return [block + "\n" for block in re.findall(r"(?m)^(?:\|.*\|\n?)+", text)
            for block in [block.rstrip("\n")]]


@pytest.mark.parametrize("path", [formats.PLUGIN_ROOT / "README.md", formats.REFERENCES_DIR / "budget-tiers.md"],
                         ids=lambda p: p.name)
def test_readme_and_reference_show_the_tier_table_of_the_code(path: Path) -> None:
    assert render_tier_table() in _tables(path), (
        f"{path.name}: paste budget.render_tier_table()'s output as its tier table")


def test_the_tier_table_renders_every_value() -> None:
    table = render_tier_table()
    rows = {line.split(" | ")[0].lstrip("| "): line.strip("| ").split(" | ")[1:] for line in table.splitlines()[2:]}
    columns = [*TIERS.values(), UNTIERED]
    assert rows["searches per researcher"] == [str(t.searches) for t in columns]
    assert rows["page reads per researcher"] == [str(t.page_reads) for t in columns]
    assert rows["subtopics (at most)"] == [str(t.max_subtopics) for t in columns]
    assert rows["voting"] == ["yes" if t.voting else "no" for t in columns]


def test_the_prompts_name_the_tiers_and_their_lines() -> None:
    from web_research.run.budget import PLAN_PAGE_READS_LINE, PLAN_TIER_LINE

    reference = (formats.REFERENCES_DIR / "budget-tiers.md").read_text(encoding="utf-8")
    skill = (formats.SKILL_DIR / "SKILL.md").read_text(encoding="utf-8")
    contract = (formats.REFERENCES_DIR / "companion-contract.md").read_text(encoding="utf-8")
    tiers = " | ".join(TIER_NAMES)
    assert f"`{PLAN_TIER_LINE}: {tiers}`" in reference
    for label in (formats.PLAN_BUDGET_LINE, PLAN_PAGE_READS_LINE):
        assert f"`{label}: N`" in reference and f"`{label}: N`" in skill
    assert f"default is `{DEFAULT_TIER}`" in reference
    assert f"| `tier` | string | `{DEFAULT_TIER}` | " + ", ".join(f"`{t}`" for t in TIER_NAMES[:-1]) \
        + f" or `{TIER_NAMES[-1]}`" in contract
    assert "[--tier quick|standard|deep]" in skill and "[tier: quick|standard|deep]" in skill
    assert f"At most {formats.MAX_PARALLEL_RESEARCHERS} researchers run at once in every tier: the plugin holds it." \
        in reference
    # The hooks always cap at 3: the plan's `Researchers:` line is no setting, and the skill never offers it.
    assert f"{formats.PLAN_RESEARCHERS_LINE}:" not in skill
    assert f"`{formats.PLAN_RESEARCHERS_LINE}:` line\n  (older plans) is accepted and changes nothing" in reference
