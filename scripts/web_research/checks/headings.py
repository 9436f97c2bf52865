"""`report.headings.label`: a `###` heading of Findings is a label, not a statement.

A heading cites nothing, and the claim-checker never reads it, yet a person reads
"### Brightpath offers free plan" as the report's word. An earlier rule let a heading be any
few words the question, plan or claims use: it could rearrange a claim's own words into their
opposite ("Brightpath offers free plan" from "Brightpath offers no free plan"), or answer the
question with its own words ("Brightpath queues cost less"). No word test tells a label from a
statement, so a heading is held to what nobody wrote after reading a page, as
`formats.HEADING_RULE` states it: the name of a first-wave subtopic, as plan.md gives it (case
and runs of spaces aside), and nothing else. That plan is written before any page is read, and
`plan_name_error` refuses a name stating an amount the question does not. A second wave's
names are written after the findings came back, so they are no headings (second-wave.md folds
their claims under the first wave's), as finish never quotes them in Gaps (finish_lines.py).

Pure: the checklist hands in the parsed report and the first wave's names.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from .. import formats
from ..core.result import Check, fail, ok
from ..run.plan import Plan, PlanError
from .quantities import Figure, figures_in, is_identifier, readable

CHECK_ID = "report.headings.label"
MAX_LISTED = 6
_MARK = re.compile(r"\[\^[^\]\s]*\]")


def unasked_figures(text: str, asked: Sequence[Figure], identifiers_only: bool = True) -> list[Figure]:
    """The figures `text` (a heading or a subtopic name) states that the question, whose figures
    are `asked`, does not: with `identifiers_only`, a figure of the question passes only as an
    identifier (a year, date, version or name, never an amount or count: a report heading);
    without, any figure of the question passes (a plan's subtopic name, the person's figures)."""
    seen = readable(text)
    return [q for q in figures_in(text)
            if not ((not identifiers_only or is_identifier(seen, q)) and any(q.matches(other) for other in asked))]


# A count in words is a figure (issue 44: "two free plans"): in a name, a number word above one
# counts what follows it when a plural noun comes within the next words ("The five vendors that
# overcharge", "Top three enterprise plans"); after a label's noun it names ("Vendor group five
# pricing", "Phase two rollout").
_COUNTED = re.compile(r"^(?:[\s-]+(?!(?:that|which|who|of|for|in|on|by|and|or|with)\b)[A-Za-z'\u2019-]+){0,2}?"
                      r"[\s-]+[A-Za-z'\u2019-]*[a-rt-z]s\b(?<!ss\b)")


def counts_in_words(text: str) -> list[Figure]:
    """The counts in words `text` states (see `_COUNTED`); digits are `figures_in`'s to read."""
    seen = readable(text)
    return [q for q in figures_in(text, bare_words=True)
            if q.value > 1 and not any(ch.isdigit() for ch in q.text) and _COUNTED.match(seen[q.end:])]


def plan_name_error(plan: Plan, path: Path | None = None) -> PlanError | None:
    """A PlanError naming each subtopic whose name states an amount or count (a figure that is no
    year, date, version or name) the research question does not state, or None. A name is
    written before the pages it is about are read, and it becomes a heading and a line of Gaps
    that no check reads against a page: an amount there comes from a model's memory, and with
    auto_proceed nobody approves the plan. (A figure of the question, the person's own, may
    stand in a name.)"""
    asked = figures_in(plan.question) + figures_in(plan.question, bare_words=True)
    errors = []
    for subtopic in plan.all_subtopics:
        seen = readable(subtopic.name)
        stated = [q for q in unasked_figures(subtopic.name, asked, identifiers_only=False)
                  if not is_identifier(seen, q)]  # a year, version or name ("Python 3.12", "Phase 2") names
        stated += [q for q in counts_in_words(subtopic.name) if not any(q.matches(other) for other in asked)
                   and all(q.start != s.start for s in stated)]
        if stated:
            errors.append(PlanError(path, subtopic.line, (
                f"subtopic '{subtopic.name}' states {', '.join(repr(q.text) for q in stated)}, an amount or count the "
                "research question does not state: a name says what to find out, not what the pages will say; "
                "name the topic without it, and put what it must establish in its bullets")))
    return PlanError.many(errors) if errors else None


def heading_key(text: str) -> str:
    """A heading or a subtopic's name as the rule compares them: reference marks left out, runs of
    whitespace as one space, composed (NFC: "e" and a combining acute are "\u00e9"), case folded."""
    import unicodedata  # lazy: verify only

    return unicodedata.normalize("NFC", " ".join(_MARK.sub("", text).split())).casefold()


def heading_label_check(path: Path, report, subtopic_names: Sequence[str]) -> Check | None:  # noqa: ANN001 - a Report
    """`report.headings.label` for one parsed report: each `###` heading of Findings is one of
    `subtopic_names` (the first wave's, as plan.md gives them). None without Findings."""
    findings = report.section(formats.REPORT_SECTIONS[1])
    if findings is None:
        return None
    names = {heading_key(name) for name in subtopic_names}
    problems = [(h.line, " ".join(_MARK.sub("", h.text).split())) for h in report.doc.headings
                if h.level == 3 and findings.line < h.line <= findings.end and heading_key(h.text) not in names]
    if not problems:
        return ok(CHECK_ID, "every ### heading is a first-wave subtopic's name", path)
    shown = "; ".join(f'line {line}: "### {text}"' for line, text in problems[:MAX_LISTED])
    more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    allowed = "; ".join(f'"### {" ".join(n.split())}"' for n in list(dict.fromkeys(subtopic_names))[:8])
    return fail(CHECK_ID, f"{len(problems)} heading(s) are no subtopic name ({shown}{more}). {formats.HEADING_RULE} "
                f"The headings allowed: {allowed or 'none (the plan has no subtopic)'}. Use one of them, and put "
                "what the heading said in a cited sentence below it, or drop it", path, problems[0][0])
