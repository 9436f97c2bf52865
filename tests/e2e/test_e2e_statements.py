"""Every statement is a claim, in the real client: an uncited figure in the TL;DR is told at finish.

The scripted orchestrator writes a report whose TL;DR opens with a bullet that restates the first
claim's figure without its reference. `finish` fails on it (report.tldr.uncited, naming the
bullet and its figure); the orchestrator gives the bullet its reference and runs `finish` again,
which (after the tier's claim check) prints the return object, and the run ends verified with no
Stop block.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"

SESSIONS = {"uncited": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}",
                                                scenario="scripted.research:build",
                                                scenario_args={"report": "uncited-then-cited"}))}


@pytest.fixture(scope="module")
def uncited(e2e_session):
    result = e2e_session("uncited")
    outcome.ended_cleanly(result)
    return result


def _tldr(text: str) -> list[str]:
    section = text.split("## TL;DR", 1)[1].split("## Findings", 1)[0]
    return [line for line in section.splitlines() if line.startswith("- ")]


def test_finish_names_the_uncited_bullet_and_its_figure(uncited):
    from scripted.orchestrator import UNCITED_OPENING

    # told after report.md's Write; the fix (an Edit) and finish in one message; then the claim check
    finishes = outcome.told(uncited, "finish")
    text = finishes[0]
    assert "report.tldr.uncited" in text and f'"{UNCITED_OPENING}' in text and "units" in text, text
    assert "[^<subtopic-slug>:<n>]" in text  # the form to cite with
    assert all("report.tldr.uncited" not in later for later in finishes[1:])
    (fix,) = [m for m in outcome.agent_messages_of(uncited) if [b["name"] for b in m] == ["Edit", "Bash"]]
    (use, after_edit), = outcome.bash_runs(uncited, "finish")
    assert use["id"] == fix[1]["id"] and not outcome.tool_result_is_error(uncited, use["id"]), after_edit
    assert "need a verdict" in after_edit  # finish ran after the Edit: the edited claim waits for its check


def test_the_bullet_is_cited_and_the_run_ends_verified(uncited):
    from scripted.orchestrator import UNCITED_OPENING

    writes = [u["input"]["content"] for u in uncited.stream.tool_uses("Write")
              if u["input"].get("file_path", "").endswith("/" + formats.REPORT_FILE)]
    (edit,) = uncited.stream.tool_uses("Edit")
    assert len(writes) == 1, uncited.describe()
    before, after = _tldr(writes[0])[0], edit["input"]["new_string"].rstrip("\n")
    assert before.startswith(f"- {UNCITED_OPENING}") and "[^" not in before and edit["input"]["old_string"] == before + "\n"
    assert after.startswith(before.rstrip()) and "[^" in after  # the same words, now cited
    answer = outcome.return_object(uncited)
    assert set(answer) == set(formats.RETURN_PATH_KEYS), answer  # no "verified": false
    assert json.dumps(answer, ensure_ascii=False) in outcome.told(uncited, "finish")[-1]
    assert outcome.verify(Path(answer["plan"]).parent).returncode == 0
    assert uncited.stream.blocks("Stop") == [], uncited.describe()
    report = Path(answer["report"]).read_text(encoding="utf-8")
    assert _tldr(report)[0].startswith(f"- {UNCITED_OPENING}") and "[^1]" in _tldr(report)[0]


def test_the_honest_gaps_statement_goes_through_the_checker_and_stands(uncited):
    """Issue 43: the report's Gaps line says what the pages read do not state; the checker is shown it
    with the closest passages of the stored pages, finds none states it, and the line stands."""
    from scripted.orchestrator import HONEST_ABSENCE

    answer = outcome.return_object(uncited)
    assert HONEST_ABSENCE in Path(answer["report"]).read_text(encoding="utf-8")
    run = Path(answer["plan"]).parent
    reasons = [v["reason"] for f in sorted((run / formats.CHECKS_DIR).glob("verdicts-*.json"))
               for v in json.loads(f.read_text(encoding="utf-8"))["verdicts"] if v["verdict"] == "supported"]
    # the scripted checker's reason for a statement of absence it read with its passages (scripted/checker.py)
    assert any(r.startswith("no passage shown holds") for r in reasons), reasons
