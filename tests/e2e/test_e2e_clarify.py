"""Scenario: clarifying questions shown at the review gate, then the answers recorded in plan.md.

Print mode offers no AskUserQuestion, so the first session shows the plan, its
estimate and the questions in plain text and ends its turn. The second session
continues the same conversation (`--continue`) with the user's answers: they land
under `## Scope notes` in plan.md, the question stays verbatim and the plan is shown
again. A third turn confirms it: every researcher's brief carries the answers under the
question, and the run ends verified.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.clarify import ANSWERS, QUESTIONS, USER_ANSWER, USER_CONFIRMS

from web_research import formats

QUESTION = "How do observability vendors price log storage?"


def _asked_then_answered(run):
    asked = run(RunSpec(prompt=f"/web-research {QUESTION}", scenario="scripted.clarify:build"))
    (_use, opened), = outcome.bash_runs(asked, "start")
    plan = Path(outcome.json_of(opened)["plan"])
    plan_after_questions = plan.read_text(encoding="utf-8")
    answered = run(RunSpec(prompt=USER_ANSWER, scenario="scripted.clarify:build", extra_args=["--continue"]),
                   project=asked.cwd, home=asked.home)
    plan_after_answers = plan.read_text(encoding="utf-8")
    confirmed = run(RunSpec(prompt=USER_CONFIRMS, scenario="scripted.clarify:build", extra_args=["--continue"],
                            timeout=150),
                    project=asked.cwd, home=asked.home)
    return {"asked": asked, "answered": answered, "confirmed": confirmed, "plan": plan,
            "plan_after_questions": plan_after_questions, "plan_after_answers": plan_after_answers}


SESSIONS = {"clarify": _asked_then_answered}


@pytest.fixture(scope="module")
def runs(e2e_session):
    runs = e2e_session("clarify")
    for key in ("asked", "answered", "confirmed"):
        result = runs[key]
        outcome.ended_cleanly(result)
    return runs


def test_the_questions_are_shown_with_the_plan_at_the_review_gate(runs):
    final = runs["asked"].stream.final_text()
    assert str(runs["plan"]) in final
    for question in QUESTIONS:
        assert question in final, final
    assert outcome.told(runs["asked"], "estimate")  # the plugin ran it when the plan was written
    assert runs["asked"].stream.tool_uses("Agent") == [] and outcome.told(runs["asked"], "briefs") == []
    assert f"## {formats.PLAN_SECTION_SCOPE_NOTES}" not in runs["plan_after_questions"]


def test_the_answers_are_recorded_under_scope_notes_and_the_question_stays_verbatim(runs):
    text = runs["plan_after_answers"]
    notes = text.split(f"## {formats.PLAN_SECTION_SCOPE_NOTES}\n", 1)[1].split("\n## ", 1)[0]
    assert [line[2:] for line in notes.strip().splitlines()] == ANSWERS
    from web_research.run.plan import parse_plan

    assert parse_plan(text).question == QUESTION == parse_plan(runs["plan_after_questions"]).question
    assert runs["answered"].stream.tool_uses("Agent") == []  # the user has not confirmed yet
    assert "## Scope notes" in runs["answered"].stream.final_text()


def test_once_confirmed_every_researcher_gets_the_answers_under_the_question(runs):
    confirmed = runs["confirmed"]
    assert runs["plan"].read_text(encoding="utf-8") == runs["plan_after_answers"]
    # what each researcher received: the hook puts its brief in place of `Brief: <brief_path>`
    firsts: dict[str, str] = {}
    for req in confirmed.requests:
        if req.kind == "subagent" and req.agent_id not in firsts and req.agent_id in outcome.researcher_spans(confirmed):
            firsts[req.agent_id] = req.first_user_text
    prompts = list(firsts.values())
    briefs = sorted((runs["plan"].parent / formats.BRIEFS_DIR).glob("*.md"))
    assert len(prompts) == len(briefs) == 3
    for text in [*prompts, *(b.read_text(encoding="utf-8") for b in briefs)]:
        assert QUESTION in text and all(answer in text for answer in ANSWERS), text[:800]
        assert text.index(QUESTION) < text.index(ANSWERS[0])


def test_the_confirmed_run_ends_verified(runs):
    answer = outcome.return_object(runs["confirmed"])
    assert set(answer) == set(formats.RETURN_PATH_KEYS), answer
    assert outcome.verify(runs["plan"].parent).returncode == 0
    assert runs["confirmed"].stream.blocks("Stop") == [], runs["confirmed"].describe()
