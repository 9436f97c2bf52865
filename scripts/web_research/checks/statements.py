"""Every statement of report.md's TL;DR and Findings is a claim: cited, and so checked.

"Verified" is read as "every statement the person reads is backed", so what the
checks leave out must not be prose. In `## TL;DR` and `## Findings`:

    report.tldr.uncited       every bullet and paragraph carries a reference
    report.findings.uncited   every paragraph, list item and table row carries one
                              (a table's header row names columns: each row's claim
                              carries them, claims.py)
    report.figures.uncited    every sentence that states a figure carries a reference
                              in that same sentence, so the figure is checked against
                              the passage it cites, not a neighbour's (claims.py still
                              grounds it against the claim it joins, as a second line)
    report.headings.figures   a heading states no figure (a heading cites nothing);
                              a heading that is a plan subtopic's name is the plan's
                              words, approved by the person, and passes, and so does
                              an identifier the research question, a cited excerpt or
                              a cited address names ("### 2026 list prices" for a question
                              about 2026, "### Acme Logs 2.0" where an excerpt writes v2.0:
                              a year, date, version or name, never an amount or count)
A lead-in (claims.lead_ins: one sentence, no figure, no reference, ending with a colon
right before the list or table it introduces) is no uncited statement: it is read with
each claim of that list or table. In `## Gaps & Limitations`:

    report.gaps.figures       a sentence that states a figure carries a reference (and is
                              then a claim, checked as any other), or the figure is the
                              plan's own (its question, a first-wave subtopic's name or
                              bullet, written before any page was read: naming what was
                              asked states nothing found); a plan bullet's id is no
                              figure; a line `finish` writes (report/gaps.py: fixed words
                              and the plan's) is finish's own, never judged here
and, in the whole report but Sources (which `finish` writes):
    report.references.form    every footnote-like mark is a reference: `[^<slug>:<n>]`,
                              or a number `finish` gave, `[^n]`; `[^lumen]` or
                              `[^some-slug: 1]` is an error naming the mark and the form

All errors, in a run the hooks manage and in standalone `verify` alike. A figure is
what `claims.figures_in` reads (the one reading of figures, quantities.py), in the
claim's own words (code spans included), and any figure written so that no check reads it
(a digit of another script, "two-fifty": `quantities.unreadable_figures`). Pure: the checklist hands in the parsed report.
"""
from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Callable, Iterable, Sequence

from .. import formats
from .claims import FOOTNOTE_LIKE, Sentence, header_cells, lead_ins, plain_text, sentences_of
from .quantities import (KIND_NUMBER, Figure, figures_in, is_identifier, names_same, readable, unreadable_figures,
                         url_identifiers)
from .report import Report
from .report_references import EXAMPLE, SHAPE, valid_label
from ..core.result import Check, fail, ok
from ..core.markdown_doc import REF, TEXT, Block
from ..core.clip import quoted

TLDR, FINDINGS, GAPS, SOURCES = formats.REPORT_SECTIONS
MAX_LISTED = 6
_SPACES = re.compile(r"\s+")
_MARK_TEXT = re.compile(r"\[\^[^\]\s]*\]")


def _figures(found: Iterable) -> str:
    return ", ".join(f"'{q.text}'" for q in found)


def _listed(check_id: str, path: Path, problems: Sequence[tuple[int, str]], passed: str, advice: str) -> Check:
    """One check per rule: the first problem gives the line; the message lists up to MAX_LISTED."""
    if not problems:
        return ok(check_id, passed, path)
    shown = "; ".join(f"line {line}: {what}" for line, what in problems[:MAX_LISTED])
    more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    return fail(check_id, f"{len(problems)} found ({shown}{more}). {advice}", path, problems[0][0])


def _cited(sentence: Sentence) -> bool:
    return any(valid_label(label) for label in sentence.labels)


def _block_sentences(report: Report, start: int, end: int,
                     bullet_ids: set[str] | None = None) -> list[tuple[Block, list[Sentence]]]:
    """The blocks of lines start..end with their sentences; header rows left out (they name columns)."""
    out = []
    headers: dict[int, list[str]] = {}
    for block in report.doc.blocks:
        if block.kind == "row" and block.line == block.table:
            headers[block.table] = header_cells(block)
            continue
        if start <= block.line <= end:
            out.append((block, sentences_of(block, headers.get(block.table), bullet_ids)))
    return out


