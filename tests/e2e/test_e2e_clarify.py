"""Scenario: clarifying questions shown at the review gate, then the answers recorded in plan.md.

Print mode offers no AskUserQuestion, so the first session shows the plan, its
estimate and the questions in plain text and ends its turn. The second session
continues the same conversation (`--continue`) with the user's answers: they land
under `## Scope notes` in plan.md, the question stays verbatim, the plan is shown
again, and the briefs the core renders from it carry the answers.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.clarify import ANSWERS, QUESTIONS, USER_ANSWER

from web_research import formats

QUESTION = "How do observability vendors price log storage?"


def _asked_then_answered(run):
    asked = run(RunSpec(prompt=f"/web-research {QUESTION}", scenario="scripted.clarify:build"))
    (_use, opened), = outcome.bash_runs(asked, "start")
    plan = Path(outcome.json_of(opened)["plan"])
    plan_after_questions = plan.read_text(encoding="utf-8")
    answered = run(RunSpec(prompt=USER_ANSWER, scenario="scripted.clarify:build", extra_args=["--continue"]),
                   project=asked.cwd, home=asked.home)
    return {"asked": asked, "answered": answered, "plan": plan, "plan_after_questions": plan_after_questions}


SESSIONS = {"clarify": _asked_then_answered}


@pytest.fixture(scope="module")
def runs(e2e_session):
    runs = e2e_session("clarify")
    for key in ("asked", "answered"):
        result = runs[key]
        assert result.exit_code == 0 and not result.timed_out and result.errors == [], result.describe()
    return runs


def test_the_questions_are_shown_with_the_plan_at_the_review_gate(runs):
    final = runs["asked"].stream.final_text()
    assert str(runs["plan"]) in final
    for question in QUESTIONS:
        assert question in final, final
    assert outcome.bash_runs(runs["asked"], "estimate")
    assert runs["asked"].stream.tool_uses("Agent") == [] and outcome.bash_runs(runs["asked"], "briefs") == []
    assert f"## {formats.PLAN_SECTION_SCOPE_NOTES}" not in runs["plan_after_questions"]


def test_the_answers_are_recorded_under_scope_notes_and_the_question_stays_verbatim(runs):
    text = runs["plan"].read_text(encoding="utf-8")
    notes = text.split(f"## {formats.PLAN_SECTION_SCOPE_NOTES}\n", 1)[1].split("\n## ", 1)[0]
    assert [line[2:] for line in notes.strip().splitlines()] == ANSWERS
    from web_research.plan import parse_plan

    assert parse_plan(text).question == QUESTION == parse_plan(runs["plan_after_questions"]).question
    assert runs["answered"].stream.tool_uses("Agent") == []  # the user has not confirmed yet
    assert "## Scope notes" in runs["answered"].stream.final_text()


def test_every_brief_rendered_from_the_answered_plan_carries_the_answers(runs, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(runs["plan"].parent, copy)
    done = subprocess.run([str(outcome.CORE), "briefs", str(copy)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    briefs = sorted((copy / formats.BRIEFS_DIR).glob("*.md"))
    assert len(briefs) == 3
    for brief in briefs:
        text = brief.read_text(encoding="utf-8")
        assert QUESTION in text and all(answer in text for answer in ANSWERS), text[:800]
