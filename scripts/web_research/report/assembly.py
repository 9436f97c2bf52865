"""report.md's references numbered and its Sources section written, as `finish` does it.

The orchestrator cites by reference (`[^<subtopic-slug>:<n>]`, checks/report_references.py)
and never writes `## Sources`. `assemble` numbers the references globally by first use
and writes `## Sources` with each entry copied from its findings file. Pure: report/finish.py
does the reading and writing.

Numbered markers already in the report (`[^3]`, from an earlier `finish`) are
traced back to their findings entry through the report's own Sources entry (its
title, URL and excerpt), so `finish` can run again after fixes and every number
comes out right. A number with no entry in the report is never read through the
numbering an earlier `finish` recorded: once the report has changed (its Sources
gone, numbers written by the model) that numbering says nothing about what the
number means now, and reading it so pointed footnotes at another subtopic's page.
Such a number is a problem that says how to cite by reference again.
"""
from __future__ import annotations

import re
from typing import Mapping, NamedTuple, Sequence

from .. import formats
from ..checks.citation_entries import Citation
from ..checks.report_references import EXAMPLE, SHAPE, SOURCES, Mark, find_references, reference
from ..core.markdown_doc import parse_markdown
from ..core.text import markdown_lines

# The first line of a findings entry, `[^n]: rest`, renumbered as it is copied into Sources.
_ENTRY_FIRST_LINE = re.compile(r"^ {0,3}\[\^[0-9]+\]:[ \t]*(.*)$")


def sources_span(lines: Sequence[str]) -> tuple[int, int] | None:
    """(first, last) 0-based line indexes of the `## Sources` section (heading included,
    up to the next `#` or `##` heading or the end), outside code; None when absent."""
    section = next((s for s in parse_markdown("\n".join(lines)).sections(2) if s.name == SOURCES), None)
    return (section.line - 1, min(section.end, len(lines)) - 1) if section is not None else None


class Entry(NamedTuple):
    """A findings entry a reference can name: its key (`slug:n`), the entry's lines as
    the findings file writes them, and the fields that identify the source."""

    key: str
    lines: tuple[str, ...]
    identity: tuple[str, str, str]  # title, URL, excerpt


def identity(c: Citation) -> tuple[str, str, str]:
    return (" ".join((c.title or "").split()), (c.url or "").strip(), " ".join((c.excerpt or "").split()))


def entries_of(slug: str, text: str, citations: Sequence[Citation]) -> dict[int, Entry]:
    """The entries of findings/<slug>.md (`text`, `citations` parsed from it) by footnote number.
    A number defined twice keeps its first entry (the findings check reports the duplicate)."""
    lines = text.removeprefix("\ufeff").splitlines()
    out: dict[int, Entry] = {}
    for c in citations:
        if c.number in out or not 1 <= c.line <= len(lines):
            continue
        out[c.number] = Entry(f"{slug}:{c.number}", tuple(lines[c.line - 1:c.end_line]), identity(c))
    return out


class Problem(NamedTuple):
    line: int
    message: str
    check_id: str = "report.references"  # the check the problem is reported as


class Assembly(NamedTuple):
    """What `assemble` decided: the new report text (None: leave the file as it is),
    the number given to each source key, notes for the person, and the problems that
    stop the assembly (each with its report line)."""

    text: str | None
    numbering: dict[int, str]
    notes: list[str]
    problems: list[Problem]


