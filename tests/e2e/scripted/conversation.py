"""Reading the conversation so far: what the assistant last did, what came back.

Shared by the scripted orchestrator and researchers, which decide every turn
from the request alone.
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from harness.request_view import RequestView, ToolResult
from harness.sse import Reply, call


def last_calls(req: RequestView) -> list[dict[str, Any]]:
    for m in reversed(req.messages):
        if m.get("role") == "assistant":
            content = m.get("content")
            return [b for b in content if b.get("type") == "tool_use"] if isinstance(content, list) else []
    return []


def raw_last_results(req: RequestView) -> list[dict[str, Any]]:
    last = req.messages[-1] if req.messages else {}
    content = last.get("content")
    return [b for b in content if b.get("type") == "tool_result"] if isinstance(content, list) else []


def hook_feedback(req: RequestView) -> str | None:
    """The text of a Stop/SubagentStop hook's block, when that is what arrived
    since the assistant last spoke (as a user message, plus a system note)."""
    tail: list[dict[str, Any]] = []
    for m in reversed(req.messages):
        if m.get("role") == "assistant":
            break
        tail.append(m)
    for m in reversed(tail):
        content = m.get("content")
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            continue
        texts = [content] if isinstance(content, str) else [
            b.get("text", "") for b in content or [] if b.get("type") == "text"]
        for text in texts:
            if "hook feedback:" in text.lower():
                return text
    return None


# How the pinned client frames a subagent's reply in the Agent call's result, as the model sees it:
# its notes, this line, the reply with every line indented by two spaces, then `agentId: ...`.
HAND_BACK_OPENING = "The report follows:\n"
HAND_BACK_CLOSING = "\nagentId: "


def handed_back(result_text: str) -> str:
    """The subagent's reply inside an Agent call's result, unframed and unindented."""
    if HAND_BACK_OPENING not in result_text or HAND_BACK_CLOSING not in result_text:
        raise ValueError(f"not a subagent's hand-back as the client frames it:\n{result_text[:1500]}")
    inside = result_text.split(HAND_BACK_OPENING, 1)[1].rsplit(HAND_BACK_CLOSING, 1)[0]
    return "\n".join(line[2:] if line.startswith("  ") else line.lstrip(" ") for line in inside.split("\n"))


def bash(command: str, description: str) -> Reply:
    return call("Bash", {"command": command, "description": description})


def subcommand(tool_use: dict[str, Any]) -> str | None:
    if tool_use.get("name") != "Bash":
        return None
    match = re.search(r"/scripts/web-research\"?\s+(\w+)", tool_use["input"].get("command", ""))
    return match.group(1) if match else None


def result_for(req: RequestView, name: str) -> ToolResult | None:
    results = [r for r in req.last_tool_results() if r.name == name]
    return results[-1] if results else None


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


CONTEXT_MARK = " hook additional context: "


def hook_contexts(req: RequestView, since_last_turn: bool = True) -> list[str]:
    """The PostToolUse hooks' additional context the client put in the conversation (since the
    assistant last spoke, or all of it), oldest first, each without the client's label."""
    messages = req.messages
    if since_last_turn:
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
        messages = messages[last + 1:]
    return [text for m in messages if m.get("role") != "assistant" for text in hook_contexts_of(m.get("content"))]


def hook_contexts_of(content: Any) -> list[str]:
    """The hooks' additional context in one message's content, without the client's label."""
    blocks = [content] if isinstance(content, str) else [b for b in content or [] if isinstance(b, dict)
                                                           and b.get("type") == "text"]
    out = []
    for block in blocks:
        text = block if isinstance(block, str) else block.get("text", "")
        if CONTEXT_MARK in text and text.lstrip().startswith("PostToolUse:"):
            out.append(text.split(CONTEXT_MARK, 1)[1])
    return out


AGENT_LINE = re.compile(r"^Agent (\{.*\})$", re.M)


def agent_calls_in(text: str) -> list[dict[str, Any]]:
    """The Agent calls a hook's context gives, one per line `Agent {json}`, as tool inputs."""
    return [json.loads(m.group(1)) for m in AGENT_LINE.finditer(text)]
