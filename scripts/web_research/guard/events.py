"""The hook events, typed: one dataclass per kind of event, built from a checked payload by
guard/adapter.py, and the table of which handler runs each.

EVENTS maps the snake-case name (hooks.json, hooks/run, the handler's module and function:
`pre_tool_use.pre_tool_use` handles PreToolUse) to the client's event name. A hook imports
only its own event's handler module.

Fields hold what the client sent after adapter.check verified its type and size: a string field
is a string or None, never anything else. `tool_input` and `tool_response` stay JSON (they
are the tool's own, different for every tool); everything the rules read from them is read by
a named property here or in the handler of that tool.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .. import formats

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


@dataclass(frozen=True, kw_only=True)
class HookEvent:
    """What every event says: whose session, which agent (none: the main session)."""
    name: str  # the client's event name, e.g. "PreToolUse"
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None

    @property
    def in_researcher(self) -> bool:
        return self.agent_type == formats.RESEARCHER_SUBAGENT_TYPE

    @property
    def in_checker(self) -> bool:
        return self.agent_type == formats.CHECKER_SUBAGENT_TYPE


@dataclass(frozen=True, kw_only=True)
class ToolCall(HookEvent):
    """PreToolUse: a tool call about to run."""
    tool: str | None = None
    tool_input: Mapping[str, Any] = field(default_factory=dict)
    tool_use_id: str | None = None

    def text(self, key: str) -> str:
        """A string field of the tool's input ("" when absent or not a string)."""
        value = self.tool_input.get(key)
        return value if isinstance(value, str) else ""


@dataclass(frozen=True, kw_only=True)
class ToolResult(ToolCall):
    """PostToolUse: a tool call that ran, with what it returned."""
    response: Any = None

    @property
    def stdout(self) -> str:
        """A Bash call's standard output ("" when there is none)."""
        value = self.response.get("stdout") if isinstance(self.response, dict) else self.response
        return value if isinstance(value, str) else ""


@dataclass(frozen=True, kw_only=True)
class AgentStart(HookEvent):
    """SubagentStart."""


@dataclass(frozen=True, kw_only=True)
class AgentStop(HookEvent):
    """SubagentStop: a subagent wants to end."""
    agent_transcript_path: str | None = None
    last_message: str | None = None
    stop_hook_active: bool = False


@dataclass(frozen=True, kw_only=True)
class Stop(HookEvent):
    """Stop: the main session wants to end its turn."""
    last_message: str | None = None
    stop_hook_active: bool = False
    background_tasks: tuple[Any, ...] | None = None  # None: the client did not say


@dataclass(frozen=True, kw_only=True)
class SessionBoundary(HookEvent):
    """SessionStart / SessionEnd."""
