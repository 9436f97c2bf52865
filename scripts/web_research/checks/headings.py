"""`report.headings.label`: a `###` heading of Findings is a label, not a statement.

A heading cites nothing, and the claim-checker never reads it, yet a person reads
"### Acme was fined for hidden log fees" as the report's word. So a heading may only
name, and what it may name with is held by the rule `formats.HEADING_RULE` states:

- the name of a first-wave subtopic, as plan.md gives it: that plan is written before any
  page is read (and `plan_name_error` refuses a subtopic name stating a figure the question
  does not state). A second wave is written after the findings came back: a heading that is
  one of its names is held as a label (its words count as the plan's, so an honest one passes);
- or a label: at most `formats.HEADING_MAX_WORDS` words, no sentence end (`.`, `!`, `?`,
  `;` before a space), none of `formats.HEADING_STATEMENT_WORDS` (be, have, do, the
  modals, the negations), and every other word one that the question, the plan or the
  claims of TL;DR and Findings already use (compared without inflection, `stem`, so
  "Pricing" names what "price" says), or one of `formats.HEADING_LABEL_WORDS`. A label
  can then only rearrange words the checks read elsewhere, and never assert with them.

The figures of a heading are `report.headings.figures`' (statements.py). Pure: the
checklist hands in the parsed report and the plan's texts.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Sequence

from .. import formats
from ..core.markdown_doc import CODE, TEXT
from ..core.result import Check, fail, ok
from ..evidence.excerpts import normalize
from ..run.plan import Plan, PlanError
from .quantities import Figure, figures_in, is_identifier, readable

CHECK_ID = "report.headings.label"
MAX_LISTED = 6
_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)")
_MARK = re.compile(r"\[\^[^\]\s]*\]")


def unasked_figures(text: str, asked: Sequence[Figure], identifiers_only: bool = True) -> list[Figure]:
    """The figures `text` (a heading or a subtopic name) states that the question, whose figures
    are `asked`, does not: with `identifiers_only`, a figure of the question passes only as an
    identifier (a year, date, version or name, never an amount or count: a report heading);
    without, any figure of the question passes (a plan's subtopic name, the person's figures)."""
    seen = readable(text)
    return [q for q in figures_in(text)
            if not ((not identifiers_only or is_identifier(seen, q)) and any(q.matches(other) for other in asked))]


def plan_name_error(plan: Plan, path: Path | None = None) -> PlanError | None:
    """A PlanError naming each subtopic whose name states an amount or count (a figure that is no
    year, date, version or name) the research question does not state, or None. A name is
    written before the pages it is about are read, and it becomes a heading and a line of Gaps
    that no check reads against a page: an amount there comes from a model's memory, and with
    auto_proceed nobody approves the plan. (A figure of the question, the person's own, may
    stand in a name.)"""
    asked = figures_in(plan.question)
    errors = []
    for subtopic in plan.all_subtopics:
        seen = readable(subtopic.name)
        stated = [q for q in unasked_figures(subtopic.name, asked, identifiers_only=False)
                  if not is_identifier(seen, q)]  # a year, version or name ("Python 3.12", "Phase 2") names
        if stated:
            errors.append(PlanError(path, subtopic.line, (
                f"subtopic '{subtopic.name}' states {', '.join(repr(q.text) for q in stated)}, an amount or count the "
                "research question does not state: a name says what to find out, not what the pages will say; "
                "name the topic without it, and put what it must establish in its bullets")))
    return PlanError.many(errors) if errors else None


def words_of(text: str) -> list[str]:
    """The words of `text`, case folded (runs of letters: digits and punctuation split them)."""
    return _WORD.findall(normalize(text).casefold())


_SUFFIXES = ("ments", "ment", "ings", "ing", "ions", "ion", "ers", "er", "es", "ed", "ly", "s")
_SOFT = "aeiouyls"  # a doubled letter kept when a suffix is dropped ("billing", "fees")


def stem(word: str) -> str:
    """A word without its inflection, so that "pricing", "priced" and "prices" are "pric", and
    "committed" and "commitment" are "commit": the suffix of `_SUFFIXES` it ends with (three
    letters left at least, two for a plural "s": "ups"), "ies"/"ied" as "y", a final "e", and one of
    a doubled consonant."""
    if len(word) > 4 and word.endswith(("ies", "ied")):
        return word[:-3] + "y"
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= (2 if suffix == "s" else 3):
            word = word[:-len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in _SOFT:
        word = word[:-1]
    return word


class Vocabulary:
    """The words a label may use, compared by `stem` ("Pricing" names what "price" says)."""

    def __init__(self, texts: Iterable[str]) -> None:
        words: set[str] = set()
        for text in texts:
            words.update(words_of(text))
        # A word every label may use lends nothing ("with" is no source for "withdrawn").
        self._stems = {stem(w) for w in words - formats.HEADING_LABEL_WORDS - formats.HEADING_STATEMENT_WORDS}

    def has(self, word: str) -> bool:
        return stem(word) in self._stems


def label_problem(text: str, vocabulary: Vocabulary) -> str | None:
    """Why `text` (a heading that is no subtopic's name) is no label, or None when it is one."""
    words = words_of(text)
    stated = [w for w in words if w in formats.HEADING_STATEMENT_WORDS]
    if stated:
        return f"says {', '.join(repr(w) for w in dict.fromkeys(stated))}, which makes it a statement"
    if _SENTENCE_END.search(normalize(text)):
        return "ends a sentence inside it"
    count = len(normalize(text).split())
    if count > formats.HEADING_MAX_WORDS:
        return f"has {count} words"
    unread = [w for w in dict.fromkeys(words) if w not in formats.HEADING_LABEL_WORDS and not vocabulary.has(w)]
    if unread:
        return (f"uses {', '.join(repr(w) for w in unread[:4])}, which neither the question, the plan nor any "
                "claim of TL;DR or Findings uses")
    return None


def _claim_texts(report, start: int, end: int) -> list[str]:  # noqa: ANN001 - a checks.report.Report
    return ["".join(s.text for s in block.spans if s.kind in (TEXT, CODE)) for block in report.doc.blocks_in(start, end)]


def heading_label_check(path: Path, report, subtopic_names: Iterable[str],  # noqa: ANN001 - a Report
                        plan_texts: Iterable[str]) -> Check | None:
    """`report.headings.label` for one parsed report: each `###` heading of Findings is a
    subtopic's name or a label (see the module docstring). `plan_texts`: the question and the
    plan's own words (subtopic names, bullets, synthesis, scope notes). None without Findings."""
    tldr, findings = report.section(formats.REPORT_SECTIONS[0]), report.section(formats.REPORT_SECTIONS[1])
    if findings is None:
        return None
    names = {" ".join(name.split()).casefold() for name in subtopic_names}
    headings = [h for h in report.doc.headings if h.level == 3 and findings.line < h.line <= findings.end]
    vocabulary: Vocabulary | None = None
    problems: list[tuple[int, str]] = []
    for heading in headings:
        text = " ".join(_MARK.sub("", heading.text).split())
        if text.casefold() in names:
            continue
        if vocabulary is None:
            claims = _claim_texts(report, findings.line + 1, findings.end)
            if tldr is not None:
                claims += _claim_texts(report, tldr.line + 1, tldr.end)
            vocabulary = Vocabulary([*plan_texts, *claims])
        why = label_problem(text, vocabulary)
        if why is not None:
            problems.append((heading.line, f"\"### {text}\" {why}"))
    if not problems:
        return ok(CHECK_ID, "every ### heading is a subtopic's name or a label", path)
    shown = "; ".join(f"line {line}: {what}" for line, what in problems[:MAX_LISTED])
    more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    return fail(CHECK_ID, f"{len(problems)} heading(s) state something ({shown}{more}). {formats.HEADING_RULE} "
                "Name the topic, or use the subtopic's name; a statement goes in a cited sentence below it",
                path, problems[0][0])
