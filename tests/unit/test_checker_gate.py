"""The claim-checker's gate, driven through the real launcher: the rendered prompt in place of any
dispatch prompt, an answer by number turned into one verdicts file, sealed at stop."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from hook_harness import CLI, Harness, PreparedHarnesses, agent_result
from test_seals import ledger_entries, seal_example_run
from web_research import formats
from web_research.evidence import ledger
from web_research.checks.checklist import parse_and_check
from web_research.report.claim_checker import prompt_for_run

CHECKER = formats.CHECKER_SUBAGENT_TYPE
AGENT = "c0ffee00c0ffee00c"


def _needing_a_claim_check(h: Harness) -> None:
    """The sealed example run with `Tier: standard`: its report needs a claim check."""
    seal_example_run(h, verdicts=False)
    plan = h.run_dir / "plan.md"
    plan.write_text(plan.read_text().replace("## Budget\n", "## Budget\n\nTier: standard\n", 1))


@pytest.fixture
def run(prepared: PreparedHarnesses) -> Harness:
    """The sealed example run with `Tier: standard`: its report needs a claim check."""
    return prepared.get("claim-check", _needing_a_claim_check)[0]


def dispatch(h: Harness, prompt: str, tool_use_id: str = "toolu_check1", background: bool = False):
    payload = h.payload("PreToolUse", tool_name="Agent", tool_use_id=tool_use_id,
                        tool_input={"description": "check claims", "prompt": prompt,
                                    "subagent_type": CHECKER, "run_in_background": background})
    return h.hook(payload)


def as_checker(payload: dict) -> dict:
    payload["agent_type"] = CHECKER
    return payload


def rendered(h: Harness):
    prompt, why = prompt_for_run(h.run_dir, parse_and_check(h.run_dir, extra=())[0])
    assert prompt is not None, why
    return prompt


def answer(keys, verdict_of=lambda key: "supported") -> str:
    """A checker's reply: one line per claim number."""
    return "\n".join(f"{n} {verdict_of(k)}: checked" for n, k in enumerate(keys, start=1))


def run_checker(h: Harness, verdict_of=lambda key: "supported", agent_id: str = AGENT) -> Path:
    """Dispatch a checker by reference, let it answer by number, and stop it."""
    prompt = rendered(h)
    assert dispatch(h, f"Check: {h.run_dir}").decision == "allow"
    h.start_agent(agent_id, prompt.text)
    stop = h.hook(h.subagent_stop(agent_id, agent_type=CHECKER, message=answer(prompt.keys, verdict_of)))
    assert stop.stdout == "", stop.stdout
    return Path(prompt.verdicts_path)


# --- dispatch ------------------------------------------------------------------------

def test_the_printed_prompt_is_allowed_and_remembered(run: Harness):
    printed = run.shell(f'"{CLI}" claims "{run.run_dir}" --prompt')
    assert printed.returncode == 0 and printed.stdout.strip()
    result = dispatch(run, printed.stdout)
    assert result.decision == "allow", result.reason
    checker = run.record()["run"]["checkers"][0]
    assert checker["verdicts_path"] == str(run.run_dir / "checks" / "verdicts-1.json") and checker["keys"]


def test_the_claims_command_runs_without_a_prompt_in_the_main_agent(run: Harness):
    command = f'"{CLI}" claims "{run.run_dir}" --prompt'
    assert run.hook(run.bash("PreToolUse", command)).decision == "allow"


@pytest.mark.parametrize("prompt", ["Check: {run}", 'Check: "{run}" please', "check: .", "Check the report's claims",
                                    "EDITED"])
def test_any_dispatch_gets_the_rendered_prompt_in_its_place(run: Harness, prompt: str):
    """`Check: <output_dir>` is the documented form; a relative path, quotes, a sentence, or an
    edited copy of the prompt get the same: the prompt the plugin rendered, never the model's."""
    expected = rendered(run)
    text = expected.text.replace("Claim: ", "Claim: Reportedly, ", 1) if prompt == "EDITED" \
        else prompt.format(run=run.run_dir)
    result = dispatch(run, text)
    assert result.decision == "allow", result.reason
    assert result.updated_input["prompt"] == expected.text
    assert result.updated_input["subagent_type"] == "web-research:claim-checker"
    assert run.record()["run"]["checkers"][0]["keys"] == list(expected.keys)


