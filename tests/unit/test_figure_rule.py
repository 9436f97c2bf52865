"""The figure rule the prompts state is the one the check reads (formats.FIGURE_RULE).

The researcher's brief carries it through its `{{figure_rule}}` placeholder and the report
template states it word for word; every example it gives is read by the figure reader as
it says, every kind of figure the reader knows is named, and each promise it makes (signs,
code, page titles) is what the check does.
"""
from __future__ import annotations

import re

import pytest

from web_research import formats
from web_research.checks.claims import Claim, find_claims, grounding
from web_research.checks.quantities import KINDS, figures_in
from web_research.run.briefs import load_template

RULE = formats.FIGURE_RULE
# The words the rule uses for each kind of figure the reader returns.
KIND_WORDS = {"money": "price", "percent": "percentage", "multiplier": "multiplier", "number": "count",
              "year": "year", "date": "date", "version": "version"}


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_brief_and_the_report_template_state_the_rule_word_for_word() -> None:
    assert "{{figure_rule}}" in load_template()
    assert "figure" not in load_template().replace("{{figure_rule}}", "").split("Body:")[1].split("## Claims")[0]
    assert _flat(RULE) in _flat(formats.REPORT_TEMPLATE.read_text(encoding="utf-8"))


def test_every_kind_the_reader_knows_is_named_in_the_rule() -> None:
    assert set(KIND_WORDS) == set(KINDS)
    for kind, word in KIND_WORDS.items():
        assert word in RULE, kind


def _examples() -> list[str]:
    """The rule's examples of figures: 'such as X' before the identifiers, and quoted phrases."""
    figures_part, _, identifiers = RULE.partition("Identifiers")
    named = re.findall(r"such as ([\w.]+)", figures_part)
    quoted = re.findall(r'"([^"]+)"', figures_part)
    return named + quoted


def test_each_example_of_a_figure_is_read_as_one() -> None:
    examples = _examples()
    assert len(examples) >= 4, examples
    for example in examples:
        assert len(figures_in(example)) == 1, example


def test_the_identifiers_it_names_are_not_figures() -> None:
    identifiers = RULE.partition("Identifiers such as ")[2].rstrip(".").replace(" or ", ", ").split(", ")
    assert len(identifiers) >= 3
    for identifier in identifiers:
        assert figures_in(f"Acme uses {identifier} here") == [], identifier


@pytest.mark.parametrize("promise", ["sign", "`code`", "title or address of the page it cites", "year", "date",
                                     "0-9 only", "a count is no duration", "computed from figures there",
                                     "one stated beside it", "10 cents is $0.10", "an amount or count never"])
def test_each_promise_the_rule_makes_is_what_the_check_does(promise: str) -> None:
    assert promise in RULE
    check = {
        "0-9 only": lambda: not grounding(Claim(1, "It costs $0.1\u09ea", (1,)), ["It costs $0.14."]).ok,
        "a count is no duration": lambda: not grounding(Claim(1, "It keeps logs 3 years", (1,)),
                                                        ["It has 3 plans and 30 days of retention."]).ok,
        "computed from figures there": lambda: grounding(Claim(1, "Its $10 is twice the $5 of Beta", (1, 2)),
                                                         ["Acme: $10.", "Beta: $5."]).ok,
        # (the check also takes a pair the claim names in the excerpts' words, "Acme costs twice
        # Beta": figure_arithmetic._named_pair; the rule teaches the form that always holds)
        "one stated beside it": lambda: not grounding(Claim(1, "It costs twice as much", (1, 2)),
                                                      ["Acme: $10.", "Beta: $5."]).ok,
        "10 cents is $0.10": lambda: grounding(Claim(1, "It costs 10 cents", (1,)), ["It costs $0.10."]).ok,
        "an amount or count never": lambda: not grounding(Claim(1, "It has 15 hosts", (1,)), ["It has hosts."],
                                                          ["Acme 15 | Docs"], ["https://x.org/docs/15/"]).ok,
        "title or address of the page it cites": lambda: grounding(
            Claim(1, "PostgreSQL 15 is out", (1,)), ["It is out."], (), ["https://x.org/docs/15/a.html"]).ok,
        "sign": lambda: not grounding(Claim(1, "Prices fell -15%", (1,)), ["Prices rose 15%."]).ok,
        "`code`": lambda: not grounding(find_claims("Acme bills `$9.90`[^1].\n")[0], ["Acme bills $9.00."]).ok,
        "year": lambda: not grounding(Claim(1, "Since 2024 it bills per GB", (1,)), ["It bills per GB."]).ok,
        "date": lambda: not grounding(Claim(1, "On 3 May 2026 it bills per GB", (1,)), ["It bills per GB."]).ok,
    }[promise]
    assert check(), promise


def test_the_number_words_the_rule_shows_are_the_tables():
    from web_research.checks import number_words

    table = {*number_words.UNITS, *number_words.TENS, *number_words.MAGNITUDES, *number_words.GROUPS,
             *number_words.DENOMINATORS, *number_words.MULTIPLES}
    shown = [w for phrase in re.findall(r'"([^"]+)"', RULE) for w in phrase.split() if w.isalpha()]
    named = [w for w in shown if w in table]
    assert {"two", "dozen", "half", "tenth", "doubled", "twice"} <= set(named), named
