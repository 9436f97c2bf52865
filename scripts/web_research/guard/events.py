"""The hook events, typed: one NamedTuple per kind of event, built from a checked payload by
guard/adapter.py, and the table of which handler runs each.

EVENTS maps the snake-case name (hooks.json, hooks/run, the handler's module and function:
`handlers/pre_tool_use.pre_tool_use` handles PreToolUse) to the client's event name; a few kinds of
call have their own (`handler_name`). A hook imports only its own handler module.

Fields hold what the client sent after adapter.check verified its type and size: a string field
is a string or None, never anything else. `tool_input` and `tool_response` stay JSON (they
are the tool's own, different for every tool); everything the rules read from them is read by
a named property here or in the handler of that tool.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, NamedTuple, Union

from .. import formats
from ..run.brief_prompt import split_agent_prompt

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
# Some calls have handlers of their own, by kind (state.Context.kind), so that no other call
# loads what they need: Agent and Task dispatch and settle subagents (briefs, seals; settling a
# reply needs the checker), the claim-checker's dispatch renders its prompt with the checker, a
# write of the run's plan.md and our `briefs` (which fixes the plan's limits) read the plan with
# the Markdown parser, our `start`, the one command that opens a run, checks its arguments and
# judges a resumed run; a written plan.md or report.md runs what comes next (briefs, estimate,
# finish: effects/next_step.py); a Stop or SubagentStop with no run open, or a Stop the gate waits
# at (no report.md yet), needs neither the verifier nor the report view; web calls (WebSearch,
# WebFetch, a researcher's fetch) alone load the budgets' ledger and the seals.
KIND_HANDLER_NAMES = {
    ("PreToolUse", "agent"): "pre_agent", ("PostToolUse", "agent"): "post_agent",
    ("PreToolUse", "checker"): "pre_checker", ("PostToolUse", "checker"): "post_agent",
    ("PreToolUse", "start"): "pre_start", ("PostToolUse", "start"): "post_start",
    ("PreToolUse", "plan"): "pre_plan", ("PostToolUse", "plan"): "post_plan",
    ("PostToolUse", "report"): "post_report", ("PostToolUse", "briefs"): "post_briefs",
    ("Stop", "idle"): "idle", ("SubagentStop", "idle"): "idle", ("Stop", "wait"): "stop_wait",
    ("PreToolUse", "web"): "pre_web", ("PostToolUse", "web"): "post_web",
}

# The client's tools the hooks have rules for, by kind.
WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
AGENT_TOOLS = ("Agent", "Task")
WEB_TOOLS = ("WebSearch", "WebFetch")

RESEARCHER = formats.RESEARCHER_SUBAGENT_TYPE
CHECKER = formats.CHECKER_SUBAGENT_TYPE
# `Brief:` or `Check:` as a word anywhere in a prompt ("Brief hash:" is not one): the first names the agent.
_DISPATCH_FORM = re.compile(r"(?<![\w-])(" + re.escape(formats.DISPATCH_BRIEF_LABEL[:-1]) + "|"
                            + re.escape(formats.DISPATCH_CHECK_LABEL[:-1]) + r")[\s*_`]*:", re.IGNORECASE)


# A tool call's input: the JSON object the client sent (`tool_input`), and what the plugin hands
# back in its place (`updatedInput`); its keys are the tool's, not the plugin's.
ToolInput = Mapping[str, object]


def dispatch_fields(tool_input: ToolInput) -> ToolInput:
    """An `Agent` call's input with the fields the plugin decides: the prompt's form names the
    agent (`Brief: <path>` a researcher, `Check: <dir>` the claim-checker, wherever it stands in
    the prompt, the first one found, and whatever `subagent_type` says or if it says nothing; a
    brief's whole text with its `Brief hash:` line is a researcher's), and a researcher or
    checker runs in the foreground (the client's default is the background). So the
    orchestrator writes only the prompt (formats.dispatch_call); any other call is returned
    unchanged."""
    prompt = tool_input.get("prompt")
    agent = None
    if isinstance(prompt, str):
        form = _DISPATCH_FORM.search(prompt)
        if split_agent_prompt(prompt)[1] is not None:
            agent = RESEARCHER
        elif form is not None:
            agent = RESEARCHER if form.group(1).lower() == formats.DISPATCH_BRIEF_LABEL[:-1].lower() else CHECKER
    agent = agent or tool_input.get("subagent_type")
    if agent not in (RESEARCHER, CHECKER):
        return dict(tool_input)
    return {**tool_input, "subagent_type": agent, "run_in_background": False}


# Every event says whose session it is and which agent (none: the main session). The fields are
# written out in each kind: a typing.NamedTuple cannot inherit fields, and a dataclass costs every
# hook the import of dataclasses and inspect.


def _input_text(tool_input: ToolInput, key: str) -> str:
    """One string field of a tool's input, for a call and its result alike."""
    value = tool_input.get(key)
    return value if isinstance(value, str) else ""


class ToolCall(NamedTuple):
    """PreToolUse: a tool call about to run."""
    name: str  # the client's event name, e.g. "PreToolUse"
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    tool: str | None = None
    tool_input: ToolInput = {}
    tool_use_id: str | None = None

    def text(self, key: str) -> str:
        """A string field of the tool's input ("" when absent or not a string)."""
        return _input_text(self.tool_input, key)


class ToolResult(NamedTuple):
    """PostToolUse: a tool call that ran, with what it returned."""
    name: str
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    tool: str | None = None
    tool_input: ToolInput = {}
    tool_use_id: str | None = None
    response: object = None  # the tool's own JSON (tool_response)

    def text(self, key: str) -> str:
        """A string field of the tool's input ("" when absent or not a string)."""
        return _input_text(self.tool_input, key)

    @property
    def stdout(self) -> str:
        """A Bash call's standard output ("" when there is none)."""
        value = self.response.get("stdout") if isinstance(self.response, dict) else self.response
        return value if isinstance(value, str) else ""

    @property
    def agent_reply(self) -> str | None:
        """What a foreground Agent call returned of its subagent: its last reply, whole (None for
        any other result: a background launch, an error, a shape this code was not built for).
        The shape, as Claude Code 2.1.328 returns it (tests/fixtures/agent-results.json):
        `status` "completed", `content` a list of text blocks whose first `harnessNoteCount` are
        the client's own notes (`<tools-used-before-summary>...`) and last `harnessTailCount` its
        tail; the blocks between are the reply (the last text block of the subagent's last
        message, as SubagentStop's `last_assistant_message` holds it)."""
        response = self.response
        if not isinstance(response, dict) or response.get("status") != "completed":
            return None
        content, notes, tail = response.get("content"), response.get("harnessNoteCount"), response.get("harnessTailCount")
        if not (isinstance(content, list) and type(notes) is int and type(tail) is int
                and 0 <= notes and 0 <= tail and notes + tail < len(content)):
            return None
        blocks = content[notes:len(content) - tail]
        if not all(isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in blocks):
            return None
        return "\n".join(b["text"] for b in blocks)


class AgentStart(NamedTuple):
    """SubagentStart."""
    name: str
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None


class AgentStop(NamedTuple):
    """SubagentStop: a subagent wants to end."""
    name: str
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    agent_transcript_path: str | None = None
    last_message: str | None = None
    stop_hook_active: bool = False


class Stop(NamedTuple):
    """Stop: the main session wants to end its turn."""
    name: str
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    last_message: str | None = None
    stop_hook_active: bool = False
    background_tasks: tuple[Any, ...] | None = None  # None: the client did not say


class SessionBoundary(NamedTuple):
    """SessionStart / SessionEnd."""
    name: str
    session_id: str
    cwd: str | None = None
    transcript_path: str | None = None
    agent_id: str | None = None
    agent_type: str | None = None


HookEvent = Union[ToolCall, ToolResult, AgentStart, AgentStop, Stop, SessionBoundary]
TOOL_EVENTS = (ToolCall, ToolResult)

