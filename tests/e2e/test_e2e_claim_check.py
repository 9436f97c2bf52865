"""Scenario: the claim check of a standard-tier run, in the real client.

The plan keeps `Tier: standard`, so verify asks for a claim-checker once the
report passes the mechanical checks. The scripted orchestrator dispatches
`web-research:claim-checker` with the prompt `Check: <output_dir>` (as SKILL.md
says); the hook puts the numbered checker prompt in its place; the checker
answers one line per claim number, its reasons quoting words in double quotes;
its SubagentStop writes the verdicts file from that answer (numbers mapped to
the claim keys bound to the prompt) and seals it. One claim of the report says more
than its excerpt ("the lowest price any vendor offers"): the checker finds it
unsupported. Its Gaps & Limitations say the pages read do not say who maintains them,
which every stored page does say: the checker, shown the closest passages of the
stored pages, finds that statement unsupported too (issue 43), while the honest Gaps
statement beside it is judged supported. The orchestrator ignores verify and tries to
return, and the Stop gate blocks naming the claim and the passage. It rewrites the
report, a second checker judges only the rewritten claim (the honest statement keeps
its verdict), and the run ends verified.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"

SESSIONS = {"overclaimed": lambda run: run(RunSpec(
    prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
    scenario_args={"report": "overclaimed-then-fixed"},
    timeout=150.0))}  # two checkers, a Stop block and a rewrite: longer than most sessions


@pytest.fixture(scope="module")
def overclaimed(e2e_session):
    result = e2e_session("overclaimed")
    outcome.ended_cleanly(result)
    return result


def _checkers(result) -> list[dict]:
    from web_research import formats

    return [u for u in result.stream.tool_uses("Agent", main_only=True)
            if u["input"]["prompt"].startswith(formats.DISPATCH_CHECK_LABEL)]


def test_the_plan_has_a_claim_check(overclaimed):
    from web_research.run.budget import effective_budget
    from web_research.run.plan import load_plan

    budget = effective_budget(load_plan(outcome.run_dir(overclaimed) / "plan.md"))
    assert budget.tier == "standard" and budget.claim_check and not budget.voting


def test_checkers_are_dispatched_by_reference_and_their_answers_become_sealed_verdicts(overclaimed):
    from scripted.checker import OVERCLAIM

    from web_research import formats
    from web_research.evidence import ledger

    checkers = _checkers(overclaimed)
    assert len(checkers) == 2, overclaimed.describe()
    for use in checkers:
        assert use["input"]["prompt"].startswith(formats.DISPATCH_CHECK_LABEL)
        assert not outcome.tool_result_is_error(overclaimed, use["id"]), overclaimed.describe()
    run = outcome.run_dir(overclaimed)
    files = sorted((run / "checks").glob("verdicts-*.json"))
    assert [f.name for f in files] == ["verdicts-1.json", "verdicts-2.json"]
    first, second = (json.loads(f.read_text())["verdicts"] for f in files)
    assert [v["verdict"] for v in first].count("unsupported") == 2  # the claim and the refuted statement
    # the reason keeps the quotes the checker wrote inside it
    assert [v["reason"] for v in first if v["verdict"] == "unsupported"] == [
        f'no excerpt says "{OVERCLAIM}"', 'passage 1 says "mainta"']  # claims first, then statements
    assert [v["reason"] for v in first].count('no passage shown holds "confir figure indepe source vendor"') == 1
    assert len(second) == 1 and second[0]["verdict"] == "supported"  # only the rewritten claim
    copy = json.loads((run / ".web-research" / "seals.json").read_text())
    assert {"checks/verdicts-1.json", "checks/verdicts-2.json"} <= set(copy["seals"]), copy
    assert all(copy["seals"][f"checks/{f.name}"]["artifact"] == ledger.VERDICTS for f in files)


def test_the_unsupported_claim_blocks_the_stop_then_is_fixed(overclaimed):
    from scripted.checker import OVERCLAIM

    blocks = overclaimed.stream.blocks("Stop")
    assert len(blocks) == 1, overclaimed.describe()
    reason = str(overclaimed.stream.decision_of(blocks[0]).get("reason", ""))
    assert "report.claims.verdict" in reason and "unsupported" in reason and OVERCLAIM in reason, reason
    assert "report.claims.grounded" not in reason  # its figures are right: only the model check sees it
    # The Gaps line a stored page refutes, with the passage that does say it (issue 43).
    assert "report.gaps.absence" in reason and "maintained by the example vendor" in reason, reason
    answer = outcome.return_object(overclaimed)
    assert OVERCLAIM not in Path(answer["report"]).read_text(encoding="utf-8")
    assert outcome.verify(outcome.run_dir(overclaimed)).returncode == 0
    last_stop = overclaimed.stream.hook_responses("Stop")[-1]
    assert overclaimed.stream.decision_of(last_stop).get("decision") != "block"
