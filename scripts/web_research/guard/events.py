"""Which handler a hook event runs: EVENT, the event's name in snake case, names both
the module of its handler and the handler (`pre_tool_use.pre_tool_use` handles
PreToolUse), so a grep for the name used in hooks.json lands on it.

A hook imports only its own event's module: a PreToolUse hook never loads the
Stop gate's. What the handlers share is in `context`.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping


# Snake-case name (hooks.json, hooks/run, the handler's module and function) -> Claude Code's event name.
EVENTS = {
    "pre_tool_use": "PreToolUse",
    "post_tool_use": "PostToolUse",
    "subagent_start": "SubagentStart",
    "subagent_stop": "SubagentStop",
    "stop": "Stop",
    "session_start": "SessionStart",
    "session_end": "SessionEnd",
}
HANDLER_NAMES = {event: name for name, event in EVENTS.items()}


def handler(event: str) -> Callable[..., dict[str, Any]] | None:
    """The handler of Claude Code's `event` (e.g. "PreToolUse"), its module imported now."""
    name = HANDLER_NAMES.get(event)
    if name is None:
        return None
    return getattr(importlib.import_module(f"{__package__}.{name}"), name)


def handle(event: str, payload: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    run = handler(event)
    if run is None or payload.get("hook_event_name", event) != event:
        return {}
    from .context import Context  # lazy: __main__ imports this module for EVENTS before any hook runs

    return run(Context(payload, env))
