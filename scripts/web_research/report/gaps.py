"""The Gaps & Limitations bullets `finish` writes, so the model never copies one.

What the run itself records it could not establish is written by code at the top
of report.md's Gaps & Limitations, one shape per kind, with the reason the
findings give:

- `- **Subtopic "<name>"** (<failed | empty | no findings file | unreadable>): <reason>. Not established: <ids>.`
- `- **Bullet <id>**: not established: <reason>.` (a bullet no subtopic line names)

The model adds only its own limitations, in prose. A failure Gaps already names
(a report written the old way, or by a model that wrote it anyway) gets no second
bullet. `finish` keeps the lines it wrote in its record and takes them out again on
its next run before writing the current ones, so a bullet a later wave covers
disappears. A reason comes from a findings file (hostile): it is folded to one
line, bounded, and its brackets made plain so it can never become a reference.
The lines themselves are built in checks/recorded_gaps.py (verify reads them too);
report/finish.py does the I/O.
"""
from __future__ import annotations

import re
from typing import Sequence

from .. import formats
from ..checks.recorded_gaps import (  # noqa: F401 - finish and tests use them from here
    MAX_REASON_CHARS, NO_FILE, NO_FILE_REASON, bullet_line, gap_lines, plain, subtopic_line,
)

_GAPS_HEADING = re.compile(r"^##\s+" + r"\s*".join(re.escape(w) for w in formats.REPORT_SECTIONS[2].split())
                           + r"\s*$", re.IGNORECASE)


def without(text: str, previous: Sequence[str]) -> str:
    """The report with the lines an earlier `finish` wrote taken out (each where it still stands
    as written, with any blank line finish put after the block)."""
    if not previous:
        return text
    for block in ("\n".join(previous) + "\n\n", "\n".join(previous) + "\n"):
        if block in text:
            return text.replace(block, "", 1)
    wanted = set(previous)
    return "\n".join(line for line in text.split("\n") if line not in wanted)


def place(text: str, lines: Sequence[str]) -> str:
    """The report with `lines` at the top of Gaps & Limitations: one list with the model's own
    bullets, else followed by a blank line. A report without the section is left as it is
    (`report.sections.missing` tells the model to write it)."""
    rows = text.split("\n")
    at = next((i for i, row in enumerate(rows) if _GAPS_HEADING.match(row)), None)
    if not lines or at is None:
        return text
    start = at + 1
    while start < len(rows) and not rows[start].strip():
        start += 1
    gap = [] if start < len(rows) and re.match(r"[-*+] ", rows[start]) else [""]
    return "\n".join(rows[:at + 1] + [""] + list(lines) + gap + rows[start:])
