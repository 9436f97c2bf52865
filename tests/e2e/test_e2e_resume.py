"""Scenario: a session killed after two researchers finished, resumed in a new session.

The first session runs `--auto` with three subtopics; the third researcher writes its
stub and then hangs until the other two findings files are sealed, when the client is
killed (SIGKILL to its process group, no SessionEnd). A second session of the same user on the same
project runs `/web-research --resume DIR`: only the third subtopic is dispatched, the
plan, the approval record, the briefs and the two kept findings files stay byte for
byte, the hooks guard the resumed run (its Stop gate checks the ledger's seals from
both sessions), and the run ends verified.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats
from web_research.core.slug import slugify
from scripted.topics import DEFAULT_SUBTOPICS

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
SLUGS = [slugify(s["name"]) for s in DEFAULT_SUBTOPICS]


def _kept_files(run_dir: Path) -> dict[str, bytes]:
    names = [formats.PLAN_FILE, f"{formats.RUN_STATE_DIR}/{formats.APPROVAL_FILE}",
             *[f"{formats.BRIEFS_DIR}/{s}.md" for s in SLUGS], *[f"{formats.FINDINGS_DIR}/{s}.md" for s in SLUGS[:2]]]
    return {name: (run_dir / name).read_bytes() for name in names if (run_dir / name).is_file()}


def _killed_then_resumed(run):
    first = run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.resume:build",
                        scenario_args={"phase": "interrupted"}, timeout=180))
    (_use, opened), = outcome.bash_runs(first, "start")
    run_dir = Path(outcome.json_of(opened)["output_dir"])
    before = _kept_files(run_dir)
    stub = (run_dir / formats.FINDINGS_DIR / f"{SLUGS[2]}.md").read_text()
    report_after_kill = (run_dir / formats.REPORT_FILE).exists()
    resumed = run(RunSpec(prompt=f"/web-research --resume {run_dir}", scenario="scripted.resume:build",
                          scenario_args={"phase": "resumed"}, timeout=150),
                  project=first.cwd, home=first.home)
    return {"first": first, "resumed": resumed, "run_dir": run_dir, "before": before, "stub": stub,
            "report_after_kill": report_after_kill}


SESSIONS = {"resume": _killed_then_resumed}


@pytest.fixture(scope="module")
def runs(e2e_session):
    runs = e2e_session("resume")
    first = runs["first"]
    assert first.exit_code == -9 and not first.timed_out and first.errors == [], first.describe()  # killed
    result = runs["resumed"]
    outcome.ended_cleanly(result)
    return runs


def test_the_first_session_was_killed_with_two_findings_done_and_one_stub(runs):
    before = runs["before"]
    assert all(f"{formats.FINDINGS_DIR}/{s}.md" in before for s in SLUGS[:2])
    assert all(b"status: ok" in before[f"{formats.FINDINGS_DIR}/{s}.md"] for s in SLUGS[:2])
    assert "status: failed" in runs["stub"] and formats.FINDINGS_STUB_REASON in runs["stub"]  # the plugin's stub
    assert runs["report_after_kill"] is False


def test_resume_keeps_two_and_dispatches_only_the_missing_subtopic(runs):
    (_use, text), = outcome.bash_runs(runs["resumed"], "start")
    opened = outcome.json_of(text)
    assert opened["resume"]["keep"] == SLUGS[:2] and opened["resume"]["dispatch"] == SLUGS[2:], opened
    assert "unsealed" not in opened["resume"] and opened["resume"]["approved"] is True  # nothing adopted
    agents = [u for group in outcome.researcher_dispatches(runs["resumed"]) for u in group]
    assert len(agents) == 1, agents
    assert agents[0]["input"]["prompt"].endswith(f"/briefs/{SLUGS[2]}.md")  # `Brief: <brief_path>`


def test_the_plan_approval_briefs_and_kept_findings_are_byte_identical(runs):
    assert _kept_files(runs["run_dir"]) == runs["before"]


def test_the_resumed_run_is_not_reviewed_again_and_ends_verified(runs):
    result = runs["resumed"]
    assert outcome.told(result, "estimate") == []
    # no brief is given to dispatch again once the resumed researcher has returned: the coverage is
    assert outcome.told(result, "briefs") == [] and len(outcome.told(result, "gaps")) == 1
    assert not [u for u in result.stream.tool_uses("Write") if u["input"]["file_path"].endswith("/plan.md")]
    answer = outcome.return_object(result)
    assert set(answer) == set(formats.RETURN_PATH_KEYS), answer
    assert outcome.verify(runs["run_dir"]).returncode == 0, outcome.verify(runs["run_dir"]).stdout
    third = (runs["run_dir"] / formats.FINDINGS_DIR / f"{SLUGS[2]}.md").read_text()
    assert "status: ok" in third


def test_the_hooks_guarded_the_resumed_run_with_seals_from_both_sessions(runs):
    result = runs["resumed"]
    decisions = [result.stream.decision_of(e).get("hookSpecificOutput") or {}
                 for e in result.stream.hook_responses("PreToolUse")]
    assert any(d.get("permissionDecision") == "allow" and f"Researcher for {SLUGS[2]}" in
               str(d.get("permissionDecisionReason")) for d in decisions), decisions  # it knew the resumed run
    copy = json.loads((runs["run_dir"] / formats.RUN_STATE_DIR / "seals.json").read_text())
    for slug in SLUGS:
        assert f"{formats.FINDINGS_DIR}/{slug}.md" in copy["seals"], copy["seals"].keys()
    assert result.stream.blocks("Stop") == [], result.describe()
