"""Citation entries: parsing `[^n]:` entries into their fields, and writing one.

A citation entry is written as

    [^3]: **Title**: Logs pricing - Acme Docs
          **URL**: https://docs.acme.example/pricing/logs
          **Excerpt**: "Ingest is billed per GB."
          **Retrieved**: 2026-04-18
          **Source type**: official-docs

The labels and the field names behind them come from `formats.CITATION_LABELS`;
what a valid value looks like lives in `schemas/citation.schema.json` (checked
in `citation_checks`), so the rules exist once and the prompts can be tested
against the same file.

Parsing is lenient (an unknown label or a wrapped line still parses); the
checks are strict, so the verifier can point at the exact defect instead of
refusing the whole file.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from .. import formats
from ..core.markdown_doc import LABELLED_FIELD, Document, parse_markdown

_QUOTES = (('"', '"'), ("\u201c", "\u201d"))


@dataclass(slots=True)
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
# Parsing
# --------------------------------------------------------------------------

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
    """Every `[^n]:` entry in `text` (a numbered footnote definition), in document order.

    The Markdown parser (`markdown_doc`) decides where an entry ends: after a blank
    line, only an indented block continues it; a heading or the next definition ends
    it. Inside an entry each `**Label**:` line starts a field, and a line without a
    label continues the previous one (a wrapped excerpt). `first_line` is the file
    line number of `text`'s first line.
    """
    return citations_of(parse_markdown(text, first_line))


def citations_of(document: Document) -> list[Citation]:
    """The numbered footnote definitions of a parsed file as citation entries. A label
    that is not a number (`[^slug:3]` in a report draft) is no citation entry."""
    found: list[Citation] = []
    for definition in document.definitions:
        if not numeric_label(definition.label):
            continue
        current = _new_citation(int(definition.label), definition.line)
        last_name: str | None = None
        for index, (number, line) in enumerate(definition.lines):
            # (the string test only skips a pattern that cannot match: verify runs this on every line)
            labelled = LABELLED_FIELD.match(line) if "**" in line else None
            if labelled:
                label = labelled.group(1).strip()
                _add_field(current, label, labelled.group(2), number)
                last_name = formats.CITATION_LABELS.get(label, label)
            elif index == 0:
                if line.strip():  # text without a label: most likely a title missing its label
                    current.unlabelled = line.strip()
            elif last_name in current.fields:
                current.fields[last_name] = (current.fields[last_name] + " " + line.strip()).strip()
            current.end_line = number
        found.append(_finish(current))
    return found


def numeric_label(label: str) -> bool:
    """Whether a footnote label is a citation number (ASCII digits)."""
    return label.isascii() and label.isdigit()


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


def markers_of(document: Document) -> list[tuple[int, int]]:
    """Every numbered footnote reference in prose as `(n, line)`, in document order:
    the uses of citation entries (definitions, code and HTML are not prose)."""
    return [(int(r.label), r.line) for r in document.references if numeric_label(r.label)]


def find_markers(text: str, first_line: int = 1) -> list[tuple[int, int]]:
    """`markers_of` the Markdown `text` whose first line is file line `first_line`."""
    return markers_of(parse_markdown(text, first_line))
