"""The one adapter between the client and the rules: a checked payload becomes a typed event
(events.py), and a decision (rules/decision.py) becomes the JSON line the client reads
(claude-code-facts.md). Nothing else in the hooks reads a payload's JSON or writes a
decision's.
"""
from __future__ import annotations

import importlib
import json
from typing import Any, Callable, Mapping

from .rules.decision import AddContext, Allow, Block, Decision, Deny, Notice
from .events import (HANDLER_NAMES, AgentStart, AgentStop, HookEvent, SessionBoundary, Stop, ToolCall,
                     ToolResult)

MAX_TEXT = 9000  # the client truncates hook output at 10,000 characters
MAX_OUTPUT = 9500  # characters of the JSON line printed (after escaping), below the client's 10,000
TEXT_KEYS = ("permissionDecisionReason", "reason", "systemMessage", "additionalContext")


# --- payload -> event ------------------------------------------------------------------

def _str(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) else None


def event_from(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """The typed event of a payload payload.check() accepted for the client's event `name`."""
    common: dict[str, Any] = {
        "name": name, "session_id": payload["session_id"], "cwd": _str(payload, "cwd"),
        "transcript_path": _str(payload, "transcript_path"), "agent_id": _str(payload, "agent_id"),
        "agent_type": _str(payload, "agent_type")}
    if name in ("PreToolUse", "PostToolUse"):
        tool_input = payload.get("tool_input")
        call = {**common, "tool": _str(payload, "tool_name"), "tool_use_id": _str(payload, "tool_use_id"),
                "tool_input": tool_input if isinstance(tool_input, dict) else {}}
        if name == "PreToolUse":
            return ToolCall(**call)
        return ToolResult(**call, response=payload.get("tool_response"))
    if name == "SubagentStart":
        return AgentStart(**common)
    if name == "SubagentStop":
        return AgentStop(**common, agent_transcript_path=_str(payload, "agent_transcript_path"),
                         last_message=_str(payload, "last_assistant_message"),
                         stop_hook_active=payload.get("stop_hook_active") is True)
    if name == "Stop":
        tasks = payload.get("background_tasks")
        return Stop(**common, last_message=_str(payload, "last_assistant_message"),
                    stop_hook_active=payload.get("stop_hook_active") is True,
                    background_tasks=tuple(tasks) if isinstance(tasks, list) else None)
    return SessionBoundary(**common)


def handler(event: str) -> Callable[..., Decision] | None:
    """The handler of the client's `event` (e.g. "PreToolUse"), its module imported now."""
    name = HANDLER_NAMES.get(event)
    if name is None:
        return None
    return getattr(importlib.import_module(f"{__package__}.{name}"), name)


def handle(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """Run the handler of `event` on a checked payload: the client's JSON of its decision."""
    run = handler(event)
    if run is None or payload.get("hook_event_name", event) != event:
        return {}
    from .context import Context  # lazy: the runner imports this module before it knows the event

    return to_json(event, run(Context(event_from(event, payload), env)))


# --- decision -> JSON ------------------------------------------------------------------

def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 20] + "\n[... truncated]"


def to_json(event: str, decision: Decision) -> dict[str, Any]:
    """The object the client reads for `decision` in `event` ({} prints nothing)."""
    if isinstance(decision, (Allow, Deny)):
        specific: dict[str, Any] = {"hookEventName": "PreToolUse",
                                    "permissionDecision": "allow" if isinstance(decision, Allow) else "deny",
                                    "permissionDecisionReason": _clip(decision.reason)}
        if isinstance(decision, Allow) and decision.updated_input is not None:
            specific["updatedInput"] = dict(decision.updated_input)
        return {"hookSpecificOutput": specific}
    if isinstance(decision, Block):
        out: dict[str, Any] = {"decision": "block", "reason": _clip(decision.reason)}
        if decision.system_message:
            out["systemMessage"] = _clip(decision.system_message)
        return out
    if isinstance(decision, Notice):
        return {"systemMessage": _clip(decision.message)}
    if isinstance(decision, AddContext):
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": _clip(decision.text)}}
    return {}


def serialize(decision: dict[str, Any]) -> str:
    """The JSON line to print: at most MAX_OUTPUT characters once escaped (a non-ASCII
    character is six), so the client never cuts a decision; the longest texts are
    shortened by their escaped size and say so."""
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
