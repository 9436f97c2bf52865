"""What a real run needs from the prompts and the checks behind them: the skill
opened without arguments, a checkpoint's claims, a bounded verify loop, the
brief's other subtopics and findings skeleton, the two dates, the researcher's
rules, and each rule stated in one place.
"""
from __future__ import annotations

import re
from pathlib import Path

from cli_support import VALID_PLAN, plan_text
from web_research import formats
from web_research.run.briefs import compose_agent_prompt, load_template, render_brief, write_briefs
from web_research.checks.findings import findings_checks, load_findings
from web_research.run.plan import parse_plan
from example_run import copy_example_to, reseal

REFS = formats.REFERENCES_DIR
SKILL = formats.SKILL_DIR / "SKILL.md"
AGENT = formats.PLUGIN_ROOT / "agents" / f"{formats.RESEARCHER_AGENT}.md"


def prose(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


# --- SKILL.md ----------------------------------------------------------------------------------

def test_skill_says_what_to_put_in_start_when_opened_without_arguments():
    text = prose(SKILL)
    rule = re.search(r"Opened without arguments .*? put the user's question there first, verbatim", text)
    assert rule, "SKILL.md must say what goes into start's heredoc when the skill has no arguments"
    assert text.index("WEB_RESEARCH_ARGS") < rule.start() < text.index("It prints one JSON object")


def test_skill_bounds_the_fix_loop_and_says_how_to_return_unverified():
    text = prose(SKILL)
    assert f"After {formats.MAX_VERIFY_ROUNDS} rounds of fixes the run ends unverified" in text
    assert "repeat until it passes" not in text
    from web_research.guard.rules.stop_gate import MAX_STOP_BLOCKS

    assert MAX_STOP_BLOCKS == formats.MAX_VERIFY_ROUNDS
    # The rule for what counts as a round is stated once, where the fixes are described.
    modes = prose(REFS / "failure-modes.md")
    assert ("Each run of `finish` that fails is one round of fixes; waiting for a claim-checker is not, nor is a "
            "second run on a report.md nobody wrote since.") in modes
    assert "round" not in prose(REFS / "budget-tiers.md")


def test_skill_dispatches_by_brief_path_without_reading_briefs():
    text = prose(SKILL)
    assert formats.dispatch_call(formats.DISPATCH_BRIEF_PROMPT) in text
    assert "Read every brief" not in text and "`prompt` value, unchanged" not in text


def test_an_older_plans_researchers_line_still_parses_and_changes_nothing():
    older = VALID_PLAN.replace("- Subagents: 2", f"- {formats.PLAN_RESEARCHERS_LINE}: {formats.MAX_PARALLEL_RESEARCHERS}")
    assert parse_plan(older).researchers == formats.MAX_PARALLEL_RESEARCHERS
    assert f"{formats.PLAN_RESEARCHERS_LINE}:" not in SKILL.read_text(encoding="utf-8")


def test_a_failed_checkpoints_claims_are_usable_and_its_gap_says_cut_short():
    text = prose(REFS / "failure-modes.md")
    assert "A `failed` file may still hold cited claims" in text and "Use them like any other findings" in text
    assert "cut short" in text
    assert "failure-modes.md#partial-success" in prose(SKILL)


def test_unverified_return_is_documented_for_callers():
    text = prose(REFS / "companion-contract.md")
    assert f"{formats.MAX_VERIFY_ROUNDS} rounds of fixes" in text and f'"{formats.RETURN_VERIFIED_KEY}": false' in text


# --- one place per rule --------------------------------------------------------------------------

def test_fail_fast_is_stated_in_the_skill_only():
    assert '"${CLAUDE_PLUGIN_ROOT}/scripts/web-research" unavailable WebSearch' in SKILL.read_text(encoding="utf-8")
    modes = (REFS / "failure-modes.md").read_text(encoding="utf-8")
    assert "web-tools-unavailable" not in modes and "ToolSearch" not in modes


def test_the_gaps_bullet_shapes_are_finishs_and_stated_once():
    """finish writes the recorded failures' Gaps bullets (report/gaps.py); the template names the
    start of each of its shapes once, and no other prompt asks the model to write one."""
    from web_research.report.gaps import bullet_line, subtopic_line

    template = prose(REFS / "report-template.md")
    shapes = re.findall(r"`(- \*\*[^`]*?) …`", template)
    written = [subtopic_line("<name>", "slug", "<status>", ["<bullet>"]), bullet_line("<bullet>", "not-established"),
               bullet_line("<bullet>", "partly")]
    assert len(shapes) == 3 and all(any(w.replace("\\", "").startswith(s) for w in written) for s in shapes), shapes
    assert all(any(w.replace("\\", "").startswith(s) for s in shapes) for w in written[:2])
    for path in (SKILL, REFS / "failure-modes.md", REFS / "second-wave.md"):
        assert "**Subtopic" not in path.read_text(encoding="utf-8") and "**Bullet" not in path.read_text(encoding="utf-8")


def test_the_example_and_the_scripted_model_leave_the_gaps_bullets_to_finish():
    """The example's Gaps lines are finish's, from fixed words and the plan: no researcher's reason (issue 43)."""
    from web_research.report.gaps import subtopic_line
    from web_research.run.plan import load_plan

    example = formats.PLUGIN_ROOT / "examples" / "observability-pricing" / "report.md"
    bullets = [b for b in example.read_text(encoding="utf-8").splitlines() if b.startswith("- **Subtopic")]
    assert bullets == [subtopic_line("Cost controls for high-volume logs", "cost-controls-for-high-volume-logs",
                                     "failed", [b.text for b in load_plan(example.parent / "plan.md").bullets
                                                if b.id in ("3.1", "3.2")])]
    assert "timed out" not in example.read_text(encoding="utf-8")  # the researcher's reason stays in its file
    scripted = (formats.PLUGIN_ROOT / "tests" / "e2e" / "scripted" / "orchestrator.py").read_text(encoding="utf-8")
    assert "**Subtopic" not in scripted and "**Bullet" not in scripted


def test_report_template_leaves_sources_to_finish():
    from web_research.checks.report_references import SHAPE

    text = prose(REFS / "report-template.md")
    assert "`finish` adds the fourth, `## Sources`" in text and f"`{SHAPE}`" in text
    assert "]: **Title**" not in text and "**Excerpt**" not in text  # no citation entry to copy


def test_citation_schema_says_where_each_date_comes_from():
    text = prose(REFS / "citation-schema.md")
    assert "the date part of the fetch command's `retrieved` stamp, never a date you supply" in text
    assert "the publication or last-update date the page itself states" in text


# --- the brief -----------------------------------------------------------------------------------

def test_brief_lists_the_other_subtopics_as_not_yours(tmp_path: Path):
    plan = parse_plan(VALID_PLAN)
    brief = render_brief(plan, plan.subtopics[0], tmp_path)
    assert "Not yours (other researchers cover these subtopics):\n- Enterprise discounts\n" in brief
    assert "- Pricing models\n\nBudget" not in brief
    alone = parse_plan(plan_text(subtopics={"Pricing models": ["Billing units"]}))
    assert "(none: the plan has only your subtopic)" in render_brief(alone, alone.subtopics[0], tmp_path)
    assert brief == render_brief(plan, plan.subtopics[0], tmp_path)  # byte-identical for one plan


def test_briefs_prints_the_prompt_to_dispatch(tmp_path: Path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "plan.md").write_text(VALID_PLAN, encoding="utf-8")
    for info in write_briefs(run):
        text = Path(info.brief_path).read_text(encoding="utf-8")
        assert info.prompt == compose_agent_prompt(text, info.brief_hash)
        assert info.to_json()["prompt"].endswith(f"\n\nBrief hash: {info.brief_hash}\n")


def test_brief_shows_the_findings_skeleton_the_verifier_checks():
    template = load_template()
    headings = re.findall(r"^## (.+)$", template, flags=re.M)
    assert headings == list(formats.FINDINGS_SECTIONS)
    assert "<" + " | ".join(formats.EXIT_REASONS) + ">" in template
    assert "## Claims\n\n{{claims_headings}}\n" in template  # the real `### <id> <point>` headings, rendered
    assert "at most {{max_words}} words" in template
    assert "this brief is wrong or impossible to research" in template
    assert "**Retrieved**: <the date of the fetch command's retrieved stamp" in template
    assert "**Published**: <the publication or update date the page states" in template


# --- the researcher -------------------------------------------------------------------------------

def test_researcher_states_the_spec_rules_real_runs_need():
    text = prose(AGENT)
    for rule in ("wrong or impossible to research", "`status: failed` and a reason saying what is wrong",
                 "instead of researching another question",
                 "no opinion, advice, praise or judgement of your own",
                 "After two failed fetches on one host, try no more pages there",
                 "A point whose every source is a blog or a forum goes under Not established",
                 "never your memory"):
        assert rule in text, rule


# --- verify on the findings body --------------------------------------------------------------------

FRONT = ('---\nstatus: ok\nsubtopic: "Pricing"\nbrief_hash: sha256:' + "a" * 64
         + "\nstarted_at: 2026-04-18T09:00:00Z\nfinished_at: 2026-04-18T09:05:00Z\n---\n\n")
ENTRY = '[^1]: **Title**: T\n      **URL**: https://a.example/p\n      **Excerpt**: "q"\n'


def _skeleton(claims: str = "- A claim[^1].\n", exit_line: str = "saturated: done.", extra: str = "") -> str:
    return (f"## Claims\n\n### Billing units\n\n{claims}\n## Not established\n\nNone.\n\n## Contradictions\n\n"
            f"None.\n\n## Searched and not found\n\nNone.\n\n## Exit reason\n\n{exit_line}\n{extra}\n"
            f"## Sources\n\n{ENTRY}")


def _warnings(tmp_path: Path, body: str) -> dict:
    path = tmp_path / "findings" / "x.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FRONT + body, encoding="utf-8")
    return {c.id.rsplit(".", 1)[1]: c for c in findings_checks("x", "Pricing", load_findings(path))
            if not c.ok and c.severity == "warning"}


def test_a_body_in_the_skeleton_raises_no_warning(tmp_path: Path):
    assert _warnings(tmp_path, _skeleton()) == {}


def test_a_body_out_of_the_skeleton_is_a_layout_warning(tmp_path: Path):
    assert set(_warnings(tmp_path, f"## Claims\n\n- A claim[^1].\n\n## Sources\n\n{ENTRY}")) == {"layout"}
    assert "expected it to start with one of" in _warnings(tmp_path, _skeleton(exit_line="done"))["layout"].message


def test_findings_over_the_word_cap_warn(tmp_path: Path):
    long = "- " + "word " * formats.FINDINGS_MAX_WORDS + "[^1].\n"
    found = _warnings(tmp_path, _skeleton(claims=long))
    assert set(found) == {"length"} and f"at most about {formats.FINDINGS_MAX_WORDS}" in found["length"].message


def test_uncited_claims_in_findings_warn_like_in_the_report(tmp_path: Path):
    found = _warnings(tmp_path, _skeleton(claims="- A claim[^1].\n- A claim with no source.\n"))
    assert set(found) == {"uncited"}


def test_claims_said_to_come_from_memory_warn(tmp_path: Path):
    found = _warnings(tmp_path, _skeleton(claims="- A claim[^1], and from memory the rest is free.\n"))
    assert set(found) == {"memory"}
    found = _warnings(tmp_path, _skeleton(extra="\nBased on training data, prices rose.\n"))
    assert "memory" in found


# --- Retrieved comes from the fetch stamp -----------------------------------------------------------

def test_a_retrieved_date_other_than_the_fetch_day_warns(tmp_path: Path):

    from web_research.checks.checklist import run_checklist
    from web_research.core.result import passed

    run = tmp_path / "run"
    copy_example_to(run)
    billing = run / "findings" / "billing-units-and-retention-tiers.md"
    text = billing.read_text(encoding="utf-8")
    billing.write_text(text.replace("**Retrieved**: 2026-04-18", "**Retrieved**: 2026-04-20", 1), encoding="utf-8")
    reseal(run)
    checks = run_checklist(run)
    bad = [c for c in checks if not c.ok]
    assert [c.id for c in bad] == ["findings.billing-units-and-retention-tiers.citations.retrieved"], bad
    assert bad[0].severity == "warning" and "2026-04-18" in bad[0].message and passed(checks)


def test_a_retrieved_date_without_a_snapshot_warns(tmp_path: Path):
    from web_research.checks.integrity import citation_integrity_checks
    from web_research.checks.citation_entries import parse_citations

    (tmp_path / "sources").mkdir()
    entry = ENTRY.replace('"q"\n', '"q"\n      **Retrieved**: 2026-04-18\n')
    checks = citation_integrity_checks(tmp_path, [(tmp_path / "report.md", c) for c in parse_citations(entry)])
    (dated,) = [c for c in checks if c.id == "report.citations.retrieved"]
    assert not dated.ok and "no page snapshot" in dated.message
