"""Scenario 9: five researchers for a three-subtopic plan.

The scripted orchestrator sends one message with five Agent calls: the three
rendered briefs, a duplicate of the first, and a free-form prompt. The
PreToolUse hook denies the two extras; the three real researchers run and the
run completes with a passing report.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"


SESSIONS = {"five": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}",
                                             scenario="scripted.research:build",
                                             scenario_args={"extra_dispatches": 2}))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("five")
    outcome.ended_cleanly(result)
    return result


def test_five_dispatched_in_one_message_two_denied(run):
    groups = outcome.researcher_dispatches(run)
    assert [len(g) for g in groups] == [5], groups
    denied = [u for u in groups[0] if outcome.tool_result_is_error(run, u["id"])]
    assert len(denied) == 2, run.describe()
    assert len(run.stream.denials()) >= 2, run.describe()
    prompts = [u["input"]["prompt"] for u in denied]
    assert any("Research anything else" in p for p in prompts), "the free-form prompt was not denied"


def test_only_three_researchers_ran(run):
    assert len(outcome.researcher_spans(run)) == 3


def test_run_still_completes(run):
    answer = outcome.return_object(run)
    run_dir = Path(answer["plan"]).parent
    found = sorted(p.name for p in (run_dir / formats.FINDINGS_DIR).glob("*.md"))
    assert len(found) == 3
    assert outcome.verify(run_dir).returncode == 0
