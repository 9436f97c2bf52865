"""A person's session after a finished run asks whether the report is still true.

First a whole scripted run (`/web-research --auto`), then, in a new session of the same person
on the same project with no run open, the question "Is the report in <run folder> still true?".
The fake web has changed meanwhile (the same port in both sessions, so the report's URLs reach
it): one page states a different figure, one is gone, one is as it was. The model finds
`recheck` through the skill's description, SKILL.md's pointer and the reference it names, runs
it, and answers with its summary; the hooks neither deny nor speak, the run's evidence stays
byte for byte, and the recheck's record and live texts lie beside it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.recheck import BUMP
from scripted.topics import DEFAULT_SUBTOPICS, Subtopic

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
PAGES_PORT = 44321
CHANGED, KEPT, GONE = (Subtopic(**s) for s in DEFAULT_SUBTOPICS)


def _run_then_ask(run):
    first = run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                        pages_port=PAGES_PORT))
    outcome.ended_cleanly(first)
    run_dir = outcome.run_dir(first)
    before = outcome.tree_bytes(run_dir)
    asked = run(RunSpec(prompt=f"Is the report in {run_dir} still true?", scenario="scripted.recheck:build",
                        scenario_args={"run_dir": str(run_dir), "changed": CHANGED.slug, "gone": GONE.slug},
                        pages_port=PAGES_PORT),
                project=first.cwd, home=first.home)
    return {"first": first, "asked": asked, "run_dir": run_dir, "before": before}


SESSIONS = {"recheck": _run_then_ask}


@pytest.fixture(scope="module")
def sessions(e2e_session):
    done = e2e_session("recheck")
    outcome.ended_cleanly(done["asked"])
    return done


@pytest.fixture(scope="module")
def record(sessions) -> dict:
    files = sorted((sessions["run_dir"] / formats.CHECKS_DIR).glob(f"{formats.RECHECK_FILE_PREFIX}*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text(encoding="utf-8"))


def test_the_person_gets_the_recheck_summary(sessions, record):
    asked = sessions["asked"]
    runs = outcome.bash_runs(asked, "recheck")
    assert len(runs) == 1, asked.describe()
    use, printed = runs[0]
    assert f'recheck "{sessions["run_dir"]}"' in use["input"]["command"]
    counts = record["summary"]
    assert counts["changed"] >= 1 and counts["gone"] >= 1 and counts["unchanged"] >= 1
    assert counts["moved"] == counts["unreachable"] == 0
    summary = ("Summary: " + f"{counts['citations']} citations: " + ", ".join(
        f"{counts[s]} {s}" for s in ("unchanged", "changed", "moved", "gone", "unreachable")))
    answer = asked.stream.final_text()
    assert summary in printed and summary in answer, answer
    assert "figure changed:" in answer and f"/docs/{CHANGED.slug}" in answer and f"/docs/{GONE.slug}" in answer


def test_each_footnote_has_the_state_of_its_page(record):
    by_page = {}
    for citation in record["citations"]:
        by_page.setdefault(citation["url"].rsplit("/", 1)[-1], set()).add(citation["state"])
    assert by_page == {CHANGED.slug: {"changed"}, KEPT.slug: {"unchanged"}, GONE.slug: {"gone"}}
    changed = next(c for c in record["citations"] if c["state"] == "changed")
    figure = CHANGED.fact().split(" is ", 1)[1].split()[0]
    assert changed["figures"] == [{"was": figure, "now": str(int(figure) + BUMP)}]
    assert changed["in_snapshot"] is True and changed["snapshot"].startswith(f"{formats.SOURCES_DIR}/")
    assert next(c for c in record["citations"] if c["state"] == "gone")["status"] == 404


def test_the_hooks_neither_deny_nor_speak_outside_a_run(sessions):
    asked = sessions["asked"]
    assert asked.stream.denials() == [], asked.describe()
    assert asked.stream.system_messages() == [], asked.describe()
    for event in ("PreToolUse", "PostToolUse", "Stop"):
        assert asked.stream.blocks(event) == [], asked.describe()
    contexts = [json.dumps(r) for r in asked.stream.hook_responses("PostToolUse")]
    assert not any("ran unguarded" in c for c in contexts)


def test_the_runs_evidence_is_untouched_and_the_recheck_lies_apart(sessions, record):
    run_dir: Path = sessions["run_dir"]
    after = outcome.tree_bytes(run_dir)
    added = sorted(set(after) - set(sessions["before"]))
    assert {k: v for k, v in after.items() if k in sessions["before"]} == sessions["before"]
    live = [name for name in added if name.startswith(f"{formats.RECHECKS_DIR}/")]
    assert added == sorted([*live, f"{formats.CHECKS_DIR}/{formats.RECHECK_FILE_PREFIX}{Path(record['live_dir']).name}.json"])
    assert len(live) == 2  # the changed and the kept page answered; the gone one left no text
    assert outcome.verify(run_dir).returncode == 0
