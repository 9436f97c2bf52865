"""Run SKILL.md's command lines, as written, through bash against the real core.

The orchestrator relies on what these commands print (start's keys, briefs' list) and on
the way it composes each researcher's prompt; if the core's output and the prompt's
description drift apart, this fails.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ (for prompt_commands)

from prompt_commands import core_argv, expand, extract_commands  # noqa: E402
from web_research import formats  # noqa: E402
from web_research.run.briefs import brief_hash, split_agent_prompt  # noqa: E402
from web_research.guard.briefs_match import dispatch_prompt, load_briefs  # noqa: E402

SKILL = formats.SKILL_DIR / "SKILL.md"
SKILL_TEXT = SKILL.read_text(encoding="utf-8")
START_KEYS = ("research_question", "output_dir", "plan", "findings_dir", "report", "auto_proceed", "tier", "deepen")
BRIEF_KEYS = ("subtopic", "brief_path", "findings_path")
QUESTION = "How do managed log services price retention beyond 30 days?"


def skill_command(subcommand: str) -> str:
    (command,) = [c for c in extract_commands(SKILL_TEXT) if core_argv(c)[0] == subcommand]
    return command


def run_skill_command(subcommand: str, cwd: Path, arguments: str = "", output_dir: str = "") -> subprocess.CompletedProcess[str]:
    """Expand the way Claude Code does ($ARGUMENTS, ${CLAUDE_PLUGIN_ROOT}) and run it with bash."""
    command = expand(skill_command(subcommand), {
        "CLAUDE_PLUGIN_ROOT": str(formats.PLUGIN_ROOT),
        "ARGUMENTS": arguments,
        "<output_dir>": output_dir,
    })
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", formats.ROOT_ENV_VAR)}
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def skill_plan(question: str, subtopics: list[tuple[str, list[str]]], tier: str) -> str:
    """plan.md with the sections SKILL.md says to fill in, the question and Budget as start gives them."""
    blocks = "\n".join(f"### {name}\n" + "".join(f"- {item}\n" for item in items) for name, items in subtopics)
    return (f"# Log retention pricing\n\n## {formats.PLAN_SECTION_QUESTION}\n\n{question}\n\n"
            f"## {formats.PLAN_SECTION_SUBTOPICS}\n\n{blocks}\n## {formats.PLAN_SECTION_SYNTHESIS}\n\n"
            f"Compare the subtopics side by side.\n\n## {formats.PLAN_SECTION_BUDGET}\n\nTier: {tier}\n")


def test_skill_names_the_keys_the_core_prints():
    """start's keys are named; a brief's are not (the plugin writes out the Agent calls), but the
    form of a dispatch names `brief_path` (what the hooks' calls fill in)."""
    spans = set(re.findall(r"`([^`\n]+)`", SKILL_TEXT))
    assert set(START_KEYS) <= spans
    assert "Brief: <brief_path>" in SKILL_TEXT and set(BRIEF_KEYS) - {"brief_path"} - spans == {"subtopic", "findings_path"}


def test_start_estimate_briefs_gaps_finish_as_the_skill_runs_them(tmp_path):
    run_dir = tmp_path / "run"
    arguments = f'research_question: "{QUESTION}"\noutput_dir: "{run_dir}"\nauto_proceed: true\ntier: quick'
    started = run_skill_command("start", tmp_path, arguments=arguments)
    assert started.returncode == 0, started.stderr
    opened = json.loads(started.stdout)
    assert set(START_KEYS) <= set(opened)
    assert opened["research_question"] == QUESTION and opened["auto_proceed"] is True
    assert opened["output_dir"] == str(run_dir)
    assert opened["plan"] == str(run_dir / formats.PLAN_FILE) and opened["tier"] == "quick"

    Path(opened["plan"]).write_text(skill_plan(opened["research_question"], [
        ("Published retention tiers", ["the retention periods each service lists, with prices"]),
        ("Archive and rehydration", ["what reading archived logs back costs"]),
    ], opened["tier"]), encoding="utf-8")
    estimated = run_skill_command("estimate", tmp_path, output_dir=opened["output_dir"])
    assert estimated.returncode == 0, estimated.stderr
    assert "(tier: quick)" in estimated.stdout and "searches        at most 6 (3 per researcher)" in estimated.stdout
    rendered = run_skill_command("briefs", tmp_path, output_dir=opened["output_dir"])
    assert rendered.returncode == 0, rendered.stderr
    briefs = json.loads(rendered.stdout)
    assert [b["subtopic"] for b in briefs] == ["Published retention tiers", "Archive and rehydration"]
    for brief in briefs:
        assert set(BRIEF_KEYS) <= set(brief)
        text = Path(brief["brief_path"]).read_text(encoding="utf-8")
        assert QUESTION in text and brief["findings_path"] in text
        assert "Budget: at most 3 web searches and 4 page reads" in text  # the quick tier's
        # The Agent prompt as the hook puts it in place of `Brief: <brief_path>`: the file's text,
        # a blank line, the hash line.
        prompt = dispatch_prompt(next(b for b in load_briefs(run_dir) if b.brief_path == brief["brief_path"]))
        body, stated = split_agent_prompt(prompt)
        assert stated == brief_hash(Path(brief["brief_path"]).read_bytes()) == brief_hash(body.encode("utf-8"))
        assert Path(brief["findings_path"]).parent == Path(opened["findings_dir"])

    gaps = run_skill_command("gaps", tmp_path, output_dir=opened["output_dir"])
    assert gaps.returncode == 0, gaps.stderr
    assert "1.1" in gaps.stdout and "missing" in gaps.stdout  # no findings yet: Gaps entries by id
    finished = run_skill_command("finish", tmp_path, output_dir=opened["output_dir"])
    assert finished.returncode == 1  # no findings, no report yet: a round of fixes, said on stdout
    assert "report.exists" in finished.stdout and "Round 1 of 3 of fixes" in finished.stdout


@pytest.mark.parametrize("arguments,expected_error", [
    ("", formats.ERROR_INVALID_INPUT),
    ("research_question: 42", formats.ERROR_INVALID_INPUT),
])
def test_start_refusals_are_json_the_skill_can_return_unchanged(tmp_path, arguments, expected_error):
    refused = run_skill_command("start", tmp_path, arguments=arguments)
    assert refused.returncode != 0
    assert json.loads(refused.stdout)["error"] == expected_error
    assert expected_error in SKILL_TEXT
    assert not any(tmp_path.iterdir()), "a refused start writes nothing"


def test_a_second_start_in_the_same_folder_is_refused(tmp_path):
    arguments = f"--out {tmp_path / 'run'} {QUESTION}"
    first = run_skill_command("start", tmp_path, arguments=arguments)
    assert first.returncode == 0, first.stdout + first.stderr
    Path(json.loads(first.stdout)["plan"]).write_text("# a prior plan\n", encoding="utf-8")
    second = run_skill_command("start", tmp_path, arguments=arguments)
    refusal = json.loads(second.stdout)
    assert refusal["error"] == formats.ERROR_PRIOR_RUN_PRESENT and formats.ERROR_PRIOR_RUN_PRESENT in SKILL_TEXT
    assert (tmp_path / "run" / formats.PLAN_FILE).read_text(encoding="utf-8") == "# a prior plan\n"


def test_raw_arguments_reach_start_untouched_by_the_shell(tmp_path):
    question = "What does `rm -rf` cost in $HOME and \"quotes\" or 'single' \\ backslashes?"
    started = run_skill_command("start", tmp_path, arguments=f"--out {tmp_path / 'run'} {question}")
    assert started.returncode == 0, started.stdout + started.stderr
    assert json.loads(started.stdout)["research_question"] == question


def test_the_fetch_output_is_what_the_researcher_prompt_describes(tmp_path):
    """agents/researcher.md tells the researcher to cite the header's Title and URL, take its
    clock from the `retrieved` stamp and page on with --offset: the command must print those."""
    from web_research.commands.fetch_cmd import render_window
    from web_research.evidence.snapshots import store_snapshot

    agent = (formats.PLUGIN_ROOT / "agents" / f"{formats.RESEARCHER_AGENT}.md").read_text(encoding="utf-8")
    for phrase in ("`Title:`", "`URL:`", "`retrieved`", "`--offset <offset>`"):
        assert phrase in agent, phrase
    text = "word " * 5000
    snap = store_snapshot(tmp_path, requested_url="https://example.org/a", final_url="https://example.org/b",
                          title="Page B", status=200, content_type="text/html",
                          retrieved_at="2026-04-18T09:30:00+00:00", text=text, extractor="test")
    window = render_window(snap, text, tmp_path, 0, 100, False)
    assert "Title: Page B" in window and "URL: https://example.org/b" in window
    assert "retrieved 2026-04-18T09:30:00+00:00" in window
    assert re.search(r"--offset (\d+)", window).group(1) == "100"
