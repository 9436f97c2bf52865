"""Bookkeeping held by code, not by prompts: the plan skeleton `start` writes, the question it records,
every plan mistake at once, the budget ceiling; the findings stub and the frontmatter fields the
plugin fills in; the figure rule at a researcher's stop."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cli_support import VALID_PLAN, run_cli
from hook_harness import QUESTION, Harness, PreparedHarnesses
from test_seals import ledger_entries
from web_research import formats
from web_research.checks.rules_version import RULES_VERSION
from web_research.run.budget import TIERS
from web_research.run.findings_reply import completed_text
from web_research.run.findings_stub import stub_text
from web_research.run.plan import PlanError, parse_plan, render_skeleton
from web_research.core.schema_validation import schema_validator

HASH = "sha256:" + "a" * 64


def _json(proc) -> dict:
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)


# --- the plan skeleton and the recorded question --------------------------------------------

def test_start_records_its_inputs_and_the_plans_write_is_completed_from_them(tmp_path: Path) -> None:
    """start writes no plan.md (the model creates it: no Read first); the hook completes the model's
    Write from start's record (run/plan.complete_plan): the question verbatim, Tier and Deepen."""
    from web_research.run.plan import complete_plan

    question = 'What do "hot" and cold log tiers cost:  2026?'
    out = _json(run_cli(["start", "--question", question, "--output-dir", "run", "--tier", "deep", "--deepen"],
                        tmp_path))
    assert not Path(out["plan"]).exists()
    plan = complete_plan("## Subtopics\n\n## Synthesis approach\n", question, "deep", True)
    assert plan == render_skeleton(question, "deep", True)
    assert [line for line in plan.splitlines() if line.startswith("## ")] == [
        f"## {name}" for name in formats.PLAN_SECTIONS]
    assert f"\n{question}\n" in plan and "\nTier: deep\nDeepen: yes\n" in plan
    record = json.loads((Path(out["output_dir"]) / ".web-research" / "start.json").read_text(encoding="utf-8"))
    assert record == {"research_question": question, "tier": "deep", "deepen": True, "rules_version": RULES_VERSION}
    with pytest.raises(PlanError) as error:  # the skeleton alone is no plan: the model fills it in
        parse_plan(plan)
    assert "no Subtopics" not in str(error.value) and len(error.value.errors) >= 2


def test_a_filled_skeleton_parses_with_the_tier_and_deepen_of_start(tmp_path: Path) -> None:
    skeleton = render_skeleton(QUESTION, "standard", True)
    filled = skeleton.replace("## Subtopics\n", "## Subtopics\n\n### Pricing\n- the list price, dated\n") \
        .replace("## Synthesis approach\n", "## Synthesis approach\n\nBy subtopic.\n")
    plan = parse_plan(filled, None, QUESTION)
    assert plan.question == QUESTION and plan.tier == "standard" and plan.deepen


@pytest.mark.parametrize("command", ["estimate", "briefs"])
def test_estimate_and_briefs_refuse_a_question_start_did_not_record(tmp_path: Path, command: str) -> None:
    out = _json(run_cli(["start", "--question", QUESTION, "--output-dir", "run"], tmp_path))
    plan = Path(out["plan"])
    plan.write_text(VALID_PLAN.replace(QUESTION, "How do vendors price logs?"), encoding="utf-8")
    refused = run_cli([command, "run"], tmp_path)
    assert refused.returncode == 2
    assert "plan.md:5: the research question differs from the one start recorded" in refused.stderr
    assert QUESTION in refused.stderr
    plan.write_text(VALID_PLAN.replace(QUESTION, QUESTION.replace(" their ", "\n their ")), encoding="utf-8")
    assert run_cli([command, "run"], tmp_path).returncode == 0  # a wrapped line is the same question


