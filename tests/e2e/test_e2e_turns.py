"""The turns of an honest run, and of a run with one real fix, in the real client (issue 42).

An honest standard run whose plan bullets hold figures, versions, codes and dates, with one
bullet established only in part and one not at all: finish's first answer is the claim-checker's
dispatch (no failure on a line the plugin wrote, its Gaps lines included), the run verifies after
the checker's one round, and the orchestrator takes 6 turns: start, plan, dispatch, report,
checker, final message.

A run with one real fix (a figure that drifted from its excerpt): finish's answer quotes each
failing line as report.md holds it after finish numbered its references, and the orchestrator
writes its Edits from those quotes alone, with no Read, then finishes, in one message: 7 turns.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
HONEST = [
    {"name": "Billing units", "behaviour": "partly",
     "establish": ["Which unit each vendor bills log ingestion by, per GB in 2026",
                   "Whether API v2.1 answers HTTP 429 above 500 GB per day since 2025-03-01"],
     "quotes": [["The API v2.1 rejects ingestion above the daily quota.",
                 "The API v2.1 rejects ingestion above the daily quota."]]},
    {"name": "Retention tiers",
     "establish": ["How retention length changes the price per GB for 30 and 90 days",
                   "Which retention Python 3.11 clients get by default (error code E1042)"]},
    {"name": "Commitment discounts", "establish": ["What discount a committed annual volume of 10 TB earns"]},
]

SESSIONS = {
    "honest": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                                      scenario_args={"subtopics": HONEST})),
    "one-fix": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                                       scenario_args={"report": "drifted-then-edited"})),
}


def ended(result):
    assert result.exit_code == 0 and not result.timed_out, result.describe()
    assert result.errors == [], result.describe()
    return result


@pytest.fixture(scope="module")
def honest(e2e_session):
    return ended(e2e_session("honest"))


@pytest.fixture(scope="module")
def one_fix(e2e_session):
    return ended(e2e_session("one-fix"))


def orchestrator_turns(result) -> int:
    from web_research.report.claim_checker import PROMPT_HEAD

    return outcome.turns_by_role(result, PROMPT_HEAD)["orchestrator"]["turns"]


def finish_contexts(result) -> list[str]:
    return [t for t in result.stream.hook_contexts() if "web-research ran finish" in t]


def test_an_honest_run_verifies_after_the_checkers_one_round_in_six_turns(honest, report_note):
    answer = outcome.return_object(honest)
    run_dir = Path(answer["plan"]).parent
    first, last = finish_contexts(honest)
    assert "need a verdict" in first and " fails " not in first, first  # no failure, on the plugin's lines least of all
    assert "report.md passes verification" in last, last
    done = outcome.verify(run_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    report = (run_dir / formats.REPORT_FILE).read_text(encoding="utf-8")
    gaps = report.split("## Gaps & Limitations", 1)[1].split("## Sources", 1)[0]
    # finish named the bullet established in part and the one not established, figures and all
    for bullet in (HONEST[0]["establish"][1], HONEST[1]["establish"][1]):
        assert f"- **{bullet}**: " in gaps, gaps
    turns = orchestrator_turns(honest)
    report_note(f"turns: an honest run (figures, versions, codes and dates in its bullets, one established in "
                f"part, one not at all): orchestrator {turns} turns")
    assert turns <= 7, turns  # start, plan, dispatch, report, checker, final
    assert honest.stream.tool_uses("Read", main_only=True) == []


def test_a_fix_is_written_from_finishs_answer_with_no_read(one_fix, report_note):
    answer = outcome.return_object(one_fix)
    run_dir = Path(answer["plan"]).parent
    first = finish_contexts(one_fix)[0]
    assert "report.claims.grounded" in first and "no Read" in first, first
    edits = one_fix.stream.tool_uses("Edit", main_only=True)
    assert edits and all(not outcome.tool_result_is_error(one_fix, e["id"]) for e in edits), edits
    # The Edit's text is finish's numbering ([^1]), not the references the model wrote ([^slug:n]):
    # it came from the answer, after the file changed on disk.
    assert all("[^1]" in e["input"]["old_string"] and ":1]" not in e["input"]["old_string"] for e in edits), edits
    assert one_fix.stream.tool_uses("Read", main_only=True) == []
    assert outcome.verify(run_dir).returncode == 0
    turns = orchestrator_turns(one_fix)
    report_note(f"turns: a run with one real fix (Edits from finish's answer, no Read): orchestrator {turns} turns")
    assert turns <= 9, turns  # start, plan, dispatch, report, Edits and finish, checker, final
    assert json.loads(json.dumps(answer)) == answer