def assemble(report: str, findings: Mapping[str, Mapping[int, Entry]], recorded: Mapping[int, str],
             report_citations: Sequence[Citation], last_sources: str | None = None) -> Assembly:
    """Number the report's references and write its Sources section.

    `findings`: every findings file's entries by slug, then number; `recorded`: the
    numbering of the last `finish` (number -> key), which only tells that finish ran on
    this report (numbers are read through the report's own entries); `report_citations`: the entries
    of the report's current Sources section; `last_sources`: the Sources section the
    last `finish` wrote (a different one was written by hand). A report with no reference and no
    numbering recorded is an old-format report (footnotes and Sources written by the
    model): it is left as written. Problems (a reference naming no findings entry, a
    numbered marker that cannot be traced) stop the assembly: nothing is rewritten."""
    lines = markdown_lines(report.removeprefix("\ufeff"))  # as find_references numbers them
    marks = find_references(report.removeprefix("\ufeff"))
    if not any(m.slug is not None for m in marks) and not recorded:
        return Assembly(None, {}, ["report.md cites no [^<subtopic-slug>:<n>] reference and finish has not run "
                                  "on it: it is checked as written"], [])
    by_identity = {e.identity: e.key for slug in findings for e in findings[slug].values()}
    current = {c.number: by_identity.get(identity(c)) for c in report_citations}
    problems: list[Problem] = []
    resolved: list[tuple[Mark, str]] = []
    for m in marks:
        key = _resolve(m, findings, current, problems)
        if key is not None:
            resolved.append((m, key))
    if problems:
        return Assembly(None, {}, [], problems)
    # One number per source: two keys whose entries name the same page and excerpt share it.
    entry_of = {e.key: e for slug in findings for e in findings[slug].values()}
    number_of: dict[tuple[str, str, str], int] = {}
    numbering: dict[int, str] = {}
    for _m, key in resolved:
        ident = entry_of[key].identity
        if ident not in number_of:
            number_of[ident] = len(number_of) + 1
            numbering[number_of[ident]] = key
    new_lines = list(lines)
    for (m, key) in reversed(resolved):
        text = new_lines[m.line - 1]
        new_lines[m.line - 1] = text[:m.start] + f"[^{number_of[entry_of[key].identity]}]" + text[m.end:]
    notes: list[str] = []
    span = sources_span(new_lines)
    if span is not None and report_citations:
        section = "\n".join(lines[span[0]:span[1] + 1]).strip()
        if last_sources is None or section != last_sources.strip():
            untraced = sum(1 for c in report_citations if current.get(c.number) is None)
            notes.append(f"report.md's Sources section was written by hand ({len(report_citations)} entries, "
                         f"{untraced} of them in no findings file): finish replaced it with the entries the "
                         f"references name. Cite by reference, {SHAPE}, and leave Sources to finish")
    sources = [f"## {SOURCES}", ""]
    for n in sorted(numbering):
        entry = entry_of[numbering[n]]
        definition = _ENTRY_FIRST_LINE.match(entry.lines[0])
        first = f"[^{n}]: {definition.group(1)}" if definition else entry.lines[0]
        sources += [first, *entry.lines[1:], ""]
    if not numbering:
        sources += [formats.REPORT_NO_SOURCES, ""]
    if span is None:
        body, tail = new_lines, []
        while body and not body[-1].strip():
            body = body[:-1]
        body = body + [""]
    else:
        body, tail = new_lines[:span[0]], new_lines[span[1] + 1:]
    out = body + sources[:-1] + ([""] + tail if tail else [])
    return Assembly("\n".join(out).rstrip("\n") + "\n", numbering, notes, [])


def _resolve(m: Mark, findings: Mapping[str, Mapping[int, Entry]], current: Mapping[int, str | None],
             problems: list[Problem]) -> str | None:
    """The findings key a mark names, or None after recording why it cannot be traced."""
    if m.slug is not None:
        entries = findings.get(m.slug)
        if entries is None:
            known = ", ".join(sorted(findings)) or "none"
            problems.append(Problem(m.line, f"{reference(m.slug, m.number)}: there is no findings/{m.slug}.md; "
                                            f"a reference names a findings file by its slug (these exist: {known})"))
            return None
        if m.number not in entries:
            have = ", ".join(str(n) for n in sorted(entries)) or "none"
            problems.append(Problem(m.line, f"{reference(m.slug, m.number)}: findings/{m.slug}.md has no footnote "
                                            f"{m.number} (it has: {have}); cite one of its footnotes, or drop the "
                                            "claim"))
            return None
        return entries[m.number].key
    if m.number not in current:
        problems.append(Problem(m.line, f"[^{m.number}] has no entry in report.md's Sources: cite the source by "
                                        f"reference, {SHAPE}, e.g. {EXAMPLE} (nothing says which source the number "
                                        "stands for, and finish does not guess from an earlier numbering; "
                                        "`web-research gaps` and the findings files list the footnotes)"))
        return None
    key = current[m.number]  # found by the entry's title, URL and excerpt among the findings entries
    if key is None:
        problems.append(Problem(m.line, f"[^{m.number}] is a numbered footnote that no findings entry backs; "
                                        f"cite the source by reference instead, {SHAPE}"))
    return key
