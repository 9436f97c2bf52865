"""Run metrics (metrics/run_metrics.py, guard/effects/metrics.py) and what `status` shows of them.

Tokens come from transcript usage records (one per distinct message id),
counts from the ledger; the hooks write metrics.json at SubagentStop and Stop,
and a copy for later estimates at Stop.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema

from hook_harness import CLI, Harness
from web_research.evidence import ledger
from web_research.run.estimate import METRICS_SCHEMA, load_averages
from web_research.formats import SCHEMAS_DIR
from web_research.metrics.run_metrics import RunInputs, Researcher, build, transcript_usage
from web_research.metrics.usage import fold

AGENT = "a1b2c3d4e5f6a7b8c"


def assistant(msg_id: str, at: str, usage: dict, tools: list[str] = ()) -> dict:
    content = [{"type": "tool_use", "id": t, "name": "WebSearch", "input": {}} for t in tools] or [
        {"type": "text", "text": "x"}]
    return {"type": "assistant", "timestamp": at, "message": {"id": msg_id, "role": "assistant",
                                                             "content": content, "usage": usage}}


def write_transcript(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + "not json\n", encoding="utf-8")
    return path


USAGE = {"input_tokens": 100, "cache_read_input_tokens": 50, "cache_creation_input_tokens": 5, "output_tokens": 7}


def researcher_records() -> list[dict]:
    return [
        {"type": "user", "timestamp": "2026-12-01T03:00:00.000Z", "message": {"role": "user", "content": "brief"}},
        # one reply streamed as two records (text, then a tool call): one message id, counted once
        assistant("m1", "2026-12-01T03:00:01.000Z", USAGE),
        assistant("m1", "2026-12-01T03:00:01.100Z", USAGE, ["t1"]),
        assistant("m2", "2026-12-01T03:00:04.500Z", {"input_tokens": 300, "output_tokens": 9}, ["t2", "t3"]),
    ]


def test_tokens_tool_calls_and_time_come_from_the_transcript(tmp_path: Path):
    measured = transcript_usage(write_transcript(tmp_path / "a.jsonl", researcher_records()))
    assert (measured.input_tokens, measured.output_tokens) == (155 + 300, 16)
    assert (measured.model_calls, measured.tool_calls) == (2, 3)
    assert measured.wall_seconds == 4.5 and not measured.partial


def test_reading_is_bounded_and_records_before_the_run_are_left_out(tmp_path: Path):
    path = write_transcript(tmp_path / "a.jsonl", researcher_records())
    cut = transcript_usage(path, max_bytes=300)
    assert cut.partial and cut.input_tokens < 455
    since = transcript_usage(path, since=1_796_094_003.0)  # 2026-12-01T03:00:03Z
    assert (since.model_calls, since.input_tokens) == (1, 300)
    assert transcript_usage(tmp_path / "missing.jsonl").partial
    fifo = tmp_path / "fifo.jsonl"
    import os

    os.mkfifo(fifo)
    assert transcript_usage(fifo).partial  # never blocks on a FIFO


def test_the_document_counts_from_the_ledger_and_totals_everyone(tmp_path: Path):
    transcript = write_transcript(tmp_path / "agent.jsonl", researcher_records())
    main = write_transcript(tmp_path / "main.jsonl", [assistant("o1", "2026-12-01T03:00:00Z",
                                                                {"input_tokens": 1000, "output_tokens": 20}, ["b1"])])
    entries = [ledger.entry("search", AGENT, "billing", query="q", tool_use_id="t1", phase="allowed"),
               ledger.entry("search", AGENT, "billing", query="q", tool_use_id="t1", ok=True),
               ledger.entry("denied", AGENT, "billing", rule="search-budget"),
               ledger.entry("page_read", AGENT, "billing", url="u", tool="fetch", tool_use_id="t2", phase="allowed")]
    doc = build(RunInputs(str(tmp_path), "2026-12-01T02:59:00Z", [Researcher(AGENT, "billing", "done", str(transcript))],
                          fold(entries), str(main), dispatches=1), now=1_796_094_060.0, final=True)
    (one,) = doc["researchers"]
    assert (one["searches"], one["page_reads"], one["denied"], one["tool_calls"]) == (1, 1, 1, 3)
    assert doc["totals"]["input_tokens"] == 455 + 1000 and doc["totals"]["tool_calls"] == 4
    assert doc["totals"]["wall_seconds"] == 120.0
    jsonschema.validate(doc, json.loads((SCHEMAS_DIR / METRICS_SCHEMA).read_text()))


def test_the_hooks_write_metrics_at_subagent_stop_and_stop_and_estimates_use_them(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    brief = h.render_briefs(["Billing units", "Retention tiers"])[0]
    h.start_agent(AGENT, h.prompt_for(brief))
    with h.agent_transcript(AGENT).open("a") as handle:
        for record in researcher_records()[1:]:
            handle.write(json.dumps(record) + "\n")
    assert h.hook(h.payload("PreToolUse", AGENT, tool_name="WebSearch", tool_input={"query": "q"},
                            tool_use_id="t9")).stdout == ""
    assert h.reply(AGENT, h.findings_reply("failed", "no source reachable")).stdout == ""  # let go
    metrics = json.loads((h.run_dir / "metrics.json").read_text())
    assert metrics["final"] is False
    (mine,) = [r for r in metrics["researchers"] if r["agent_id"] == AGENT]
    assert (mine["searches"], mine["input_tokens"], mine["slug"]) == (1, 455, brief["slug"])
    assert not list((h.data / "metrics").glob("*.json"))  # only Stop leaves the copy for estimates
    h.hook(h.stop())
    copies = list((h.data / "metrics").glob("*.json"))
    assert len(copies) == 1 and json.loads(copies[0].read_text())["final"] is True
    averages, skipped = load_averages(h.data)
    assert averages.source == "metrics" and skipped == 0
    assert averages.input_tokens == 455  # one researcher, one call


def test_status_shows_live_progress_and_measured_metrics(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    briefs = h.render_briefs(["Billing units", "Retention tiers"])
    h.start_agent(AGENT, h.prompt_for(briefs[0]))
    h.hook(h.payload("SubagentStart", AGENT))
    h.hook(h.payload("PreToolUse", AGENT, tool_name="WebSearch", tool_input={"query": "q"}, tool_use_id="t1"))
    live = subprocess.run([str(CLI), "status", str(h.run_dir)], capture_output=True, text=True, check=True).stdout
    row = next(line for line in live.splitlines() if line.startswith(briefs[0]["slug"]))
    assert row.split()[1:3] == ["running", "1/5"], live
    data = json.loads(subprocess.run([str(CLI), "status", "--json", str(h.run_dir)], capture_output=True,
                                     text=True, check=True).stdout)
    (researcher,) = data["researchers"]
    assert researcher["state"] == "running" and researcher["searches"] == 1
    assert data["budget"]["searches_per_researcher"] == 5 and data["verify"]["passes"] is False
    assert [t["status"] for t in data["subtopics"]] == ["missing", "missing"] and data["report"] is None


def test_metrics_that_cannot_be_written_never_change_a_decision(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    brief, second = h.render_briefs(["Billing units", "Retention tiers"])
    h.start_agent(AGENT, h.prompt_for(brief))
    (h.run_dir / "metrics.json").mkdir()  # the atomic write cannot replace a folder
    assert h.reply(AGENT, h.findings_reply("failed", "no source reachable")).stdout == ""  # let go, as without metrics
    other = "b1b2c3d4e5f6a7b8c"
    h.start_agent(other, h.prompt_for(second))
    assert h.hook(h.subagent_stop(other)).decision == "block"  # its reply holds no findings
    assert "metrics" in h.log() and (h.run_dir / "metrics.json").is_dir()


def test_status_reads_no_spending_file_from_outside_the_run(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    h.render_briefs(["Billing units", "Retention tiers"])
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "progress.json").write_text(json.dumps({"agents": [{"agent_id": "x", "slug": "planted",
                                                                   "searches": 99}]}))
    (h.run_dir / ".web-research").rename(tmp_path / "state-moved") if (h.run_dir / ".web-research").exists() else None
    (h.run_dir / ".web-research").symlink_to(outside)
    (h.run_dir / "metrics.json").symlink_to(outside / "progress.json")
    out = subprocess.run([str(CLI), "status", str(h.run_dir)], capture_output=True, text=True, check=True).stdout
    assert "planted" not in out and "Spending: none recorded" in out
