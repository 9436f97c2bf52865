"""Scenario: the orchestrator forges evidence with one Bash command.

After the researchers return, the scripted main agent runs a Python heredoc
that changes the figure a findings excerpt quotes, in the page snapshot too,
recomputing the snapshot's sha256 and chars: every file of the run folder then
agrees with every other, and the report it writes from the forged findings
would pass every check but one. The seals the hooks took when the snapshot was
fetched and the findings file was left behind do not agree: the Stop gate
blocks naming both files and when they were sealed, and, the model not fixing
it, lets the session end after its bound with the failures shown to the user.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"

SESSIONS = {"forged": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}",
                                              scenario="scripted.research:build",
                                              scenario_args={"report": "forged"}))}


@pytest.fixture(scope="module")
def forged(e2e_session):
    result = e2e_session("forged")
    assert result.exit_code == 0 and not result.timed_out and result.errors == [], result.describe()
    return result


def _run_dir(result) -> Path:
    return Path(outcome.final_json(result)["plan"]).parent


def test_the_forgery_made_the_folder_agree_with_itself(forged):
    from web_research.checklist import run_checklist
    from web_research.checks import passed

    forge = [u for u in forged.stream.tool_uses("Bash") if u["input"]["command"].startswith("python3 - <<'PY'")]
    assert len(forge) == 1 and not outcome.tool_result_is_error(forged, forge[0]["id"]), forged.describe()
    checks = run_checklist(_run_dir(forged))
    assert passed([c for c in checks if c.id != "provenance.sealed"]), \
        [c for c in checks if not c.ok and c.severity == "error"]


def test_the_stop_gate_blocks_naming_the_forged_files(forged):
    blocks = forged.stream.blocks("Stop")
    assert 1 <= len(blocks) <= 3, forged.describe()
    reason = str(forged.stream.decision_of(blocks[0]).get("reason", ""))
    assert "[provenance.sealed]" in reason, reason
    assert "page snapshot changed after it was sealed at 20" in reason, reason
    assert "findings file changed after it was sealed at 20" in reason, reason
    assert "/sources/" in reason and "/findings/" in reason, reason


def test_the_session_still_ends_and_the_user_is_told(forged):
    stops = forged.stream.hook_responses("Stop")
    assert len(stops) == len(forged.stream.blocks("Stop")) + 1, "the last Stop must let the session end"
    shown = "\n".join(forged.stream.system_messages())
    assert "provenance.sealed" in shown and "changed after it was sealed" in shown, forged.describe()
    result = outcome.verify(_run_dir(forged))
    assert result.returncode == 1 and "changed after it was sealed" in result.stdout, result.stdout
