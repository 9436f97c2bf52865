"""Budgets the hooks hold, and metrics measured from what really happened.

The plan allows 2 searches per researcher. One researcher sends four
different searches, two to a message: the hooks allow the first message's two
and deny the second's, and it still replies with `ok` findings from what it
found. Another repeats a search (other case and
spacing) and a fetch: both repeats are denied as already done. The third
behaves. The orchestrator then tries a WebSearch of its own: denied, since
researchers do the searching. After the run, `metrics.json` holds exactly what the scripted model
did: per researcher its searches, page reads, tool calls and denied calls (from
the CLI's own stream), and its tokens (the numbers the fake API reported for
that agent's requests).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from harness.sse import OUTPUT_TOKENS
from scripted.research import DEFAULT_SUBTOPICS

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
BEHAVIOUR = {"Billing units": "greedy", "Retention tiers": "repeat"}
SUBTOPICS = [{**s, "behaviour": BEHAVIOUR.get(s["name"], "ok")} for s in DEFAULT_SUBTOPICS]

SESSIONS = {"budgets": lambda run: run(RunSpec(
    prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
    scenario_args={"subtopics": SUBTOPICS, "budget_lines": ["Searches per subagent: 2"], "own_search": True}))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("budgets")
    outcome.ended_cleanly(result)
    return result


@pytest.fixture(scope="module")
def run_dir(run) -> Path:
    return outcome.run_dir(run)


researcher_calls = outcome.researcher_calls


def denied(run, calls: list[dict]) -> list[dict]:
    return [c for c in calls if outcome.tool_result_is_error(run, c["id"])]


def test_four_searches_two_to_a_message_on_a_budget_of_two_the_second_pair_denied_and_findings_ok(run, run_dir):
    messages = [[b for b in m if b.get("type") == "tool_use"] for m in outcome.researcher_messages(run, "billing-units")]
    assert [[c["name"] for c in m] for m in messages[:2]] == [["WebSearch"] * 2] * 2, messages
    calls = researcher_calls(run, "billing-units")
    searches = [c for c in calls if c["name"] == "WebSearch"]
    assert len(searches) == 4, calls
    assert [c in denied(run, calls) for c in searches] == [False, False, True, True]
    for call in searches[2:]:
        text = run.stream.tool_result_text(call["id"])
        assert "Search budget spent" in text and "2 of your 2" in text and "Reply with your findings" in text, text
    text = (run_dir / formats.FINDINGS_DIR / "billing-units.md").read_text()
    assert "status: ok" in text


def test_a_repeated_query_and_a_repeated_fetch_are_denied_as_done(run, run_dir):
    calls = researcher_calls(run, "retention-tiers")
    searches = [c for c in calls if c["name"] == "WebSearch"]
    fetches = [c for c in calls if c["name"] == "Bash"]
    assert len(searches) == 2 and len(fetches) == 2, calls
    assert denied(run, calls) == [searches[1], fetches[1]]
    assert "already searched" in run.stream.tool_result_text(searches[1]["id"])
    assert "already read" in run.stream.tool_result_text(fetches[1]["id"])
    assert "status: ok" in (run_dir / formats.FINDINGS_DIR / "retention-tiers.md").read_text()
    assert outcome.verify(run_dir).returncode == 0


def test_the_orchestrators_own_search_is_denied(run):
    (own,) = run.stream.tool_uses("WebSearch", main_only=True)
    assert outcome.tool_result_is_error(run, own["id"])
    assert "researchers do the searching" in run.stream.tool_result_text(own["id"])


def test_metrics_equal_what_the_scripted_model_did(run, run_dir):
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["final"] is True
    by_slug = {r["slug"]: r for r in metrics["researchers"]}
    assert set(by_slug) == {"billing-units", "retention-tiers", "commitment-discounts"}, metrics
    requests = [json.loads(line) for line in (run.workdir / "requests.jsonl").read_text().splitlines()]
    for slug, measured in by_slug.items():
        calls = researcher_calls(run, slug)
        refused = denied(run, calls)
        ran = [c for c in calls if c not in refused]
        assert measured["searches"] == sum(c["name"] == "WebSearch" for c in ran), (slug, measured)
        assert measured["page_reads"] == sum(c["name"] in ("Bash", "WebFetch") for c in ran), (slug, measured)
        assert measured["tool_calls"] == len(calls), (slug, measured)
        assert measured["denied"] == len(refused), (slug, measured)
        # Its own model calls: the requests sent as this agent, minus the CLI's WebSearch backend calls.
        own = [r for r in requests if r["headers"].get("x-claude-code-agent-id") == measured["agent_id"]
               and not any(str(t.get("type", "")).startswith("web_search") for t in r["body"].get("tools") or [])]
        assert measured["model_calls"] == len(own), (slug, measured)
        assert measured["input_tokens"] == sum(r["input_tokens"] for r in own), (slug, measured)
        assert measured["output_tokens"] == OUTPUT_TOKENS * len(own), (slug, measured)
        assert 0 < measured["wall_seconds"] <= run.wall_s
    assert by_slug["billing-units"]["searches"] == 2 and by_slug["billing-units"]["denied"] == 2
    totals = metrics["totals"]
    assert totals["researchers"] == 3 and totals["dispatches"] == 3
    assert metrics["orchestrator"]["denied"] == 1 and metrics["orchestrator"]["searches"] == 0
    assert totals["denied"] == 5 and totals["searches"] == 4
    assert totals["input_tokens"] >= sum(r["input_tokens"] for r in metrics["researchers"]) \
        + metrics["orchestrator"]["input_tokens"] > 0


def test_the_metrics_reach_later_estimates_and_status(run, run_dir):
    copies = list((run.home / ".claude" / "plugins" / "data").glob("*/metrics/*.json"))
    assert len(copies) == 1 and json.loads(copies[0].read_text())["researchers"]
    status = outcome.subprocess.run([str(outcome.CORE), "status", "--json", str(run_dir)],
                                    capture_output=True, text=True, timeout=60)
    data = json.loads(status.stdout)
    assert {r["slug"]: r["searches"] for r in data["researchers"]}["billing-units"] == 2
    assert data["budget"]["searches_per_researcher"] == 2
