"""The command line describes itself: `--version`, and every subcommand's `--help`
with a description and its exit codes."""
from __future__ import annotations

import pytest

from web_research import __version__
from web_research.cli import main
from web_research.subcommands import build_parser

SUBCOMMANDS = sorted(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"web-research {__version__}"


def test_every_subcommand_is_covered() -> None:
    assert {"slug", "start", "briefs", "verify", "claims", "estimate", "status", "fetch"} <= set(SUBCOMMANDS)


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_has_a_description_and_the_exit_codes(command: str, capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    usage, description, *_ = out.split("\n\n")
    assert usage.startswith(f"usage: web-research {command}")
    assert len(description.split()) >= 6, description
    codes = out.split("exit codes:\n", 1)[1]
    assert "  0  " in codes and "  2  " in codes and "141  " in codes
    if command == "verify":
        assert "  1  an error-severity check failed" in codes
    if command == "start":
        assert "  3  a prior run is present" in codes


# --- one subcommand's parser: what a hook builds to parse one of our command lines -------

COMMAND_LINES = [
    ["status", "/tmp/run"], ["status", "/tmp/run", "--json"], ["status"], ["status", "/tmp/run", "extra"],
    ["status", "--bogus", "/tmp/run"], ["status", "-h"], ["verify", "-v", "/tmp/run"], ["gaps", "--json"],
    ["fetch", "https://example.com/p", "--run", "/tmp/run", "--offset", "800"], ["fetch", "u", "--offset", "x"],
    ["fetch", "https://example.com/p"], ["start", "--args-file", "-"], ["claims", "/tmp/run", "--prompt"],
    ["slug", "--date", "2026-01-01", "a question"], ["briefs", "/tmp/run"], ["estimate", "/tmp/run", "--json"],
]


def _parse(parser, argv: list[str], capsys) -> tuple[object, str, str]:
    try:
        result: object = vars(parser.parse_args(argv))
    except SystemExit as done:
        result = ("exit", done.code)
    out = capsys.readouterr()
    return result, out.out, out.err


@pytest.mark.parametrize("argv", COMMAND_LINES, ids=" ".join)
def test_a_subcommands_own_parser_parses_as_the_whole_parser(argv: list[str], capsys, monkeypatch) -> None:
    from web_research.subcommands import parser_for

    monkeypatch.setenv("COLUMNS", "80")
    assert _parse(parser_for(argv), argv, capsys) == _parse(build_parser(), argv, capsys)


def test_a_command_line_of_one_subcommand_builds_that_subcommand_alone() -> None:
    from web_research.subcommands import parser_for

    def choices(parser) -> list[str]:
        return list(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]

    assert choices(parser_for(["fetch", "https://example.com/p", "--run", "/r"])) == ["fetch"]
    for argv in (["--help"], ["stat"], ["--version", "status"], []):  # no subcommand named first: all of them
        assert sorted(choices(parser_for(argv))) == SUBCOMMANDS, argv


def test_only_a_known_subcommand_is_built_alone() -> None:
    with pytest.raises(ValueError, match="no subcommand 'stat'"):
        build_parser(only="stat")


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_a_subcommands_own_parser_has_the_same_help(command: str) -> None:
    whole = build_parser()._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    alone = build_parser(only=command)._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    assert alone.format_help() == whole.format_help()


def test_the_hooks_parse_our_command_with_its_subcommand_alone(monkeypatch, tmp_path) -> None:
    from hook_harness import REPO
    from web_research import subcommands as cli
    from web_research.guard.commandline import parse_plugin_command

    built: list[str | None] = []
    real = cli.build_parser

    def spy(only=None):
        built.append(only)
        return real(only)

    monkeypatch.setattr(cli, "build_parser", spy)
    parsed = parse_plugin_command(f'"{REPO / "scripts" / "web-research"}" status "{tmp_path}"', REPO)
    assert parsed.subcommand == "status" and built == ["status"]


def test_the_top_level_help_lists_commands_for_people_apart_from_the_skills(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    people, skill = out.split("commands the skill and its agents run:")
    assert "Mechanical" not in out
    for name in ("status", "view", "verify", "recheck"):
        assert f"\n  {name} " in people and f"\n  {name} " not in skill
    for name in ("start", "briefs", "finish", "fetch"):
        assert f"\n  {name} " in skill and f"\n  {name} " not in people


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_readme_names_every_flag_a_person_may_pass(command: str) -> None:
    """Issue 45: every option of every subcommand appears in README (its command table or its sections)."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    sub = build_parser(command)._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    flags = [s for action in sub._actions for s in action.option_strings if s.startswith("--") and s != "--help"]
    assert [f for f in flags if f"{f}" not in readme] == [], command

