"""report.md: parsing into title, `##` sections and citations, and its checks.

The layout (`formats.REPORT_SECTIONS`, title prefix, TL;DR bullet range) is
shared with `skills/web-research/references/report-template.md`; tests keep
the two in agreement.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .. import formats
from ..core.result import Check, Problem, fail, ok
from .citation_checks import citation_checks, citation_problems
from .citation_entries import Citation, citations_of, markers_of
from ..core.markdown_doc import CODE, TEXT, Block, Document, Section, parse_markdown
from ..core.text import markdown_lines


@dataclass(slots=True)
class Report:
    """report.md parsed: its lines, title, `##` sections, citation entries, `[^n]` markers
    and the parsed document they come from (`doc`: every other question, asked of one parse)."""

    lines: list[str]
    title: str | None
    title_line: int | None
    sections: list[Section]
    citations: list[Citation]
    markers: list[tuple[int, int]]
    doc: Document

    def section(self, name: str) -> Section | None:
        """The first `##` section called `name`."""
        return next((s for s in self.sections if s.name == name), None)

    def blocks(self, section: Section) -> list[Block]:
        """The paragraphs and table rows of a section, after its heading."""
        return self.doc.blocks_in(section.line + 1, section.end)


def parse_report(text: str) -> Report:
    """Split report.md into its title line, `##` sections, citations and markers."""
    text = text.removeprefix("\ufeff")  # editors on Windows may add a byte-order mark
    lines = markdown_lines(text)  # numbered as Markdown numbers them (never str.splitlines: core/text.py)
    title = title_line = None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            title, title_line = line.rstrip(), number
            break
    doc = parse_markdown("\n".join(lines))
    return Report(lines, title, title_line, doc.sections(2), citations_of(doc), markers_of(doc), doc)


def _title_check(path: Path, report: Report, question: str | None) -> Check:
    prefix = formats.REPORT_TITLE_PREFIX
    if question is not None:
        expected = prefix + " ".join(question.split())
        written = report.title[len(prefix):] if report.title and report.title.startswith(prefix) else None
        if written is not None and " ".join(written.split()) == " ".join(question.split()):
            return ok("report.title", "title holds the question verbatim", path)
        if report.title is not None and report.title.startswith(prefix):
            return fail("report.title", f"title question is {report.title[len(prefix):].strip()!r}; expected the "
                        f"question from plan.md verbatim: {question!r}", path, report.title_line)
        return fail("report.title", f"first line is {report.title or ''!r}; expected {expected!r}",
                    path, report.title_line or 1)
    if report.title is not None and report.title.startswith(prefix) and report.title[len(prefix):].strip():
        return ok("report.title", f"title line starts with {prefix.strip()!r} (plan unavailable to compare)", path)
    return fail("report.title", f"first line is {report.title or ''!r}; expected '{prefix}<question>'",
                path, report.title_line or 1)


def _section_checks(path: Path, report: Report) -> list[Check]:
    wanted = formats.REPORT_SECTIONS
    names = [s.name for s in report.sections]
    checks: list[Check] = []
    missing = [w for w in wanted if w not in names]
    if missing:
        checks.append(fail("report.sections.missing", "missing section(s): " + ", ".join(f"'## {m}'" for m in missing)
                           + "; expected " + ", ".join(wanted) + " in that order", path, None))
    else:
        checks.append(ok("report.sections.missing", "all four sections present", path))
    repeated = [s for i, s in enumerate(report.sections) if s.name in wanted and s.name in names[:i]]
    if repeated:
        checks.append(fail("report.sections.duplicate", f"'## {repeated[0].name}' appears again; each section "
                           "appears once", path, repeated[0].line))
    else:
        checks.append(ok("report.sections.duplicate", "each section appears once", path))
    firsts = [report.section(w) for w in wanted if w in names]
    out_of_order = next((b for a, b in zip(firsts, firsts[1:]) if b.line < a.line), None)
    if out_of_order is not None:
        checks.append(fail("report.sections.order", f"'## {out_of_order.name}' is out of order; expected "
                           + " -> ".join(wanted), path, out_of_order.line))
    else:
        checks.append(ok("report.sections.order", "sections in order: " + " -> ".join(wanted), path))
    extra = [s for s in report.sections if s.name not in wanted]
    if extra:
        checks.append(fail("report.sections.extra", f"unexpected section '## {extra[0].name}': no check reads "
                           "it; the report has only " + ", ".join(f"'## {w}'" for w in wanted)
                           + ": use a '### ' heading inside Findings, or write it under Gaps & Limitations",
                           path, extra[0].line))
    else:
        checks.append(ok("report.sections.extra", "no other '##' sections", path))
    return checks


def _tldr_check(path: Path, report: Report) -> Check | None:
    section = report.section(formats.REPORT_SECTIONS[0])
    if section is None:
        return None
    bullets = tldr_items(report, section)
    low, high = formats.TLDR_MIN_BULLETS, formats.TLDR_MAX_BULLETS
    if low <= len(bullets) <= high:
        return ok("report.tldr.bullets", f"TL;DR has {len(bullets)} bullets", path)
    line = bullets[high] if len(bullets) > high else section.line
    return fail("report.tldr.bullets", f"TL;DR has {len(bullets)} bullet(s); expected {low} to {high}",
                path, line)


def _gaps_checks(path: Path, report: Report, gaps_needed: Sequence[tuple[str, str, str]]) -> list[Check]:
    section = report.section(formats.REPORT_SECTIONS[2])
    if section is None:
        return []
    if not report.blocks(section):
        return [fail("report.gaps.nonempty", "Gaps & Limitations is empty; it always names what the research "
                     "could not establish", path, section.line)]
    checks = [ok("report.gaps.nonempty", "Gaps & Limitations has content", path)]
    for slug, name, status, *label in gaps_needed:
        if gaps_name(report, name, slug, *label):
            checks.append(ok(f"report.gaps.names.{slug}", f'Gaps names the {status} subtopic "{name}"', path))
        else:
            checks.append(fail(f"report.gaps.names.{slug}", f'Gaps & Limitations does not name subtopic "{name}" '
                               f"(findings {status}); finish writes its line when it runs on a report with that "
                               "section, unless your own words there already name it", path, section.line))
    return checks


def tldr_items(report: Report, section: Section) -> list[int]:
    """First lines of the section's top-level list items (not nested in a list or quote)."""
    return [item.line for item in report.doc.items if item.depth == 0 and section.line < item.line <= section.end]


