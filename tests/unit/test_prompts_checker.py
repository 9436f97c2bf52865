"""The claim-checker's prompts agree with the code: agent definition, SKILL.md step, failure modes."""
from __future__ import annotations

import re

from test_prompts import FAILURE_MODES, SKILL, AGENTS_DIR, fenced_blocks, frontmatter, prose, read
from web_research import formats

CHECKER = AGENTS_DIR / f"{formats.CHECKER_AGENT}.md"


def test_checker_is_a_small_model_with_no_tools():
    meta, _body = frontmatter(read(CHECKER))
    assert meta["name"] == formats.CHECKER_AGENT
    assert meta["model"] == "haiku"
    assert meta["tools"].strip() == ""  # it answers in its reply; the plugin writes the verdicts file


def test_checker_answers_by_number_in_the_format_the_hook_reads():
    from web_research.report.claim_checker import parse_answer

    _meta, body = frontmatter(read(CHECKER))
    for verdict in formats.VERDICTS:
        assert f"`{verdict}`" in body, verdict
    assert "`## Claim <number>`" in body
    examples = fenced_blocks(body, "text")
    assert len(examples) == 1
    verdicts, problems = parse_answer(examples[0], ["a" * 16, "b" * 16])
    assert problems == [] and [v for _k, v, _r in verdicts] == ["supported", "partial"]


def test_the_rendered_prompt_agrees_with_the_agent():
    from web_research.report.claim_checker import PROMPT_HEAD, answer_instruction, parse_answer

    _meta, body = frontmatter(read(CHECKER))
    assert "instructions" in PROMPT_HEAD and "one line per claim" in body
    example = answer_instruction(2).split("for example:\n", 1)[1]
    assert parse_answer(example, ["a" * 16, "b" * 16])[1] == []


def test_skill_dispatches_the_checker_by_reference_when_finish_says_so():
    from web_research.report.finish import CLAIMS_CHECKED

    text = prose(read(SKILL))
    assert "subagent_type" not in text  # the hook names the checker from `Check:` (test_checker_gate.py)
    assert formats.dispatch_call(formats.DISPATCH_CHECK_PROMPT) in text
    assert f"`{CLAIMS_CHECKED}`" in text and "claims \"<output_dir>\" --prompt" not in text
    assert "`report.claims.verdict`" in prose(read(FAILURE_MODES))


def test_failure_modes_explains_the_claim_check():
    text = read(FAILURE_MODES)
    assert "## Claim check" in text
    assert re.search(r"`checks/verdicts-<n>\.json`", text)
    assert formats.VERDICTS_FILE_PREFIX in text and formats.CHECKS_DIR in text


def test_the_room_tells_the_checker_what_its_agent_file_does():
    """A refused checker hears the rule its prompt states: no file, no command, the answer in its
    reply one line per claim number (guard/rules/room.py holds it: c4f81e0 removed the verdicts-file write)."""
    from web_research.guard.rules import room

    _meta, body = frontmatter(read(CHECKER))
    said = " ".join(body.split())
    assert "you write no file and run no tool" in said and "one line per claim number" in said
    assert "one line per claim number" in room.CHECKER_MOVES and room.CHECKER_MOVES in room.CHECKER_REFUSAL
    assert "writes no file and runs no command" in room.CHECKER_REFUSAL