def _stated(text: str) -> list[Figure]:
    """The figures a sentence states (`figures_in`), and each it writes so that no check reads it
    (a digit of another script, "two-fifty": `quantities.unreadable_figures`), which is a figure
    for these rules too: "୨0 days" needs a reference as "20 days" does."""
    found = figures_in(text)
    if not text.isascii() or "-" in text:
        found += [Figure(what, Decimal(0), KIND_NUMBER) for what, _why in unreadable_figures(text)]
    return found


def _heading_figures(text: str, asked: Sequence[Figure], cited: "_Cited") -> list[Figure]:
    """The figures a heading states that neither the question nor a cited excerpt or address
    names as an identifier (see the module docstring)."""
    seen = readable(text)
    return [q for q in _stated(text)
            if not (is_identifier(seen, q)
                    and any(names_same(q, other) for other in (*asked, *cited.figures())))]


class _Cited:
    """The figures of a report's cited excerpts and the identifiers of their addresses, read
    once and only when a heading names something ("### Acme Logs 2.0" where a cited excerpt
    writes "v2.0")."""

    def __init__(self, report: Report) -> None:
        self._report = report
        self._figures: list[Figure] | None = None

    def figures(self) -> list[Figure]:
        if self._figures is None:
            citations = getattr(self._report, "citations", ()) or ()
            self._figures = [f for c in citations if c.excerpt for f in figures_in(c.excerpt, bare_words=True)] + \
                [f for c in citations if c.url for f in url_identifiers(c.url)]
        return self._figures


def statement_checks(path: Path, report: Report, subtopic_names: Iterable[str] = (),
                     question: str | None = None, bullet_ids: Iterable[str] = (),
                     own: Callable[[str], bool] | None = None, planned: Iterable[str] = ()) -> list[Check]:
    """The rules above for one parsed report. `subtopic_names`: the plan's subtopic names;
    `question`: the plan's research question; `bullet_ids`: its bullets' ids; `own`: whether a
    report line is one `finish` writes (report/gaps.is_own; None without a usable plan: then
    Gaps is not checked); `planned`: the plan's words written before any page was read (its
    first-wave subtopic names and bullets), whose figures Gaps may name."""
    asked = figures_in(question) if question else []
    cited = _Cited(report)
    ids = set(bullet_ids) or None  # the plan's bullets; unknown: any id-shaped label is one
    checks: list[Check] = []
    figure_problems: list[tuple[int, str]] = []
    heading_problems: list[tuple[int, str]] = []
    names = {" ".join(name.split()).casefold() for name in subtopic_names}
    leads = {lead.line for lead, _words in lead_ins(report.doc)}
    for name, check_id in ((TLDR, "report.tldr.uncited"), (FINDINGS, "report.findings.uncited")):
        section = report.section(name)
        if section is None:
            continue  # report.sections.missing says so
        uncited: list[tuple[int, str]] = []
        for block, sentences in _block_sentences(report, section.line + 1, section.end, ids):
            if block.line in leads:
                continue  # read with each claim it introduces
            if not any(_cited(s) for s in sentences):
                words = " ".join(s.text for s in sentences)
                if not words.strip():
                    continue  # nothing to read (an empty cell row, a lone image)
                stated = [q for s in sentences for q in _stated(s.text)]
                what = "row" if block.kind == "row" else "item" if block.item else "paragraph"
                uncited.append((block.line, f"{what} {quoted(words)}" + (f" states {_figures(stated)}" if stated else "")))
                continue
            for sentence in sentences:
                if not _cited(sentence):
                    stated = _stated(sentence.text)
                    if stated:
                        figure_problems.append((sentence.line, f"{quoted(sentence.text)} states {_figures(stated)}"))
        where = "TL;DR bullet or paragraph" if name == TLDR else "Findings paragraph, item or table row"
        checks.append(_listed(
            check_id, path, uncited, f"every {where} carries a reference",
            f"Each {where} is a claim and carries the reference of the passage that backs it, "
            f"{SHAPE}; a statement no finding backs is dropped, or named under Gaps & Limitations as "
            "not established"))
        for heading in report.doc.headings:
            if section.line < heading.line <= section.end:
                text = plain_text(_MARK_TEXT.sub("", heading.text))
                stated = _heading_figures(text, asked, cited)
                if stated and " ".join(text.split()).casefold() not in names:
                    heading_problems.append((heading.line, f"{quoted(text)} states {_figures(stated)}"))
    if report.section(TLDR) is not None or report.section(FINDINGS) is not None:
        checks.append(_listed(
            "report.figures.uncited", path, figure_problems,
            "every sentence that states a figure carries its own reference",
            "A sentence that states a figure carries, in that sentence, the reference of the passage that "
            f"states it, {SHAPE}; or it drops the figure"))
        checks.append(_listed(
            "report.headings.figures", path, sorted(heading_problems), "no heading states a figure",
            "A heading cites nothing, so it states no figure: name the topic, and put the figure in a cited "
            "sentence below it"))
    gaps = _gaps_check(path, report, set(bullet_ids), own, [question or "", *planned]) if own is not None else None
    if gaps is not None:
        checks.append(gaps)
    checks.append(_form_check(path, report))
    return checks


