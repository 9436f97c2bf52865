"""The Gaps & Limitations bullets `finish` writes for the failures a run records.

- `- **Subtopic "<name>"** (<failed | empty | no findings file | unreadable>): <reason>. Not established: <ids>.`
- `- **Bullet <id>**: not established: <reason>.` (a bullet no subtopic line names)

The lines are built here, in the checks' layer, because verify reads them too: a figure
in Gaps & Limitations carries a reference (statements.py), but the reason a findings file
gives for its failure is quoted as it is, so a line `finish` writes is recognised as one
(`recorded_lines`). A reason comes from a findings file (hostile): it is folded to one
line, bounded, and its brackets made plain so it can never become a reference. Pure.
"""
from __future__ import annotations

import re
from typing import Sequence

from .. import formats
from .coverage import STATE_MISSING, STATE_NOT_ESTABLISHED, bullet_states, gaps_names_bullet, subtopics_for
from .findings import Findings
from ..run.plan import Plan

MAX_REASON_CHARS = 300
NO_FILE = "no findings file"
NO_FILE_REASON = "the researcher returned without writing one"


def plain(reason: str | None) -> str:
    """A findings file's reason as one bounded line that no Markdown reads as structure."""
    text = " ".join((reason or "no reason given").split()).replace("[", "(").replace("]", ")")
    text = text.rstrip(".") or "no reason given"
    return text if len(text) <= MAX_REASON_CHARS else text[:MAX_REASON_CHARS - 1].rstrip() + "\u2026"


def subtopic_line(name: str, status: str, reason: str | None, ids: Sequence[str]) -> str:
    tail = f" Not established: {', '.join(ids)}." if ids else ""
    return f'- **Subtopic "{" ".join(name.split())}"** ({status}): {plain(reason)}.{tail}'


def bullet_line(bullet_id: str, reason: str | None) -> str:
    """A bullet's line; the findings' own `<id>: ` before each reason is left out."""
    label = re.compile(r"^\s*" + re.escape(bullet_id) + r"\s*:\s*")
    parts = [label.sub("", part) for part in (reason or "").split("; ")]
    return f"- **Bullet {bullet_id}**: not established: {plain('; '.join(p for p in parts if p) or None)}."


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
        ids = [s.bullet.id for s in states if s.state == STATE_MISSING and subtopic in subtopics_for(plan, s.bullet)]
        listed.update(ids)
        lines.append(subtopic_line(subtopic.name, status, reason, ids))
    for state in states:
        if state.state in (STATE_NOT_ESTABLISHED, STATE_MISSING) and state.bullet.id not in listed \
                and not gaps_names_bullet(gaps, state.bullet):
            lines.append(bullet_line(state.bullet.id, state.reason))
    return lines


def recorded_lines(plan: Plan, findings: dict[str, Findings], unreadable: dict[str, str]) -> set[str]:
    """Every line `finish` may write for this run's recorded failures, whatever Gaps names: each
    failed subtopic's line, and each bullet's line (written when no subtopic line lists it)."""
    lines = set(gap_lines(plan, findings, unreadable, None))
    lines.update(bullet_line(s.bullet.id, s.reason) for s in bullet_states(plan, findings, unreadable)
                 if s.state in (STATE_NOT_ESTABLISHED, STATE_MISSING))
    return lines