def test_every_plan_mistake_is_listed_at_once_with_its_line() -> None:
    text = ("## Research question\n\nQ?\n\n## Subtopics\n\n### A\nnot a bullet\n### B\n\n"
            "## Scope notes\n\n## Synthesis approach\n\n## Budget\n\nTier: huge\nSearches per subagent: 0\n"
            "## Extra\n")
    with pytest.raises(PlanError) as error:
        parse_plan(text, Path("plan.md"))
    lines = str(error.value).splitlines()
    assert [e.line for e in error.value.errors] == sorted(e.line for e in error.value.errors)
    for where, what in ((7, "subtopic 'A' has no bullets"), (8, "expected a bullet"),
                        (9, "subtopic 'B' has no bullets"), (11, "'## Scope notes' is empty"),
                        (13, "'## Synthesis approach' is empty"), (17, "'Tier' is 'huge'"),
                        (18, "'Searches per subagent' is '0'"), (19, "unknown section '## Extra'")):
        assert any(line.startswith(f"plan.md:{where}: ") and what in line for line in lines), (where, lines)
    assert error.value.line == 7  # the first mistake, as a single error used to report


def test_a_single_mistake_reads_as_before() -> None:
    with pytest.raises(PlanError) as error:
        parse_plan(VALID_PLAN.replace("## Synthesis approach", "## Synthesis"), Path("plan.md"))
    assert len(error.value.errors) >= 1 and str(error.value).startswith("plan.md:")


def test_a_byte_order_mark_is_accepted() -> None:
    assert parse_plan("\ufeff" + VALID_PLAN).question == parse_plan(VALID_PLAN).question


@pytest.mark.parametrize("line, ceiling", [("Page reads per subagent: 99999", "page_reads"),
                                          ("Searches per subagent: 9", "searches")])
def test_a_budget_override_above_what_any_tier_allows_is_refused_naming_the_limit(line: str, ceiling: str) -> None:
    most = max(getattr(t, ceiling) for t in TIERS.values())
    base = "\n".join(row for row in VALID_PLAN.splitlines() if not row.lstrip("- ").startswith(line.split(":")[0])) + "\n"
    with pytest.raises(PlanError) as error:
        parse_plan(base.replace("## Budget\n", f"## Budget\n\n{line}\n"))
    assert f"expected a whole number from 1 to {most}" in str(error.value)
    assert "the most any tier allows: 'Tier: deep'" in str(error.value)
    label = line.split(":")[0]
    assert parse_plan(base.replace("## Budget\n", f"## Budget\n\n{label}: {most}\n")) is not None


# --- the findings stub and the fields the plugin fills in ------------------------------------

def _frontmatter(text: str) -> dict:
    from web_research.core.frontmatter_reader import read_frontmatter

    return read_frontmatter(text).data


def test_the_stub_is_a_valid_failed_findings_frontmatter() -> None:
    text = stub_text('Pricing "tiers"', HASH, "2026-04-18T09:30:00Z")
    meta = _frontmatter(text)
    assert list(schema_validator("findings-frontmatter.schema.json").iter_errors(meta)) == []
    assert meta == {"status": "failed", "subtopic": 'Pricing "tiers"', "brief_hash": HASH,
                    "started_at": "2026-04-18T09:30:00Z", "finished_at": "2026-04-18T09:30:00Z",
                    "reason": formats.FINDINGS_STUB_REASON}


def test_completing_fills_the_plugin_fields_drops_a_stale_reason_and_keeps_the_body() -> None:
    body = '\n## Claims\n\n### 1.1 Price\n\n- It is "$5"[^1].\n'
    written = f'---\nstatus: ok\nreason: "{formats.FINDINGS_STUB_REASON}"\nstarted_at: yesterday\n---\n{body}'
    done = completed_text(written, "Pricing", HASH, "2026-04-18T09:30:00Z", "2026-04-18T09:40:00Z")
    assert done.endswith("---\n" + body)
    meta = _frontmatter(done)
    assert meta == {"status": "ok", "subtopic": "Pricing", "brief_hash": HASH,
                    "started_at": "2026-04-18T09:30:00Z", "finished_at": "2026-04-18T09:40:00Z"}
    assert list(schema_validator("findings-frontmatter.schema.json").iter_errors(meta)) == []
    failed = completed_text('---\nstatus: empty\nreason: "nothing public"\n---\n', "P", HASH, "a", "b")
    assert _frontmatter(failed)["reason"] == "nothing public"
    assert completed_text("## Claims\nno frontmatter\n", "P", HASH, "a", "b") is None


# --- the hooks ----------------------------------------------------------------------------------

