"""Scenario 7: a sibling skill calls web-research through the Skill tool.

A tiny test plugin (fixtures/companion-plugin) holds a skill whose body gives
the contract's YAML arguments. The client must resolve the
`web-research:web-research` skill by that name, hand it the YAML as
`$ARGUMENTS`, and the run must come back with the success return shape whose
paths lie in the caller's `output_dir`.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harness import outcome
from harness.runner import CWD_TOKEN, REPO_ROOT, RunSpec
from scripted.companion import SKILL
from scripted.prompt_text import skill_body

from web_research import formats

COMPANION = Path(__file__).resolve().parent / "fixtures" / "companion-plugin"
QUESTION = "Which log retention periods do observability vendors sell in 2026?"

SESSIONS = {"companion": lambda run: run(
    RunSpec(prompt=f"/companion-test:gather-evidence {CWD_TOKEN}/caller/evidence",
            scenario="scripted.companion:build", plugin_dirs=[REPO_ROOT, COMPANION]))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("companion")
    outcome.ended_cleanly(result)
    return result


def test_sibling_calls_the_skill_by_its_plugin_name_with_yaml_args(run):
    (use,) = run.stream.tool_uses("Skill")
    assert use["input"]["skill"] == SKILL
    args = yaml.safe_load(use["input"]["args"])
    assert args == {"research_question": QUESTION, "output_dir": f"{run.cwd}/caller/evidence",
                    "auto_proceed": True, "refresh": False}
    assert not outcome.tool_result_is_error(run, use["id"]), run.stream.tool_result_text(use["id"])


def test_skill_body_receives_the_yaml_as_its_arguments(run):
    req = next(r for r in run.requests if r.kind == "main" and r.previous_calls("Skill"))
    body = skill_body(req)
    assert f'research_question: "{QUESTION}"' in body
    (start, output), = outcome.bash_runs(run, "start")
    assert outcome.json_of(output)["output_dir"] == f"{run.cwd}/caller/evidence"


def test_caller_receives_the_success_shape(run):
    answer = outcome.final_json(run)
    out = run.cwd / "caller" / "evidence"
    assert answer == {"plan": str(out / formats.PLAN_FILE), "report": str(out / formats.REPORT_FILE),
                      "findings_dir": str(out / formats.FINDINGS_DIR) + "/", "view": str(out / formats.REPORT_VIEW_FILE)}
    assert outcome.verify(out).returncode == 0
    assert Path(answer["report"]).read_text().startswith(f"{formats.REPORT_TITLE_PREFIX}{QUESTION}\n")
    assert Path(answer["view"]).is_file(), "the Stop hook writes the view when the run ends"
