"""What a hook decides, as values: the rules return these, and guard/adapter.py alone turns
them into the JSON the client reads (claude-code-facts.md). A rule never builds that JSON,
and nothing reads a decision back out of it."""
from __future__ import annotations

from typing import Mapping, NamedTuple, Union


class Allow(NamedTuple):
    """PreToolUse: let the call run without asking; `updated_input` replaces the tool's input."""
    reason: str
    updated_input: Mapping[str, object] | None = None


class Deny(NamedTuple):
    """PreToolUse: refuse the call; the model reads `reason`."""
    reason: str


class Block(NamedTuple):
    """Stop / SubagentStop: keep the agent working, `reason` its instruction; the person may be
    told `system_message`."""
    reason: str
    system_message: str | None = None


class Notice(NamedTuple):
    """Tell the person something, deciding nothing."""
    message: str


class AddContext(NamedTuple):
    """SessionStart / SubagentStart / PostToolUse: text added to the agent's context; the person
    may be told `system_message` with it."""
    text: str
    system_message: str | None = None


class Nothing(NamedTuple):
    """No decision: the hook prints nothing and the client goes on as if it did not exist."""


NOTHING = Nothing()
Decision = Union[Allow, Deny, Block, Notice, AddContext, Nothing]
