"""Extract the shell commands that the Markdown prompts tell Claude to run.

The prompts (SKILL.md, its references, the researcher agent) are product code: a
command line written there is run by the model as is. This module finds those
lines so that tests can check them against the real argument parser, and so that
the end-to-end tests' scripted fake model can run exactly what SKILL.md says.

What counts as a command:
- every command in a fenced block whose info string is `bash`, `sh` or `shell`
  (a logical line: backslash continuations are joined, and a here-document's body
  and terminator stay attached to the line that opens it);
- inline code whose first shell word is the core command, i.e. ends with
  `/scripts/web-research` (`"${CLAUDE_PLUGIN_ROOT}/scripts/web-research" verify ...`).

Commands come back as written: `${CLAUDE_PLUGIN_ROOT}`, `$ARGUMENTS` and `<placeholders>`
stay unexpanded; `expand()` and `core_argv()` do the substitutions a test needs.
"""
from __future__ import annotations

import re
import shlex
from typing import Mapping

CORE_COMMAND_SUFFIX = "/scripts/web-research"
SHELL_INFO_STRINGS = frozenset({"bash", "sh", "shell"})

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)[^`]*$")
_INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_HEREDOC = re.compile(r"<<(?P<dash>-?)[ \t]*(?P<quote>['\"]?)(?P<word>[A-Za-z_][A-Za-z0-9_]*)(?P=quote)")
_PLACEHOLDER = re.compile(r"<[^<>\s][^<>\n]*>")


def _blocks(markdown_text: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """Split Markdown into fenced blocks (info string, lines) and the prose lines outside them."""
    blocks: list[tuple[str, list[str]]] = []
    prose: list[str] = []
    fence: str | None = None
    info = ""
    body: list[str] = []
    for line in markdown_text.splitlines():
        if fence is None:
            match = _FENCE.match(line)
            if match:
                fence, info, body = match["fence"], match["info"].lower(), []
            else:
                prose.append(line)
            continue
        stripped = line.strip()
        if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
            blocks.append((info, body))
            fence = None
        else:
            body.append(line)
    if fence is not None:  # an unclosed fence runs to the end of the document
        blocks.append((info, body))
    return blocks, prose


def _shell_commands(lines: list[str]) -> list[str]:
    """Logical commands of a shell block: continuations joined, here-documents kept whole."""
    commands: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index].rstrip()
        index += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        while line.endswith("\\") and index < len(lines):
            line = line[:-1].rstrip() + " " + lines[index].strip()
            index += 1
        parts = [line.strip()]
        heredoc = _HEREDOC.search(line)
        if heredoc:
            word, strip_tabs = heredoc["word"], heredoc["dash"] == "-"
            while index < len(lines):
                body_line = lines[index]
                index += 1
                parts.append(body_line)
                if (body_line.lstrip("\t") if strip_tabs else body_line) == word:
                    break
        commands.append("\n".join(parts))
    return commands


def is_core_command(command: str) -> bool:
    """True when the command's first shell word is the core `web-research` command."""
    first_line = command.split("\n", 1)[0]
    try:
        words = shlex.split(first_line, comments=False)
    except ValueError:
        return False
    return bool(words) and words[0].endswith(CORE_COMMAND_SUFFIX)


def extract_commands(markdown_text: str) -> list[str]:
    """Every command the Markdown tells the model to run, in document order of kind.

    Fenced shell blocks come first (in order), then inline core commands (in order).
    """
    blocks, prose = _blocks(markdown_text)
    commands: list[str] = []
    for info, lines in blocks:
        if info in SHELL_INFO_STRINGS:
            commands.extend(_shell_commands(lines))
    for line in prose:
        for match in _INLINE_CODE.finditer(line):
            code = match.group(1).strip()
            if is_core_command(code):
                commands.append(code)
    return commands


def expand(command: str, values: Mapping[str, str]) -> str:
    """Replace `${NAME}`/`$NAME` variables and `<placeholders>` by the given sample values.

    `values` maps variable names (`CLAUDE_PLUGIN_ROOT`, `ARGUMENTS`) and placeholders with their
    angle brackets (`<output_dir>`) to text. An unknown placeholder raises KeyError, so that a new
    placeholder in a prompt is noticed rather than passed through.
    """
    def placeholder(match: re.Match[str]) -> str:
        if match.group(0) not in values:
            raise KeyError(f"no sample value for placeholder {match.group(0)} in: {command}")
        return values[match.group(0)]

    def variable(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return values[name] if name in values else match.group(0)

    text = _PLACEHOLDER.sub(placeholder, command)
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", variable, text)


def core_argv(command: str) -> list[str]:
    """The arguments after the core command path, as the shell would pass them.

    Only the first line counts (a here-document feeds standard input, not argv); the
    here-document operator is dropped. Raises ValueError for a non-core command.
    """
    first_line = command.split("\n", 1)[0]
    first_line = _HEREDOC.sub("", first_line)
    words = shlex.split(first_line, comments=False)
    if not words or not words[0].endswith(CORE_COMMAND_SUFFIX):
        raise ValueError(f"not a core web-research command: {command!r}")
    return words[1:]


def heredoc_body(command: str) -> str | None:
    """The text a command's here-document feeds on standard input, or None without one."""
    lines = command.split("\n")
    match = _HEREDOC.search(lines[0])
    if not match:
        return None
    body = lines[1:]
    if body and body[-1].lstrip("\t" if match["dash"] else "") == match["word"]:
        body = body[:-1]
    return "\n".join(body) + ("\n" if body else "")
