"""Conditions dropped (issue 43): the page's own condition words around an excerpt that a claim
leaves out are named to the checker (evidence/conditions.py), from the four real runs' cases, each
with the honest claim beside it, which is not flagged."""
from __future__ import annotations

import pytest

from test_page_structure import POSTGRES_DOC, PYTHON_DOC, held_out, in_page
from web_research.evidence.conditions import dropped_conditions
from web_research.evidence.excerpt_context import ExcerptContext
from web_research.report.claim_checker import CONDITIONS_LABEL, condition_lines

TASK_GROUPS = "python-library-asyncio-task"


def named(source, excerpt: str, claim: str) -> set[str]:
    [context] = in_page(source, excerpt)
    assert context is not None
    return {phrase.casefold() for condition in dropped_conditions(claim, excerpt, context)
            for phrase in condition.phrases}


def test_other_than_cancelled_error_is_named_when_the_claim_drops_it() -> None:
    excerpt = "the remaining tasks in the group are cancelled"
    assert "other than" in named(TASK_GROUPS, excerpt,
                                 "When any task of a TaskGroup fails, the remaining tasks in the group are cancelled.")
    assert named(TASK_GROUPS, excerpt, "When any task of a TaskGroup fails with an exception other than "
                                       "asyncio.CancelledError, the remaining tasks in the group are cancelled.") == set()


def test_keyboard_interrupt_and_system_exit_reraised_are_named() -> None:
    excerpt = "those exceptions are combined in an ExceptionGroup or BaseExceptionGroup"
    dropped = named(TASK_GROUPS, excerpt, "Once all tasks have finished, the exceptions of the failed tasks are "
                                          "combined in an ExceptionGroup or BaseExceptionGroup and raised.")
    assert {"instead of", "treated specially"} <= dropped and "other than" in dropped
    honest = named(TASK_GROUPS, excerpt, "Once all tasks have finished, exceptions other than asyncio.CancelledError "
                                         "are combined in an ExceptionGroup or BaseExceptionGroup, except that "
                                         "KeyboardInterrupt and SystemExit are treated specially: re-raised instead of "
                                         "the group.")
    assert honest == set()


def test_overflow_error_for_historical_reasons_is_named() -> None:
    page = held_out(PYTHON_DOC / "library" / "exceptions.html")
    excerpt = "This cannot occur for integers"
    dropped = named(page, excerpt, "OverflowError cannot occur for integers.")
    assert {"however", "sometimes", "for historical reasons"} <= dropped
    assert named(page, excerpt, "OverflowError cannot occur for integers, although for historical reasons it is "
                                "sometimes raised for integers outside a required range.") == set()


def test_work_mem_times_hash_mem_multiplier_is_named() -> None:
    page = held_out(POSTGRES_DOC / "runtime-config-resource.html")
    excerpt = ("Sets the base maximum amount of memory to be used by a query operation (such as a sort or hash "
               "table) before writing to temporary disk files")
    dropped = named(page, excerpt, "work_mem sets the maximum memory a hash table may use before writing to "
                                   "temporary disk files.")
    assert "multiplying" in dropped
    assert "multiplying" not in named(page, excerpt, "For a hash table, the memory limit is work_mem multiplied by "
                                                     "hash_mem_multiplier; work_mem is generally the base maximum.")


@pytest.mark.parametrize("claim, flagged", [
    ("Acme bills only per host.", False),
    ("Acme bills per host.", True),
    ("Acme always bills per host.", True),
])
def test_a_condition_in_the_excerpts_own_sentence(claim: str, flagged: bool) -> None:
    context = ExcerptContext("Acme bills per host only on the Pro plan.")
    assert bool(dropped_conditions(claim, "Acme bills per host", context)) is flagged


def test_what_stands_before_the_excerpt_is_not_its_condition() -> None:
    context = ExcerptContext("Acme bills per host.", before="However, Umbra bills per GB.")
    assert dropped_conditions("Acme bills per host.", "Acme bills per host", context) == []


def test_the_prompt_line_names_each_phrase_and_the_pages_words() -> None:
    context = ExcerptContext("Acme bills per host, unless the team has fewer than three hosts.")
    [line] = condition_lines(dropped_conditions("Acme bills per host.", "Acme bills per host", context))
    assert line == (f'  {CONDITIONS_LABEL}: "unless" in "Acme bills per host, unless the team has fewer than '
                    'three hosts."')
    assert condition_lines([]) == []
