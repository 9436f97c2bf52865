"""Which rules a run was made under, and what changed since then (issue 45).

`RULES_VERSION` is the one source of truth for the rules' version: `start` records it in
`<run>/.web-research/start.json` (`rules_version`) and `verify` reads it back. It goes up by one when
a change to verify's rules can make a run that passed before fail: a check added, a check made
stricter, or a change to the check keys that name the claim-checker's verdicts. Each bump adds its
`RuleChange`s below, so that verify can tell a person which failures come from rules made after the
run. (The plugin's version, in .claude-plugin/plugin.json, names releases; it is not bumped with
every rule and says nothing about which checks a run was made under.)

A run whose record names no version was made before runs recorded it, under version 1: every run
of the plugin up to the rules of commit d8cefd3 (2026-12-04), whose run is
tests/fixtures/runs/made-by-d8cefd3. Verify reads such a run under the current rules, and sorts
what fails (`sort_failures`):

    claims that need a verdict     report.claims.checked: the claim-checker has not judged them
                                   under the current check keys (evidence that holds, a round to do)
    rules added since the run      a check that did not exist then (the report is not yet written to
                                   today's rules; its evidence is not in doubt)
    evidence that fails            every other error, including a check made stricter since (named
                                   beside its failure, but an excerpt not in its page fails whatever
                                   the rules' version)

Pure: the checks come in, the sorting goes out.
"""
from __future__ import annotations

from fnmatch import fnmatchcase
from typing import NamedTuple, Sequence

from ..core.result import Check

RULES_VERSION = 3
UNRECORDED_VERSION = 1  # a run whose start record names no rules version
VERDICT_CHECK = "report.claims.checked"


class RuleChange(NamedTuple):
    """A change to verify's rules, first in force at `version`. `checks`: fnmatch patterns of the
    check ids it added (`added`) or made stricter."""

    version: int
    checks: tuple[str, ...]
    added: bool
    what: str


CHANGES: tuple[RuleChange, ...] = (
    RuleChange(2, (VERDICT_CHECK,), False,
               "a claim's check key keeps its code spans as written, spaces included (issue 36): a claim "
               "with a code span needs a new verdict"),
    RuleChange(2, ("report.gaps.figures", "report.gaps.form", "report.gaps.absence"), True,
               "Gaps & Limitations says what the pages do not establish in closed forms, with no figure "
               "without a reference, and its statements of absence are judged (issues 37, 43)"),
    RuleChange(2, ("report.markdown", "findings.*.markdown", "*.text.controls", "*.text.blank",
                   "report.headings.label"), True,
               "a closed Markdown grammar: only the allowed forms, no control or blank-looking characters, "
               "headings as labels (issues 37, 43)"),
    RuleChange(2, ("plan.names",), True, "no subtopic name states an amount the question does not"),
    RuleChange(2, ("*.citations.final_url",), True, "a citation names the URL its fetch ended at"),
    RuleChange(2, ("*.claims.grounded",), False,
               "each figure exact, with its measure; versions, dates and computed figures read as such "
               "(issue 44)"),
    RuleChange(2, ("*.citations.title",), False, "a cited title is its page's own (issue 43)"),
    RuleChange(2, ("*.citations.verbatim",), False, "an excerpt starts and ends at whole figures (issue 37)"),
    RuleChange(3, (VERDICT_CHECK, "report.gaps.absence"), False,
               "statements of absence are judged by the claim-checker in every tier, the quick tier and plans with "
               "no Tier: line included (issue 43): such a statement needs a verdict"),
)


def changes_since(version: int) -> tuple[RuleChange, ...]:
    """The changes a run made under `version` was not made under."""
    return tuple(c for c in CHANGES if c.version > version)


def change_of(check_id: str, version: int) -> RuleChange | None:
    """The change since `version` that added or tightened the check `check_id`, if any."""
    return next((c for c in changes_since(version) if any(fnmatchcase(check_id, p) for p in c.checks)), None)


class Failures(NamedTuple):
    """A run's failing errors sorted by what they mean for a run made under older rules."""

    needs_verdict: tuple[Check, ...]
    new_rules: tuple[tuple[Check, RuleChange], ...]
    evidence: tuple[Check, ...]

    @property
    def only_newer_rules(self) -> bool:
        """True when something fails and all of it is the current rules' (no evidence fails)."""
        return not self.evidence and bool(self.needs_verdict or self.new_rules)


def sort_failures(checks: Sequence[Check], made_under: int) -> Failures:
    """The failing errors of `checks`, for a run made under rules `made_under` (see the module)."""
    needs, new, evidence = [], [], []
    for check in checks:
        if check.ok or check.severity != "error":
            continue
        change = change_of(check.id, made_under)
        if check.id == VERDICT_CHECK and change is not None:
            needs.append(check)
        elif change is not None and change.added:
            new.append((check, change))
        else:
            evidence.append(check)
    return Failures(tuple(needs), tuple(new), tuple(evidence))


def rules_line(made_under: int, recorded: bool) -> str:
    """What a run says of its rules, in one clause."""
    if made_under == RULES_VERSION:
        return f"made under the current rules (version {RULES_VERSION})"
    if made_under > RULES_VERSION:
        return (f"made under rules version {made_under}, newer than this plugin's ({RULES_VERSION}): "
                "update the plugin to check it under its own rules")
    when = "" if recorded else " (before runs recorded their rules)"
    return f"made under rules version {made_under}{when}; the current rules are version {RULES_VERSION}"
