"""Scanning Markdown for footnotes: lines outside code, and `[^n]` markers in prose.

Shared by the citation parser (`citation_entries`), the per-file checks and
the claim extractor, so that "what counts as code" and "what counts as a use
of a footnote" are decided in one place. The line patterns of a footnote
entry live here too: `find_markers` must skip entries exactly as the parser
reads them.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

# `[^12]:` at the start of a line (up to three spaces of indentation, as in CommonMark).
FOOTNOTE_DEFINITION = re.compile(r"^ {0,3}\[\^(\d+)\]:[ \t]*(.*)$")
# `**Label**: value`
LABELLED_FIELD = re.compile(r"^\s*\*\*([^*\n]+?)\*\*\s*:\s?(.*)$")
HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
# `[^12]` not directly followed by `:` (that would be a definition).
FOOTNOTE_MARKER = re.compile(r"\[\^(\d+)\](?!:)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


def code_free_lines(text: str, first_line: int = 1) -> Iterator[tuple[int, str]]:
    """Yield `(line_number, line)` for every line outside fenced code blocks,
    with inline code spans blanked out, so markers shown as code never count.

    The parser, the marker finder, the claim finder and the per-file checks all
    walk the same file: the scan is done once per text and shared (`scan_lines`)."""
    return iter(scan_lines(text, first_line))


@lru_cache(maxsize=16)
def scan_lines(text: str, first_line: int = 1) -> tuple[tuple[int, str], ...]:
    """`code_free_lines` as a tuple, computed once per text and first line."""
    # Keyed by content, so a text joined again from its lines still hits. 16 holds a run's
    # report and its findings files (at most 5 + 3), and bounds what a process keeps.
    lines = text.splitlines()
    if "```" not in text and "~~~" not in text:  # no fence can open: only inline code to blank
        return tuple((number, _blank_inline_code(line) if "`" in line else line)
                     for number, line in enumerate(lines, start=first_line))
    out: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(lines, start=first_line):
        opener = _FENCE.match(line) if ("`" in line or "~" in line) else None
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
            line = _blank_inline_code(line)
        out.append((number, line))
    return tuple(out)


def _blank_inline_code(line: str) -> str:
    return _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


def find_markers(text: str, first_line: int = 1) -> list[tuple[int, int]]:
    """Every `[^n]` footnote marker as `(n, line)`, in document order.

    Definition entries (the `[^n]:` line and its continuation lines), fenced
    code blocks and inline code are skipped: only uses in prose count.
    """
    markers: list[tuple[int, int]] = []
    in_entry = False
    for number, line in code_free_lines(text, first_line):
        if "[^" in line and FOOTNOTE_DEFINITION.match(line):
            in_entry = True
            continue
        if in_entry:
            if continues_entry(line):
                continue
            in_entry = False
        if "[^" in line:
            markers.extend((int(m.group(1)), number) for m in FOOTNOTE_MARKER.finditer(line))
    return markers


def continues_entry(line: str) -> bool:
    """Whether `line` continues a footnote entry: not blank, not a heading, and
    indented or a `**Label**:` line. (The string tests before each pattern only
    skip matches that cannot succeed: verify runs this on every line.)"""
    return bool(line.strip()) and not ("#" in line and HEADING.match(line)) \
        and (line[:1] in (" ", "\t") or ("**" in line and LABELLED_FIELD.match(line) is not None))
