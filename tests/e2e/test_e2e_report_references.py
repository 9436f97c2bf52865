"""The report cites by reference and `finish` assembles it, through a model's lapses.

The scripted orchestrator writes report.md citing each source as
`[^<subtopic-slug>:<n>]`, the way SKILL.md asks, but with the lapses a real
model makes: the TL;DR cites the sources in reverse order (so references are
used out of order and reused in Findings), a Sources section is written by hand
anyway, numbered the old way, and the final message wraps `finish`'s object in
prose, first with a path retyped (`findings_dir` without its slash). `finish`
numbers the references by first use, replaces the hand-written Sources with the
findings' own entries (saying so); the Stop hook asks once for the object as
finish printed it, and the run ends verified.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats
from web_research.checks.citation_entries import parse_citations
from web_research.checks.report_references import REFERENCE
from web_research.report.assembly import identity

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"

# A calling skill's arguments (the contract's mapping): its final message is the return object.
SESSIONS = {"lapsed": lambda run: run(RunSpec(prompt=f'/web-research {{research_question: "{QUESTION}", auto_proceed: true}}',
                                               scenario="scripted.research:build",
                                               scenario_args={"report": "lapsed"}))}


@pytest.fixture(scope="module")
def lapsed(e2e_session):
    result = e2e_session("lapsed")
    outcome.ended_cleanly(result)
    return result


@pytest.fixture(scope="module")
def finished(lapsed):
    """(None, the return object as finish gave it: in the plugin's context after the claim check)."""
    return None, json.dumps(outcome.return_object(lapsed), ensure_ascii=False)


def _written_report(result) -> str:
    writes = [u["input"]["content"] for u in result.stream.tool_uses("Write")
              if u["input"].get("file_path", "").endswith("/" + formats.REPORT_FILE)]
    assert len(writes) == 1, result.describe()
    return writes[0]


def test_finish_numbered_by_first_use_and_copied_each_entry_from_the_findings(lapsed, finished):
    # What the model wrote: references reused, the TL;DR citing them in reverse.
    written = _written_report(lapsed)
    references = [m.group(0) for m in REFERENCE.finditer(written)]
    assert len(references) > len(set(references))
    tldr = written.split("## TL;DR", 1)[1].split("## Findings", 1)[0]
    findings_part = written.split("## Findings", 1)[1].split("## Gaps", 1)[0]
    in_findings = [m.group(0) for m in REFERENCE.finditer(findings_part)]
    assert REFERENCE.search(tldr).group(0) == in_findings[-1] != in_findings[0]

    answer = json.loads(finished[1])
    run_dir = Path(answer["plan"]).parent
    report = Path(answer["report"]).read_text(encoding="utf-8")
    assert not REFERENCE.search(report)
    findings = {identity(c): c for p in sorted((run_dir / formats.FINDINGS_DIR).glob("*.md"))
                for c in parse_citations(p.read_text(encoding="utf-8"))}
    cites = parse_citations(report)
    assert cites and all(identity(c) in findings for c in cites)
    body = report.split("## Sources", 1)[0]
    order = list(dict.fromkeys(int(n) for n in re.findall(r"\[\^(\d+)\](?!:)", body)))
    assert order == list(range(1, len(order) + 1)) == [c.number for c in cites]
    # The TL;DR cites the last subtopic's source first: it is [^1], and Findings reuse the numbers.
    first_reference = REFERENCE.search(written.split("## TL;DR", 1)[1]).group(1)
    assert first_reference in cites[0].url or cites[0].url.endswith(first_reference)
    assert body.count("[^1]") >= 2
    kept = run_dir / formats.RUN_STATE_DIR / formats.REPORT_BEFORE_FINISH_FILE
    assert kept.read_text(encoding="utf-8") == written


def test_finish_recorded_that_it_replaced_the_sources_written_by_hand(lapsed, finished):
    written = _written_report(lapsed)
    assert "\n## Sources\n" in written  # what the model wrote: its own Sources, numbered by subtopic
    by_hand = next(line for line in written.split("\n## Sources\n", 1)[1].splitlines() if line.startswith("[^1]:"))
    run_dir = Path(json.loads(finished[1])["plan"]).parent
    report = Path(json.loads(finished[1])["report"]).read_text(encoding="utf-8")
    assert by_hand not in report and report.count("\n## Sources\n") == 1  # finish's [^1] is the TL;DR's first
    record = json.loads((run_dir / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE).read_text(encoding="utf-8"))
    assert "Sources section was written by hand" in record["notes"][0]
    assert "Sources section" not in finished[1]  # the note stays out of the returned object


def test_a_retyped_object_is_asked_for_once_and_prose_around_it_ends_the_run_verified(lapsed, finished):
    final = lapsed.stream.final_text()
    assert final.strip() != finished[1].strip() and finished[1].strip() in final  # prose around it
    blocks = lapsed.stream.blocks("Stop")
    assert len(blocks) == 1, lapsed.describe()  # the retyped path: the object is given back to return
    assert finished[1].strip() in lapsed.stream.decision_of(blocks[0]).get("reason", ""), blocks[0]
    answer = json.loads(finished[1])
    done = outcome.verify(Path(answer["plan"]).parent)
    assert done.returncode == 0, done.stdout