def _dispatch_by_reference(h: Harness) -> dict:
    h.start_run()
    infos = h.render_briefs(["Billing units", "Retention tiers"])
    result = h.hook(h.agent_call(f"Brief: {infos[0]['brief_path']}", "toolu_1"))
    assert result.decision == "allow", result.reason
    h.start_agent("agentA", result.updated_input["prompt"])
    return infos[0]


@pytest.fixture
def dispatched(prepared: PreparedHarnesses):
    """(a harness whose agentA was dispatched by a reference to the first brief, that brief's info)."""
    return prepared.get("dispatched", _dispatch_by_reference)


def test_a_dispatch_writes_the_stub_and_briefs_lists_it_again(dispatched) -> None:
    h, info = dispatched
    meta = _frontmatter(Path(info["findings_path"]).read_text(encoding="utf-8"))
    assert meta["status"] == "failed" and meta["reason"] == formats.FINDINGS_STUB_REASON
    assert meta["brief_hash"] == info["brief_hash"] and meta["subtopic"] == info["subtopic"]
    listed = json.loads(h.shell(h.core_command("briefs")).stdout)
    assert info["brief_path"] in [item["brief_path"] for item in listed]  # never finished: to dispatch
    writes = [e for e in ledger_entries(h) if e.kind == "plugin_write"]
    assert [e.path for e in writes] == [f"findings/{Path(info['findings_path']).name}"]


def test_a_researcher_replies_status_and_body_and_the_plugin_writes_the_file(dispatched) -> None:
    h, info = dispatched
    path = Path(info["findings_path"])
    stop = h.reply("agentA", 'Here are my findings.\n\n```markdown\n---\nstatus: empty\nreason: "no public page states '
                   'it"\n---\n\n## Claims\n```\n')  # a line of prose and a fence around it, as a model may
    assert stop.decision != "block", stop.reason
    text = path.read_text(encoding="utf-8")
    meta = _frontmatter(text)
    assert meta["brief_hash"] == info["brief_hash"] and meta["subtopic"] == info["subtopic"]
    assert meta["started_at"] <= meta["finished_at"] and meta["status"] == "empty"
    assert meta["reason"] == "no public page states it"
    assert text.endswith("---\n\n## Claims\n")
    seals = [e for e in ledger_entries(h) if e.kind == "seal" and e.artifact == "findings"]
    assert [(e.path, e.sha256, e.status) for e in seals] == [
        (f"findings/{path.name}", "sha256:" + hashlib.sha256(text.encode()).hexdigest(), "empty")]


def test_a_researcher_whose_reply_holds_no_findings_is_blocked_once(dispatched) -> None:
    h, info = dispatched
    first = h.reply("agentA", f"{info['findings_path']} ok")
    assert first.decision == "block" and "does not start with your findings" in first.reason
    assert "status, and reason when status is empty or failed" in first.reason
    second = h.reply("agentA", f"{info['findings_path']} ok", stop_hook_active=True)
    assert second.decision != "block"
    assert _frontmatter(Path(info["findings_path"]).read_text(encoding="utf-8"))["reason"] == formats.FINDINGS_STUB_REASON


def test_a_bidirectional_control_blocks_the_researchers_stop(dispatched) -> None:
    h, info = dispatched
    stop = h.reply("agentA", '---\nstatus: ok\n---\n\n## Claims\n\n### 1.1 x\n\n- Acme bills $\u202e51\u202c per GB[^1].\n\n'
                   '## Sources\n\n[^1]: **Title**: Acme\n      **URL**: https://a.example/p\n'
                   '      **Excerpt**: "Acme bills $15 per GB ingested."\n')
    assert stop.decision == "block" and "line 9 of your reply: holds bidirectional control characters" \
        in stop.reason and "U+202E" in stop.reason, stop.reason


def test_a_figure_no_excerpt_states_blocks_the_researchers_stop(dispatched) -> None:
    h, info = dispatched
    stop = h.reply("agentA", '---\nstatus: ok\n---\n\n## Claims\n\n### 1.1 x\n\n- Acme bills $9 per GB[^1].\n\n'
                   '## Sources\n\n[^1]: **Title**: Acme\n      **URL**: https://a.example/p\n'
                   '      **Excerpt**: "Acme bills $5 per GB ingested."\n')
    assert stop.decision == "block" and "'$9 per GB'" in stop.reason and "which no excerpt it cites" in stop.reason, stop.reason