def test_a_checker_asked_for_in_the_background_runs_in_the_foreground(run: Harness):
    """A background checker would leave the orchestrator free to rewrite its verdicts with Bash
    before the checker stops and its file is sealed: the hook sets run_in_background false (and the
    gate itself still refuses a background call, should one reach it)."""
    result = dispatch(run, rendered(run).text, background=True)
    assert result.decision == "allow", result.reason
    assert result.updated_input["run_in_background"] is False
    assert result.updated_input["prompt"] == rendered(run).text
    from web_research.guard.rules.checker_gate import decide_checker_dispatch  # noqa: PLC0415
    from web_research.guard.state import Run  # noqa: PLC0415

    refused = decide_checker_dispatch(Run(str(run.run_dir)), {"run_in_background": True}, "t",
                                      rendered(run), "", 0.0, "wr")
    assert refused.action == "deny" and "foreground" in refused.reason


def test_a_check_prompt_alone_names_the_checker(run: Harness):
    """`Check: <output_dir>` with no subagent_type (or a wrong one, or the client's background
    default): the plugin's fields are put in place, so the prompt is the only thing the model writes."""
    for tool_use_id, fields in (("t1", {}), ("t2", {"subagent_type": "general-purpose", "run_in_background": True})):
        payload = run.payload("PreToolUse", tool_name="Agent", tool_use_id=tool_use_id,
                              tool_input={"description": "check", "prompt": f"Check: {run.run_dir}", **fields})
        result = run.hook(payload)
        assert result.decision == "allow", result.reason
        assert result.updated_input["subagent_type"] == CHECKER
        assert result.updated_input["run_in_background"] is False
        assert result.updated_input["prompt"] == rendered(run).text
        record = run.record()
        record["run"]["checkers"][-1]["state"] = "done"  # one running checker per verdicts file
        run.record_path.write_text(json.dumps(record))


def test_without_a_tier_line_the_checker_judges_only_the_statements_of_absence(run: Harness):
    plan = run.run_dir / "plan.md"
    plan.write_text(plan.read_text().replace("Tier: standard\n", ""))
    prompt = rendered(run)
    assert prompt.text.count("a statement of absence") == len(prompt.keys) == 3 and "\nClaim: " not in prompt.text
    verdicts = run_checker(run)
    assert json.loads(verdicts.read_text())["verdicts"][0]["verdict"] == "supported"
    result = dispatch(run, f"Check: {run.run_dir}", "toolu_check2")  # nothing left to judge
    assert result.decision == "deny" and "judges no cited claim" in result.reason, result.reason


def test_a_second_checker_for_the_same_file_waits(run: Harness):
    prompt = rendered(run).text
    assert dispatch(run, prompt).decision == "allow"
    second = dispatch(run, prompt, "toolu_check2")
    assert second.decision == "deny" and "already running" in second.reason


# --- scope -------------------------------------------------------------------------------

def test_a_checker_writes_no_file_not_even_its_verdicts_file(run: Harness):
    """Its reply is its only move: the plugin writes the verdicts file from it."""
    prompt = rendered(run)
    dispatch(run, prompt.text)
    run.start_agent(AGENT, prompt.text)
    for target in (prompt.verdicts_path, run.run_dir / "report.md", run.run_dir / "checks" / "verdicts-2.json",
                   run.project / "x.json"):
        denied = run.hook(as_checker(run.write_call(AGENT, str(target))))
        assert denied.decision == "deny" and "writes no file" in denied.reason and "in your reply" in denied.reason
    assert not Path(prompt.verdicts_path).exists()


def test_a_checker_runs_no_commands(run: Harness):
    prompt = rendered(run)
    dispatch(run, prompt.text)
    result = run.hook(as_checker(run.bash("PreToolUse", "echo hi", agent_id=AGENT)))
    assert result.decision == "deny" and "runs no command" in result.reason


def test_the_orchestrator_may_not_write_verdicts(run: Harness):
    result = run.hook(run.write_call(None, str(run.run_dir / "checks" / "verdicts-1.json")))
    assert result.decision == "deny" and "writes only" in result.reason


# --- stop and seal --------------------------------------------------------------------------

