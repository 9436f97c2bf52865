"""The claim-checker's prompts agree with the code: agent definition, SKILL.md step, failure modes."""
from __future__ import annotations

import json
import re

from test_prompts import FAILURE_MODES, SKILL, AGENTS_DIR, fenced_blocks, frontmatter, prose, read
from web_research import formats
from web_research.schema_validation import schema_validator
from web_research.verdicts import SCHEMA

CHECKER = AGENTS_DIR / f"{formats.CHECKER_AGENT}.md"


def test_checker_is_a_small_model_with_one_tool():
    meta, _body = frontmatter(read(CHECKER))
    assert meta["name"] == formats.CHECKER_AGENT
    assert meta["model"] == "haiku"
    assert [t.strip() for t in meta["tools"].split(",")] == ["Write"]  # no Bash, no web tools


def test_checker_names_each_verdict_and_writes_the_schema_shape():
    _meta, body = frontmatter(read(CHECKER))
    for verdict in formats.VERDICTS:
        assert f"`{verdict}`" in body, verdict
    examples = fenced_blocks(body, "json")
    assert len(examples) == 1
    example = json.loads(examples[0])
    example["verdicts"][0]["claim"] = "0123456789abcdef"
    assert list(schema_validator(SCHEMA).iter_errors(example)) == []
    assert set(example["verdicts"][0]) == set(schema_validator(SCHEMA).schema["properties"]["verdicts"]
                                              ["items"]["required"])


def test_the_rendered_prompt_agrees_with_the_agent():
    from web_research.verdicts import PROMPT_HEAD, VERDICTS_LINE

    _meta, body = frontmatter(read(CHECKER))
    assert "`## Claim <key>`" in body and "verdicts file" in body
    assert VERDICTS_LINE.startswith("Verdicts file") and "instructions" in PROMPT_HEAD


def test_skill_dispatches_the_checker_with_the_printed_prompt():
    text = prose(read(SKILL))
    assert f"`{formats.CHECKER_SUBAGENT_TYPE}`" in text
    assert "claims \"<output_dir>\" --prompt" in text
    assert "the command's whole output, unchanged" in text
    for check_id in ("report.claims.checked", "report.claims.verdict"):
        assert f"`{check_id}`" in text, check_id


def test_failure_modes_explains_the_claim_check():
    text = read(FAILURE_MODES)
    assert "## Claim check" in text
    assert re.search(r"`checks/verdicts-<n>\.json`", text)
    assert formats.VERDICTS_FILE_PREFIX in text and formats.CHECKS_DIR in text
