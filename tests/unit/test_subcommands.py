"""One registry of subcommands (subcommands.py): the CLI, the hooks' command-line parser, the
sealed room, the launcher's patterns and the prompts' command lines all agree with it."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from hook_harness import LAUNCHER, REPO
from web_research import subcommands
from web_research.guard.rules import room
from web_research.guard.commandline import CommandRejected, parse_plugin_command
from web_research.guard.events import EVENTS
from web_research.subcommands import OPENS_A_RUN, ORCHESTRATOR, PERSON, RESEARCHER, SUBCOMMANDS

sys.path.insert(0, str(REPO / "tests"))
from prompt_commands import expand  # noqa: E402

from test_prompts_commands import SAMPLES, all_prompt_commands, parse_core  # noqa: E402

COMMANDS = REPO / "scripts" / "web_research" / "commands"


def test_each_subcommand_is_one_entry_and_one_module_that_runs_it():
    modules = sorted(p.stem for p in COMMANDS.glob("*_cmd.py"))
    assert sorted(spec.module for spec in SUBCOMMANDS.values()) == modules
    for name, spec in SUBCOMMANDS.items():
        text = (COMMANDS / f"{spec.module}.py").read_text(encoding="utf-8")
        assert re.search(r"^def run\(args", text, re.MULTILINE), f"{spec.module}.py has no run(args)"
        assert spec.summary and spec.description and spec.exit_codes, name


def test_the_cli_dispatches_each_subcommand_to_its_module(monkeypatch):
    from web_research import cli

    called = []

    class Module:
        @staticmethod
        def run(args):
            called.append(args.command)
            return 7

    monkeypatch.setattr(cli.importlib, "import_module", lambda name: called.append(name) or Module)
    assert cli.main(["slug", "What is X?"]) == 7
    assert called == ["web_research.commands.slug_cmd", "slug"]


def test_the_room_lets_each_role_run_what_the_registry_gives_it():
    assert room.ORCHESTRATOR_COMMANDS == subcommands.run_by(ORCHESTRATOR)
    assert subcommands.run_by(RESEARCHER) == ("fetch",)
    assert "start" not in room.ORCHESTRATOR_COMMANDS and "slug" not in room.ORCHESTRATOR_COMMANDS


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_the_hooks_accept_a_subcommand_exactly_when_the_registry_gives_it_a_role(name: str, tmp_path: Path):
    spec = SUBCOMMANDS[name]
    words = {"fetch": f'"https://example.org/p" --run "{tmp_path}"', "abandon": f'"{tmp_path}" --reason "stop"',
             "slug": '"What is X?"', "unavailable": "WebSearch", "start": "--question x"}
    command = f'"{REPO / "scripts" / "web-research"}" {name} {words.get(name, chr(34) + str(tmp_path) + chr(34))}'
    if spec.roles:
        parsed = parse_plugin_command(command, REPO)
        assert parsed.subcommand == name and parsed.run_dir == str(tmp_path.resolve())
    else:
        with pytest.raises(CommandRejected):
            parse_plugin_command(command, REPO)
    for dest, default in spec.fixed_options.items():  # a fixed option set otherwise is refused
        flag = "--" + dest.replace("_", "-")
        with pytest.raises(CommandRejected, match=f"option {flag} is not allowed"):
            parse_plugin_command(f"{command} {flag}", REPO)
        assert default is False


def test_every_prompt_command_is_run_by_the_role_whose_prompt_writes_it():
    """SKILL.md and its references write the orchestrator's commands, agents/researcher.md the
    researcher's: each one is run by that role in the registry (or opens the run, or runs only
    when no run can start), and the hooks' parser accepts it as the prompt writes it."""
    seen = set()
    values = {**SAMPLES, "CLAUDE_PLUGIN_ROOT": str(REPO), "<plugin root>": str(REPO)}
    for where, command in all_prompt_commands():
        name = parse_core(command).command
        seen.add(name)
        role = RESEARCHER if where == "agents/researcher.md" else ORCHESTRATOR
        if not SUBCOMMANDS[name].roles & {ORCHESTRATOR, RESEARCHER} and name != OPENS_A_RUN:
            assert role == ORCHESTRATOR, f"{where}: {name}"  # slug, unavailable, recheck: with no run open
            continue
        assert name == OPENS_A_RUN or role in SUBCOMMANDS[name].roles, f"{where}: the {role} does not run {name}"
        line = expand(command, values)
        if line.startswith(f'"{REPO}/scripts/web-research"'):
            assert parse_plugin_command(line, REPO).subcommand == name, f"{where}: {line}"
    assert {"start", "briefs", "finish", "fetch", "abandon"} <= seen


def test_the_launchers_patterns_follow_the_registry():
    """hooks/run sends every Bash call that names our program with a subcommand to Python, every
    spelling of the subcommand that opens a run, and a person's command only in a session with a
    run; it knows the hook events by their handler's names."""
    text = LAUNCHER.read_text(encoding="utf-8")
    branches = re.findall(r"((?:\*['\"][^\n]*?['\"]\*\s*\|\s*\\?\s*)*\*['\"][^\n]*?['\"]\*)\)\s*(is_start=1|is_ours=1|recheck=1)?\s*;;",
                          text)
    named = {}
    for patterns, action in branches:
        subs = set(re.findall(r"web[-_.a-z]*research(?:\\\"|')?\s([a-z]+)['\"]", patterns))
        named.setdefault(action, set()).update(subs)
    assert named.get("is_start=1") == {OPENS_A_RUN}
    assert named.get("recheck=1") == set(subcommands.run_by(PERSON))  # recognised, and left alone outside a run
    assert re.search(r"\*'web-research '\[a-z\]\*", text)  # any other lower-case subcommand name
    assert all(re.fullmatch("[a-z]+", name) for name in SUBCOMMANDS)  # ... which every one is
    case = re.search(r"^\s+([a-z_|]+)\) ;;$", text, re.MULTILINE)
    assert case is not None and case.group(1).split("|") == list(EVENTS)
