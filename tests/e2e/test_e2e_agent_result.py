"""What the real client returns from a researcher's Agent call, and what the plugin makes of it.

At a researcher's SubagentStop the plugin writes its findings file from the reply; when that stop
never reaches the hooks, the Agent call's returned result is read instead
(guard/events.py, ToolResult.agent_reply). A user hook in settings.json records every Agent
PostToolUse payload, so the tests hold the pinned client to the shape that fallback reads:
- `returned`: a standard run; one researcher cites a page it never read, is blocked once at its
  stop and replies again in full;
- `stop-unseen`: a standard run with a copy of the plugin that has no SubagentStop hook, so every
  findings file, and the claim-checker's verdicts, must come from the Agent calls' results;
- `split`: one researcher sends its findings as two text blocks of one message: the client hands
  back only the last block, to the SubagentStop hook and in the Agent result alike.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from harness import outcome
from harness.runner import REPO_ROOT, RunResult, RunSpec
from scripted.research import DEFAULT_SUBTOPICS

from web_research import formats
from web_research.core.frontmatter_reader import read_frontmatter
from web_research.guard.events import ToolResult

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
UNFETCHED = "Retention tiers"
RECORD = "agent-post-tool-use.jsonl"
# A user hook (not the plugin's): appends each Agent PostToolUse payload, as the client sent it, to $HOME/RECORD.
RECORDER = {"hooks": {"PostToolUse": [{"matcher": "Agent", "hooks": [{"type": "command", "command": (
    "python3 -c 'import os, sys; open(os.environ[\"HOME\"] + \"/" + RECORD + "\", \"a\")"
    ".write(sys.stdin.read().strip() + chr(10))'")}]}]}}
PLUGIN_PARTS = (".claude-plugin", "skills", "agents", "hooks", "scripts")
NOTE_OPENING = "<tools-used-before-summary>"


def plugin_without_subagent_stop() -> Path:
    """A copy of the plugin whose hooks.json registers no SubagentStop hook."""
    root = Path(tempfile.mkdtemp(prefix="web-research-no-stop-"))
    for part in PLUGIN_PARTS:
        shutil.copytree(REPO_ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".venv").symlink_to(REPO_ROOT / ".venv", target_is_directory=True)
    hooks = root / "hooks" / "hooks.json"
    config = json.loads(hooks.read_text(encoding="utf-8"))
    assert config["hooks"].pop("SubagentStop"), "the plugin no longer registers a SubagentStop hook"
    hooks.write_text(json.dumps(config), encoding="utf-8")
    return root


def _returned(run):
    subtopics = [{**s, "behaviour": "unfetched" if s["name"] == UNFETCHED else "ok"} for s in DEFAULT_SUBTOPICS]
    return run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                       scenario_args={"subtopics": subtopics}, settings=RECORDER))


def _stop_unseen(run):
    plugin = plugin_without_subagent_stop()
    try:
        return run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                           settings=RECORDER, plugin_dirs=[plugin]))
    finally:
        shutil.rmtree(plugin, ignore_errors=True)


SPLIT = "Billing units"


def _split(run):
    subtopics = [{**s, "behaviour": "split" if s["name"] == SPLIT else "ok"} for s in DEFAULT_SUBTOPICS]
    return run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                       scenario_args={"subtopics": subtopics}, settings=RECORDER))


SESSIONS = {"returned": _returned, "stop-unseen": _stop_unseen, "split": _split}


@pytest.fixture(scope="module")
def returned(e2e_session) -> RunResult:
    return outcome.ended_cleanly(e2e_session("returned"))


@pytest.fixture(scope="module")
def stop_unseen(e2e_session) -> RunResult:
    return outcome.ended_cleanly(e2e_session("stop-unseen"))


@pytest.fixture(scope="module")
def split(e2e_session) -> RunResult:
    return outcome.ended_cleanly(e2e_session("split"))


def recorded(result: RunResult, agent_type: str = formats.RESEARCHER_SUBAGENT_TYPE) -> list[dict[str, Any]]:
    """The Agent PostToolUse payloads the user hook recorded for calls to `agent_type`."""
    path = result.home / RECORD
    assert path.is_file(), f"the recording hook never ran\n{result.describe()}"
    payloads = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [p for p in payloads if p["tool_response"].get("agentType") == agent_type]


def replies_sent(result: RunResult) -> dict[str, list[list[str]]]:
    """agent id -> the replies (messages with no tool call) the scripted model sent that agent, in
    order, each as its text blocks."""
    agents = {r.seq: r.agent_id for r in result.requests}
    sent: dict[str, list[list[str]]] = {}
    for line in (result.workdir / "replies.jsonl").read_text(encoding="utf-8").splitlines():
        reply = json.loads(line)
        if agents.get(reply["seq"]) and all(b["type"] == "text" for b in reply["blocks"]):
            sent.setdefault(agents[reply["seq"]], []).append([b["text"] for b in reply["blocks"]])
    return sent


def agent_reply(payload: dict[str, Any]) -> str | None:
    """What the plugin's fallback reads from a recorded payload."""
    return ToolResult("PostToolUse", payload["session_id"], tool="Agent", tool_input=payload["tool_input"],
                      tool_use_id=payload["tool_use_id"], response=payload["tool_response"]).agent_reply


