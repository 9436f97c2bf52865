"""The command lines the prompts tell Claude to run must be ones the core accepts.

`tests/prompt_commands.py` extracts them from the Markdown; each is parsed by the
real `web_research.cli.build_parser()`, so a renamed subcommand or flag, or a
typo in a prompt, fails here instead of in a user's session.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ (for prompt_commands)

from prompt_commands import (  # noqa: E402
    core_argv,
    expand,
    extract_commands,
    heredoc_body,
    is_core_command,
)
from web_research.subcommands import build_parser  # noqa: E402
from web_research.formats import PLUGIN_ROOT  # noqa: E402

SKILL = PLUGIN_ROOT / "skills" / "web-research" / "SKILL.md"
AGENT = PLUGIN_ROOT / "agents" / "researcher.md"
REFERENCES = PLUGIN_ROOT / "skills" / "web-research" / "references"

# Sample values for every variable and placeholder a prompt's command may hold.
SAMPLES = {
    "CLAUDE_PLUGIN_ROOT": "/opt/plugins/web-research",
    "ARGUMENTS": "research_question: \"What is X?\"",
    "<output_dir>": "/tmp/run",
    "<run_dir>": "/tmp/run",
    "<url>": "https://example.org/page",
    "<offset>": "8000",
    "<question>": "What is X?",
    "<YYYY-MM-DD>": "2026-04-18",
    "<plugin root>": "/opt/plugins/web-research",
    "<their words>": "stop now",
}


def prompt_files() -> list[Path]:
    files = [SKILL, *sorted((PLUGIN_ROOT / "agents").glob("*.md")), *sorted(REFERENCES.glob("*.md"))]
    return [path for path in files if path.is_file()]


def parse_core(command: str):
    """Parse a core command line as the shell and then the CLI would; SystemExit on a bad one."""
    argv = core_argv(expand(command, SAMPLES))
    return build_parser().parse_args(argv)


def all_prompt_commands() -> list[tuple[str, str]]:
    return [(path.relative_to(PLUGIN_ROOT).as_posix(), command)
            for path in prompt_files()
            for command in extract_commands(path.read_text(encoding="utf-8"))]


# --- the extractor itself --------------------------------------------------------------------

def test_extracts_fenced_shell_commands_with_heredoc_kept_whole():
    text = (
        "Intro\n\n```bash\n"
        "\"${CLAUDE_PLUGIN_ROOT}/scripts/web-research\" start --args-file - <<'EOF'\n"
        "$ARGUMENTS\n"
        "EOF\n"
        "```\n"
    )
    assert extract_commands(text) == [
        "\"${CLAUDE_PLUGIN_ROOT}/scripts/web-research\" start --args-file - <<'EOF'\n$ARGUMENTS\nEOF"
    ]


def test_joins_continuations_skips_comments_and_blank_lines():
    text = "```sh\n# a comment\n\nfoo --a \\\n   --b\nbar\n```\n"
    assert extract_commands(text) == ["foo --a --b", "bar"]


def test_ignores_non_shell_fences_and_keeps_indented_fences():
    text = (
        "```json\n{\"a\": 1}\n```\n"
        "```markdown\n\"/x/scripts/web-research\" verify \"d\"\n```\n"
        "- item\n\n  ```bash\n  \"/x/scripts/web-research\" status \"d\"\n  ```\n"
    )
    assert extract_commands(text) == ["\"/x/scripts/web-research\" status \"d\""]


def test_inline_code_counts_only_when_it_starts_with_the_core_command():
    text = (
        "Run `\"/x/scripts/web-research\" verify \"<output_dir>\"` then `ls -l` and "
        "`/x/scripts/web-research` alone, but not `echo /x/scripts/web-research`.\n"
        "```bash\n\"/x/scripts/web-research\" briefs \"d\"\n```\n"
    )
    assert extract_commands(text) == [
        "\"/x/scripts/web-research\" briefs \"d\"",
        "\"/x/scripts/web-research\" verify \"<output_dir>\"",
        "/x/scripts/web-research",
    ]


def test_inline_code_inside_a_fence_is_not_counted_twice():
    text = "```bash\n\"/x/scripts/web-research\" status `d`\n```\n"
    assert extract_commands(text) == ["\"/x/scripts/web-research\" status `d`"]


def test_argv_drops_the_heredoc_and_keeps_quoted_words():
    command = "\"/a b/scripts/web-research\" start --args-file - <<'WEB_RESEARCH_ARGS'\nx: 1\nWEB_RESEARCH_ARGS"
    assert core_argv(command) == ["start", "--args-file", "-"]
    assert heredoc_body(command) == "x: 1\n"
    assert heredoc_body("\"/x/scripts/web-research\" verify d") is None
    with pytest.raises(ValueError):
        core_argv("ls -l")
    assert is_core_command(command) and not is_core_command("ls -l")


def test_expand_substitutes_variables_and_refuses_unknown_placeholders():
    assert expand('"${ROOT}/s" v "<d>" $ARGS', {"ROOT": "/r", "<d>": "/d", "ARGS": "a"}) == '"/r/s" v "/d" a'
    with pytest.raises(KeyError):
        expand("x <unknown>", {})


def test_the_parser_check_rejects_a_wrong_subcommand_or_flag():
    with pytest.raises(SystemExit):
        parse_core('"${CLAUDE_PLUGIN_ROOT}/scripts/web-research" verfiy "<output_dir>"')
    with pytest.raises(SystemExit):
        parse_core('"${CLAUDE_PLUGIN_ROOT}/scripts/web-research" verify "<output_dir>" --jsn')
    with pytest.raises(SystemExit):
        parse_core('"<plugin root>/scripts/web-research" fetch "<url>"')  # --run is required


# --- the prompts -----------------------------------------------------------------------------

@pytest.mark.parametrize("where,command", all_prompt_commands())
def test_every_prompt_command_is_a_core_command_the_parser_accepts(where, command):
    assert is_core_command(command), f"{where}: prompts run only the core command, found: {command}"
    try:
        parse_core(command)
    except SystemExit as error:
        pytest.fail(f"{where}: the CLI rejects this command line (exit {error.code}): {command}")


def test_skill_runs_exactly_the_seven_orchestrator_subcommands():
    from web_research.guard.rules.room import ORCHESTRATOR_COMMANDS

    commands = extract_commands(SKILL.read_text(encoding="utf-8"))
    # each once, in any order (fenced blocks come first, then inline ones)
    assert sorted(parse_core(c).command for c in commands) == sorted(
        ["unavailable", "start", "estimate", "briefs", "finish", "abandon", "gaps"])
    # the sealed room lets the orchestrator run every one of these on its run (start opens it;
    # unavailable runs only when no run can start)
    assert {parse_core(c).command for c in commands} - {"start", "unavailable"} <= set(ORCHESTRATOR_COMMANDS)
    commands = [c for c in commands if parse_core(c).command != "unavailable"]
    for command in commands:
        assert expand(command, SAMPLES).split("\n", 1)[0].startswith(
            f'"{SAMPLES["CLAUDE_PLUGIN_ROOT"]}/scripts/web-research" ')
    for command in commands:
        if parse_core(command).command != "start":
            assert parse_core(command).dir == SAMPLES["<output_dir>"]


def test_start_passes_the_raw_arguments_untouched_through_a_quoted_heredoc():
    start = next(c for c in extract_commands(SKILL.read_text(encoding="utf-8")) if parse_core(c).command == "start")
    first_line = start.split("\n", 1)[0]
    assert first_line.endswith("start --args-file - <<'WEB_RESEARCH_ARGS'")
    assert heredoc_body(start) == "$ARGUMENTS\n"
    assert core_argv(start) == ["start", "--args-file", "-"]
    # Claude Code replaces $ARGUMENTS wherever it stands: only inside the quoted heredoc is that safe.
    assert SKILL.read_text(encoding="utf-8").count("$ARGUMENTS") == 1


def test_researcher_reads_pages_through_the_fetch_command_into_the_run_folder():
    commands = extract_commands(AGENT.read_text(encoding="utf-8"))
    fetches = [parse_core(c) for c in commands if parse_core(c).command == "fetch"]
    assert fetches, "agents/researcher.md must name the fetch command"
    for args in fetches:
        assert args.url == SAMPLES["<url>"] and args.run == SAMPLES["<run_dir>"]


def test_agent_prompts_do_not_rely_on_plugin_root_substitution():
    # Only SKILL.md gets ${CLAUDE_PLUGIN_ROOT} replaced; an agent file would show it literally.
    for path in sorted((PLUGIN_ROOT / "agents").glob("*.md")):
        assert "${CLAUDE_PLUGIN_ROOT}" not in path.read_text(encoding="utf-8"), path


def test_a_persons_recheck_is_named_in_a_reference_and_never_run_by_the_skill():
    """A user who asks whether a finished report still holds is sent to `recheck` by a reference
    SKILL.md points to; the skill never runs it itself, and the room refuses it inside a run."""
    from web_research.guard.rules.room import ORCHESTRATOR_COMMANDS, PERSON_COMMANDS

    skill = SKILL.read_text(encoding="utf-8")
    assert "recheck" not in {parse_core(c).command for c in extract_commands(skill)}
    named = [(path, parse_core(command)) for path, command in all_prompt_commands()
             if parse_core(command).command == "recheck"]
    assert [(path, args.dir) for path, args in named] == [
        ("skills/web-research/references/companion-contract.md", SAMPLES["<output_dir>"])]
    description, body = skill.split("---", 2)[1:]
    assert "whether a finished report is still true" in description  # so the skill is loaded for it
    assert "(references/companion-contract.md)" in body.split("still true", 1)[1][:80]
    assert "recheck" in PERSON_COMMANDS and "recheck" not in ORCHESTRATOR_COMMANDS
