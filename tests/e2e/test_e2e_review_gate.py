"""Scenario 2: without auto-proceed the run stops after plan.md and waits.

The plan carries the tier the caller chose, `estimate` runs on it (allowed by
the PreToolUse guard) and its output is shown with the plan. No brief is
rendered, no researcher starts, and the Stop hook lets the session end at the
gate (there is no report to check yet).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats

QUESTION = "Which open-source licences do the main vector databases use?"


# The fully qualified command name here; the other scenarios use the short `/web-research`.
SESSIONS = {"gate": lambda run: run(RunSpec(prompt=f"/web-research:web-research --tier quick {QUESTION}",
                                            scenario="scripted.research:build"))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("gate")
    outcome.ended_cleanly(result)
    return result


def test_stops_after_the_plan_and_shows_it(run):
    (start, output), = outcome.bash_runs(run, "start")
    plan = Path(outcome.json_of(output)["plan"])
    assert plan.is_file() and QUESTION in plan.read_text()
    assert str(plan) in run.stream.final_text(), run.stream.final_text()
    run_dir = plan.parent
    assert not (run_dir / formats.REPORT_FILE).exists()
    assert outcome.tree_bytes(run_dir / formats.BRIEFS_DIR) == {}
    assert outcome.tree_bytes(run_dir / formats.FINDINGS_DIR) == {}


def test_the_estimate_of_the_plan_is_shown_at_the_gate(run):
    (start, output), = outcome.bash_runs(run, "start")
    opened = outcome.json_of(output)
    assert opened["tier"] == "quick"
    plan = Path(opened["plan"])
    assert "Tier: quick" in plan.read_text().splitlines()
    (told,) = outcome.told(run, "estimate")  # the plugin ran it when plan.md was written
    assert outcome.bash_runs(run, "estimate") == []
    estimate = told.split("\n\n", 1)[1]
    lines = estimate.strip().splitlines()
    assert lines[0] == f"Estimate for {plan.parent} (tier: quick)", estimate
    assert any(line.startswith("  searches        at most 6 (3 per researcher)") for line in lines), estimate
    assert any(line.startswith("  tokens          about ") for line in lines), estimate
    final = run.stream.final_text()
    for line in lines:
        assert line in final, (line, final)


def test_the_guard_let_the_plan_be_written_without_a_prompt(run):
    specs = [run.stream.decision_of(e).get("hookSpecificOutput") or {} for e in run.stream.hook_responses("PreToolUse")]
    allowed = [s for s in specs if s.get("permissionDecision") == "allow"
               and "plan.md gets the question" in str(s.get("permissionDecisionReason"))]
    assert len(allowed) == 1, (specs, run.describe())


def test_no_researcher_starts(run):
    assert run.stream.tool_uses("Agent") == []
    assert [r for r in run.requests if r.kind != "main"] == []
    assert outcome.told(run, "briefs") == []


def test_stop_hook_waits_without_blocking(run):
    assert run.stream.blocks("Stop") == [], run.describe()
    assert run.stream.system_messages() == [], run.describe()
