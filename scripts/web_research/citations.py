"""Citation entries and footnote markers, shared by report.md and findings files.

A citation entry is written as

    [^3]: **Title**: Logs pricing - Acme Docs
          **URL**: https://docs.acme.example/pricing/logs
          **Excerpt**: "Ingest is billed per GB."
          **Retrieved**: 2026-04-18
          **Source type**: official-docs

The labels and the field names behind them come from `formats.CITATION_LABELS`;
what a valid value looks like lives in `schemas/citation.schema.json`, so the
rules exist once and the prompts can be tested against the same file.

Parsing is lenient (an unknown label or a wrapped line still parses) and
validation is strict (every deviation becomes a `Problem` naming the line), so
the verifier can point at the exact defect instead of refusing the whole file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

from . import formats
from .checks import Check, Problem
from .schema_validation import schema_errors

# `[^12]:` at the start of a line (up to three spaces of indentation, as in CommonMark).
_DEFINITION = re.compile(r"^ {0,3}\[\^(\d+)\]:[ \t]*(.*)$")
# `[^12]` not directly followed by `:` (that would be a definition).
_MARKER = re.compile(r"\[\^(\d+)\](?!:)")
# `**Label**: value`
_FIELD = re.compile(r"^\s*\*\*([^*\n]+?)\*\*\s*:\s?(.*)$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")

_LABEL_OF_FIELD = {name: label for label, name in formats.CITATION_LABELS.items()}
_QUOTES = (('"', '"'), ("\u201c", "\u201d"))


@dataclass
class Citation:
    """One `[^n]:` entry. `excerpt` is the quoted text without its quotes;
    `fields` keeps every value exactly as written (keyed by schema field name,
    unknown labels keyed by the label itself) for validation."""

    number: int
    title: str | None = None
    url: str | None = None
    excerpt: str | None = None
    retrieved_at: str | None = None
    published_at: str | None = None
    source_type: str | None = None
    line: int = 0
    end_line: int = 0
    fields: dict[str, str] = field(default_factory=dict)
    field_lines: dict[str, int] = field(default_factory=dict)
    duplicates: list[tuple[str, int]] = field(default_factory=list)
    unlabelled: str | None = None  # text after `[^n]:` that has no **Label**


# --------------------------------------------------------------------------
# Scanning
# --------------------------------------------------------------------------

def code_free_lines(text: str, first_line: int = 1) -> Iterator[tuple[int, str]]:
    """Yield `(line_number, line)` for every line outside fenced code blocks,
    with inline code spans blanked out, so markers shown as code never count."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=first_line):
        opener = _FENCE.match(line)
        if fence is None:
            if opener:
                fence = opener.group(1)
                continue
        else:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence) \
                    and not line.strip()[len(opener.group(1)):].strip():
                fence = None
            continue
        if "`" in line:
            line = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        yield number, line


def _value_unquoted(raw: str) -> str | None:
    raw = raw.strip()
    for left, right in _QUOTES:
        if len(raw) >= 2 and raw.startswith(left) and raw.endswith(right):
            return raw[1:-1]
    return None


def _new_citation(number: int, line: int) -> Citation:
    return Citation(number=number, line=line, end_line=line)


def _add_field(citation: Citation, label: str, value: str, line: int) -> None:
    name = formats.CITATION_LABELS.get(label, label)
    if name in citation.fields:
        citation.duplicates.append((name, line))
        return
    citation.fields[name] = value.strip()
    citation.field_lines[name] = line


def _finish(citation: Citation) -> Citation:
    f = citation.fields
    citation.title = f.get("title") or None
    citation.url = f.get("url") or None
    excerpt = f.get("excerpt")
    citation.excerpt = _value_unquoted(excerpt) if excerpt is not None else None
    citation.retrieved_at = f.get("retrieved_at") or None
    citation.published_at = f.get("published_at") or None
    citation.source_type = f.get("source_type") or None
    return citation


