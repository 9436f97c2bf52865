"""Subtopic names the client treats specially must still get their findings file.

Claude Code 2.1.328 refuses a subagent's Write to a `.md` file whose name
starts (case-insensitively) with `report`, `summary`, `findings` or `analysis`
("Subagents should return findings as text, not write report files"), before
any hook runs; `01-analysis.md`, `analyses.md` or `summary.txt` pass. A
findings file is named after its subtopic's slug, so a subtopic such as
"Analysis of pricing models" or "Reporting requirements" could never be
written: a silent failure the researcher cannot avoid.
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


@pytest.mark.xfail(strict=True, reason=(
    "findings/<slug>.md is refused by the CLI for slugs starting with report/summary/findings/analysis; "
    "the findings file name (formats/briefs, slug rule) needs a form the CLI accepts"))
def test_every_subtopic_gets_an_ok_findings_file(run):
    answer = outcome.final_json(run)
    findings = Path(answer["findings_dir"])
    statuses = {p.name: ("status: ok" in p.read_text()) for p in findings.glob("*.md")}
    assert len(statuses) == 3 and all(statuses.values()), (statuses, run.describe())
    assert outcome.verify(Path(answer["plan"]).parent).returncode == 0
