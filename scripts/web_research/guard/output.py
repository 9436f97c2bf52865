"""The JSON shapes Claude Code reads from a hook's stdout (see claude-code-facts.md).

An empty dict means "no decision": the hook prints nothing and the client goes on
as if the hook did not exist.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


MAX_TEXT = 9000  # the client truncates hook output at 10,000 characters


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 20] + "\n[... truncated]"


def pre_tool_use(decision: str, reason: str, updated_input: dict[str, Any] | None = None) -> dict[str, Any]:
    """allow / deny / ask a tool call; `updated_input` replaces the tool's input (with allow)."""
    specific: dict[str, Any] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": _clip(reason),
    }
    if updated_input is not None:
        specific["updatedInput"] = updated_input
    return {"hookSpecificOutput": specific}


def block(reason: str, system_message: str | None = None) -> dict[str, Any]:
    """Stop / SubagentStop: keep the agent working, with `reason` as its instruction."""
    out: dict[str, Any] = {"decision": "block", "reason": _clip(reason)}
    if system_message:
        out["systemMessage"] = _clip(system_message)
    return out


def notice(message: str) -> dict[str, Any]:
    """Tell the user something without deciding anything."""
    return {"systemMessage": _clip(message)}


def additional_context(event: str, text: str) -> dict[str, Any]:
    """SessionStart / SubagentStart: text added to the agent's context before its first turn."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": _clip(text)}}
