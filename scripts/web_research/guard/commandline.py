"""Strict recognition of the plugin's own command lines.

During a run the hooks let exactly these command lines through without a
permission prompt (and inside a researcher, nothing else runs at all):

    "<root>/scripts/web-research" start --args-file - <<'WEB_RESEARCH_ARGS'
    ...raw arguments...
    WEB_RESEARCH_ARGS
    "<root>/scripts/web-research" SUBCOMMAND ... "<run dir>" ...

the last for each subcommand the registry (subcommands.py) gives a role in a run, with its
run folder absolute and its fixed options left at their defaults (fetch: no --allow-loopback).

"Strict" means: a shell would run exactly one program, ours, with exactly the
words we see. Before splitting with `shlex`, a scanner rejects everything a
shell would expand or interpret: unquoted characters outside a small safe set
(operators, redirections, globs, `~`, `#`, `$`), and `$`, backquote, backslash
or `!` inside double quotes. The only multi-line form accepted is `start`'s
quoted heredoc, whose body the shell never expands.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from ..subcommands import OPENS_A_RUN, SUBCOMMANDS, parser_for

HEREDOC_DELIMITER = "WEB_RESEARCH_ARGS"
PROGRAM_RELPATH = Path("scripts") / "web-research"
ALLOW_LOOPBACK_ENV = "WEB_RESEARCH_GUARD_ALLOW_LOOPBACK"
# The plugin's command lines are short (a start's heredoc holds a few arguments): longer ones
# are refused before the scanner, the heredoc pattern and shlex, which a model's 10 MB
# command would otherwise keep busy for minutes.
MAX_COMMAND_CHARS = 64 * 1024
MAX_FIRST_LINE_CHARS = 4096

_UNQUOTED_SAFE = re.compile(r"[A-Za-z0-9_./:=,+@%-]")
_DOUBLE_QUOTE_UNSAFE = set('$`\\!')
_HEREDOC_HEAD = re.compile(r"^(?P<cmd>.*?)\s*<<\s*'" + HEREDOC_DELIMITER + r"'\s*$")

class CommandRejected(ValueError):
    """Not one of the plugin's command lines; the message says why."""


class PluginCommand(NamedTuple):
    subcommand: str
    args: Any  # argparse.Namespace
    run_dir: str | None  # the DIR / --run argument, resolved (symlinks, ..)
    heredoc_body: str | None = None


def program_path(plugin_root: Path | str) -> str:
    return os.path.realpath(Path(plugin_root) / PROGRAM_RELPATH)


def scan_words(line: str) -> list[str]:
    """Split one command line into words, rejecting anything a shell would expand."""
    state = "plain"
    for index, char in enumerate(line):
        if state == "plain":
            if char == "'":
                state = "single"
            elif char == '"':
                state = "double"
            elif char in " \t" or _UNQUOTED_SAFE.match(char):
                continue
            else:
                raise CommandRejected(f"unquoted {char!r} at column {index + 1} is shell syntax")
        elif state == "single":
            if char == "'":
                state = "plain"
            elif char == "\n":
                raise CommandRejected("a quoted word spans lines")
        else:
            if char == '"':
                state = "plain"
            elif char in _DOUBLE_QUOTE_UNSAFE:
                raise CommandRejected(f"{char!r} inside double quotes at column {index + 1} is expanded by the shell")
            elif char == "\n":
                raise CommandRejected("a quoted word spans lines")
    if state != "plain":
        raise CommandRejected("unterminated quote")
    return shlex.split(line, posix=True)


def split_heredoc(command: str) -> tuple[str, str | None]:
    """(first line, heredoc body or None). Only `<<'WEB_RESEARCH_ARGS'` is accepted."""
    text = command.rstrip("\n")
    if "\n" not in text:
        return text, None
    head, _, rest = text.partition("\n")
    match = _HEREDOC_HEAD.match(head)
    if not match:
        raise CommandRejected("more than one line, and not the quoted heredoc form of start")
    lines = rest.split("\n")
    if lines[-1].rstrip() != HEREDOC_DELIMITER:
        raise CommandRejected(f"the heredoc must end with a line {HEREDOC_DELIMITER!r} and nothing after it")
    body = lines[:-1]
    if any(line.rstrip() == HEREDOC_DELIMITER for line in body):
        raise CommandRejected("text after the heredoc's end")
    return match.group("cmd"), "\n".join(body)