def parse_citations(text: str, first_line: int = 1) -> list[Citation]:
    """Every `[^n]:` entry in `text`, in document order, outside code fences.

    An entry runs from its definition line through the following non-blank
    lines that are indented or start with a `**Label**:`; a blank line, a
    heading or the next definition ends it. A continuation line without a label
    extends the previous field (a wrapped excerpt). `first_line` is the file
    line number of `text`'s first line.
    """
    found: list[Citation] = []
    current: Citation | None = None
    last_name: str | None = None
    for number, line in code_free_lines(text, first_line):
        definition = _DEFINITION.match(line)
        if definition:
            current = _new_citation(int(definition.group(1)), number)
            found.append(current)
            last_name = None
            rest = definition.group(2)
            labelled = _FIELD.match(rest)
            if labelled:
                _add_field(current, labelled.group(1).strip(), labelled.group(2), number)
                last_name = formats.CITATION_LABELS.get(labelled.group(1).strip(), labelled.group(1).strip())
            elif rest.strip():
                # Text without a label: most likely a title missing its label.
                current.unlabelled = rest.strip()
            continue
        if current is None:
            continue
        if not line.strip() or _HEADING.match(line):
            current = None
            continue
        labelled = _FIELD.match(line)
        if labelled:
            label = labelled.group(1).strip()
            _add_field(current, label, labelled.group(2), number)
            last_name = formats.CITATION_LABELS.get(label, label)
            current.end_line = number
        elif line[:1] in (" ", "\t") and last_name in current.fields:
            current.fields[last_name] = (current.fields[last_name] + " " + line.strip()).strip()
            current.end_line = number
        else:
            current = None
    return [_finish(c) for c in found]


def find_markers(text: str, first_line: int = 1) -> list[tuple[int, int]]:
    """Every `[^n]` footnote marker as `(n, line)`, in document order.

    Definition entries (the `[^n]:` line and its continuation lines), fenced
    code blocks and inline code are skipped: only uses in prose count.
    """
    markers: list[tuple[int, int]] = []
    in_entry = False
    for number, line in code_free_lines(text, first_line):
        if _DEFINITION.match(line):
            in_entry = True
            continue
        if in_entry:
            if line.strip() and not _HEADING.match(line) and (line[:1] in (" ", "\t") or _FIELD.match(line)):
                continue
            in_entry = False
        if "[^" in line:
            markers.extend((int(m.group(1)), number) for m in _MARKER.finditer(line))
    return markers


# --------------------------------------------------------------------------
# Rendering (the inverse of parse_citations; used by examples and tests)
# --------------------------------------------------------------------------

def render_citation(number: int, fields: Mapping[str, str], indent: str = "    ") -> str:
    """Write one entry in the canonical layout. `fields` maps schema field
    names to values; `excerpt` is given without quotes and gets them here."""
    lines = []
    for label, name in formats.CITATION_LABELS.items():
        if name not in fields or fields[name] is None:
            continue
        value = fields[name]
        if name == "excerpt":
            value = f'"{value}"'
        lines.append(f"**{label}**: {value}")
    if not lines:
        return f"[^{number}]:"
    return "\n".join([f"[^{number}]: {lines[0]}"] + [indent + entry for entry in lines[1:]])


# --------------------------------------------------------------------------
# Validation against schemas/citation.schema.json
# --------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _citation_schema_errors(items: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    # Cached by content: the report repeats its findings files' entries verbatim.
    return tuple(schema_errors("citation.schema.json", dict(items)))


def citation_problems(citation: Citation) -> list[tuple[str, Problem]]:
    """Every defect of one entry as `(field, Problem)`, in field order."""
    problems: list[tuple[str, Problem]] = []
    for name, what in _citation_schema_errors(tuple(sorted(citation.fields.items()))):
        label = _LABEL_OF_FIELD.get(name, name)
        line = citation.field_lines.get(name, citation.line)
        if name == "title" and citation.unlabelled:
            what += f"; the entry starts with {citation.unlabelled!r} but no **{label}**: label"
        problems.append((name, Problem(line, f"[^{citation.number}] **{label}** {what}")))
    for name, line in citation.duplicates:
        label = _LABEL_OF_FIELD.get(name, name)
        problems.append((name, Problem(line, f"[^{citation.number}] **{label}** given twice")))
    return problems


# --------------------------------------------------------------------------
# Checks shared by report.md and findings files
# --------------------------------------------------------------------------

def _aggregate(check_id: str, path: Path, problems: Sequence[Problem], passed: str,
               severity: str = "error") -> Check:
    """One check per rule: the first problem gives the line, the message lists all."""
    if not problems:
        return Check(check_id, True, severity, passed, str(path), None)
    ordered = sorted(problems, key=lambda p: p.line or 0)
    first = ordered[0]
    message = first.message
    if len(ordered) > 1:
        message += "; also " + "; ".join(f"line {p.line}: {p.message}" for p in ordered[1:6])
        if len(ordered) > 6:
            message += f"; and {len(ordered) - 6} more"
    return Check(check_id, False, severity, message, str(path), first.line)


