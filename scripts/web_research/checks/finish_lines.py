"""The lines `finish` writes at the top of Gaps & Limitations, as a rule the checks share.

A line is built only from fixed words and the plan as written before any page was read (a
first-wave subtopic's name, a bullet's words, a findings file's status): nothing a researcher
wrote reaches report.md this way (issue 43). The checks recognise finish's lines by computing
them again (`own_lines`, `is_own`): never judged as a claim or as the model's Gaps prose, so the
plugin's own words never fail its checks (issue 42). report/gaps.py writes them; this module
only says what they are (checks may not import report/: tests/unit/test_layout.py).

- `- **Subtopic "<name>"** (<failed | empty | no findings file | unreadable>): <fixed words>. Not established: "<bullet>"; ….`
- `- **Second-wave subtopic <k>** (<status>): <fixed words>. It aimed at: "<bullet>"; ….` (its name,
  written after the first wave's pages were read, is never quoted)
- `- **<bullet>**: not established; <fixed words>.` (a bullet no subtopic line names)
- `- **<bullet>**: established only in part; <fixed words>.` (sources cited, the rest open)
"""
from __future__ import annotations

import re
from typing import Sequence

from .. import formats
from ..run.plan import Plan, Subtopic
from .coverage import (STATE_MISSING, STATE_NOT_ESTABLISHED, STATE_PARTLY, TILDE, BulletState, bullet_states,
                       subtopics_for, visible)
from .findings import Findings

NO_FILE = "no findings file"
UNREADABLE = "unreadable"
# A reference or a number finish gave, as a model may add it to one of finish's lines.
_MARK = re.compile(r"\[\^[^\]\s]*\]")
# ASCII punctuation Markdown may read as structure inside a line (HTML, character references,
# emphasis, code, links, footnotes): escaped, so the line shows and is read as the plan's very words.
_ESCAPED = re.compile(r"([\\`*_\[\]<>&!|])")


def words(text: str) -> str:
    """A plan's words (a bullet, a subtopic's name) as a Gaps line names them: one line, each mark
    Markdown could read as structure escaped (the parsed text is the words themselves, so
    `coverage.gaps_names_bullet` and `report.gaps_name` recognise them). A `~`, which some viewers
    strike out in pairs even escaped (markdown_form refuses a pair), is written as the tilde
    operator `\u223c` that looks the same; coverage.words_key reads the two as one."""
    return _ESCAPED.sub(r"\\\1", " ".join(visible(" ".join(text.split())).split())).replace("~", TILDE)


def _status_words(status: str, where: str) -> str:
    """What a subtopic's status means, in fixed words, naming the file (`where`) that holds the
    researcher's reason."""
    return {formats.STATUS_FAILED: f"its researcher did not complete it; {where} gives the researcher's reason",
            formats.STATUS_EMPTY: f"its researcher found no source that establishes it; {where} gives the "
                                  "researcher's reason",
            NO_FILE: "its researcher returned without findings",
            UNREADABLE: f"{where} cannot be read"}.get(status, "its findings cannot be used")


def subtopic_line(name: str, slug: str, status: str, bullets: Sequence[str], label: str | None = None) -> str:
    """A failed subtopic's line, naming the bullets it leaves open by their words (`bullets`); a
    second-wave subtopic's (`label`, second_wave_label) names the bullets it aimed at instead, and
    neither its name nor its file (whose name is its name's)."""
    named = "; ".join('"' + words(b) + '"' for b in bullets)
    if label is not None:
        aimed = f" It aimed at: {named}." if bullets else ""
        return f"- **{label}** ({status}): {_status_words(status, 'its findings file')}.{aimed}"
    tail = f" Not established: {named}." if bullets else ""
    return f'- **Subtopic "{words(name)}"** ({status}): {_status_words(status, f"findings/{slug}.md")}.{tail}'


def bullet_line(bullet_text: str, state: str) -> str:
    """A bullet's line, by its words: not established, or established only in part (`STATE_PARTLY`).
    It names no subtopic or findings file: Gaps naming a subtopic acknowledges its findings'
    defects (checklist._acknowledge_gaps), which a bullet's line must not do."""
    said = {STATE_PARTLY: "established only in part; the researcher's findings name what is missing",
            STATE_MISSING: "not established; its researchers left no usable findings"}.get(
        state, "not established; no source the researcher's findings cite establishes it")
    return f"- **{words(bullet_text)}**: {said}."


def second_wave_label(plan: Plan, subtopic: Subtopic) -> str | None:
    """How finish's line names a second-wave subtopic: by its place in the second wave (None for
    a first-wave one, named by its name)."""
    if not subtopic.second_wave:
        return None
    return f"Second-wave subtopic {next(i for i, s in enumerate(plan.second_wave, 1) if s.slug == subtopic.slug)}"


def line_for(plan: Plan, subtopic: Subtopic, status: str, states: Sequence[BulletState]) -> str:
    """A failed subtopic's line: a first-wave one names the bullets it leaves missing, a second-wave
    one the first-wave bullets it aimed at."""
    label = second_wave_label(plan, subtopic)
    if label is not None:
        texts = {b.id: b.text for b in plan.bullets}
        return subtopic_line(subtopic.name, subtopic.slug, status, [texts[i] for i in subtopic.targets if i in texts],
                             label)
    left = [s.bullet.text for s in states if s.state == STATE_MISSING and subtopic in subtopics_for(plan, s.bullet)]
    return subtopic_line(subtopic.name, subtopic.slug, status, left)


def subtopic_status(slug: str, findings: dict[str, Findings], unreadable: dict[str, str]) -> str | None:
    """A subtopic's status as its line says it, or None when its findings are usable (ok)."""
    found = findings.get(slug)
    if found is None:
        return UNREADABLE if slug in unreadable else NO_FILE
    return found.status if found.status in (formats.STATUS_FAILED, formats.STATUS_EMPTY) else None


def own_lines(plan: Plan, findings: dict[str, Findings], unreadable: dict[str, str]) -> set[str]:
    """Every line `finish` could write for this run as it stands, whatever Gaps names already:
    the lines the checks recognise as finish's own."""
    states = bullet_states(plan, findings, unreadable)
    out: set[str] = set()
    for subtopic in plan.all_subtopics:
        status = subtopic_status(subtopic.slug, findings, unreadable)
        if status is not None:
            out.add(line_for(plan, subtopic, status, states))
    out.update(bullet_line(s.bullet.text, s.state) for s in states
               if s.state in (STATE_NOT_ESTABLISHED, STATE_PARTLY, STATE_MISSING))
    return out


def unmarked(line: str) -> str:
    """A line without the reference marks a model may have added to it, as finish wrote it."""
    return " ".join(_MARK.sub("", line).split()).replace(" .", ".").replace(" ;", ";")


def is_own(line: str, own: set[str]) -> bool:
    """Whether a report line is one of finish's (`own`), as written or with references added."""
    text = line.strip()
    return text in own or ("[^" in text and unmarked(text) in own)
