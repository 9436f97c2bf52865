"""Scenario: the skill opened through the Skill tool without `args`.

A user types "research X" in a plain session; the model opens web-research with
the Skill tool and no arguments, so the skill body's start heredoc is empty
and `start` alone would answer `invalid-input`. SKILL.md says to put the
user's question there verbatim; the scripted model does so only because the
body it received says so, and the run reaches the review gate with the
question in plan.md.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.no_args import SKILL

from web_research import formats

QUESTION = "Which log retention periods do managed log services offer by default?"

SESSIONS = {"no_args": lambda run: run(RunSpec(prompt=f"Please research this question: {QUESTION}",
                                                scenario="scripted.no_args:build"))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("no_args")
    outcome.ended_cleanly(result)
    return result


def test_the_skill_was_opened_without_args(run):
    (use,) = run.stream.tool_uses("Skill")
    assert use["input"] == {"skill": SKILL}, use
    assert not outcome.tool_result_is_error(run, use["id"]), run.stream.tool_result_text(use["id"])


def test_start_received_the_users_question_and_opened_the_run(run):
    (start, output), = outcome.bash_runs(run, "start")
    assert f"\n{QUESTION}\n" in start["input"]["command"], start["input"]["command"]
    opened = outcome.json_of(output)
    assert "error" not in opened, opened
    assert opened["research_question"] == QUESTION
    plan = Path(opened["plan"])
    assert plan.is_file() and f"\n{QUESTION}\n" in plan.read_text(encoding="utf-8")
    assert formats.ERROR_INVALID_INPUT not in run.stream.final_text()
