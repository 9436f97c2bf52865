"""Start input: raw skill arguments vs. the companion contract, validated by the schema."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from web_research.formats import SCHEMAS_DIR
from web_research.run.inputs import InputError, StartInput, contract_keys, from_flags, from_raw


def test_contract_keys_come_from_the_schema() -> None:
    schema = json.loads((SCHEMAS_DIR / "start-input.schema.json").read_text())
    assert contract_keys() == ("research_question", "output_dir", "auto_proceed", "refresh", "tier", "deepen",
                               "resume")
    assert tuple(schema["properties"]) == contract_keys()
    assert schema["else"]["required"] == ["research_question"] and schema["additionalProperties"] is False
    assert schema["then"]["required"] == ["output_dir"]  # resume: the folder instead of a question


@pytest.mark.parametrize(
    "text",
    [
        "What is X?",
        "Kubernetes: how do pods schedule?",
        "yes",
        "42",
        "- a list item?",
        "[not, a, mapping]",
        'Why does `echo $HOME` print "x": really?',
        "key: value\nother: thing",  # a mapping without contract keys is text
    ],
)
def test_bare_questions_stay_verbatim(text: str) -> None:
    assert from_raw(text) == StartInput(question=text)


def test_surrounding_whitespace_is_trimmed() -> None:
    assert from_raw("\n  What is X?  \n\n").question == "What is X?"


def test_characters_that_show_as_nothing_are_no_part_of_the_question() -> None:
    """The question becomes report.md's title, which text.blank reads: pasted with a zero-width space,
    a soft hyphen or a braille blank, an honest run could never verify."""
    assert from_raw("What is\u200b X\u00ad?\u2800").question == "What is X?"
    assert from_raw("research_question: \"Caf\u00e9 \u65e5\u672c \u26a0\ufe0f?\"").question == "Caf\u00e9 \u65e5\u672c \u26a0?"


def test_contract_mapping() -> None:
    text = (
        'research_question: "How do vendors price logs: a 2026 view?"\n'
        'output_dir: "/abs/out"\nauto_proceed: true\nrefresh: false\n'
    )
    assert from_raw(text) == StartInput("How do vendors price logs: a 2026 view?", "/abs/out", True, False)
    assert from_raw('{"research_question": "Q", "refresh": true}') == StartInput("Q", refresh=True)


def test_flags_before_a_bare_question() -> None:
    assert from_raw("--auto --refresh --out /tmp/x What: is it?") == StartInput("What: is it?", "/tmp/x", True, True)
    assert from_raw('--out "/tmp/a b" Q') == StartInput("Q", "/tmp/a b", False, False)
    assert from_raw("--out='/tmp/c d' --auto Q") == StartInput("Q", "/tmp/c d", True, False)
    assert from_raw("--out=/tmp/e Q") == StartInput("Q", "/tmp/e")
    assert from_raw("-- --force vs --force-with-lease?") == StartInput("--force vs --force-with-lease?")
    assert from_raw("Q --auto") == StartInput("Q --auto")  # flags only count before the question


def _detail(text: str) -> str:
    with pytest.raises(InputError) as info:
        from_raw(text)
    return str(info.value)


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("", "research_question", "non-empty string"),
        ("   \n ", "research_question", "non-empty string"),
        ("--auto", "research_question", "non-empty string"),
        ("output_dir: /x\nauto_proceed: true", "research_question: missing", "non-empty string"),
        ("research_question: Q\nverbose: true", "unknown key 'verbose'", "expected only research_question"),
        ('research_question: ""', "research_question", "non-empty string"),
        ("research_question: 42", "research_question: got 42", "string"),
        ("research_question: Q\nauto_proceed: maybe", 'auto_proceed: got "maybe"', "true or false"),
        ("research_question: Q\nrefresh: 1", "refresh: got 1", "true or false"),
        ("research_question: Q\noutput_dir: ''", "output_dir", "non-empty string"),
        ("--verbose Q", "unknown option '--verbose'", "--auto, --refresh, --out DIR, --tier TIER or --resume DIR"),
        ("research_question: Q\ntier: fast", 'tier: got "fast"', "one of quick, standard, deep"),
        ("research_question: Q\ntier: true", "tier: got true", "one of quick, standard, deep"),
        ("--tier fast Q", 'tier: got "fast"', "one of quick, standard, deep"),
        ("--tier", "--tier needs a tier", "--tier TIER"),
        ("--tier quick --tier deep Q", "--tier given twice", "one tier"),
        ("--out", "--out needs a folder", "--out DIR"),
        ("--out /a --out /b Q", "--out given twice", "one run folder"),
        ('--out "/never closed Q', "never closed", "quote"),
    ],
)
def test_invalid_input_names_field_and_expectation(text: str, field: str, expected: str) -> None:
    detail = _detail(text)
    assert field in detail and expected in detail


def test_tier_defaults_to_standard_and_comes_from_a_flag_or_the_contract() -> None:
    assert from_raw("What is X?").tier == "standard"
    assert from_raw("--tier quick What is X?") == StartInput("What is X?", tier="quick")
    assert from_raw("--auto --tier=deep --out /o Q") == StartInput("Q", "/o", True, False, "deep")
    assert from_raw("research_question: Q\ntier: deep\n") == StartInput("Q", tier="deep")
    assert from_raw("-- --tier quick Q").question == "--tier quick Q"
    assert from_flags("Q", None, False, False, "quick").tier == "quick"
    with pytest.raises(InputError, match="tier"):
        from_flags("Q", None, False, False, "fastest")


def test_the_schema_offers_the_tiers_of_the_budget_table() -> None:
    from web_research.run.budget import DEFAULT_TIER, TIER_NAMES

    tier = json.loads((SCHEMAS_DIR / "start-input.schema.json").read_text())["properties"]["tier"]
    assert tier["enum"] == list(TIER_NAMES) and tier["default"] == DEFAULT_TIER
    assert ", ".join(TIER_NAMES) in tier["description"]


def test_text_starting_with_a_contract_key_can_be_escaped() -> None:
    detail = _detail("refresh: what changed in React 19?")
    assert "research_question: missing" in detail and "'-- '" in detail
    assert from_raw("-- refresh: what changed in React 19?").question == "refresh: what changed in React 19?"


def test_from_flags_uses_the_same_schema() -> None:
    assert from_flags("Q: x", "out", True, False) == StartInput("Q: x", "out", True, False)
    with pytest.raises(InputError, match="research_question: missing"):
        from_flags(None, None, False, False)
    with pytest.raises(InputError, match="research_question"):
        from_flags("  ", None, False, False)
    with pytest.raises(InputError, match="output_dir"):
        from_flags("Q", "", False, False)


_question_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=_question_chars, min_size=1, max_size=80))
def test_any_text_without_contract_keys_is_the_question(text: str) -> None:
    """Whatever the text, it is either the question verbatim (without the characters that show as
    nothing: core/text.strip_invisible) or a clear InputError."""
    from web_research.core.text import strip_invisible

    stripped = strip_invisible(text).strip()
    if stripped.startswith("--") or any(key in text for key in contract_keys()):
        return  # option parsing and contract mappings are covered above
    if not stripped:
        with pytest.raises(InputError):
            from_raw(text)
        return
    assert from_raw(text).question == stripped
