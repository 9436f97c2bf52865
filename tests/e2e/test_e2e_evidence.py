"""Scenario: no snapshot, no citation; one dispatch per sealed result.

The researcher of "Billing units" cites the first search result without ever reading it (its
excerpt made up from what it expects the page to say). Its SubagentStop blocks it naming the URL
that has no page snapshot; it then reads the page with the fetch command and replies with its
findings again, in full, from the page, and is let go. Only that corrected reply is written. After
the researchers return, the orchestrator dispatches the first brief again, whose findings file is
sealed `ok`: the PreToolUse hook denies it. It then tries to re-enter that brief's researcher,
which has returned: an Agent call with `resume` and its agent id, then SendMessage to it; both are
refused, and the researcher never runs again. The run ends verified, every findings file sealed as
the plugin wrote it from its researcher's reply.
"""
from __future__ import annotations

import json

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.research import DEFAULT_SUBTOPICS

from web_research import formats
from web_research.core.slug import slugify

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
UNFETCHED = "Billing units"
SUBTOPICS = [{**s, "behaviour": "unfetched" if s["name"] == UNFETCHED else "ok"} for s in DEFAULT_SUBTOPICS]

RECORD = "agent-pre-tool-use.jsonl"
# A user hook (not the plugin's): appends each Agent PreToolUse payload, as the client sent it, to $HOME/RECORD.
RECORDER = {"hooks": {"PreToolUse": [{"matcher": "Agent", "hooks": [{"type": "command", "command": (
    "python3 -c 'import os, sys; open(os.environ[\"HOME\"] + \"/" + RECORD + "\", \"a\")"
    ".write(sys.stdin.read().strip() + chr(10))'")}]}]}}

SESSIONS = {"evidence": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}",
                                                 scenario="scripted.research:build",
                                                 scenario_args={"subtopics": SUBTOPICS, "redispatch": True,
                                                                "reenter": True}, settings=RECORDER))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("evidence")
    outcome.ended_cleanly(result)
    return result


def test_a_researcher_citing_a_page_it_never_fetched_is_told_at_its_stop(run):
    blocks = run.stream.blocks("SubagentStop")
    assert len(blocks) == 1, run.describe()
    reason = str(run.stream.decision_of(blocks[0]).get("reason", ""))
    assert "has no page snapshot" in reason and "[^1]" in reason and "web-research fetch" in reason, reason
    assert f"/findings/{slugify(UNFETCHED)}.md" in reason, reason


def test_it_then_fetched_the_page_and_its_corrected_reply_is_the_file(run):
    run_dir = outcome.run_dir(run)
    path = run_dir / formats.FINDINGS_DIR / f"{slugify(UNFETCHED)}.md"
    text = path.read_text()
    assert "status: ok" in text
    assert run.stream.tool_uses("Write") == [] or all(  # no researcher writes: the plugin writes the reply
        "/findings/" not in u["input"]["file_path"] for u in run.stream.tool_uses("Write"))
    # The wrong reply (blocked) and the corrected one; the file is the corrected one, with the
    # frontmatter the plugin completed at its stop.
    wrong, fixed = outcome.researcher_replies(run, slugify(UNFETCHED))
    body = fixed.split("\n---\n", 1)[1]
    assert "[^1]" in body and text.endswith(body) and not text.endswith(wrong.split("\n---\n", 1)[1]), text
    fetches = [u for u in run.stream.tool_uses("Bash") if " fetch " in u["input"]["command"]
               and str(run_dir) in u["input"]["command"]]
    assert len(fetches) == len(DEFAULT_SUBTOPICS), fetches  # the unfetched one read its page after the block
    copy = json.loads((run_dir / formats.RUN_STATE_DIR / "seals.json").read_text())["seals"]
    seal = copy[f"{formats.FINDINGS_DIR}/{path.name}"]
    assert seal["sha256"] == outcome.sha256(path) and seal["status"] == "ok"


def test_a_redispatch_over_a_sealed_ok_file_is_denied(run):
    groups = outcome.researcher_dispatches(run)
    assert [len(g) for g in groups] == [len(DEFAULT_SUBTOPICS), 1, 1], groups  # the last: the resume
    again = groups[1][0]
    assert outcome.tool_result_is_error(run, again["id"]), run.describe()
    assert "sealed with status ok" in run.stream.tool_result_text(again["id"])
    assert len(outcome.researcher_spans(run)) == len(DEFAULT_SUBTOPICS)  # no fourth researcher ran


def test_a_returned_researcher_is_never_re_entered(run):
    """Neither `resume` on an Agent call nor SendMessage reaches the researcher that returned: both
    calls are refused, no request of any researcher carries the message, and its findings file is
    the one sealed at its stop."""
    (resumed,) = [u for u in run.stream.tool_uses("Agent") if "resume" in u["input"]]
    assert outcome.tool_result_is_error(run, resumed["id"]), run.describe()
    # The pinned client has no `resume` in its Agent tool: it drops the field before any hook, and
    # the call is a fresh dispatch of a brief sealed ok, refused as one (the room refuses `resume`
    # itself for a client that passes it on: tests/unit/test_room.py).
    seen = [json.loads(line) for line in (run.home / RECORD).read_text().splitlines() if line.strip()]
    (hooked,) = [p for p in seen if p.get("tool_use_id") == resumed["id"]]
    assert "resume" not in hooked["tool_input"], hooked
    assert "sealed with status ok" in run.stream.tool_result_text(resumed["id"])
    (sent,) = run.stream.tool_uses("SendMessage")
    assert outcome.tool_result_is_error(run, sent["id"]), run.describe()
    assert "SendMessage is denied" in run.stream.tool_result_text(sent["id"])
    assert not any("10 times larger" in req.all_text(("user",)) for req in run.requests if req.kind == "subagent")
    run_dir = outcome.run_dir(run)
    copy = json.loads((run_dir / formats.RUN_STATE_DIR / "seals.json").read_text())["seals"]
    for path in (run_dir / formats.FINDINGS_DIR).glob("*.md"):
        assert copy[f"{formats.FINDINGS_DIR}/{path.name}"]["sha256"] == outcome.sha256(path)


def test_the_run_ends_verified(run):
    run_dir = outcome.run_dir(run)
    assert run.stream.blocks("Stop") == [], run.describe()
    result = outcome.verify(run_dir)
    assert result.returncode == 0, result.stdout
    copy = json.loads((run_dir / formats.RUN_STATE_DIR / "seals.json").read_text())["seals"]
    assert copy[formats.REPORT_FILE]["sha256"] == outcome.sha256(run_dir / formats.REPORT_FILE)
