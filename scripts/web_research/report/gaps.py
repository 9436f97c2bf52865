"""The Gaps & Limitations bullets `finish` writes, so the model never copies one.

What the run itself records it could not establish is written by code at the top
of report.md's Gaps & Limitations, one shape per kind, with the reason the
findings give:

- `- **Subtopic "<name>"** (<failed | empty | no findings file | unreadable>): <reason>. Not established: "<bullet>"; ….`
- `- **<bullet>**: not established: <reason>.` (a bullet no subtopic line names; one a researcher
  established only in part says so: `established only in part; not established: <reason>`)

A bullet is named by its words, never by its plan id: a reader of the report never saw the plan.

The model adds only its own limitations, in prose. A failure Gaps already names
(a report written the old way, or by a model that wrote it anyway) gets no second
bullet. `finish` keeps the lines it wrote in its record and takes them out again on
its next run before writing the current ones, so a bullet a later wave covers
disappears. A reason comes from a findings file (hostile): it is folded to one
line, bounded, and its brackets made plain so it can never become a reference.
Pure functions; report/finish.py does the I/O.
"""
from __future__ import annotations

import re
from typing import Sequence

from .. import formats
from ..checks.coverage import (STATE_MISSING, STATE_NOT_ESTABLISHED, bullet_states, gaps_names_bullet,
                               subtopics_for)
from ..checks.findings import Findings
from ..run.plan import Plan

MAX_REASON_CHARS = 300
NO_FILE = "no findings file"
NO_FILE_REASON = "the researcher returned without writing one"
_GAPS_HEADING = re.compile(r"^##\s+" + r"\s*".join(re.escape(w) for w in formats.REPORT_SECTIONS[2].split())
                           + r"\s*$", re.IGNORECASE)


def plain(reason: str | None) -> str:
    """A findings file's reason as one bounded line that no Markdown reads as structure."""
    text = " ".join((reason or "no reason given").split()).replace("[", "(").replace("]", ")")
    text = text.rstrip(".") or "no reason given"
    return text if len(text) <= MAX_REASON_CHARS else text[:MAX_REASON_CHARS - 1].rstrip() + "\u2026"


def words(bullet_text: str) -> str:
    """A bullet's words as a Gaps line names it: one line, no mark Markdown reads as structure
    (`coverage.gaps_names_bullet` still recognises them as the bullet's)."""
    return " ".join(bullet_text.split()).replace("[", "(").replace("]", ")").replace("*", "")


def subtopic_line(name: str, status: str, reason: str | None, bullets: Sequence[str]) -> str:
    """A failed subtopic's line, naming the bullets it leaves open by their words (`bullets`)."""
    named = "; ".join('"' + words(b) + '"' for b in bullets)
    tail = f" Not established: {named}." if bullets else ""
    return f'- **Subtopic "{" ".join(name.split())}"** ({status}): {plain(reason)}.{tail}'


def bullet_line(bullet_text: str, reason: str | None, bullet_id: str = "", partly: bool = False) -> str:
    """A bullet's line, by its words; the findings' own `<id>: ` before each reason is left out."""
    label = re.compile(r"^\s*" + re.escape(bullet_id) + r"\s*:\s*") if bullet_id else None
    parts = [(label.sub("", part) if label else part).rstrip(". ") for part in (reason or "").split("; ")]
    said = "established only in part; not established" if partly else "not established"
    return f"- **{words(bullet_text)}**: {said}: {plain('; '.join(p for p in parts if p) or None)}."


def gap_lines(plan: Plan, findings: dict[str, Findings], unreadable: dict[str, str],
              gaps: str | None) -> list[str]:
    """The bullets for every recorded failure that `gaps` (Gaps & Limitations' text as
    report.gaps_text gives it, None when absent) does not name yet. `unreadable`: why
    each findings file that is there could not be read, by slug."""
    states = bullet_states(plan, findings, unreadable)
    folded = gaps or ""
    lines: list[str] = []
    listed: set[str] = set()  # ids a subtopic line names
    for subtopic in plan.all_subtopics:
        found = findings.get(subtopic.slug)
        if found is None:
            status, reason = ("unreadable", unreadable[subtopic.slug]) if subtopic.slug in unreadable \
                else (NO_FILE, NO_FILE_REASON)
        elif found.status in (formats.STATUS_FAILED, formats.STATUS_EMPTY):
            status, reason = found.status, found.reason
        else:
            continue
        if " ".join(subtopic.name.split()).casefold() in folded or subtopic.slug.casefold() in folded:
            continue
        left = [s.bullet for s in states if s.state == STATE_MISSING and subtopic in subtopics_for(plan, s.bullet)]
        listed.update(b.id for b in left)
        lines.append(subtopic_line(subtopic.name, status, reason, [b.text for b in left]))
    for state in states:
        if state.state in (STATE_NOT_ESTABLISHED, STATE_MISSING) and state.bullet.id not in listed \
                and not gaps_names_bullet(gaps, state.bullet):
            lines.append(bullet_line(state.bullet.text, state.reason, state.bullet.id, state.partly))
    return lines


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
