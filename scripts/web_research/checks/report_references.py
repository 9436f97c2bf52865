"""References in report.md, `[^<subtopic-slug>:<n>]`: their syntax, where the prose cites them, and verify's rule.

The orchestrator cites a finding's source by reference: footnote `n` of
`findings/<subtopic-slug>.md`. It never copies a citation entry nor numbers
footnotes: `web-research finish` turns the references into `[^1]`..`[^m]`,
numbered globally by first use, and writes `## Sources` with each entry copied
from its findings file (report/assembly.py). This module is the one place the
reference syntax lives (`REFERENCE`, `SHAPE`; the prompts are tested against
it); `references_check` fails while a reference is left for `finish` to number.

`find_references` asks the one Markdown parse (markdown_doc) where the prose
cites: a reference in code, an HTML comment or a footnote definition is none.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from .. import formats
from .citation_entries import numeric_label
from ..core.markdown_doc import parse_markdown
from ..core.result import Check, fail, ok

# A reference to footnote n of findings/<slug>.md. A slug holds letters, digits and inner
# hyphens (slug.py), so `[\w-]` covers it and can never name a path outside findings/.
REFERENCE = re.compile(r"\[\^([^\W_](?:[\w-]*[^\W_])?):([0-9]{1,4})\](?!:)")
# How the prompts write the shape (tests hold SKILL.md and the references to it).
SHAPE = "[^<subtopic-slug>:<n>]"
EXAMPLE = "[^billing-units-and-retention-tiers:2]"

SOURCES = formats.REPORT_SECTIONS[3]


def valid_label(label: str) -> bool:
    """Whether a footnote label is a reference (`slug:n`) or a citation number (`n`)."""
    return numeric_label(label) or REFERENCE.fullmatch(f"[^{label}]") is not None


def reference(slug: str, number: int) -> str:
    """The reference to footnote `number` of findings/<slug>.md."""
    return f"[^{slug}:{number}]"


class Mark(NamedTuple):
    """One citation mark in the report's prose: a reference (`slug` set) or a numbered
    footnote marker (`number` set); `line` is 1-based, `start`/`end` index into that line."""

    line: int
    start: int
    end: int
    slug: str | None
    number: int


def find_references(text: str) -> list[Mark]:
    """Every reference and numbered footnote marker in the prose of `text`, in order.

    From the one Markdown parse: code (fenced, indented or inline), HTML comments and
    footnote entries hold none; the `## Sources` section, which `finish` owns, is skipped.
    A mark whose place in its line the parser cannot give (a tab it expanded) is left out."""
    doc = parse_markdown(text)
    skip = [(s.line, s.end) for s in doc.sections(2) if s.name == SOURCES]
    marks: list[Mark] = []
    for ref in doc.references:
        if ref.column < 0 or any(start <= ref.line <= end for start, end in skip):
            continue
        written = f"[^{ref.label}]"
        match = REFERENCE.fullmatch(written)
        if match:
            marks.append(Mark(ref.line, ref.column, ref.column + len(written), match.group(1), int(match.group(2))))
        elif numeric_label(ref.label):
            marks.append(Mark(ref.line, ref.column, ref.column + len(written), None, int(ref.label)))
    return marks


def references_check(path: Path, text: str) -> Check:
    """`report.references`: no reference is left for `finish` to number (verify's view)."""
    left = [m for m in find_references(text.removeprefix("\ufeff")) if m.slug is not None] \
        if REFERENCE.search(text) else []
    if not left:
        return ok("report.references", "no [^<subtopic-slug>:<n>] reference is left unnumbered", path)
    first = left[0]
    return fail("report.references", f"{reference(first.slug or '', first.number)} and {len(left) - 1} more "
                f"reference(s) are not numbered yet: run finish, which numbers them and writes Sources"
                if len(left) > 1 else f"{reference(first.slug or '', first.number)} is not numbered yet: run "
                "finish, which numbers it and writes Sources", path, first.line)