def uncited_blocks(blocks: Sequence[Block]) -> list[int]:
    """First lines of the paragraphs (list items' included) and tables among `blocks`
    that carry no footnote reference. Shared with findings files, whose Claims get the
    same check."""
    tables: dict[int, bool] = {}  # first line -> cites anything
    out: list[int] = []
    for block in blocks:
        cited = bool(block.labels)
        if block.kind == "row":
            if block.table not in tables:
                out.append(block.table)
            tables[block.table] = tables.get(block.table, False) or cited
        elif not cited:
            out.append(block.line)
    return [line for line in out if not tables.get(line, False)]


def gaps_text(report: Report) -> str | None:
    """The Gaps & Limitations section's words (code spans included, Markdown marks
    left out), casefolded, whitespace folded to single spaces (None when absent)."""
    section = report.section(formats.REPORT_SECTIONS[2])
    if section is None:
        return None
    parts: list[str] = []
    for block in report.blocks(section):
        parts.extend(span.text if span.kind in (TEXT, CODE) else " " for span in block.spans)
        parts.append(" ")
    return " ".join("".join(parts).split()).casefold()


def gaps_name(report: Report, name: str, slug: str, label: str | None = None) -> bool:
    """Whether Gaps & Limitations names a subtopic (its name or slug, any case; or the `label`
    finish's line names a second-wave subtopic by, report/gaps.second_wave_label)."""
    text = gaps_text(report)
    return text is not None and (" ".join(name.split()).casefold() in text or slug.casefold() in text
                                 or (label is not None and label.casefold() in text))


def _provenance_check(path: Path, report: Report, findings_citations: Sequence[Citation]) -> Check:
    """Each report entry must be copied from a findings file: same title, URL
    and excerpt. Entries whose required fields are already invalid are left to
    `report.citations.required`."""
    def key(c: Citation) -> tuple:
        return tuple(c.fields.get(name) for name in formats.CITATION_REQUIRED)

    def invalid(c: Citation) -> bool:
        return any(name in formats.CITATION_REQUIRED for name, _p in citation_problems(c))

    known = {key(c) for c in findings_citations}
    # Findings entries with a broken required field are reported in their own
    # file; a report entry copied from one (two of three fields equal) is not
    # reported again here.
    broken = [key(c) for c in findings_citations if invalid(c)]
    problems = []
    for c in report.citations:
        if None in key(c) or invalid(c):
            continue
        if any(sum(a == b for a, b in zip(key(c), other)) >= 2 for other in broken):
            continue
        if key(c) not in known:
            same_url = [f for f in findings_citations if f.fields.get("url") == c.fields.get("url")]
            what = ("its title or excerpt differs from the findings entry for this URL" if same_url
                    else "no findings file cites this URL")
            problems.append(Problem(c.line, f"[^{c.number}] is not copied from a findings file: {what}"))
    if not problems:
        return ok("report.citations.provenance", "every entry is copied from a findings file", path)
    more = f" (and {len(problems) - 1} more: " + ", ".join(f"line {p.line}" for p in problems[1:6]) + ")" \
        if len(problems) > 1 else ""
    return fail("report.citations.provenance", problems[0].message + more, path, problems[0].line)


def report_checks(path: Path, report: Report, question: str | None,
                  gaps_needed: Sequence[tuple],
                  findings_citations: Sequence[Citation] | None = None) -> list[Check]:
    """All checks of report.md. `question` is the plan's question (None when
    the plan is unusable); `gaps_needed` lists `(slug, name, status[, label])` of the
    subtopics whose findings are failed, empty or missing (label: how finish's line names a
    second-wave one, or None); `findings_citations`
    are the entries of every findings file (None: skip the provenance check)."""
    checks = [_title_check(path, report, question)]
    checks.extend(_section_checks(path, report))
    for maybe in (_tldr_check(path, report),):
        if maybe is not None:
            checks.append(maybe)
    checks.extend(_gaps_checks(path, report, gaps_needed))
    sources = report.section(formats.REPORT_SECTIONS[3])
    span = (sources.line, sources.end) if sources is not None else None
    checks.extend(citation_checks("report", path, report.citations, report.markers, span))
    if findings_citations is not None:
        checks.append(_provenance_check(path, report, findings_citations))
    if report.citations or report.markers:
        checks.append(ok("report.citations.none", f"{len(report.citations)} source(s) cited", path, "warning"))
    else:
        checks.append(fail("report.citations.none", "the report cites no sources", path,
                           sources.line if sources else None, "warning"))
    return checks
