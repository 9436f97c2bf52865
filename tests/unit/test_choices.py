"""The person's choices at `start` (the question and the tier) are held by code: plan.md refines
subtopics, and whatever reads the tier (briefs, estimate, gaps, the hooks' budgets, verify's
claim-check requirement) reads it held to start's record."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import run_cli
from hook_harness import QUESTION, plan_text
from web_research.run.choices import load_run_plan, read_start_record
from web_research.run.plan import PlanError, parse_plan
from example_run import copy_example_to

PLAN = plan_text(["Billing units", "Retention tiers"])  # its Budget says 'Tier: standard'


def _started(tmp_path: Path, *flags: str) -> Path:
    run = tmp_path / "run"
    result = run_cli(["start", "--question", QUESTION, "--output-dir", str(run), *flags], tmp_path)
    assert result.returncode == 0, result.stderr + result.stdout
    return run


def test_a_plan_whose_tier_differs_from_the_record_is_refused_and_told_what_to_write():
    for text, stated in ((PLAN.replace("Tier: standard", "Tier: quick"), "'Tier: quick'"),
                         (PLAN.replace("Tier: standard\n", ""), "no 'Tier:' line")):
        with pytest.raises(PlanError) as error:
            parse_plan(text, Path("/r/plan.md"), expected_tier="standard")
        line = text.splitlines().index("## Budget") + 1 + (stated != "no 'Tier:' line") * 2
        assert error.value.line == line, str(error.value)
        assert stated in str(error.value) and "write 'Tier: standard' under '## Budget'" in str(error.value)
    assert parse_plan(PLAN, expected_tier="standard").tier == "standard"
    assert parse_plan(PLAN.replace("Tier: standard", "Tier: quick")).tier == "quick"  # no record: no rule


def test_deepen_is_the_persons_too():
    with pytest.raises(PlanError, match="write 'Deepen: yes'"):
        parse_plan(PLAN, expected_tier="standard", expected_deepen=True)
    with pytest.raises(PlanError, match="remove the 'Deepen: yes' line"):
        parse_plan(PLAN + "Deepen: yes\n", expected_tier="standard", expected_deepen=False)
    assert parse_plan(PLAN + "Deepen: yes\n", expected_tier="standard", expected_deepen=True).deepen


@pytest.mark.parametrize("command", ["briefs", "estimate", "gaps"])
def test_the_run_commands_refuse_a_lowered_tier(tmp_path: Path, command: str):
    run = _started(tmp_path, "--tier", "deep")
    assert read_start_record(run).tier == "deep"
    (run / "plan.md").write_text(PLAN.replace("Tier: standard", "Tier: quick"), encoding="utf-8")
    result = run_cli([command, str(run)], tmp_path)
    assert result.returncode != 0 and "write 'Tier: deep'" in result.stderr, result.stdout + result.stderr
    assert not (run / "briefs").exists()
    (run / "plan.md").write_text(PLAN.replace("Tier: standard", "Tier: deep"), encoding="utf-8")
    assert load_run_plan(run).tier == "deep"


def test_verify_holds_the_claim_check_the_person_asked_for(tmp_path: Path):
    """The bundled example passes with no Tier line (no claim check). Opened by a start that
    recorded the default tier, the same files fail: dropping the Tier line skips no check."""
    run = tmp_path / "run"
    copy_example_to(run)
    assert run_cli(["verify", str(run)], tmp_path).returncode == 0
    question = parse_plan((run / "plan.md").read_text(encoding="utf-8")).question
    (run / ".web-research" / "start.json").write_text(json.dumps(
        {"research_question": question, "tier": "standard", "deepen": False}), encoding="utf-8")
    result = run_cli(["verify", str(run)], tmp_path)
    assert result.returncode == 1 and "plan.parses" in result.stdout and "write 'Tier: standard'" in result.stdout


def test_the_hooks_budgets_follow_the_record(tmp_path: Path):
    from web_research.guard.handlers.post_briefs import run_limits

    run = _started(tmp_path, "--tier", "standard")
    (run / "plan.md").write_text(PLAN.replace("Tier: standard", "Tier: deep"), encoding="utf-8")
    assert run_limits(str(run)).max_dispatches is None  # refused: not the deep tier's wider budget
    (run / "plan.md").write_text(PLAN, encoding="utf-8")
    assert run_limits(str(run)).max_dispatches is not None
