"""Coverage of the plan (bullet ids, `gaps`, `report.coverage.<id>`) and the one second wave."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from example_run import EXAMPLE_DIR, copy_example, failing, findings_path, judge_statements, replace_once, run_cli
from web_research import formats
from web_research.run.briefs import load_template, render_brief, write_briefs
from web_research.run.budget import effective_budget
from web_research.checks.checklist import run_checklist
from web_research.core.result import passed
from web_research.checks.claims import find_claims, grounding
from web_research.checks.coverage import (STATE_COVERED, STATE_MISSING, STATE_NOT_ESTABLISHED, STATE_PARTLY, bullet_states,
                                   load_findings_files)
from web_research.run.inputs import from_raw
from web_research.run.plan import PlanError, load_plan, parse_plan, second_wave_subtopics

EXAMPLE_PLAN = (EXAMPLE_DIR / formats.PLAN_FILE).read_text(encoding="utf-8")
# What finish wrote for the failed subtopic's open bullets, by their words
OPEN_BULLETS = (' Not established: "Which built-in controls vendors document for reducing billable log volume '
                '(sampling, filtering, exclusion rules)"; "Whether archived logs can be rehydrated and what that costs".')
SECOND_WAVE = """
## Second wave

### Vendor archive documentation
- 3.2: rehydration pages in each vendor's documentation
- 1.2: Northwind's retention options in its docs

