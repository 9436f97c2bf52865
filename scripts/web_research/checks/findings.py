"""Findings files (`findings/<subtopic-slug>.md`): parsing and per-file checks.

A findings file is YAML frontmatter (schema: `schemas/findings-frontmatter.schema.json`)
followed by Markdown claims carrying `[^n]` footnotes and a `## Sources` section
in the same citation layout as the report. Parsing keeps file line numbers for
every frontmatter key, marker and entry so each defect can be pointed at.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import formats
from ..core.result import Check, Problem, fail, ok
from .citation_checks import citation_checks
from .citation_entries import Citation, citations_of, markers_of
from ..core.markdown_doc import CODE, TEXT, Document, Section, parse_markdown
from ..core.schema_validation import schema_errors
from ..core.frontmatter_reader import read_frontmatter
from ..core.fsutil import read_run_text
from ..run.brief_prompt import brief_hash
from .report import uncited_blocks

FRONTMATTER_SCHEMA = "findings-frontmatter.schema.json"


@dataclass(slots=True)
class Findings:
    """A parsed findings file. `errors` are frontmatter problems found while
    parsing (missing block, invalid YAML, not a mapping)."""

    path: Path
    frontmatter: dict[str, Any] | None
    key_lines: dict[str, int]
    body: str
    body_first_line: int
    citations: list[Citation]
    markers: list[tuple[int, int]]
    sources_headings: list[int]
    sources_span: tuple[int, int] | None
    errors: list[Problem] = field(default_factory=list)
    frontmatter_line: int = 1
    doc: Document = None  # type: ignore[assignment]  # the body, parsed once: given, or parsed here

    def __post_init__(self) -> None:
        if self.doc is None:
            self.doc = parse_markdown(self.body, self.body_first_line)

    @property
    def status(self) -> str | None:
        value = (self.frontmatter or {}).get("status")
        return value if value in formats.STATUSES else None

    @property
    def reason(self) -> str | None:
        value = (self.frontmatter or {}).get("reason")
        return value if isinstance(value, str) else None


def parse_frontmatter(text: str) -> tuple[dict[str, Any] | None, dict[str, int], int, list[Problem]]:
    """Split off the `---` block with the one safe frontmatter reader. Returns
    (mapping or None, key -> file line, first body line, problems)."""
    found = read_frontmatter(text)
    return (found.data, found.key_lines, found.body_first_line,
            [Problem(p.line, p.message) for p in found.problems])


def load_findings(path: Path, text: str | None = None) -> Findings:
    """Parse a findings file (read from `path` unless `text` is given)."""
    path = Path(path)
    if text is None:  # a regular file inside its folder, size-bounded (raises fsutil.RunFileError)
        text = read_run_text(path, path.parent, formats.MAX_MARKDOWN_BYTES)
    text = text.removeprefix("\ufeff")  # editors on Windows may add a byte-order mark
    frontmatter, key_lines, body_first, problems = parse_frontmatter(text)
    body = "\n".join(text.splitlines()[body_first - 1:])
    doc = parse_markdown(body, body_first)
    headings = [s.line for s in doc.sections(2) if s.name == formats.FINDINGS_SOURCES_HEADING]
    span = None
    if headings:  # from the first Sources heading to the next other heading of level 1 or 2
        end = next((h.line - 1 for h in doc.headings if h.line > headings[0] and h.level <= 2
                    and not (h.level == 2 and h.text == formats.FINDINGS_SOURCES_HEADING)), doc.last_line)
        span = (headings[0], end)
    return Findings(
        path=path,
        frontmatter=frontmatter,
        key_lines=key_lines,
        body=body,
        body_first_line=body_first,
        citations=citations_of(doc),
        markers=markers_of(doc),
        sources_headings=headings,
        sources_span=span,
        errors=problems,
        doc=doc,
    )


def _field_check(check_id: str, path: Path, problems: list[Problem], passed: str,
                 severity: str = "error") -> Check:
    if not problems:
        return ok(check_id, passed, path, severity)  # type: ignore[arg-type]
    first = problems[0]
    message = "; ".join(p.message for p in problems)
    return fail(check_id, message, path, first.line, severity)  # type: ignore[arg-type]


def findings_checks(slug: str, subtopic: str | None, found: Findings,
                    brief: bytes | None = None, brief_path: Path | None = None) -> list[Check]:
    """The checks for one findings file. `subtopic` is the plan's name for it
    (None when the plan is unusable); `brief` is the content of briefs/<slug>.md
    when that file exists."""
    scope = f"findings.{slug}"
    path = found.path
    checks: list[Check] = []
    if found.frontmatter is None:
        checks.append(_field_check(f"{scope}.frontmatter", path, found.errors, ""))
    else:
        fm = found.frontmatter
        groups: dict[str, list[Problem]] = {"frontmatter": [], "extra": [], "status": [], "reason": []}
        for name, what in schema_errors(FRONTMATTER_SCHEMA, fm):
            line = found.key_lines.get(name, found.frontmatter_line)
            if name not in formats.FINDINGS_FIELDS:
                groups["extra"].append(Problem(line, f"frontmatter field '{name}' {what}; "
                                                     f"known fields: {', '.join(formats.FINDINGS_FIELDS)}"))
            elif name in ("status", "reason"):
                if name == "reason" and what.startswith("is missing"):
                    what = f"is missing; it is required when status is {fm.get('status')}"
                groups[name].append(Problem(line, f"frontmatter field '{name}' {what}"))
            else:
                groups["frontmatter"].append(Problem(line, f"frontmatter field '{name}' {what}"))
        checks.append(_field_check(f"{scope}.frontmatter", path, groups["frontmatter"],
                                   "frontmatter has valid subtopic, brief_hash, started_at, finished_at"))
        checks.append(_field_check(f"{scope}.frontmatter.extra", path, groups["extra"],
                                   "frontmatter has no unknown fields", "warning"))
        checks.append(_field_check(f"{scope}.status", path, groups["status"],
                                   f"status is {fm.get('status')}"))
        if not groups["status"]:
            checks.append(_field_check(f"{scope}.reason", path, groups["reason"],
                                       "reason given" if fm.get("status") != formats.STATUS_OK
                                       else "no reason for an ok result"))
        declared = fm.get("subtopic")
        if subtopic is not None and isinstance(declared, str) and declared.strip():
            if declared.strip() == subtopic.strip():
                checks.append(ok(f"{scope}.subtopic", f'subtopic is "{subtopic}"', path))
            else:
                checks.append(fail(f"{scope}.subtopic", f'frontmatter subtopic is "{declared}"; expected '
                                   f'"{subtopic}" as named in plan.md', path, found.key_lines.get("subtopic")))
        declared_hash = fm.get("brief_hash")
        if brief is not None and isinstance(declared_hash, str) and not any(
                p for p in groups["frontmatter"] if "'brief_hash'" in p.message):
            actual = brief_hash(brief)
            if declared_hash == actual:
                checks.append(ok(f"{scope}.brief_hash", "brief_hash matches the brief", path))
            else:
                where = f"briefs/{slug}.md" if brief_path is None else f"briefs/{brief_path.name}"
                checks.append(fail(f"{scope}.brief_hash", f"brief_hash is {declared_hash}; {where} hashes to "
                                   f"{actual} (the findings were written for a different brief)",
                                   path, found.key_lines.get("brief_hash")))

    cites_anything = bool(found.citations or found.markers)
    heading = formats.FINDINGS_SOURCES_HEADING
    if len(found.sources_headings) > 1:
        checks.append(fail(f"{scope}.sources", f'"## {heading}" appears {len(found.sources_headings)} times; '
                           "expected once", path, found.sources_headings[1]))
    elif cites_anything and not found.sources_headings:
        first = min([c.line for c in found.citations] + [line for _n, line in found.markers])
        checks.append(fail(f"{scope}.sources", f'the file cites sources but has no "## {heading}" section',
                           path, first))
    else:
        checks.append(ok(f"{scope}.sources", f'"## {heading}" section present' if found.sources_headings
                         else "nothing cited, no Sources section needed", path))
    checks.extend(citation_checks(scope, path, found.citations, found.markers, found.sources_span))
    checks.extend(findings_body_checks(scope, found))
    if found.status == formats.STATUS_OK:
        if found.citations:
            checks.append(ok(f"{scope}.citations.none", f"{len(found.citations)} source(s) cited", path,
                             "warning"))
        else:
            checks.append(fail(f"{scope}.citations.none", "status is ok but the file cites no sources",
                               path, found.key_lines.get("status"), "warning"))
    return checks


# --- The body's skeleton (the brief shows it; subagent-brief.md) ----------------

_WORD = re.compile(r"\w+")


def _body_sections(found: Findings) -> list[Section]:
    """The `##` sections of the body (each to the next `##` or `#` heading)."""
    return found.doc.sections(2)


def _words(found: Findings, section: Section) -> list[tuple[int, str]]:
    """`(line, prose)` of the paragraphs and table rows in a section, code spans included."""
    out: list[tuple[int, str]] = []
    for block in found.doc.blocks_in(section.line + 1, section.end):
        line, parts = block.line, []
        for span in block.spans:
            if span.line != line and parts:
                out.append((line, "".join(parts)))
                line, parts = span.line, []
            parts.append(span.text if span.kind in (TEXT, CODE) else " ")
        out.append((line, "".join(parts)))
    return out


def findings_body_checks(scope: str, found: Findings) -> list[Check]:
    """Warnings about the body: its skeleton (`layout`, once it has `##` sections), its length (`length`),
    Claims without a footnote (`uncited`) and wording that betrays a claim taken
    from the model's memory (`memory`). Warnings: the findings are still usable."""
    path = found.path
    sections = _body_sections(found)
    # The Sources heading (missing, repeated) is the `sources` check's business: one defect, one check.
    sources = formats.FINDINGS_SOURCES_HEADING
    names = [s.name for s in sections if s.name != sources]
    expected = [name for name in formats.FINDINGS_SECTIONS if name != sources]
    layout: list[Problem] = []
    # A stub (frontmatter and a line, no sections) is what a researcher writes first: no layout yet.
    if sections and names != expected:
        missing = [n for n in expected if n not in names]
        what = (f"missing {', '.join(repr('## ' + n) for n in missing)}" if missing
                else f"sections are {', '.join(names)}")
        layout.append(Problem(sections[0].line,
                              f"{what}; expected the brief's sections in order: "
                              + ", ".join(f"'## {n}'" for n in expected)))
    by_name: dict[str, Section] = {}
    for section in sections:
        by_name.setdefault(section.name, section)
    if formats.FINDINGS_SECTION_EXIT in by_name:
        section = by_name[formats.FINDINGS_SECTION_EXIT]
        text = next((t.strip() for _n, t in _words(found, section) if t.strip()), "")
        if not any(text.casefold().startswith(reason) for reason in formats.EXIT_REASONS):
            layout.append(Problem(section.line, f"'## {formats.FINDINGS_SECTION_EXIT}' is {text!r}; expected it to start "
                                        f"with one of: {', '.join(formats.EXIT_REASONS)}"))
    checks = [_field_check(f"{scope}.layout", path, layout, "the body follows the brief's sections", "warning")]

    everything = Section("", found.body_first_line - 1, found.doc.last_line)
    before_sources = [t for section in (sections or [everything]) if section.name != formats.FINDINGS_SOURCES_HEADING
                      for _n, t in _words(found, section)]
    words = sum(len(_WORD.findall(t)) for t in before_sources)
    checks.append(_field_check(
        f"{scope}.length", path,
        [Problem(found.body_first_line, f"{words} words before '## {formats.FINDINGS_SOURCES_HEADING}'; "
                 f"expected at most about {formats.FINDINGS_MAX_WORDS}")] if words > formats.FINDINGS_MAX_WORDS else [],
        f"{words} words before the Sources", "warning"))

    if formats.FINDINGS_SECTION_CLAIMS in by_name:
        section = by_name[formats.FINDINGS_SECTION_CLAIMS]
        uncited = uncited_blocks(found.doc.blocks_in(section.line + 1, section.end))
        checks.append(_field_check(
            f"{scope}.uncited", path,
            [Problem(uncited[0], f"{len(uncited)} paragraph(s) or item(s) in Claims carry no [^n] footnote "
                                 f"(first at line {uncited[0]}); cite every claim")] if uncited else [],
            "every claim carries a footnote", "warning"))

    memory = []
    prose = _words(found, Section("", found.body_first_line - 1, found.doc.last_line))
    prose += [(h.line, h.text) for h in found.doc.headings]
    for number, line in sorted(prose):
        lowered = line.casefold()
        hit = next((p for p in formats.MEMORY_PHRASES if p in lowered), None)
        if hit:
            memory.append(Problem(number, f"says {hit!r}: a claim must come from a page read in this run, "
                                          "never from memory"))
    checks.append(_field_check(f"{scope}.memory", path, memory, "no claim is said to come from memory",
                               "warning"))
    return checks