def citation_checks(scope: str, path: Path, citations: Sequence[Citation],
                    markers: Sequence[tuple[int, int]],
                    sources_span: tuple[int, int] | None) -> list[Check]:
    """The citation rules for one file, as checks named `<scope>.citations.<rule>`.

    Rules: every marker has an entry (`undefined`), every entry is used
    (`orphan`), each number has one entry (`duplicate`), the numbers used
    run 1..n with entries in ascending order (`numbering`), numbers follow the
    order in which the text first uses them (`first_use`, a warning), entries sit in the
    Sources section (`placement`, only when that section exists: its absence
    is reported by the caller), required fields are valid (`required`),
    optional fields are valid (`optional`).
    """
    prefix = f"{scope}.citations"
    defined: dict[int, Citation] = {}
    duplicates: list[Problem] = []
    for c in citations:
        if c.number in defined:
            duplicates.append(Problem(c.line, f"[^{c.number}] defined again (first at line {defined[c.number].line})"))
        else:
            defined[c.number] = c
    used: dict[int, int] = {}
    for n, line in markers:
        used.setdefault(n, line)

    undefined = [Problem(line, f"[^{n}] is used but has no entry in Sources")
                 for n, line in used.items() if n not in defined]
    orphans = [Problem(c.line, f"[^{n}] is listed in Sources but never used")
               for n, c in defined.items() if n not in used]

    # Numbering looks at the entries; a number that is used but has no entry
    # is not a gap here, since `undefined` already reports it.
    numbering: list[Problem] = []
    if defined:
        accounted = set(defined) | set(used)
        skipped = sorted(set(range(1, max(defined) + 1)) - accounted)
        if 0 in defined:
            numbering.append(Problem(defined[0].line, "[^0]: numbering starts at 1"))
        if skipped:
            after = min(n for n in defined if n > skipped[0])
            numbering.append(Problem(defined[after].line, "numbering skips " + ", ".join(f"[^{n}]" for n in skipped)
                                     + f"; expected [^1]..[^{len(accounted)}] without gaps"))
    previous = 0
    for c in citations:
        if c.number < previous:
            numbering.append(Problem(c.line, f"[^{c.number}] comes after [^{previous}]; list entries in ascending order"))
        previous = max(previous, c.number)

    # The prompts number footnotes in order of first use; a reader then meets
    # [^1], [^2], ... in sequence. Out of order is untidy, not wrong: a warning.
    first_use: list[Problem] = []
    highest = 0
    for n, line in used.items():  # markers come in reading order
        if n < highest:
            first_use.append(Problem(line, f"[^{n}] is first used after [^{highest}]; number footnotes in order of first use"))
        highest = max(highest, n)

    placement: list[Problem] = []
    if sources_span is not None:
        start, end = sources_span
        placement = [Problem(c.line, f"[^{c.number}] is defined outside the Sources section (lines {start}-{end})")
                     for c in citations if not start <= c.line <= end]

    required: list[Problem] = []
    optional: list[Problem] = []
    for c in citations:
        for name, problem in citation_problems(c):
            (required if name in formats.CITATION_REQUIRED else optional).append(problem)

    return present([
        _aggregate(f"{prefix}.undefined", path, undefined, "every [^n] used has an entry in Sources"),
        _aggregate(f"{prefix}.orphan", path, orphans, "every entry in Sources is used"),
        _aggregate(f"{prefix}.duplicate", path, duplicates, "each number has one entry"),
        _aggregate(f"{prefix}.numbering", path, numbering, "footnotes run [^1]..[^n] in order"),
        _aggregate(f"{prefix}.first_use", path, first_use, "footnotes are numbered in order of first use",
                   severity="warning"),
        _aggregate(f"{prefix}.placement", path, placement, "entries sit in the Sources section")
        if sources_span is not None else None,
        _aggregate(f"{prefix}.required", path, required,
                   "every entry has a title, an absolute http(s) URL and a quoted excerpt"),
        _aggregate(f"{prefix}.optional", path, optional, "optional fields are valid"),
    ])


def present(checks: Iterable[Check | None]) -> list[Check]:
    """Drop the checks that did not apply (None)."""
    return [c for c in checks if c is not None]