### Practitioner cost reports
- 3.1
"""


def deep(plan: str) -> str:
    return plan.replace("## Budget\n", "## Budget\n\nTier: deep\n", 1)


def deepened(plan: str) -> str:
    return plan.replace("## Budget\n", "## Budget\n\nDeepen: yes\n", 1)


# --- plan.md: ids and the second wave --------------------------------------------------------------

def test_bullets_get_ids_from_their_place_in_the_plan():
    plan = parse_plan(EXAMPLE_PLAN)
    assert [b.id for b in plan.bullets] == ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "3.1", "3.2"]
    assert plan.bullets[3].text.startswith("What annual or multi-year commitment")
    assert plan.bullets[3].subtopic.name == "Enterprise commitments and overages"
    assert plan.second_wave == [] and second_wave_subtopics(plan) == []


@pytest.mark.parametrize("grant", [deep, deepened])
def test_a_second_wave_targets_first_wave_ids_where_the_budget_allows_it(grant):
    plan = parse_plan(grant(EXAMPLE_PLAN) + SECOND_WAVE)
    wave = second_wave_subtopics(plan)
    assert [s.slug for s in wave] == ["vendor-archive-documentation", "practitioner-cost-reports"]
    assert wave[0].targets == ("3.2", "1.2") and wave[1].targets == ("3.1",)
    assert wave[0].establish == ["rehydration pages in each vendor's documentation",
                                 "Northwind's retention options in its docs"]
    assert effective_budget(plan).second_wave
    assert len(plan.subtopics) == 3 and len(plan.all_subtopics) == 5


def test_a_second_wave_is_refused_when_the_tier_has_none():
    with pytest.raises(PlanError, match=r"'## Second wave' is not allowed .* 'Tier: deep' or 'Deepen: yes'") as error:
        parse_plan(EXAMPLE_PLAN.replace("## Budget\n", "## Budget\n\nTier: standard\n") + SECOND_WAVE)
    assert error.value.line == EXAMPLE_PLAN.count("\n") + 4  # the `## Second wave` heading


@pytest.mark.parametrize("section,message", [
    ("### Archives\n- 4.1: nothing\n", r"the bullet '4\.1: nothing'; expected it to start with the id of a first-wave bullet"),
    ("### Archives\n- look harder\n", r"expected it to start with the id"),
    ("### Archives\n- 3.1\n### Reports\n- 3.1\n", r"bullet 3\.1 is targeted by second-wave subtopics 'Archives' and 'Reports'"),
    ("### Billing units and retention tiers\n- 3.1\n", r"same slug 'billing-units-and-retention-tiers'"),
    ("".join(f"### Wave {n}\n- 1.{n}\n" for n in (1, 2, 3)) + "### Wave 4\n- 2.1\n", r"found 4 second-wave subtopics; expected 1 to 3"),
    ("### Archives\n", r"second-wave subtopic 'Archives' has no bullets"),
])
def test_second_wave_mistakes_name_their_line(section, message):
    with pytest.raises(PlanError, match=message):
        parse_plan(deep(EXAMPLE_PLAN) + "\n## Second wave\n\n" + section)


def test_deepen_in_the_contract_is_a_strict_boolean():
    assert from_raw('research_question: "Q?"\ndeepen: true').deepen is True
    assert from_raw('research_question: "Q?"').deepen is False
    with pytest.raises(ValueError, match="deepen"):
        from_raw('research_question: "Q?"\ndeepen: yes')


def test_start_prints_deepen(tmp_path):
    result = run_cli("start", "--args", f'research_question: "Q?"\noutput_dir: "{tmp_path / "run"}"\ndeepen: true')
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["deepen"] is True


# --- briefs ------------------------------------------------------------------------------------------

def test_second_wave_briefs_leave_the_first_wave_byte_identical(tmp_path):
    run = copy_example(tmp_path)
    (run / formats.PLAN_FILE).write_text(deep(EXAMPLE_PLAN), encoding="utf-8")
    first = {b.slug: (b.brief_hash, Path(b.brief_path).read_bytes()) for b in write_briefs(run)}
    (run / formats.PLAN_FILE).write_text(deep(EXAMPLE_PLAN) + SECOND_WAVE, encoding="utf-8")
    both = write_briefs(run)
    assert {b.slug: (b.brief_hash, Path(b.brief_path).read_bytes()) for b in both if b.wave == 1} == first
    second = [b for b in both if b.wave == 2]
    assert [(b.slug, b.bullets) for b in second] == [("vendor-archive-documentation", ("3.2", "1.2")),
                                                    ("practitioner-cost-reports", ("3.1",))]
    text = Path(second[0].brief_path).read_text(encoding="utf-8")
    assert ("- 3.2 Whether archived logs can be rehydrated and what that costs "
            "(approach: rehydration pages in each vendor's documentation)\n"
            "- 1.2 How the retention period (hot, warm, archive) changes the price per unit "
            "(approach: Northwind's retention options in its docs)\n") in text
    assert "- Practitioner cost reports\n" in text and "- Billing units and retention tiers\n" in text
    assert second[0].to_json()["bullets"] == ["3.2", "1.2"]


def test_the_brief_template_tells_the_researcher_to_organise_by_id():
    template = load_template()
    assert "Establish (each point starts with its id):" in template
    assert "{{claims_headings}}" in template and "- <id>: <each point" in template
    plan = parse_plan(EXAMPLE_PLAN)
    brief = render_brief(plan, plan.subtopics[2], EXAMPLE_DIR)
    assert "\n- 3.1 Which built-in controls" in brief and "\n- 3.2 Whether archived logs" in brief
    assert "\n### 3.1 Which built-in controls" in brief and "\n### 3.2 Whether archived logs" in brief


# --- gaps -------------------------------------------------------------------------------------------

def test_gaps_json_lists_every_bullet_with_its_state():
    result = run_cli("gaps", str(EXAMPLE_DIR), "--json")
    assert result.returncode == 0, result.stderr
    bullets = json.loads(result.stdout)["bullets"]
    # 1.2 and 2.3 are established only in part: their findings cite sources under them and name
    # the rest under Not established
    assert [(b["id"], b["state"]) for b in bullets] == [
        ("1.1", "covered"), ("1.2", "partly"), ("1.3", "covered"),
        ("2.1", "covered"), ("2.2", "covered"), ("2.3", "partly"), ("3.1", "missing"), ("3.2", "missing")]
    assert [b["id"] for b in bullets if b.get("partly")] == ["1.2", "2.3"]
    assert "Northwind's retention prices" in bullets[1]["reason"] and bullets[1]["footnotes"]
    assert "researcher" in bullets[1]["reason_by"]  # the researcher's words, marked so
    # the references that cover it, to cite as they are
    assert bullets[1]["references"] == [f"[^billing-units-and-retention-tiers:{n}]" for n in (4, 2, 5)]
    assert bullets[0]["subtopic"] == "Billing units and retention tiers"
    assert bullets[0]["footnotes"] == [{"findings": "findings/billing-units-and-retention-tiers.md",
                                        "footnotes": [1, 2, 3]}]
    assert "page fetch timed out" in bullets[6]["reason"]
    text = run_cli("gaps", str(EXAMPLE_DIR))
    assert text.returncode == 0 and text.stdout.rstrip().endswith("uncovered: 1.2, 2.3, 3.1, 3.2")
    partly = text.stdout[text.stdout.index("1.2  partly"):text.stdout.index("1.3  covered")]
    assert "cite: [^billing-units-and-retention-tiers:4] [^billing-units-and-retention-tiers:2]" in partly
    assert "missing, in the researcher's words: \"1.2: Northwind's retention prices" in partly


def test_a_bullet_with_no_cited_claim_is_not_established_with_its_reason(tmp_path):
    run = copy_example(tmp_path)
    path = findings_path(run, "enterprise-commitments-and-overages")
    replace_once(path, "- Lumen Logs publishes up to 30% off for multi-year terms[^2].\n", "")
    plan = load_plan(run / formats.PLAN_FILE)
    state = {s.bullet.id: s for s in bullet_states(plan, load_findings_files(run, plan))}
    assert state["2.3"].state == STATE_NOT_ESTABLISHED
    assert state["2.3"].reason.startswith("2.3: Discounts published by Acme or Northwind")
    assert state["2.2"].state == STATE_COVERED


def test_a_missing_findings_file_leaves_its_bullets_missing_until_a_second_wave_covers_them(tmp_path):
    run = copy_example(tmp_path)
    (run / formats.PLAN_FILE).write_text(deep(EXAMPLE_PLAN) + SECOND_WAVE, encoding="utf-8")
    plan = load_plan(run / formats.PLAN_FILE)
    state = {s.bullet.id: s.state for s in bullet_states(plan, load_findings_files(run, plan))}
    assert state["3.1"] == state["3.2"] == STATE_MISSING
    # the second wave's file answers 3.1 (a claim under its heading) and says why 3.2 stays open
    billing = findings_path(run, "billing-units-and-retention-tiers").read_text(encoding="utf-8")
    entry = billing[billing.index("[^1]: **Title**"):].split("\n\n")[0]
    findings_path(run, "practitioner-cost-reports").write_text(
        "---\nstatus: ok\nsubtopic: \"Practitioner cost reports\"\nbrief_hash: sha256:" + "0" * 64 +
        "\nstarted_at: 2026-04-18T10:00:00Z\nfinished_at: 2026-04-18T10:05:00Z\n---\n\n## Claims\n\n"
        "### 3.1 Which built-in controls\n\n- Acme bills data ingested and events indexed separately[^1].\n\n"
        "## Sources\n\n" + entry.replace("[^1]:", "[^1]:", 1) + "\n", encoding="utf-8")
    state = {s.bullet.id: s for s in bullet_states(plan, load_findings_files(run, plan))}
    assert state["3.1"].state == STATE_COVERED
    assert [(e.findings.name, e.footnotes) for e in state["3.1"].evidence if e.footnotes] == [
        ("practitioner-cost-reports.md", [1])]
    assert state["3.2"].state == STATE_MISSING  # its second-wave subtopic has no findings yet


def test_a_heading_of_another_subtopics_bullet_does_not_count(tmp_path):
    run = copy_example(tmp_path)
    path = findings_path(run, "billing-units-and-retention-tiers")
    replace_once(path, "### 1.3 Whether indexing", "### 2.3 Whether indexing")
    plan = load_plan(run / formats.PLAN_FILE)
    state = {s.bullet.id: s for s in bullet_states(plan, load_findings_files(run, plan))}
    assert state["1.3"].state == STATE_NOT_ESTABLISHED
    assert all(e.findings.name != path.name or not e.footnotes for e in state["2.3"].evidence)


# --- verify -----------------------------------------------------------------------------------------

def test_the_example_covers_every_bullet():
    checks = [c for c in run_checklist(EXAMPLE_DIR) if c.id.startswith("report.coverage.")]
    assert [c.id for c in checks] == [f"report.coverage.{i}" for i in
                                      ("1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "3.1", "3.2")]
    assert all(c.ok for c in checks)


def _unname_open_bullets(run) -> None:
    """finish's line for the failed subtopic replaced by one of the model's that names the subtopic but
    not the bullets it leaves open (in a form Gaps & Limitations allows: checks/gaps_prose.py)."""
    report = run / formats.REPORT_FILE
    text = report.read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if line.startswith('- **Subtopic "Cost controls') and OPEN_BULLETS in line)
    report.write_text(text.replace(line, '- The pages read do not establish subtopic "Cost controls for high-volume '
                                         'logs".'), encoding="utf-8")


def test_verify_fails_on_a_bullet_neither_cited_nor_named_in_gaps(tmp_path):
    run = copy_example(tmp_path)
    _unname_open_bullets(run)
    judge_statements(run)  # its new statement of absence, judged as a checker would
    bad = failing(run_checklist(run))
    assert set(bad) == {"report.coverage.3.1", "report.coverage.3.2"}
    assert "bullet 3.1" in bad["report.coverage.3.1"].message and "Gaps & Limitations" in bad["report.coverage.3.1"].message
    result = run_cli("verify", str(run))
    assert result.returncode == 1 and "report.coverage.3.2" in result.stdout


def test_a_bullet_named_by_its_text_in_gaps_passes(tmp_path):
    run = copy_example(tmp_path)
    _unname_open_bullets(run)
    replace_once(run / formats.REPORT_FILE, "- No page read gives a price for rehydrating archived logs.",
                 "- No page read gives a price for rehydrating archived logs.\n"
                 "- The pages read do not establish which built-in controls vendors document for reducing billable log "
                 "volume (sampling, filtering, exclusion rules); whether archived logs can be rehydrated and what that "
                 "costs.")
    judge_statements(run)
    assert passed(run_checklist(run)), [f"{c.id}: {c.message}" for c in failing(run_checklist(run)).values()]


def test_a_bullet_its_findings_no_longer_support_fails_until_gaps_names_it(tmp_path):
    run = copy_example(tmp_path)
    # 2.3 rests on one findings claim; without it, no source the report cites stands under 2.3
    replace_once(findings_path(run, "enterprise-commitments-and-overages"),
                 "- Lumen Logs publishes up to 30% off for multi-year terms[^2].\n", "")
    report = (run / formats.REPORT_FILE).read_text(encoding="utf-8")
    (run / formats.REPORT_FILE).write_text("\n".join(line for line in report.split("\n") if not line.startswith(
        "- **What discounts are published for committed volume**")), encoding="utf-8")
    judge_statements(run)
    bad = failing(run_checklist(run))
    assert set(bad) == {"report.coverage.2.3"}
    assert "its state is not-established" in bad["report.coverage.2.3"].message
    replace_once(run / formats.REPORT_FILE, "## Sources\n",
                 "- The pages read do not establish bullet 2.3 (published committed-volume discounts) on a vendor "
                 "page.\n\n"
                 "## Sources\n")
    judge_statements(run)
    assert passed(run_checklist(run))


def test_runs_whose_briefs_carry_no_ids_verify_as_before(tmp_path):
    run = copy_example(tmp_path)
    _unname_open_bullets(run)
    for brief in (run / formats.BRIEFS_DIR).glob("*.md"):
        brief.write_text(re.sub(r"^- \d\.\d ", "- ", brief.read_text(encoding="utf-8"), flags=re.M),
                         encoding="utf-8")
    judge_statements(run)
    checks = run_checklist(run)
    assert not [c for c in checks if c.id.startswith("report.coverage.")]
    assert {c.id for c in checks if not c.ok and c.severity == "error"} == {
        f"findings.{slug}.brief_hash" for slug in ("billing-units-and-retention-tiers",
                                                   "enterprise-commitments-and-overages")}


def test_a_second_wave_subtopic_is_checked_and_named_like_any_other(tmp_path):
    run = copy_example(tmp_path)
    (run / formats.PLAN_FILE).write_text(deep(EXAMPLE_PLAN) + SECOND_WAVE, encoding="utf-8")
    bad = failing(run_checklist(run))
    assert "findings.vendor-archive-documentation.exists" in bad
    assert "report.gaps.names.vendor-archive-documentation" in bad
    assert "findings.unexpected" not in bad


# --- claims: ids are not figures --------------------------------------------------------------------

def test_a_bullet_id_label_or_mention_is_not_a_figure():
    text = ("- 2.3: only a forum post reports a discount[^1].\n\n"
            "Bullets 1.2 and 3.1 rest on one vendor page[^1].\n")
    claims = find_claims(text)
    assert [grounding(c, ["A discount exists."]).missing for c in claims] == [(), ()]
    assert grounding(find_claims("- It costs 2.3 per GB[^1].\n")[0], ["It costs little."]).missing


# --- the prompts agree with the code ----------------------------------------------------------------

REFERENCES = formats.PLUGIN_ROOT / "skills" / "web-research" / "references"


def test_second_wave_reference_shows_a_section_the_parser_accepts_and_states_the_cap():
    text = (REFERENCES / "second-wave.md").read_text(encoding="utf-8")
    block = re.search(r"```markdown\n(## Second wave\n.*?)```", text, flags=re.S).group(1)
    filled = block.replace("<new subtopic name, distinct from every other subtopic>", "Vendor archives")
    filled = re.sub(r"- <id of an uncovered bullet, such as 2.1>: <[^>]+>", "- 2.1: price lists", filled)
    filled = re.sub(r"- <another id this subtopic targets>: <\.\.\.>", "- 2.2: contract pages", filled)
    plan = parse_plan(deep(EXAMPLE_PLAN) + "\n" + filled)
    assert [s.targets for s in plan.second_wave] == [("2.1", "2.2")]
    assert f"1 to {formats.MAX_SECOND_WAVE_SUBTOPICS} subtopics" in text
    assert f"`{formats.PLAN_DEEPEN_LINE}: yes`" in text and "`Tier: deep`" in text


def test_skill_runs_gaps_and_points_to_the_second_wave_and_the_deepen_line():
    skill = (formats.PLUGIN_ROOT / "skills" / "web-research" / "SKILL.md").read_text(encoding="utf-8")
    assert '/scripts/web-research" gaps "<output_dir>"' in skill
    assert "references/second-wave.md" in skill and f"`{formats.PLAN_DEEPEN_LINE}: yes`" in skill
    assert "`deepen`" in skill


def test_report_template_states_the_coverage_rule_verify_checks():
    text = (REFERENCES / "report-template.md").read_text(encoding="utf-8")
    assert "`report.coverage.<id>`" in text and "by its id or its full text" in text
    assert "`### <id>` heading" in text
    researcher = (formats.PLUGIN_ROOT / "agents" / "researcher.md").read_text(encoding="utf-8")
    assert "`### <id> <point>`" in researcher and "`- <id>: <why>`" in researcher


def test_the_dispatch_guard_accepts_a_second_wave_brief_like_any_other(tmp_path):
    from web_research.guard.briefs_match import load_briefs
    from web_research.guard.rules.dispatch import decide_dispatch
    from web_research.guard.state import Run

    run = copy_example(tmp_path)
    (run / formats.PLAN_FILE).write_text(deep(EXAMPLE_PLAN) + SECOND_WAVE, encoding="utf-8")
    infos = write_briefs(run)
    record = Run.from_json({"run_dir": str(run), "briefs": [i.to_json() for i in infos]})
    second = next(i for i in infos if i.wave == 2)
    decision = decide_dispatch(record, {"prompt": second.prompt}, "tool-1", load_briefs(run), now=0.0)
    assert decision.action == "allow" and second.slug in decision.reason
    forged = decide_dispatch(record, {"prompt": second.prompt.replace("3.2", "3.1", 1)}, "tool-2",
                             load_briefs(run), now=0.0)
    assert forged.updated_input is None or forged.updated_input["prompt"] == second.prompt


def test_a_bullet_named_in_part_under_not_established_is_no_covered_bullet(tmp_path):
    """The researcher's Not established names a bullet it cites sources for, by id or by its words:
    gaps does not count it covered, and finish writes it into Gaps by its words (issue 36)."""
    run = copy_example(tmp_path)
    path = findings_path(run, "enterprise-commitments-and-overages")
    plan = load_plan(run / formats.PLAN_FILE)
    state = {s.bullet.id: s for s in bullet_states(plan, load_findings_files(run, plan))}
    assert state["2.3"].state == STATE_PARTLY and state["2.3"].partly
    replace_once(path, "- 2.3: Discounts published by Acme or Northwind:",
                 "- Part of what discounts are published for committed volume: those of Acme or Northwind;")
    state = {s.bullet.id: s for s in bullet_states(plan, load_findings_files(run, plan))}
    assert state["2.3"].state == STATE_PARTLY and state["2.3"].partly  # named by its words
    assert state["2.2"].state == STATE_COVERED
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:text.index("## Not established")] + text[text.index("## Contradictions"):], encoding="utf-8")
    state = {s.bullet.id: s for s in bullet_states(plan, load_findings_files(run, plan))}
    assert state["2.3"].state == STATE_COVERED  # the researcher no longer says any of it is open


def test_the_orchestrator_is_shown_the_references_of_each_covered_or_partly_bullet():
    """Issue 42: the coverage given when the last researcher returns said "citing the footnotes shown"
    and showed none; a bullet established in part was listed as not established. Now each bullet
    shows the references to cite, `partly` is a state of its own, and what is missing is quoted as
    the researcher's words, also when the list is cut to fit."""
    from web_research.report import steps

    plan = load_plan(EXAMPLE_DIR / formats.PLAN_FILE)
    states = bullet_states(plan, load_findings_files(EXAMPLE_DIR, plan))
    text = steps.report_text(states, EXAMPLE_DIR, "TEMPLATE")
    assert "cite the references shown" in text and "1.2  partly" in text and "2.3  partly" in text
    assert "      cite: [^billing-units-and-retention-tiers:4] [^billing-units-and-retention-tiers:2]" in text
    assert "missing, in the researcher's words: \"2.3: Discounts published by Acme or Northwind" in text
    many = states * 12  # past MAX_GAPS: the short form keeps each bullet's references
    cut = steps.report_text(many, EXAMPLE_DIR, "TEMPLATE")
    assert "researcher's words" not in cut and cut.count("cite: [^billing-units-and-retention-tiers:4]") == 12
