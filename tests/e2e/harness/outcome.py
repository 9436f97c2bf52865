"""What a research session left behind, in the terms the scenarios assert on.

A session's outcome is three things: the files on disk (run folder, archive),
what the hooks decided (in the stream), and the final answer (the return
shape). These helpers read each of them once, the same way for every test.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

from .runner import REPO_ROOT, RunResult

CORE = REPO_ROOT / "scripts" / "web-research"


def ended_cleanly(result: RunResult) -> RunResult:
    """The session exited 0, in time, with no scripted-model error; the result, for a fixture."""
    assert result.exit_code == 0 and not result.timed_out and result.errors == [], result.describe()
    return result


def run_dir(result: RunResult) -> Path:
    """The run folder, from the plan path of the session's final answer."""
    return Path(final_json(result)["plan"]).parent


def final_json(result: RunResult) -> dict[str, Any]:
    """The session's final message parsed as the one JSON object the contract promises."""
    text = result.stream.final_text().strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"final answer is not one JSON object: {text[:1000]!r}\n{result.describe()}") from exc
    assert isinstance(value, dict), text
    return value


def json_of(text: str) -> Any:
    """The first JSON object in a tool's output (e.g. `start`'s)."""
    start = text.find("{")
    if start < 0:
        raise AssertionError(f"no JSON object in: {text[:500]!r}")
    return json.JSONDecoder().raw_decode(text[start:])[0]


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under `root` (hidden ones too) by relative path, with its exact bytes."""
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def verify(run_dir: Path) -> subprocess.CompletedProcess:
    """Run the core's verifier on a run folder, outside the session (independent check)."""
    return subprocess.run([str(CORE), "verify", str(run_dir)], capture_output=True, text=True, timeout=60)


def sha256(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def bash_runs(result: RunResult, subcommand: str, main_only: bool = True) -> list[tuple[dict, str]]:
    """(tool_use, result text) for each Bash call of `web-research <subcommand>`."""
    out = []
    for use in result.stream.tool_uses("Bash", main_only=main_only):
        first_line = use["input"].get("command", "").split("\n", 1)[0]
        if f'/scripts/web-research" {subcommand}' in first_line or f"/scripts/web-research {subcommand}" in first_line:
            out.append((use, result.stream.tool_result_text(use["id"])))
    return out


def tool_result_is_error(result: RunResult, tool_use_id: str) -> bool:
    for block in result.stream.tool_results():
        if block.get("tool_use_id") == tool_use_id:
            return bool(block.get("is_error"))
    raise AssertionError(f"no result for tool_use {tool_use_id}")


def agent_messages(result: RunResult) -> list[list[dict]]:
    """Main-agent assistant messages that contain Agent calls, each as its list of calls."""
    groups: dict[str, list[dict]] = {}
    for ev in result.stream.events:
        if ev.get("type") != "assistant" or ev.get("parent_tool_use_id"):
            continue
        msg = ev.get("message") or {}
        uses = [b for b in msg.get("content") or [] if b.get("type") == "tool_use" and b.get("name") == "Agent"]
        if uses:
            groups.setdefault(msg.get("id"), []).extend(uses)
    return list(groups.values())


def researcher_dispatches(result: RunResult) -> list[list[dict]]:
    """`agent_messages` without the claim-checker's dispatches (prompt `Check: <output_dir>`)."""
    return [group for group in agent_messages(result)
            if not all(str(u["input"].get("prompt", "")).startswith("Check:") for u in group)]


def researcher_spans(result: RunResult) -> dict[str, tuple[int, int]]:
    """`subagent_request_spans` of the researchers only (their prompt ends with its brief's hash)."""
    researchers = {req.agent_id for req in result.requests
                   if req.kind == "subagent" and "Brief hash: " in (req.first_user_text or "")}
    return {agent: span for agent, span in subagent_request_spans(result).items() if agent in researchers}


def subagent_request_spans(result: RunResult) -> dict[str, tuple[int, int]]:
    """agent_id -> (first, last) request sequence number of each subagent conversation."""
    spans: dict[str, tuple[int, int]] = {}
    for req in result.requests:
        if req.kind != "subagent" or not req.agent_id:
            continue
        first, last = spans.get(req.agent_id, (req.seq, req.seq))
        spans[req.agent_id] = (min(first, req.seq), max(last, req.seq))
    return spans


def researcher_messages(result: RunResult, slug: str) -> list[list[dict]]:
    """The assistant messages of the researchers dispatched for `slug` (the main agent's Agent calls
    whose prompt names `briefs/<slug>.md`), each message as its content blocks, in order."""
    parents = {u["id"] for u in result.stream.tool_uses("Agent", main_only=True)
               if f"/{slug}.md" in str(u["input"].get("prompt", ""))}
    if not parents:
        raise AssertionError(f"no researcher was dispatched for {slug}\n{result.describe()}")
    messages: dict[str, list[dict]] = {}
    for ev in result.stream.events:
        if ev.get("type") == "assistant" and ev.get("parent_tool_use_id") in parents:
            msg = ev.get("message") or {}
            messages.setdefault(str(msg.get("id")), []).extend(msg.get("content") or [])
    return list(messages.values())


def researcher_calls(result: RunResult, slug: str) -> list[dict]:
    """The tool calls of the researcher dispatched for `slug`, in order."""
    return [b for m in researcher_messages(result, slug) for b in m if b.get("type") == "tool_use"]


def researcher_replies(result: RunResult, slug: str) -> list[str]:
    """The replies (messages with no tool call) the researchers of `slug` gave, in order, as the
    scripted model sent them (`replies.jsonl`; the stream shows the last one only reworded, as the
    Agent call's result). A researcher's requests are those whose brief names its findings file."""
    seqs = {r.seq for r in result.requests if r.kind == "subagent" and "Your subtopic:" in r.first_user_text
            and f"/{slug}.md" in r.first_user_text
            and not any(str(t.get("type", "")).startswith("web_search") for t in r.body.get("tools") or [])}
    out = []
    for line in (result.workdir / "replies.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        blocks = record["blocks"]
        if record["seq"] in seqs and not any(b.get("type") == "tool_use" for b in blocks):
            out.append("".join(b.get("text", "") for b in blocks if b.get("type") == "text"))
    return out


def turns_by_role(result: RunResult, checker_head: str) -> dict[str, dict[str, int]]:
    """Model turns (requests answered) and input tokens (as the fake API counted them: a fourth of
    the request's bytes) per role: the orchestrator (the main session), the researchers and the
    claim-checkers (each summed over its agents), and the client's own helper calls (the WebSearch
    backend, the WebFetch summarizer). A subagent's role is read from its first user message: a
    researcher's ends with its brief's hash, a checker's opens with `checker_head` (the plugin's
    claim_checker.PROMPT_HEAD: the harness imports nothing of the plugin)."""
    tokens = {}
    path = result.workdir / "requests.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        record = json.loads(line)
        tokens[record["seq"]] = int(record.get("input_tokens") or 0)
    out: dict[str, dict[str, int]] = {}
    for req in result.requests:
        if req.kind == "main":
            role = "orchestrator"
        elif req.kind in ("websearch", "webfetch"):
            role = "client helpers"
        elif "Brief hash: " in req.first_user_text:
            role = "researchers"
        elif req.first_user_text.lstrip().startswith(checker_head):
            role = "claim-checkers"
        else:
            role = "other subagents"
        entry = out.setdefault(role, {"turns": 0, "input_tokens": 0})
        entry["turns"] += 1
        entry["input_tokens"] += tokens.get(req.seq, 0)
    return out