def test_a_checker_without_an_answer_is_blocked_once_with_the_format(run: Harness):
    prompt = rendered(run)
    dispatch(run, prompt.text)
    run.start_agent(AGENT, prompt.text)
    first = run.hook(run.subagent_stop(AGENT, agent_type=CHECKER, message="I checked them all."))
    count = len(prompt.keys)
    assert first.decision == "block" and "no verdict for claim(s) 1, 2" in first.reason
    assert f"one line per claim, 1 to {count}" in first.reason
    second = run.hook(run.subagent_stop(AGENT, stop_hook_active=True, agent_type=CHECKER))
    assert second.stdout == ""
    assert run.record()["run"]["checkers"][0]["state"] == "failed"
    assert not Path(prompt.verdicts_path).exists()


def test_a_checker_that_skips_a_claim_is_told_which_by_number(run: Harness):
    prompt = rendered(run)
    dispatch(run, prompt.text)
    run.start_agent(AGENT, prompt.text)
    reply = answer(prompt.keys).replace("\n2 supported: checked", "")
    result = run.hook(run.subagent_stop(AGENT, agent_type=CHECKER, message=reply))
    assert result.decision == "block" and "no verdict for claim(s) 2\n" in result.reason


def test_the_answer_becomes_the_verdicts_file_keyed_by_the_prompts_claims(run: Harness):
    """Numbers map to the keys bound to the dispatched prompt; quotes in a reason stay as written;
    the plugin's write is recorded in the ledger."""
    prompt = rendered(run)
    dispatch(run, f"Check: {run.run_dir}")
    run.start_agent(AGENT, prompt.text)
    reply = "My verdicts:\n" + "\n".join(
        f'- **{n}** {"partial" if n == 2 else "supported"}: the excerpt says "{n} GB", not "{n}0 GB"'
        for n in range(len(prompt.keys), 0, -1))  # out of order, bullets, bold: all read
    assert run.hook(run.subagent_stop(AGENT, agent_type=CHECKER, message=reply)).stdout == ""
    written = json.loads(Path(prompt.verdicts_path).read_text())["verdicts"]
    assert [v["claim"] for v in written] == list(prompt.keys)
    assert written[1] == {"claim": prompt.keys[1], "verdict": "partial", "reason": 'the excerpt says "2 GB", not "20 GB"'}
    writes = [e for e in ledger_entries(run) if e.kind == "plugin_write"]
    assert [e.path for e in writes] == ["checks/verdicts-1.json"] and writes[0].agent_id == AGENT
    assert run.record()["run"]["checkers"][0]["state"] == "done"


def test_a_checker_that_stops_again_changes_no_verdict(run: Harness):
    """Re-entered after its answer was written and sealed, a checker stops again with other
    verdicts: its answer is final, nothing is written or sealed anew."""
    path = run_checker(run)
    before, entries = path.read_bytes(), len(ledger_entries(run))
    keys = [v["claim"] for v in json.loads(before)["verdicts"]]
    again = answer(keys, lambda key: "unsupported")
    assert run.hook(run.subagent_stop(AGENT, agent_type=CHECKER, message=again)).stdout == ""
    assert run.hook(run.subagent_stop(AGENT, agent_type=CHECKER, message="nothing")).stdout == ""  # not sent back
    assert path.read_bytes() == before and len(ledger_entries(run)) == entries
    assert run.record()["run"]["checkers"][0]["state"] == "done"


def test_verdicts_are_sealed_and_a_supported_report_passes_the_stop(run: Harness):
    blocked = run.hook(run.stop())
    assert blocked.decision == "block" and "report.claims.checked" in blocked.reason
    path = run_checker(run)
    seal = ledger.seals(ledger_entries(run))["checks/verdicts-1.json"]
    assert seal.artifact == ledger.VERDICTS and seal.sha256 == ledger.file_sha256(path, 1 << 20)
    assert run.hook(run.stop()).decision is None  # passes: no block, only the ending shown
    assert run.history()[-1]["outcome"] == "verified"


def test_an_unsupported_verdict_blocks_the_stop_naming_the_claim(run: Harness):
    first_key = rendered(run).keys[0]
    run_checker(run, lambda key: "unsupported" if key == first_key else "supported")
    result = run.hook(run.stop())
    assert result.decision == "block"
    assert "report.claims.verdict" in result.reason and first_key in result.reason and "report.md:5" in result.reason


