"""A read-only view of one `POST /v1/messages` request, as scenario rules need it.

The CLI sends the whole conversation every turn, so a scripted model can be a
pure function of the request: who is asking (main agent, a subagent, the
WebSearch backend, the WebFetch summarizer), how many assistant turns came
before, and which tool results just came back. Concurrent subagents then need
no shared state in the fake server.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

WEBFETCH_MARKER = "Web page content:"
WEBSEARCH_PREFIX = "Perform a web search for the query:"


def block_text(content: Any) -> str:
    """Plain text of a message content (string or list of blocks, nested tool results included)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            parts.append(block_text(block.get("content")))
    return "\n".join(parts)


@dataclass(frozen=True)
class ToolResult:
    """A tool result paired with the call that asked for it."""

    name: str
    input: dict[str, Any]
    text: str
    is_error: bool


class RequestView:
    def __init__(self, body: dict[str, Any], headers: dict[str, str], seq: int = 0):
        self.body = body
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.seq = seq

    # --- who is asking ---------------------------------------------------
    @property
    def system_text(self) -> str:
        system = self.body.get("system") or []
        return system if isinstance(system, str) else "\n".join(b.get("text", "") for b in system)

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.body.get("tools") or []]

    @property
    def agent_id(self) -> str | None:
        return self.headers.get("x-claude-code-agent-id")

    @property
    def kind(self) -> str:
        """main | subagent | websearch | webfetch (the last two are the CLI's own helper calls)."""
        tools = self.body.get("tools") or []
        if any(str(t.get("type", "")).startswith("web_search") for t in tools):
            return "websearch"
        if not tools and WEBFETCH_MARKER in self.first_user_text[:200]:
            return "webfetch"
        if "cc_is_subagent=true" in self.system_text:
            return "subagent"
        return "main"

    def is_agent(self, system_marker: str) -> bool:
        """A subagent whose system prompt (its agent file body) contains `system_marker`."""
        return self.kind == "subagent" and system_marker in self.system_text

    # --- conversation ----------------------------------------------------
    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages") or []

    @property
    def turn(self) -> int:
        """How many assistant messages precede this request (0 = first call)."""
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    @property
    def first_user_text(self) -> str:
        for m in self.messages:
            if m.get("role") == "user":
                return block_text(m.get("content"))
        return ""

    def all_text(self, roles: tuple[str, ...] = ("user", "system")) -> str:
        """Every text the client put into the conversation (skill bodies, reminders, results)."""
        return "\n".join(block_text(m.get("content")) for m in self.messages if m.get("role") in roles)

    @property
    def last_user_text(self) -> str:
        for m in reversed(self.messages):
            if m.get("role") == "user":
                return block_text(m.get("content"))
        return ""

    def _calls_by_id(self) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for m in self.messages:
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") == "tool_use":
                        found[b["id"]] = b
        return found

    def all_tool_results(self) -> list[ToolResult]:
        """Every tool result in the conversation, oldest first."""
        calls = self._calls_by_id()
        out: list[ToolResult] = []
        for m in self.messages:
            if m.get("role") != "user" or not isinstance(m.get("content"), list):
                continue
            for b in m["content"]:
                if b.get("type") == "tool_result":
                    call = calls.get(b.get("tool_use_id"), {})
                    out.append(ToolResult(call.get("name", "?"), call.get("input", {}),
                                          block_text(b.get("content")), bool(b.get("is_error"))))
        return out

    def last_tool_results(self) -> list[ToolResult]:
        """The results in the most recent user message that has any (what 'just came back')."""
        calls = self._calls_by_id()
        for m in reversed(self.messages):
            content = m.get("content")
            if m.get("role") != "user" or not isinstance(content, list):
                continue
            found = []
            for b in content:
                if b.get("type") == "tool_result":
                    call = calls.get(b.get("tool_use_id"), {})
                    found.append(ToolResult(call.get("name", "?"), call.get("input", {}),
                                            block_text(b.get("content")), bool(b.get("is_error"))))
            if found:
                return found
        return []

    def previous_calls(self, name: str | None = None) -> list[dict[str, Any]]:
        """tool_use blocks the assistant already sent, oldest first."""
        out = []
        for m in self.messages:
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                out.extend(b for b in m["content"] if b.get("type") == "tool_use"
                           and (name is None or b.get("name") == name))
        return out

    def summary(self) -> dict[str, Any]:
        """What the request log keeps besides the raw body (for readable failures)."""
        return {"seq": self.seq, "kind": self.kind, "agent_id": self.agent_id, "turn": self.turn,
                "tools": self.tool_names}

    def to_json(self) -> str:
        return json.dumps({"seq": self.seq, "headers": self.headers, "body": self.body})