def body(text: str) -> str:
    """A findings document without its frontmatter."""
    front = read_frontmatter(text)
    assert front.data is not None, text[:500]
    return "\n".join(text.split("\n")[front.body_first_line - 1:]).strip()


def test_the_agent_result_holds_the_researchers_last_reply_whole(returned):
    payloads, sent = recorded(returned), replies_sent(returned)
    assert len(payloads) == len(DEFAULT_SUBTOPICS), returned.describe()
    for payload in payloads:
        response = payload["tool_response"]
        assert response["status"] == "completed" and isinstance(response["agentId"], str), response
        notes, tail = response["harnessNoteCount"], response["harnessTailCount"]
        content = response["content"]
        assert all(b["type"] == "text" for b in content), content
        assert all(b["text"].startswith(NOTE_OPENING) for b in content[:notes]), content
        assert notes == 1 and tail == 0 and len(content) == 2, response  # a researcher that used a tool: one note
        assert [agent_reply(payload)] == sent[response["agentId"]][-1], response
    blocked = [p for p in payloads if len(sent[p["tool_response"]["agentId"]]) == 2]
    assert len(blocked) == 1 and UNFETCHED in agent_reply(blocked[0]), returned.describe()  # its corrected reply
    assert returned.stream.blocks("SubagentStop"), returned.describe()


def by_heading(result: RunResult) -> dict[str, str]:
    """The researchers' returned replies, by their findings' first line (`# <subtopic>`)."""
    replies = [agent_reply(p) for p in recorded(result)]
    return {body(r).split("\n", 1)[0]: r for r in replies if r is not None}


def assert_files_are_the_replies(result: RunResult) -> None:
    """Every findings file is `ok` and, below its frontmatter, the text a researcher's call returned."""
    results = by_heading(result)
    paths = sorted((outcome.run_dir(result) / formats.FINDINGS_DIR).glob("*.md"))
    assert len(paths) == len(DEFAULT_SUBTOPICS) == len(results), (paths, sorted(results))
    for path in paths:
        written = path.read_text(encoding="utf-8")
        assert read_frontmatter(written).data["status"] == formats.STATUS_OK, written
        assert body(written) == body(results[body(written).split("\n", 1)[0]]), path


def test_the_findings_file_holds_the_agent_results_text(returned):
    """What SKILL.md tells the orchestrator: a researcher's returned result is its findings file,
    bar the frontmatter the plugin completes, so the report is written from the results alone."""
    assert_files_are_the_replies(returned)


def test_a_stop_the_hooks_never_saw_is_settled_from_the_agent_result(stop_unseen):
    assert stop_unseen.stream.hook_events("SubagentStop") == [], stop_unseen.describe()
    assert_files_are_the_replies(stop_unseen)
    assert len(recorded(stop_unseen, formats.CHECKER_SUBAGENT_TYPE)) == 1, stop_unseen.describe()
    answer = outcome.return_object(stop_unseen)
    assert set(answer) == set(formats.RETURN_PATH_KEYS), answer  # verified: the paths alone
    assert outcome.verify(outcome.run_dir(stop_unseen)).returncode == 0


def test_of_a_reply_in_two_text_blocks_only_the_last_comes_back(split):
    """The client's reply is the last text block of the last message, at SubagentStop and in the
    Agent result alike: findings sent in two blocks lose the first, and the stop says so."""
    sent = replies_sent(split)
    payloads = [p for p in recorded(split) if len(sent[p["tool_response"]["agentId"]][-1]) == 2]
    assert payloads, split.describe()
    for payload in payloads:
        blocks = sent[payload["tool_response"]["agentId"]][-1]
        assert agent_reply(payload) == blocks[-1] != "".join(blocks)
    reasons = [split.stream.decision_of(b).get("reason", "") for b in split.stream.blocks("SubagentStop")]
    assert reasons and all("does not start with your findings" in r for r in reasons), reasons
