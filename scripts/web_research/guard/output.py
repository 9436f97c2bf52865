"""The JSON shapes Claude Code reads from a hook's stdout (see claude-code-facts.md).

An empty dict means "no decision": the hook prints nothing and the client goes on
as if the hook did not exist.
"""
from __future__ import annotations

from typing import Any


MAX_TEXT = 9000  # the client truncates hook output at 10,000 characters
MAX_OUTPUT = 9500  # characters of the JSON line printed (after escaping), below the client's 10,000
TEXT_KEYS = ("permissionDecisionReason", "reason", "systemMessage", "additionalContext")


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
    """SessionStart / SubagentStart: text added to the agent's context before its first turn;
    PostToolUse: text added after the tool's result."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": _clip(text)}}


def serialize(decision: dict[str, Any]) -> str:
    """The JSON line to print: at most MAX_OUTPUT characters once escaped (a non-ASCII
    character is six), so the client never cuts a decision; the longest texts are
    shortened by their escaped size and say so."""
    import json  # lazy: start-up

    line = json.dumps(decision)
    texts = sum(len(json.dumps(holder[key])) for holder, key in _texts(decision))
    if len(line) - texts + 200 * len(_texts(decision)) > MAX_OUTPUT:
        return line  # the rest (an updatedInput) is too long by itself: cutting the reasons cannot help
    for _ in range(len(TEXT_KEYS) * 2):
        if len(line) <= MAX_OUTPUT:
            break
        holder, key = max(_texts(decision), key=lambda hk: len(json.dumps(hk[0][hk[1]])), default=(None, ""))
        if holder is None:
            break
        holder[key] = _shorten(holder[key], len(json.dumps(holder[key])) - (len(line) - MAX_OUTPUT))
        line = json.dumps(decision)
    return line


def _texts(decision: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    found = [(decision, k) for k in TEXT_KEYS if isinstance(decision.get(k), str)]
    specific = decision.get("hookSpecificOutput")
    if isinstance(specific, dict):
        found += [(specific, k) for k in TEXT_KEYS if isinstance(specific.get(k), str)]
    return found


def _shorten(text: str, budget: int) -> str:
    """The longest prefix of `text` that, with a note of what was cut, is at most
    `budget` characters as a JSON string (quotes included)."""
    import json  # lazy: start-up

    def note(cut: int) -> str:
        return f"\n[... {cut} more characters cut: hook output is limited to {MAX_OUTPUT} characters]"

    room = budget - len(json.dumps(note(len(text))))
    used, keep = 0, 0
    for char in text:
        used += 1 if " " <= char <= "~" and char not in '"\\' else len(json.dumps(char)) - 2
        if used > room:
            break
        keep += 1
    return text[:keep] + note(len(text) - keep)
