"""Scenario 6: the same question again, then with refresh.

Without refresh, `start` refuses with `prior-run-present` and not one byte of
the project changes. With refresh, the earlier run moves into
`.archive-<timestamp>/` inside the run folder, every earlier file arrives
there byte-identical, and a fresh run completes.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"


def _three_sessions(run):
    first = run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build"))
    before = outcome.tree_bytes(first.cwd)
    again = run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build"),
                project=first.cwd)
    after_refusal = outcome.tree_bytes(first.cwd)
    refreshed = run(RunSpec(prompt=f"/web-research --auto --refresh {QUESTION}", scenario="scripted.research:build"),
                    project=first.cwd)
    return {"first": first, "before": before, "again": again, "after_refusal": after_refusal,
            "refreshed": refreshed}


SESSIONS = {"rerun": _three_sessions}


@pytest.fixture(scope="module")
def runs(e2e_session):
    runs = e2e_session("rerun")
    for key in ("first", "again", "refreshed"):
        result = runs[key]
        assert result.exit_code == 0 and not result.timed_out and result.errors == [], result.describe()
    return runs


def test_same_question_refuses_with_prior_run_present(runs):
    answer = outcome.final_json(runs["again"])
    assert answer.get("error") == formats.ERROR_PRIOR_RUN_PRESENT, answer
    run_dir = Path(outcome.final_json(runs["first"])["plan"]).parent
    assert str(run_dir) in answer.get("detail", ""), answer
    assert runs["again"].stream.tool_uses("Agent") == []
    assert runs["again"].stream.tool_uses("Write") == []


def test_refusal_changes_no_byte_on_disk(runs):
    assert runs["before"], "the first run left no files"
    assert runs["after_refusal"] == runs["before"]


def test_refresh_archives_every_earlier_file_byte_identical(runs):
    first_dir = Path(outcome.final_json(runs["first"])["plan"]).parent
    prefix = f"{first_dir.relative_to(runs['first'].cwd)}/"
    earlier = {path[len(prefix):]: data for path, data in runs["before"].items() if path.startswith(prefix)}
    assert formats.PLAN_FILE in earlier and formats.REPORT_FILE in earlier
    archives = sorted(first_dir.glob(formats.ARCHIVE_PREFIX + "*"))
    assert len(archives) == 1, archives
    assert outcome.tree_bytes(archives[0]) == earlier


def test_refreshed_run_completes_fresh(runs):
    answer = outcome.final_json(runs["refreshed"])
    assert set(answer) == {"plan", "report", "findings_dir"}, answer
    run_dir = Path(answer["plan"]).parent
    assert run_dir == Path(outcome.final_json(runs["first"])["plan"]).parent
    assert outcome.verify(run_dir).returncode == 0
    (_, start_output), = outcome.bash_runs(runs["refreshed"], "start")
    assert outcome.json_of(start_output).get("archived_to"), start_output
