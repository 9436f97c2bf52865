"""Reading the prompts the way the model receives them: from the request.

The scripted model never carries its own copy of a command line or a brief
format. It finds the skill body the CLI put into the conversation (with
`${CLAUDE_PLUGIN_ROOT}` already replaced by the client), extracts its command
lines with `tests/prompt_commands.py`, and reads each researcher's brief from
the subagent's first message. A wrong path or flag in SKILL.md therefore
breaks the run, as it would for a real model.
"""
from __future__ import annotations

import json
import re
from typing import Any

from harness.request_view import RequestView
from prompt_commands import core_argv, expand, extract_commands

SKILL_BASE_MARKER = "Base directory for this skill:"
_READ_LINE = re.compile(r"^\s*(\d+)(?:\t|→)(.*)$")


class PromptError(AssertionError):
    """The prompt text the CLI sent does not hold what the scripted model needs."""


def skill_body(req: RequestView, skill_dir_suffix: str = "/skills/web-research") -> str:
    """The most recent body of the skill whose base directory ends with `skill_dir_suffix`."""
    texts = [t for m in req.messages if m.get("role") == "user"
             for t in _texts(m.get("content"))]
    for text in reversed(texts):
        for chunk in text.split(SKILL_BASE_MARKER)[1:]:
            base = chunk.strip().splitlines()[0].strip() if chunk.strip() else ""
            if base.rstrip("/").endswith(skill_dir_suffix):
                return chunk
    raise PromptError(f"no skill body with base directory *{skill_dir_suffix} in the conversation")


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]


def core_command(body: str, subcommand: str, output_dir: str | None = None) -> str:
    """The command line SKILL.md gives for `web-research <subcommand>`, placeholders filled."""
    found = []
    for command in extract_commands(body):
        try:
            argv = core_argv(command)
        except ValueError:
            continue
        if argv and argv[0] == subcommand:
            found.append(command)
    if not found:
        raise PromptError(f"the skill body has no `{subcommand}` command line")
    command = found[0]
    if output_dir is not None:
        command = expand(command, {"<output_dir>": output_dir})
    return command


def read_tool_text(result_text: str) -> str:
    """The file content inside a Read tool result (line-number gutter removed,
    the client's trailing reminders dropped)."""
    lines = []
    for line in result_text.split("\n"):
        match = _READ_LINE.match(line)
        if match is None:
            if lines:
                break
            continue
        lines.append(match.group(2))
    # A file ending in a newline shows as a last, empty numbered line.
    return "\n".join(lines)


def json_in(text: str) -> Any:
    """The first JSON value (object or list) printed in a tool result."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise PromptError(f"no JSON in tool output: {text[:500]!r}")
    value, _ = json.JSONDecoder().raw_decode(text[min(starts):])
    return value


def brief_line(brief: str, label: str) -> str:
    """The value after `label` on its line of the brief (e.g. 'Findings file:')."""
    for line in brief.splitlines():
        if line.startswith(label):
            return line[len(label):].strip()
    raise PromptError(f"the brief has no line starting with {label!r}:\n{brief[:1500]}")


def brief_list(brief: str, label: str) -> list[str]:
    """The `- ` items on the lines after `label` (e.g. 'Establish:', which also finds
    'Establish (each point starts with its id):'), up to the first other line."""
    lines = brief.splitlines()
    head = label.rstrip(":")
    found = next((i for i, line in enumerate(lines)
                  if line == label or (line.startswith(head + " (") and line.endswith(":"))), None)
    if found is None:
        raise PromptError(f"the brief has no line {label!r}:\n{brief[:1500]}")
    items = []
    for line in lines[found + 1:]:
        if not line.startswith("- "):
            break
        items.append(line[2:].strip())
    return items


def brief_frontmatter_fields(brief: str) -> list[str]:
    """Field names of the frontmatter template the brief shows (between its --- lines)."""
    lines = brief.splitlines()
    try:
        start = lines.index("---")
        end = lines.index("---", start + 1)
    except ValueError as exc:
        raise PromptError("the brief shows no frontmatter template between --- lines") from exc
    return [line.split(":", 1)[0].strip() for line in lines[start + 1:end] if ":" in line]
