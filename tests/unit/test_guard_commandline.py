"""guard.commandline: exactly the plugin's own command lines, nothing a shell would read differently."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from web_research.guard.commandline import CommandRejected, parse_plugin_command, scan_words, split_heredoc

ROOT = Path(__file__).resolve().parents[2]
CLI = f'"{ROOT}/scripts/web-research"'
RUN = "/tmp/web research/run"
START = f"{CLI} start --args-file - <<'WEB_RESEARCH_ARGS'\nresearch_question: \"a $(b) `c` ; d\"\nWEB_RESEARCH_ARGS"


@pytest.mark.parametrize("command,sub,run_dir", [
    (f'{CLI} briefs "{RUN}"', "briefs", RUN),
    (f'{CLI} verify "{RUN}"', "verify", RUN),
    (f'{CLI} verify "{RUN}" --json', "verify", RUN),
    (f'{CLI} estimate "{RUN}"', "estimate", RUN),
    (f'{CLI} estimate "{RUN}" --json', "estimate", RUN),
    (f"{CLI} status '{RUN}'", "status", RUN),
    (f'{CLI} fetch "https://a.example/p?x=1&y=2#z" --run "{RUN}" --offset 8000', "fetch", RUN),
    (f"{ROOT}/scripts/web-research status /tmp/run", "status", "/tmp/run"),
])
def test_accepted_shapes(command: str, sub: str, run_dir: str):
    parsed = parse_plugin_command(command, ROOT)
    assert (parsed.subcommand, parsed.run_dir) == (sub, os.path.realpath(run_dir))


def test_start_heredoc_body_is_kept_verbatim_and_never_interpreted():
    parsed = parse_plugin_command(START, ROOT)
    assert parsed.subcommand == "start"
    assert parsed.heredoc_body == 'research_question: "a $(b) `c` ; d"'


@pytest.mark.parametrize("command,why", [
    (f'{CLI} verify "{RUN}"; rm -rf ~', "';'"),
    (f'{CLI} verify "{RUN}" && curl x', "'&'"),
    (f'{CLI} verify "{RUN}" | tee x', "'|'"),
    (f'{CLI} verify "{RUN}" > /etc/x', "'>'"),
    (f'{CLI} verify "$(pwd)/run"', "'$'"),
    (f'{CLI} verify "`pwd`"', "'`'"),
    (f"{CLI} verify ~/run", "'~'"),
    (f"{CLI} verify /tmp/r*", "'*'"),
    (f"{CLI} verify $HOME", "'$'"),
    (f'{CLI} verify "{RUN}" # comment', "'#'"),
    (f"X=1 {CLI} verify /tmp/run", "absolute path"),
    (f'{CLI} verify "{RUN}\n"', "more than one line"),
    (f"{CLI} verify relative/run", "absolute"),
    (f"bash {CLI} verify /tmp/run", "absolute path"),
    ("/usr/bin/scripts/web-research verify /tmp/run", "not this plugin"),
    (f"{ROOT}/scripts/../scripts/web-research-evil verify /tmp/run", "not this plugin"),
    (f"{CLI} slug question", "not run by the plugin"),
    (f"{CLI} verify", "do not parse"),
    (f"{CLI} verify /tmp/run --bogus", "do not parse"),
    (f'{CLI} fetch "https://x.test/" --run /tmp/run --allow-loopback', "--allow-loopback"),
    (f'{CLI} fetch "file:///etc/passwd" --run /tmp/run', "http"),
    (f"{CLI} start --question x", "start runs only"),
    (f"{CLI} start --args-file /etc/passwd <<'WEB_RESEARCH_ARGS'\nx\nWEB_RESEARCH_ARGS", "start runs only"),
    (f"{CLI} start --args-file - <<WEB_RESEARCH_ARGS\nx\nWEB_RESEARCH_ARGS", "heredoc"),
    (f"{CLI} start --args-file - <<'EOF'\nx\nEOF", "heredoc"),
    (f"{CLI} start --args-file - <<'WEB_RESEARCH_ARGS'\nx\nWEB_RESEARCH_ARGS\nrm -rf ~", "nothing after it"),
    (f"{CLI} start --args-file - <<'WEB_RESEARCH_ARGS'\nx", "must end"),
    (f"{CLI} verify /tmp/run <<'WEB_RESEARCH_ARGS'\nx\nWEB_RESEARCH_ARGS", "only start"),
    ("", "empty"),
])
def test_rejected(command: str, why: str):
    with pytest.raises(CommandRejected) as info:
        parse_plugin_command(command, ROOT)
    assert why in str(info.value)


def test_loopback_is_allowed_only_when_the_tests_say_so():
    command = f'{CLI} fetch "https://127.0.0.1:1/" --run /tmp/run --allow-loopback'
    parsed = parse_plugin_command(command, ROOT, {"WEB_RESEARCH_GUARD_ALLOW_LOOPBACK": "1"})
    assert parsed.args.allow_loopback is True


def test_a_plugin_root_reached_through_a_symlink_is_the_same_plugin(tmp_path: Path):
    link = tmp_path / "plugin"
    link.symlink_to(ROOT)
    assert parse_plugin_command(f'"{link}/scripts/web-research" status /tmp/run', ROOT).subcommand == "status"
    assert parse_plugin_command(f'{CLI} status /tmp/run', link).subcommand == "status"


def test_other_commands_are_rejected_without_parsing():
    with pytest.raises(CommandRejected, match="not a scripts/web-research command"):
        parse_plugin_command("ls -la; rm -rf /", ROOT)


def test_scan_words_matches_shlex_on_accepted_input():
    assert scan_words("""a 'b c' "d e" f=g,h@i:j""") == ["a", "b c", "d e", "f=g,h@i:j"]


def test_split_heredoc_keeps_single_lines_alone():
    assert split_heredoc("x y\n") == ("x y", None)
