"""Subtopic names the client treats specially still end in findings files.

Claude Code 2.1.328 refuses a subagent's Write to a `.md` file whose name
starts (case-insensitively) with `report`, `summary`, `findings` or `analysis`
("Subagents should return findings as text, not write report files"), before
any hook runs. A findings file is named after its subtopic's slug, so the core
refuses such a subtopic name when it renders the briefs, naming the plan line;
the orchestrator renames the subtopic, as SKILL.md tells it, and the run
completes with every findings file written.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
SUBTOPICS = [
    {"name": "Analysis of pricing models", "establish": ["Which pricing models vendors use"]},
    {"name": "Reporting requirements", "establish": ["Which usage reports vendors provide"]},
    {"name": "Billing units", "establish": ["Which unit each vendor bills log ingestion by"]},
]

SESSIONS = {"names": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}",
                                              scenario="scripted.research:build",
                                              scenario_args={"subtopics": SUBTOPICS}))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("names")
    assert result.exit_code == 0 and not result.timed_out, result.describe()
    return result


def test_briefs_refuses_the_names_and_names_the_plan_line(run):
    refusals = [text for text in outcome.told(run, "briefs") if "rename the subtopic" in text]
    assert len(refusals) == 2, run.describe()
    for text, name in zip(refusals, ("Analysis of pricing models", "Reporting requirements")):
        assert "plan.md:" in text and f"subtopic '{name}'" in text, text


def test_every_subtopic_gets_an_ok_findings_file(run):
    answer = outcome.return_object(run)
    findings = Path(answer["findings_dir"])
    statuses = {p.name: ("status: ok" in p.read_text()) for p in findings.glob("*.md")}
    assert len(statuses) == 3 and all(statuses.values()), (statuses, run.describe())
    assert not any(name.startswith(formats.CLIENT_REFUSED_FILE_PREFIXES) for name in statuses)
    assert outcome.verify(Path(answer["plan"]).parent).returncode == 0
    plan = Path(answer["plan"]).read_text(encoding="utf-8")
    assert QUESTION in plan
