"""Reading the conversation so far: what the assistant last did, what came back.

Shared by the scripted orchestrator and researchers, which decide every turn
from the request alone.
"""
from __future__ import annotations

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