def test_a_verdict_forged_by_bash_blocks_the_stop(run: Harness):
    first_key = rendered(run).keys[0]
    path = run_checker(run, lambda key: "unsupported" if key == first_key else "supported")
    proc = run.shell(f"sed -i 's/\"unsupported\"/\"supported\"/' '{path}'")
    assert proc.returncode == 0 and "unsupported" not in path.read_text()
    result = run.hook(run.stop())
    assert result.decision == "block" and "checks/verdicts-1.json" in result.reason and "changed" in result.reason


def test_a_verdicts_file_placed_before_the_answer_is_replaced_by_the_answer(run: Harness):
    """Nothing unknown is adopted: a file at the verdicts path that no answer produced (a process
    left running in the background wrote it) gives way to the plugin's write of the answer."""
    prompt = rendered(run)
    dispatch(run, f"Check: {run.run_dir}")
    run.start_agent(AGENT, prompt.text)
    path = Path(prompt.verdicts_path)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"verdicts": [{"claim": k, "verdict": "supported", "reason": "r"} for k in prompt.keys]}))
    reply = answer(prompt.keys, lambda key: "unsupported" if key == prompt.keys[0] else "supported")
    assert run.hook(run.subagent_stop(AGENT, agent_type=CHECKER, message=reply)).stdout == ""
    assert json.loads(path.read_text())["verdicts"][0]["verdict"] == "unsupported"
    assert ledger.seals(ledger_entries(run))["checks/verdicts-1.json"].sha256 == ledger.file_sha256(path, 1 << 20)
    result = run.hook(run.stop())
    assert result.decision == "block" and "report.claims.verdict" in result.reason


def test_a_verdicts_file_no_checker_left_blocks_the_stop(run: Harness):
    prompt = rendered(run)
    path = Path(prompt.verdicts_path)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"verdicts": [{"claim": k, "verdict": "supported", "reason": "r"} for k in prompt.keys]}))
    result = run.hook(run.stop())
    assert result.decision == "block" and "verdicts-1.json" in result.reason and "not sealed" in result.reason


def _returned(h: Harness, reply: str) -> dict:
    """PostToolUse of the checker's foreground Agent call, its result carrying the reply as 2.1.328
    returns it (tests/fixtures/agent-results.json)."""
    return h.payload("PostToolUse", tool_name="Agent", tool_use_id="toolu_check1",
                     tool_input={"description": "check", "prompt": f"Check: {h.run_dir}",
                                 "subagent_type": CHECKER, "run_in_background": False},
                     tool_response=agent_result(AGENT, reply, "checker"))


def test_a_checker_whose_stop_went_unseen_is_recorded_from_its_returned_answer(run: Harness):
    """The SubagentStop never came: the answer in the returned call's result is mapped, written
    and sealed there, and the run passes."""
    prompt = rendered(run)
    dispatch(run, prompt.text)
    returned = run.hook(_returned(run, answer(prompt.keys)))
    # finish runs once the checker is back, and tells the orchestrator its final message
    assert "web-research ran finish: report.md passes verification" in returned.stdout, returned
    path = Path(prompt.verdicts_path)
    assert [v["claim"] for v in json.loads(path.read_text())["verdicts"]] == list(prompt.keys)
    assert ledger.seals(ledger_entries(run))["checks/verdicts-1.json"].sha256 == ledger.file_sha256(path, 1 << 20)
    assert run.record()["run"]["checkers"][0]["state"] == "done"
    assert run.hook(run.stop()).decision is None  # sealed, supported: the run passes


def test_a_returned_answer_that_misses_a_claim_counts_as_failed(run: Harness):
    prompt = rendered(run)
    dispatch(run, prompt.text)
    returned = run.hook(_returned(run, "I looked at them; all fine."))
    assert "need a verdict" in returned.stdout, returned  # finish, run again: the claims still wait
    assert run.record()["run"]["checkers"][0]["state"] == "failed"
    assert not Path(prompt.verdicts_path).exists()
    result = run.hook(run.stop())
    assert result.decision == "block" and "report.claims.checked" in result.reason
