"""Scenario 5: a broken report meets the Stop hook.

The scripted orchestrator writes a report with a missing section (Gaps &
Limitations), ignores what `finish` printed and tries to stop.
Fixed case: the hook blocks with the failures, the model rewrites the report,
runs `finish` again and the run ends with a passing report. Bounded case: the
model follows SKILL.md but its report stays broken; after the rounds of fixes
`finish` counts it prints the paths with "verified": false and the failing
check ids, the model returns that, and the hook lets that declared stop end the
session without a block. Drifted case: the report is
well-formed but its first figure is not the one its excerpt gives; the hook
blocks naming the claim's line, figure and footnote, the model rewrites it, and
the run passes.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"


def _session(mode: str):
    return lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                                   scenario_args={"report": mode}))


SESSIONS = {"fixed": _session("broken-then-fixed"), "never_fixed": _session("broken-forever"),
            "drifted": _session("drifted-then-fixed")}


def _ended(result):
    outcome.ended_cleanly(result)
    return result


@pytest.fixture(scope="module")
def fixed(e2e_session):
    return _ended(e2e_session("fixed"))


@pytest.fixture(scope="module")
def drifted(e2e_session):
    return _ended(e2e_session("drifted"))


@pytest.fixture(scope="module")
def never_fixed(e2e_session):
    return _ended(e2e_session("never_fixed"))


def _reason(result, block) -> str:
    return str(result.stream.decision_of(block).get("reason", "")) + str(block.get("stderr", ""))


def test_stop_hook_blocks_with_the_failures(fixed):
    blocks = fixed.stream.blocks("Stop")
    assert len(blocks) == 1, fixed.describe()
    reason = _reason(fixed, blocks[0])
    assert "Gaps & Limitations" in reason, reason
    assert 'finish "' in reason, reason  # the block sends the model back to finish
    feedback = [r for r in fixed.requests if r.kind == "main" and r.last_user_text.startswith("Stop hook feedback")]
    assert feedback and "Gaps & Limitations" in feedback[0].last_user_text


def test_fixed_report_passes_and_the_run_returns_success(fixed):
    answer = outcome.return_object(fixed)
    from web_research import formats

    assert set(answer) == set(formats.RETURN_PATH_KEYS)
    assert outcome.verify(Path(answer["plan"]).parent).returncode == 0
    last_stop = fixed.stream.hook_responses("Stop")[-1]
    assert fixed.stream.decision_of(last_stop).get("decision") != "block"
    finishes = outcome.told(fixed, "finish")  # run by the plugin after each Write and the claim check
    # broken, fixed (a claim-checker is asked for: the standard tier's claim check), then passing
    assert len(finishes) == 3 and "need a verdict" in finishes[1], finishes
    assert json.dumps(answer, ensure_ascii=False) in finishes[-1]


def test_never_fixed_report_is_returned_unverified_after_the_bounded_rounds(never_fixed):
    from web_research import formats

    assert never_fixed.stream.blocks("Stop") == [], never_fixed.describe()
    answer = outcome.return_object(never_fixed)
    assert answer[formats.RETURN_VERIFIED_KEY] is False, answer
    assert set(answer) == {*formats.RETURN_PATH_KEYS, formats.RETURN_VERIFIED_KEY, formats.RETURN_FAILED_CHECKS_KEY}
    assert "report.sections.missing" in answer[formats.RETURN_FAILED_CHECKS_KEY], answer
    assert outcome.verify(Path(answer["plan"]).parent).returncode != 0, "the report was expected to stay broken"
    finishes = outcome.told(never_fixed, "finish")  # one per Write of the report
    assert len(finishes) == formats.MAX_VERIFY_ROUNDS + 1, [text[:200] for text in finishes]
    assert [f"Round {n} of {formats.MAX_VERIFY_ROUNDS} of fixes" in text for n, text in
            enumerate(finishes, start=1)] == [True] * formats.MAX_VERIFY_ROUNDS + [False]
    assert json.dumps(answer, ensure_ascii=False) in finishes[-1]
    # a person ran it: the last message says so in words
    assert never_fixed.stream.final_text().startswith("The research report is unverified.")


def test_a_figure_that_drifted_from_its_excerpt_is_blocked_then_fixed(drifted):
    from scripted.orchestrator import DRIFT
    from scripted.topics import DEFAULT_SUBTOPICS, Subtopic

    first = Subtopic(**DEFAULT_SUBTOPICS[0])
    stated = int(first.fact().split(" is ")[1].split()[0]) + DRIFT
    blocks = drifted.stream.blocks("Stop")
    assert len(blocks) == 1, drifted.describe()
    reason = _reason(drifted, blocks[0])
    assert "report.claims.grounded" in reason and f"'{stated}" in reason and "[^1]" in reason, reason
    assert "report.sections" not in reason and "orphan" not in reason  # otherwise well-formed
    answer = outcome.return_object(drifted)
    assert outcome.verify(Path(answer["plan"]).parent).returncode == 0
    report = Path(answer["report"]).read_text(encoding="utf-8")
    assert first.fact().rstrip(".") in report and f"{first.name.lower()} figure published for 2026 is {stated}" \
        not in report
