"""The Gaps & Limitations bullets `finish` writes, so the model never copies one.

What the run itself records it could not establish is written by code at the top
of report.md's Gaps & Limitations, one shape per kind. A line is built only from
fixed words and the plan as written before any page was read (a first-wave
subtopic's name, a bullet's words, a findings file's status): nothing a researcher
wrote reaches report.md this way (issue 43). The researcher's reasons stay in its
findings file, which the line names; `gaps` and the view show them, marked as the
researcher's words.

- `- **Subtopic "<name>"** (<failed | empty | no findings file | unreadable>): <fixed words>. Not established: "<bullet>"; ….`
- `- **<bullet>**: not established; <fixed words>.` (a bullet no subtopic line names)
- `- **<bullet>**: established only in part; <fixed words>.` (sources cited, the rest open)

A bullet is named by its words, never by its plan id: a reader of the report never saw
the plan. A second-wave subtopic was named after the first wave's pages were read, so
its name is never quoted: its line names it by its place (`second_wave_label`, which
`report.gaps.names.<slug>` accepts) and the first-wave bullets it aimed at.

Every line is finish's own: `own_lines` gives every line finish could write for the
run as it stands, and the checks recognise those lines by their text (never judged as
a claim or as the model's Gaps prose), so the plugin's words never fail its checks.
The model adds only its own limitations, in prose. A failure Gaps already names gets no
second bullet. `finish` keeps the lines it wrote in its record and takes them out again
on its next run (also where the model added references to them) before writing the
current ones, so a bullet a later wave covers disappears.
Pure functions; report/finish.py does the I/O.
"""
from __future__ import annotations

import re
from typing import Sequence

from .. import formats
from ..checks.coverage import STATE_MISSING, STATE_NOT_ESTABLISHED, STATE_PARTLY, bullet_states, gaps_names_bullet, \
    subtopics_for
# The shapes and the checks' recognition of finish's lines live in checks/ (checks may not import
# report/); the names are re-exported here, where finish writes them.
from ..checks.finish_lines import (NO_FILE, UNREADABLE, bullet_line, is_own, line_for, own_lines,  # noqa: F401
                                   second_wave_label, subtopic_line, subtopic_status, unmarked, words)
from ..checks.findings import Findings
from ..run.plan import Plan

_GAPS_HEADING = re.compile(r"^##\s+" + r"\s*".join(re.escape(w) for w in formats.REPORT_SECTIONS[2].split())
                           + r"\s*$", re.IGNORECASE)


def gap_lines(plan: Plan, findings: dict[str, Findings], unreadable: dict[str, str],
              gaps: str | None) -> list[str]:
    """The bullets for every recorded failure that `gaps` (Gaps & Limitations' text as
    report.gaps_text gives it, None when absent) does not name yet. `unreadable`: why
    each findings file that is there could not be read, by slug (only which: the reason is not written)."""
    states = bullet_states(plan, findings, unreadable)
    folded = gaps or ""
    lines: list[str] = []
    listed: set[str] = set()  # ids a subtopic line names
    for subtopic in plan.all_subtopics:
        status = subtopic_status(subtopic.slug, findings, unreadable)
        if status is None:
            continue
        label = second_wave_label(plan, subtopic)
        if " ".join(subtopic.name.split()).casefold() in folded or subtopic.slug.casefold() in folded \
                or (label is not None and label.casefold() in folded):
            continue
        if label is None:
            listed.update(s.bullet.id for s in states
                          if s.state == STATE_MISSING and subtopic in subtopics_for(plan, s.bullet))
        lines.append(line_for(plan, subtopic, status, states))
    for state in states:
        if state.state in (STATE_NOT_ESTABLISHED, STATE_PARTLY, STATE_MISSING) and state.bullet.id not in listed \
                and not gaps_names_bullet(gaps, state.bullet):
            lines.append(bullet_line(state.bullet.text, state.state))
    return lines


def without(text: str, previous: Sequence[str], own: set[str] = frozenset()) -> str:  # type: ignore[assignment]
    """The report with the lines an earlier `finish` wrote (`previous`), or any it could write now
    (`own`), taken out: each where it still stands, as written or with references a model added,
    with any blank line finish put after the block."""
    if not previous and not own:
        return text
    for block in ("\n".join(previous) + "\n\n", "\n".join(previous) + "\n"):
        if previous and block in text:
            text = text.replace(block, "", 1)
            break
    wanted = set(previous) | set(own)
    return "\n".join(line for line in text.split("\n") if not is_own(line, wanted))


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