def _gaps_check(path: Path, report: Report, bullet_ids: set[str], own: Callable[[str], bool],
                planned: list[str]) -> Check | None:
    """`report.gaps.figures`: Gaps & Limitations states no figure without a reference, but the
    plan's (`planned`: the question, first-wave names and bullets); a line `finish` writes (`own`)
    is its own and not read here."""
    section = report.section(GAPS)
    if section is None:
        return None
    asked = None  # the plan's figures, read once when needed
    problems: list[tuple[int, str]] = []
    for block, sentences in _block_sentences(report, section.line + 1, section.end):
        source = report.lines[block.line - 1] if block.line <= len(report.lines) else ""
        if own(source):
            continue  # finish's line: fixed words and the plan's
        for sentence in sentences:
            if _cited(sentence):
                continue
            stated = [q for q in _stated(sentence.text) if q.text not in bullet_ids]
            if stated:
                if asked is None:
                    asked = [q for text in planned for q in figures_in(text)]
                stated = [q for q in stated if not any(q.matches(other) for other in asked)]
            if stated:
                problems.append((sentence.line, f"{quoted(sentence.text)} states {_figures(stated)}"))
    return _listed(
        "report.gaps.figures", path, problems, "Gaps & Limitations states no figure without a reference",
        "Gaps & Limitations says what is not established: say it without the figure (a figure the plan states may "
        f"stay), or give the sentence the reference of the passage that states the figure, {SHAPE}")


def _expected(mark: str) -> str:
    """What to write instead of a footnote-like mark that is no reference."""
    squeezed = _SPACES.sub("", mark)
    if squeezed != mark and squeezed.endswith("]") and valid_label(squeezed[2:-1]):
        return f"write {squeezed}, without spaces"
    return f"cite by reference, {SHAPE} (e.g. {EXAMPLE}); after finish, a number it gave, [^n]"


def _form_check(path: Path, report: Report) -> Check:
    """`report.references.form`: every footnote-like mark outside Sources is a valid reference."""
    sources = report.section(SOURCES)
    skip = range(sources.line, sources.end + 1) if sources is not None else range(0)
    problems: list[tuple[int, str]] = []
    for block in report.doc.blocks:
        if block.line in skip:
            continue
        for span in block.spans:
            if span.kind == REF and not valid_label(span.text):
                mark = f"[^{span.text}]"
                problems.append((span.line, f"{mark} is no reference: {_expected(mark)}"))
            elif span.kind == TEXT and "[^" in span.text:
                for m in FOOTNOTE_LIKE.finditer(span.text):
                    problems.append((span.line, f"{m.group(0)} is no reference: {_expected(m.group(0))}"))
    for heading in report.doc.headings:
        if heading.line not in skip and "[^" in heading.text:
            problems += [(heading.line, f"{m.group(0)} in a heading: a heading cites nothing")
                         for m in FOOTNOTE_LIKE.finditer(heading.text)]
    for definition in report.doc.definitions:
        if definition.line not in skip and not valid_label(definition.label):
            problems.append((definition.line, f"[^{definition.label}]: is a footnote entry: finish writes every "
                                              "entry in Sources; cite by reference instead"))
    problems.sort()
    return _listed("report.references.form", path, problems, "every footnote-like mark is a reference",
                   "A mark that is no reference leaves its statement uncited and shows as plain text")
