"""Scenario: the run's pages state sentences as real manuals write them, and the researchers quote
them as a model does (issue 36).

Each topic page also carries a sentence of a real manual page, with its typographic apostrophes
(Python 3.11 asyncio: "isn’t", "it’s"), its figures (the floating-point tutorial's "0.1" and
"0.3") or its quoted SQL (PostgreSQL 15 SET). The scripted researcher quotes each with straight
apostrophes and quotes, and the report's claims carry code spans, one of them `.1 + .1 + .1 == .3`.
Verify passes, the claim-checker reads each claim as the report writes it, spaces around its code
kept, and report.html marks every claim verified: no failing mark where verify passes.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import REPO_ROOT, RunSpec
from scripted import checker

from web_research import formats

QUESTION = "What do the Python and PostgreSQL manuals say about tasks, floats and SET?"
SUBTOPICS = [
    {"name": "Task lifetimes", "establish": ["When an asyncio task may be garbage collected"],
     "quotes": [["A task that isn\u2019t referenced elsewhere may get garbage collected at any time, even before "
                 "it\u2019s done.",
                 "A task made by `asyncio.create_task()` that isn't referenced elsewhere may get garbage collected "
                 "before it's done."]]},
    {"name": "Float sums", "establish": ["Why decimal fractions do not add up exactly in binary floating point"],
     "quotes": [["For example, since 0.1 is not exactly 1/10, summing three values of 0.1 may not yield exactly "
                 "0.3, either:",
                 "Summing three values of 0.1 may not yield exactly 0.3, so `.1 + .1 + .1 == .3` is false."]]},
    {"name": "Schema search path", "establish": ["What SET SCHEMA stands for"],
     "quotes": [["SET SCHEMA \u2018value\u2019 is an alias for SET search_path TO value.",
                 "`SET SCHEMA 'value'` is an alias for `SET search_path TO value`, the manual\u2019s \u201cshort\u201d "
                 "form."]]},
]

SESSIONS = {"real-text": lambda run: run(RunSpec(
    prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
    scenario_args={"subtopics": SUBTOPICS}, timeout=150.0))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("real-text")
    outcome.ended_cleanly(result)
    return result


@pytest.fixture(scope="module")
def run_dir(run) -> Path:
    return outcome.run_dir(run)


def test_verify_passes_and_the_view_marks_every_claim_verified(run, run_dir):
    assert outcome.verify(run_dir).returncode == 0
    report = (run_dir / formats.REPORT_FILE).read_text(encoding="utf-8")
    assert "isn't referenced elsewhere may get garbage collected at any time, even before it's done." in report
    html = (run_dir / formats.REPORT_VIEW_FILE).read_text(encoding="utf-8")
    assert 'class="claim st-failing"' not in html and "fn-ref st-failing" not in html
    assert "the excerpt is not in the stored page text" not in html
    claims = len(re.findall(r'class="claim st-', html))
    assert claims >= 6 and html.count('class="claim st-verified"') == claims


def test_the_checker_reads_the_claims_with_their_code_spans_as_written(run):
    prompts = [req.first_user_text for req in run.requests if req.is_agent(checker.checker_marker(str(REPO_ROOT)))]
    assert prompts, "no claim-checker ran"
    said = "\n".join(prompts)
    assert "so .1 + .1 + .1 == .3 is false" in said
    assert "made by asyncio.create_task() that isn't referenced" in said
    assert "SET SCHEMA 'value' is an alias for SET search_path TO value," in said
