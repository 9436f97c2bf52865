"""Looking inside a long page: `fetch --find` against reading on with --offset.

Two researchers get the same kind of long page, the fact they need some 20,000 characters in. One
reads it as a page is read window by window (`--offset`, as `fetch` says to continue) until the
fact shows; the other asks `fetch --find` for the words of its subject and gets the window that
holds them at once. Both cite the fact verbatim and verify; each spent one page read of its budget
(metrics.json), and the --find researcher read fewer windows. A third ends its findings with the
"Sources:" list of links the client's WebSearch tool asks for: its findings are written without it
and pass.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.research import DEFAULT_SUBTOPICS

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
BEHAVIOUR = {"Billing units": "long", "Retention tiers": "long-find", "Commitment discounts": "sources-list"}
SUBTOPICS = [{**s, "behaviour": BEHAVIOUR[s["name"]]} for s in DEFAULT_SUBTOPICS]

SESSIONS = {"find": lambda run: run(RunSpec(
    prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
    scenario_args={"subtopics": SUBTOPICS}))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("find")
    outcome.ended_cleanly(result)
    return result


@pytest.fixture(scope="module")
def run_dir(run) -> Path:
    return outcome.run_dir(run)


def fetches(run, slug: str) -> list[str]:
    return [c["input"]["command"] for c in outcome.researcher_calls(run, slug) if c["name"] == "Bash"]


def test_find_reads_fewer_windows_than_offsets_and_both_cite_the_fact(run, run_dir):
    paged, found = fetches(run, "billing-units"), fetches(run, "retention-tiers")
    assert len(paged) >= 3 and all("--offset" in c for c in paged[1:]), paged  # the fact is three windows in
    assert len(found) == 1 and '--find "retention tiers figure"' in found[0], found
    assert len(found) < len(paged)
    for slug in ("billing-units", "retention-tiers"):
        for call in outcome.researcher_calls(run, slug):
            assert not outcome.tool_result_is_error(run, call["id"]), (slug, call)
        text = (run_dir / formats.FINDINGS_DIR / f"{slug}.md").read_text()
        assert "status: ok" in text and "figure published for 2026 is" in text
    assert outcome.verify(run_dir).returncode == 0


def test_find_and_reading_on_each_count_one_page_read(run, run_dir):
    metrics = json.loads((run_dir / "metrics.json").read_text())
    reads = {r["slug"]: r["page_reads"] for r in metrics["researchers"]}
    assert reads == {"billing-units": 1, "retention-tiers": 1, "commitment-discounts": 1}, metrics


def test_the_clients_sources_list_is_not_written_into_the_findings(run, run_dir):
    (reply,) = outcome.researcher_replies(run, "commitment-discounts")
    assert reply.rstrip().splitlines()[-2:][0] == "Sources:"
    text = (run_dir / formats.FINDINGS_DIR / "commitment-discounts.md").read_text()
    assert "status: ok" in text and "\nSources:\n" not in text and "- [Commitment discounts" not in text
