"""Scenario: the lapses a real model makes with the bookkeeping the plugin took over.

The orchestrator dispatches its three researchers the ways a model mistypes `Brief:
<brief_path>`: a relative path, the path in quotes with a sentence after it, the bare slug
(`brief: <slug>`). The PreToolUse hook puts each brief in its place. One researcher is
"sloppy": it replies `status: ok` with a stale reason left in, and no researcher types its
times or brief hash: the SubagentStop hook fills them in and drops the stale reason. The
plan keeps `Tier: standard`, so a claim-checker runs; its answer comes after a line of prose
and quotes words inside its reasons. The run ends verified.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.topics import DEFAULT_SUBTOPICS

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
SLOPPY = "Retention tiers"

SESSIONS = {"lapses": lambda run: run(RunSpec(
    prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
    scenario_args={"lapses": True,
                   "subtopics": [{**s, "behaviour": "sloppy" if s["name"] == SLOPPY else "ok"}
                                 for s in DEFAULT_SUBTOPICS]},
    timeout=150.0))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("lapses")
    outcome.ended_cleanly(result)
    return result


@pytest.fixture(scope="module")
def run_dir(run) -> Path:
    return outcome.run_dir(run)


def test_mistyped_dispatch_prompts_each_got_their_brief(run, run_dir):
    agents = [u for u in run.stream.tool_uses("Agent", main_only=True)
              if u["input"]["prompt"].lower().startswith("brief")]
    # one call named a wrong agent type and the background: the hook set both, and it ran as a
    # researcher in the foreground
    lapsed = [u for u in agents if u["input"].get("subagent_type") == "general-purpose"]
    assert len(lapsed) == 1 and lapsed[0]["input"]["run_in_background"] is True
    assert "async_launched" not in run.stream.tool_result_text(lapsed[0]["id"])
    prompts = sorted(u["input"]["prompt"] for u in agents)
    assert len(prompts) == 3 and not any(p.startswith(f"{formats.DISPATCH_BRIEF_LABEL} /") for p in prompts), prompts
    assert any(p.startswith("Brief: briefs/") for p in prompts) and any(p.startswith("brief: ") for p in prompts)
    for use in agents:
        assert not outcome.tool_result_is_error(run, use["id"]), run.describe()
    # each researcher's first message was its whole brief, as the hook put it in place
    firsts = {req.agent_id: req.first_user_text for req in run.requests if req.kind == "subagent"
              and "Your subtopic:" in req.first_user_text}
    briefs = {p.read_text(encoding="utf-8").rstrip() for p in (run_dir / formats.BRIEFS_DIR).glob("*.md")}
    assert len(firsts) == 3 and all(any(f"{b}\n\nBrief hash: sha256:" in t for t in firsts.values()) for b in briefs)


def test_the_sloppy_researchers_stale_reason_is_dropped_and_times_filled_in(run_dir):
    from scripted.topics import Subtopic

    from web_research.core.frontmatter_reader import read_frontmatter

    path = run_dir / formats.FINDINGS_DIR / f"{Subtopic(SLOPPY, []).slug}.md"
    meta = read_frontmatter(path.read_text(encoding="utf-8")).data
    assert meta["status"] == "ok" and "reason" not in meta and meta["started_at"] <= meta["finished_at"]


def test_the_checkers_quoted_reasons_are_kept_and_the_run_ends_verified(run, run_dir):
    verdicts = json.loads((run_dir / formats.CHECKS_DIR / "verdicts-1.json").read_text())["verdicts"]
    assert verdicts and all(v["verdict"] == "supported" and v["reason"].count('"') == 2 for v in verdicts), verdicts
    assert outcome.verify(run_dir).returncode == 0
    assert run.stream.blocks("Stop") == [], run.describe()
