"""Scenario 6: the same question again, then with refresh.

Without refresh, `start` refuses with `prior-run-present` and not one byte of
the project changes. With refresh, the earlier run moves into
`.archive-<timestamp>/` inside the run folder, every earlier file arrives
there byte-identical, files the user keeps beside the run stay where they are,
and a fresh run completes. A refresh pointed at a project root (a folder
holding `.git`) is denied before `start` runs, and nothing moves.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import CWD_TOKEN, RunSpec

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
# Files a user keeps in the run folder beside the run: refresh must leave them in place.
USER_FILES = {"notes.md": b"my own notes\n", "data/keep.csv": b"a,b\n1,2\n"}


def _three_sessions(run):
    first = run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build"))
    before = outcome.tree_bytes(first.cwd)
    again = run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build"),
                project=first.cwd)
    after_refusal = outcome.tree_bytes(first.cwd)
    first_dir = outcome.run_dir(first)
    for name, data in USER_FILES.items():
        (first_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (first_dir / name).write_bytes(data)
    refreshed = run(RunSpec(prompt=f"/web-research --auto --refresh {QUESTION}", scenario="scripted.research:build"),
                    project=first.cwd)
    return {"first": first, "before": before, "again": again, "after_refusal": after_refusal,
            "refreshed": refreshed}


def _project_root(cwd: Path) -> None:
    """A project that holds a report.md and a sources/ folder of its own."""
    (cwd / ".git").mkdir()
    (cwd / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (cwd / "report.md").write_text("# The project's own report\n")
    (cwd / "sources").mkdir()
    (cwd / "sources" / "vendor.txt").write_text("the project's sources\n")


def _refresh_a_project_root(run):
    spec = RunSpec(prompt=f"/web-research --auto --refresh --out {CWD_TOKEN} {QUESTION}",
                   scenario="scripted.research:build")
    result = run(spec, project_setup=_project_root)
    return {"result": result}


SESSIONS = {"rerun": _three_sessions, "project-root": _refresh_a_project_root}


@pytest.fixture(scope="module")
def runs(e2e_session):
    runs = e2e_session("rerun")
    for key in ("first", "again", "refreshed"):
        result = runs[key]
        outcome.ended_cleanly(result)
    return runs


def test_same_question_refuses_with_prior_run_present(runs):
    answer = outcome.final_json(runs["again"])
    assert answer.get("error") == formats.ERROR_PRIOR_RUN_PRESENT, answer
    run_dir = outcome.run_dir(runs["first"])
    assert str(run_dir) in answer.get("detail", ""), answer
    assert runs["again"].stream.tool_uses("Agent") == []
    assert runs["again"].stream.tool_uses("Write") == []


def test_refusal_changes_no_byte_on_disk(runs):
    assert runs["before"], "the first run left no files"
    assert runs["after_refusal"] == runs["before"]


def test_refresh_archives_every_earlier_file_byte_identical(runs):
    first_dir = outcome.run_dir(runs["first"])
    prefix = f"{first_dir.relative_to(runs['first'].cwd)}/"
    earlier = {path[len(prefix):]: data for path, data in runs["before"].items() if path.startswith(prefix)}
    assert formats.PLAN_FILE in earlier and formats.REPORT_FILE in earlier
    archives = sorted(first_dir.glob(formats.ARCHIVE_PREFIX + "*"))
    assert len(archives) == 1, archives
    assert outcome.tree_bytes(archives[0]) == earlier


def test_a_run_writes_only_run_owned_names(runs):
    first_dir = outcome.run_dir(runs["first"])
    prefix = f"{first_dir.relative_to(runs['first'].cwd)}/"
    top = {path[len(prefix):].split("/", 1)[0] for path in runs["before"] if path.startswith(prefix)}
    assert formats.PLAN_FILE in top and top <= set(formats.RUN_OWNED_NAMES), top


def test_refresh_leaves_the_users_files_in_place(runs):
    first_dir = outcome.run_dir(runs["first"])
    for name, data in USER_FILES.items():
        assert (first_dir / name).read_bytes() == data, name
    (archive,) = first_dir.glob(formats.ARCHIVE_PREFIX + "*")
    assert set(p.name for p in archive.iterdir()) <= set(formats.RUN_OWNED_NAMES)


def test_refresh_of_a_project_root_is_denied_and_moves_nothing(e2e_session):
    result = e2e_session("project-root")["result"]
    assert result.exit_code == 0 and not result.timed_out, result.describe()
    answer = outcome.final_json(result)
    assert answer.get("error") == formats.ERROR_INVALID_INPUT and ".git" in answer.get("detail", ""), answer
    (use, text) = outcome.bash_runs(result, "start")[0]
    assert "would refuse" in text, text  # the hook denied it: start never ran
    assert not any(p.name.startswith(formats.ARCHIVE_PREFIX) for p in result.cwd.iterdir())
    assert (result.cwd / "report.md").read_text() == "# The project's own report\n"
    assert (result.cwd / "sources" / "vendor.txt").read_text() == "the project's sources\n"
    assert (result.cwd / ".git" / "HEAD").is_file()
    assert not (result.cwd / formats.FINDINGS_DIR).exists()
    assert result.stream.tool_uses("Agent") == [] and result.stream.tool_uses("Write") == []


def test_refreshed_run_completes_fresh(runs):
    answer = outcome.return_object(runs["refreshed"])
    assert set(answer) == set(formats.RETURN_PATH_KEYS), answer
    run_dir = Path(answer["plan"]).parent
    assert run_dir == outcome.run_dir(runs["first"])
    assert outcome.verify(run_dir).returncode == 0
    (_, start_output), = outcome.bash_runs(runs["refreshed"], "start")
    assert outcome.json_of(start_output).get("archived_to"), start_output
