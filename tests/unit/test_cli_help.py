"""The command line describes itself: `--version`, and every subcommand's `--help`
with a description and its exit codes."""
from __future__ import annotations

import pytest

from web_research import __version__
from web_research.cli import build_parser, main

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