def _parse_args(words: list[str]) -> Any:
    sink = io.StringIO()
    try:
        with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
            return parser_for(words).parse_args(words)
    except SystemExit:
        lines = sink.getvalue().strip().splitlines()
        raise CommandRejected("arguments do not parse" + (f": {lines[-1]}" if lines else "")) from None


def parse_plugin_command(command: str, plugin_root: Path | str,
                         env: Mapping[str, str] | None = None) -> PluginCommand:
    """Recognise one of the plugin's command lines or raise CommandRejected."""
    if not isinstance(command, str) or not command.strip():
        raise CommandRejected("empty command")
    newline = command.find("\n", 0, MAX_COMMAND_CHARS + 1)
    first_line = len(command) if newline < 0 else newline
    if len(command) > MAX_COMMAND_CHARS or first_line > MAX_FIRST_LINE_CHARS:
        raise CommandRejected(f"the command is {len(command)} characters long ({first_line} on its first line); "
                              f"the plugin's commands are at most {MAX_FIRST_LINE_CHARS} on their first line "
                              f"and {MAX_COMMAND_CHARS} in all")
    if "\x00" in command:
        raise CommandRejected("the command holds a NUL byte, which no shell word can")
    if str(PROGRAM_RELPATH) not in command:  # the common case, decided without parsing
        raise CommandRejected(f"not a {PROGRAM_RELPATH} command")
    first, body = split_heredoc(command)
    words = scan_words(first)
    if not words:
        raise CommandRejected("empty command")
    program = words[0]
    if not os.path.isabs(program):
        raise CommandRejected(f"the program must be the absolute path of {PROGRAM_RELPATH}")
    if os.path.realpath(program) != program_path(plugin_root):
        raise CommandRejected(f"{program} is not this plugin's {PROGRAM_RELPATH}")
    args = _parse_args(words[1:])
    sub = args.command
    if sub == OPENS_A_RUN:
        if body is None or words[1:] != [OPENS_A_RUN, "--args-file", "-"]:
            raise CommandRejected(f"{OPENS_A_RUN} runs only as: {OPENS_A_RUN} --args-file - <<'{HEREDOC_DELIMITER}'")
        return PluginCommand(sub, args, None, body)
    if body is not None:
        raise CommandRejected(f"only {OPENS_A_RUN} takes a heredoc")
    spec = SUBCOMMANDS[sub]
    if not spec.roles or spec.run_folder is None:
        raise CommandRejected(f"subcommand {sub!r} is not run by the plugin")
    fixed = dict(spec.fixed_options)
    if (env or {}).get(ALLOW_LOOPBACK_ENV) == "1":
        fixed.pop("allow_loopback", None)
    for dest, default in fixed.items():
        if getattr(args, dest, default) != default:
            raise CommandRejected(f"option --{dest.replace('_', '-')} is not allowed")
    directory = getattr(args, spec.run_folder)
    if not os.path.isabs(directory):
        raise CommandRejected(f"the run folder must be an absolute path, not {directory!r}")
    if sub == "fetch" and not re.match(r"^https?://", args.url):
        raise CommandRejected("fetch takes an http(s) URL")
    return PluginCommand(sub, args, os.path.realpath(directory))


# Any mention of our program and a subcommand, in whatever form the shell is given it: the
# plugin's script by any path, a pip-installed `web-research`, `python -m web_research`.
_MENTION = re.compile(r"(?:web-research|web_research(?:\.cli)?)[\"']?\s+(?:--?[A-Za-z][\w-]*\s+)*"
                      r"(?P<sub>[a-z]+)\b")


def mentioned_subcommand(command: object) -> str | None:
    """The subcommand of the first of our commands that `command` mentions, read loosely (no
    parsing: for recognising a start the shell may have run, never for allowing anything)."""
    if not isinstance(command, str):
        return None
    for match in _MENTION.finditer(command[:100_000]):
        if match.group("sub") in SUBCOMMANDS:
            return match.group("sub")
    return None


def same_path(a: str | Path, b: str | Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)
