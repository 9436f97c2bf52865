"""The citation rules shared by report.md and findings files, as `Check`s.

`citation_problems` validates one entry against `schemas/citation.schema.json`
(every deviation becomes a `Problem` naming the line); `citation_checks` adds
the rules across entries and markers (undefined, orphan, duplicate, numbering,
first use, placement) and reports one check per rule.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

from .. import formats
from ..core.result import Check, Problem
from .citation_entries import Citation
from ..core.schema_validation import schema_errors

_LABEL_OF_FIELD = {name: label for label, name in formats.CITATION_LABELS.items()}


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
