"""A researcher stays inside its scope: the hooks see agent_type and act on it.

One researcher first tries to overwrite plan.md, to write its own findings file
(the plugin writes it from the reply) and to run a command other than `fetch`.
It has no Write tool (its agent file lists WebSearch and Bash), so the client
refuses both writes itself; the PreToolUse hook, which must recognise the call
as coming from the researcher subagent, denies the command (and would deny a
write: tests/unit/test_hooks.py). It then does its job and the run completes.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.research import DEFAULT_SUBTOPICS

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
SUBTOPICS = [{**s, "behaviour": "stray" if s["name"] == "Billing units" else "ok"} for s in DEFAULT_SUBTOPICS]

SESSIONS = {"stray": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}",
                                              scenario="scripted.research:build",
                                              scenario_args={"subtopics": SUBTOPICS}))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("stray")
    outcome.ended_cleanly(result)
    return result


def _researcher_calls(run, name: str) -> list[dict]:
    return [u for u in run.stream.tool_uses(name) if u["id"] and any(
        e.get("type") == "assistant" and e.get("parent_tool_use_id")
        and any(b.get("id") == u["id"] for b in e["message"]["content"]) for e in run.stream.events)]


def test_out_of_scope_write_and_command_are_denied(run):
    run_dir = outcome.run_dir(run)
    stray_write = [u for u in _researcher_calls(run, "Write")
                   if u["input"]["file_path"] == str(run_dir / formats.PLAN_FILE)]
    own_write = [u for u in _researcher_calls(run, "Write")
                 if u["input"]["file_path"] == str(run_dir / formats.FINDINGS_DIR / "billing-units.md")]
    stray_bash = [u for u in _researcher_calls(run, "Bash") if u["input"]["command"].startswith("ls ")]
    assert len(stray_write) == 1 and len(own_write) == 1 and len(stray_bash) == 1, run.describe()
    for use in stray_write + own_write + stray_bash:
        assert outcome.tool_result_is_error(run, use["id"]), run.stream.tool_result_text(use["id"])
    for use in stray_write + own_write:
        assert "No such tool available: Write" in run.stream.tool_result_text(use["id"])
    assert len(run.stream.denials()) == 1, run.describe()  # the command; the writes never reached a hook


def test_plan_is_untouched_and_the_run_completes(run):
    answer = outcome.return_object(run)
    assert "Not yours to write" not in Path(answer["plan"]).read_text()
    assert outcome.verify(Path(answer["plan"]).parent).returncode == 0
