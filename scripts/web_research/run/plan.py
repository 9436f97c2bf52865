"""Parse plan.md, the reviewed research plan, into a `Plan`.

The skill writes plan.md, a person may edit it at the review gate, and the
briefs are derived from it mechanically; so the parser is strict and every
error names the line and what was expected, instead of guessing what an
edited plan meant. Its structure (which lines are headings, which bullets and
where each ends) is the one Markdown parser's (core/markdown_doc.py), as for
every other Markdown file of a run; the text of a question, a bullet or a
budget line is taken from the source lines as written.

Format (section names come from `formats.py`):

    # optional title
    ## Research question
    <the question, verbatim; plain lines (canonical) or one level of `> ` quote>
    ## Scope notes                    (optional: the user's answers to clarifying questions)
    <non-empty text, copied into every brief>
    ## Subtopics
    ### [N. ]<name>
    - <what it must establish>        (`- ` or `* `; indented lines continue a bullet)
    ## Synthesis approach
    <non-empty text>
    ## Budget
    Tier: quick | standard | deep     (each of these lines may be a bullet; other lines are free text)
    Searches per subagent: N          (overrides the tier's default)
    Page reads per subagent: N        (overrides the tier's default)
    Researchers: N                    (optional, 1 to MAX_PARALLEL_RESEARCHERS: how many run at once)
    Deepen: yes | no                  (optional; yes grants a second wave to a tier without one)
    ## Second wave                    (optional, at most one, written after the first wave returned)
    ### <name>                        (1 to MAX_SECOND_WAVE_SUBTOPICS subtopics, slugs new to the plan)
    - <bullet id>[: <how to approach it this time>]   (one per first-wave bullet it targets)

Bullet ids: the Nth bullet of the Mth first-wave subtopic is `M.N` (`Bullet.id`);
briefs show them, findings are organised by them, and `coverage.py` checks
that the report covers each one. Second-wave subtopics own no bullets of their
own: they target first-wave ids.

What a tier means and what a plan without a `Tier:` line gets: budget.py.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple, Sequence

from .budget import (
    PLAN_PAGE_READS_LINE,
    PLAN_TIER_LINE,
    TIER_NAMES,
    TIERS,
    effective_budget,
    tier_refusal,
    tier_defaults,
)
from ..formats import (
    BULLET_ID_PATTERN,
    MAX_SECOND_WAVE_SUBTOPICS,
    PLAN_DEEPEN_LINE,
    PLAN_SECTION_SECOND_WAVE,
    CLIENT_REFUSED_FILE_PREFIXES,
    MAX_PARALLEL_RESEARCHERS,
    MAX_SUBTOPICS,
    MIN_SUBTOPICS,
    PLAN_BUDGET_LINE,
    PLAN_RESEARCHERS_LINE,
    PLAN_FILE,
    PLAN_SECTION_BUDGET,
    PLAN_OPTIONAL_SECTIONS,
    PLAN_SECTION_QUESTION,
    PLAN_SECTION_SCOPE_NOTES,
    PLAN_SECTION_SUBTOPICS,
    PLAN_SECTION_SYNTHESIS,
    PLAN_SECTIONS,
    RUN_STATE_DIR,
    START_RECORD_FILE,
)
from ..core.markdown_doc import Document, parse_markdown
from ..core.slug import slugify
from ..core.fsutil import RunFileError, read_run_text


class PlanError(ValueError):
    """A malformed plan; `str()` is `<path>:<line>: <message>` like a compiler error, one line per
    mistake when the plan has several (`errors`, in line order: all are listed at once, so a
    plan is fixed in one round)."""

    def __init__(self, path: Path | str | None, line: int, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        self.errors: list[PlanError] = [self]
        super().__init__(f"{path if path is not None else PLAN_FILE}:{line}: {message}")

    @classmethod
    def many(cls, errors: Sequence[PlanError]) -> PlanError:
        """One error standing for all of `errors` (at least one): the first's line and message,
        every error's line in `str()`."""
        ordered = sorted(errors, key=lambda e: e.line)
        first = cls(ordered[0].path, ordered[0].line, ordered[0].message)
        first.errors = list(ordered)
        first.args = ("\n".join(str(e) for e in ordered),)
        return first

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else super().__str__()


class Subtopic(NamedTuple):
    name: str
    slug: str
    establish: list[str]  # first wave: what it must establish; second wave: the approach per target ('' if none)
    line: int  # line of the `### ` heading (1-based)
    number: int | None = None  # first wave: its place in the plan, from 1 (the M of bullet ids M.N)
    targets: tuple[str, ...] = ()  # second wave: the first-wave bullet ids it targets, in order

    @property
    def second_wave(self) -> bool:
        return self.number is None

    @property
    def bullet_ids(self) -> tuple[str, ...]:
        """The ids its findings are organised by: its own bullets', or the ones it targets."""
        if self.second_wave:
            return self.targets
        return tuple(f"{self.number}.{index}" for index in range(1, len(self.establish) + 1))


class Bullet(NamedTuple):
    """One thing a first-wave subtopic must establish, with its stable id `M.N`."""

    id: str
    text: str
    subtopic: Subtopic


class Plan(NamedTuple):
    question: str
    subtopics: list[Subtopic]
    synthesis: str
    title: str | None = None
    tier: str | None = None  # None: no `Tier:` line (an older or hand-written plan)
    searches_per_subagent: int | None = None  # as stated in the plan, None when not stated
    page_reads_per_subagent: int | None = None  # as stated in the plan, None when not stated
    researchers: int = MAX_PARALLEL_RESEARCHERS  # researchers at once (the plan's `Researchers: N`)
    deepen: bool = False  # the plan's `Deepen: yes`: a second wave even where the tier has none
    # The `## Second wave` section's subtopics (parse_plan gives a list; a NamedTuple's default is shared, so ()).
    second_wave: Sequence[Subtopic] = ()

    @property
    def all_subtopics(self) -> list[Subtopic]:
        """Both waves, first wave first: every subtopic that gets a brief and a findings file."""
        return [*self.subtopics, *self.second_wave]

    @property
    def bullets(self) -> list[Bullet]:
        """Every first-wave bullet with its id, in plan order."""
        return [Bullet(f"{s.number}.{index}", text, s)
                for s in self.subtopics for index, text in enumerate(s.establish, start=1)]
    scope_notes: str | None = None  # the `## Scope notes` text, None when the plan has none

    @property
    def budget(self) -> int:
        """Web searches per researcher: the stated number, else the tier's (budget.py)."""
        return effective_budget(self).searches_per_researcher


class _Section(NamedTuple):
    name: str  # canonical name from formats.PLAN_SECTIONS
    line: int  # line of the `## ` heading
    body: list[tuple[int, str]]  # (line number, text) after the heading (filled while splitting)


class _Outline(NamedTuple):
    """What the Markdown parser found in plan.md: the level-3 headings (line -> text) and the
    outermost list items (line -> last line), which are the subtopics and their bullets."""

    subheadings: dict[int, str]
    items: dict[int, int]


_H3_NUMBER = re.compile(r"^\d+\.(?:\s+|$)")
_BULLET = re.compile(r"^[-*][ \t]+(.*)$|^[-*]$")
_BUDGET_LABELS = (PLAN_TIER_LINE, PLAN_BUDGET_LINE, PLAN_PAGE_READS_LINE, PLAN_RESEARCHERS_LINE, PLAN_DEEPEN_LINE)
_TARGET = re.compile(r"^\[?(" + BULLET_ID_PATTERN + r")\]?(?:\s*[:.\-\u2013\u2014]\s*|\s+|$)(.*)$")
_BUDGET = re.compile(
    r"^(" + "|".join(re.escape(label) for label in _BUDGET_LABELS) + r")\s*:\s*(.*?)\s*$", re.IGNORECASE)
_KNOWN_SECTIONS = (*PLAN_SECTIONS, *PLAN_OPTIONAL_SECTIONS, PLAN_SECTION_SECOND_WAVE)
_SECTION_BY_KEY = {name.casefold(): name for name in _KNOWN_SECTIONS}


def _lines(text: str) -> list[str]:
    # Split on \n only: str.splitlines() would also split on characters such as
    # U+2028 that may legitimately sit inside a question (markdown-it numbers lines the same way).
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _outline(document: Document) -> _Outline:
    return _Outline({h.line: h.text for h in document.headings if h.level == 3},
                    {i.line: i.end for i in document.items if i.depth == 0})


def _split_sections(document: Document, lines: list[str], path: Path | None,
                    errors: list[PlanError]) -> tuple[str | None, dict[str, _Section]]:
    title: str | None = None
    sections: dict[str, _Section] = {}
    current: _Section | None = None
    titles = {h.line: h.text for h in document.headings if h.level == 1}
    starts = {h.line: h.text for h in document.headings if h.level == 2}
    before_first = False  # an error about text before the first section was recorded
    for number, line in enumerate(lines, start=1):
        if number in starts:
            key = starts[number].casefold()
            current = _Section("", number, [])  # the lines of a section in error are skipped
            if key not in _SECTION_BY_KEY:
                expected = ", ".join(f"'## {name}'" for name in _KNOWN_SECTIONS)
                errors.append(PlanError(path, number, f"unknown section '{line.strip()}'; expected one of {expected}"))
                continue
            name = _SECTION_BY_KEY[key]
            if name in sections:
                errors.append(PlanError(
                    path, number,
                    f"duplicate section '## {name}' (first at line {sections[name].line})",
                ))
                continue
            current = sections[name] = _Section(name, number, [])
            continue
        if current is not None:
            current.body.append((number, line))
            continue
        if not line.strip():
            continue
        if number in titles and title is None:
            title = titles[number]
            continue
        if not before_first:
            before_first = True
            errors.append(PlanError(
                path, number,
                f"unexpected text before the first section; expected '## {PLAN_SECTIONS[0]}'",
            ))
    return title, sections


def split_second_wave(text: str) -> tuple[str, str | None]:
    """(plan.md before its `## Second wave` heading, the text from that heading on, or None when
    it has no such section), the heading found as parse_plan finds it."""
    lines = _lines(text.removeprefix("\ufeff"))
    for heading in parse_markdown("\n".join(lines)).headings:
        if heading.level == 2 and heading.text.casefold() == PLAN_SECTION_SECOND_WAVE.casefold():
            return "\n".join(lines[:heading.line - 1]), "\n".join(lines[heading.line - 1:])
    return text, None


def _missing_section_line(name: str, sections: dict[str, _Section], line_count: int) -> int:
    """The line where a missing section was expected: where the next known section starts."""
    later = PLAN_SECTIONS[PLAN_SECTIONS.index(name) + 1:]
    for other in later:
        if other in sections:
            return sections[other].line
    return max(line_count, 1)


def _strip_blank_edges(body: list[tuple[int, str]]) -> list[tuple[int, str]]:
    start, end = 0, len(body)
    while start < end and not body[start][1].strip():
        start += 1
    while end > start and not body[end - 1][1].strip():
        end -= 1
    return body[start:end]


def _parse_question(section: _Section, path: Path | None, expected: str | None = None) -> str:
    body = _strip_blank_edges(section.body)
    texts = [text for _, text in body]
    if texts and all(text.startswith(">") for text in texts):
        texts = [text[2:] if text.startswith("> ") else text[1:] for text in texts]
    question = "\n".join(texts).strip()
    if not question:
        raise PlanError(path, section.line, f"section '## {section.name}' is empty; expected the research question verbatim")
    if expected is not None and not same_question(question, expected):
        raise PlanError(path, body[0][0] if body else section.line,
                        f"the research question differs from the one start recorded; expected it verbatim, "
                        f"as start printed it: {expected}")
    return question


def same_question(a: str, b: str) -> bool:
    """Whether two spellings of the question are the same question: equal once whitespace (a
    line wrapped in a plan) is folded; every other character counts."""
    return " ".join(a.split()) == " ".join(b.split())


def _subtopic_name(heading: str, number: int, path: Path | None) -> str:
    name = _H3_NUMBER.sub("", heading, count=1).strip()
    if not name:
        raise PlanError(path, number, "empty subtopic name; expected '### <name>'")
    return name


def _subtopic_drafts(section: _Section, outline: _Outline, path: Path | None,
                     errors: list[PlanError]) -> list[tuple[str, int, list[str]]]:
    """(name, heading line, bullets) of each `### ` subtopic in a section; each line in error
    is recorded in `errors` and skipped. A bullet is an outermost `- ` or `* ` list item; its
    indented lines (a wrapped line, a nested list) continue its text, and a line the parser
    would join to it without indentation is refused, as one that is not a bullet."""
    drafts: list[tuple[str, int, list[str]]] = []
    item_end = 0  # the last line of the bullet being read
    for number, line in section.body:
        if number <= item_end and (line[:1] in (" ", "\t") or not line.strip()):
            if line.strip() and drafts[-1][2]:
                drafts[-1][2][-1] = f"{drafts[-1][2][-1]} {line.strip()}".strip()
            continue
        if not line.strip():
            continue
        if number in outline.subheadings:
            try:
                drafts.append((_subtopic_name(outline.subheadings[number], number, path), number, []))
            except PlanError as error:
                errors.append(error)
                drafts.append(("", number, ["(unnamed)"]))  # its bullets still belong to it
            continue
        if not drafts:
            errors.append(PlanError(path, number, "expected a subtopic heading '### <name>'"))
            continue
        name, _, establish = drafts[-1]
        bullet = _BULLET.match(line.lstrip()) if number in outline.items else None
        if bullet:
            item_end = outline.items[number]
            item = (bullet.group(1) or "").strip()
            if not item and item_end == number:
                errors.append(PlanError(path, number,
                                        f"empty bullet under subtopic '{name}'; expected what it must establish"))
                continue
            establish.append(item)
        else:
            errors.append(PlanError(
                path, number,
                f"expected a bullet ('- ' or '* ') of what subtopic '{name}' must establish",
            ))
    return [d for d in drafts if d[0]]


def _checked_slug(name: str, number: int, path: Path | None, seen: dict[str, Subtopic]) -> str:
    slug = slugify(name)
    refused = next((w for w in CLIENT_REFUSED_FILE_PREFIXES if slug.startswith(w)), None)
    if refused:
        raise PlanError(
            path, number,
            f"subtopic '{name}' would get the findings file '{slug}.md', and Claude Code refuses a "
            f"researcher's file whose name starts with '{refused}'; rename the subtopic so that it "
            f"does not start with {', '.join(CLIENT_REFUSED_FILE_PREFIXES)}",
        )
    if slug in seen:
        raise PlanError(
            path, number,
            f"subtopic '{name}' has the same slug '{slug}' as subtopic '{seen[slug].name}' at line {seen[slug].line}; rename one",
        )
    return slug


def _parse_subtopics(section: _Section, outline: _Outline, path: Path | None,
                     errors: list[PlanError]) -> list[Subtopic]:
    drafts = _subtopic_drafts(section, outline, path, errors)
    if not (MIN_SUBTOPICS <= len(drafts) <= MAX_SUBTOPICS):
        where = drafts[MAX_SUBTOPICS][1] if len(drafts) > MAX_SUBTOPICS else section.line
        errors.append(PlanError(
            path, where,
            f"found {len(drafts)} subtopics; expected {MIN_SUBTOPICS} to {MAX_SUBTOPICS} '### ' headings under '## {section.name}'",
        ))
    subtopics: list[Subtopic] = []
    seen: dict[str, Subtopic] = {}
    for place, (name, number, establish) in enumerate(drafts, start=1):
        try:
            if not establish:
                raise PlanError(path, number, f"subtopic '{name}' has no bullets; expected at least one '- ' line "
                                              "of what it must establish")
            slug = _checked_slug(name, number, path, seen)
        except PlanError as error:
            errors.append(error)
            continue
        seen[slug] = Subtopic(name=name, slug=slug, establish=establish, line=number, number=place)
        subtopics.append(seen[slug])
    return subtopics


def _parse_second_wave(section: _Section, outline: _Outline, first_wave: list[Subtopic], allowed: bool,
                       path: Path | None) -> list[Subtopic]:
    """`## Second wave`: new subtopics, each bullet naming a first-wave bullet id it targets."""
    if not allowed:
        raise PlanError(
            path, section.line,
            f"'## {section.name}' is not allowed by this plan's budget; a second wave needs 'Tier: deep' "
            f"or '{PLAN_DEEPEN_LINE}: yes' (the caller's deepen: true)",
        )
    found: list[PlanError] = []
    drafts = _subtopic_drafts(section, outline, path, found)
    if found:
        raise PlanError.many(found)
    if not (1 <= len(drafts) <= MAX_SECOND_WAVE_SUBTOPICS):
        where = drafts[MAX_SECOND_WAVE_SUBTOPICS][1] if len(drafts) > MAX_SECOND_WAVE_SUBTOPICS else section.line
        raise PlanError(path, where, f"found {len(drafts)} second-wave subtopics; expected 1 to "
                                     f"{MAX_SECOND_WAVE_SUBTOPICS} '### ' headings under '## {section.name}'")
    ids = {f"{s.number}.{i}" for s in first_wave for i in range(1, len(s.establish) + 1)}
    seen: dict[str, Subtopic] = {s.slug: s for s in first_wave}
    targeted: dict[str, str] = {}  # bullet id -> second-wave subtopic name
    out: list[Subtopic] = []
    for name, number, bullets in drafts:
        if not bullets:
            raise PlanError(path, number, f"second-wave subtopic '{name}' has no bullets; expected one "
                                          "'- <bullet id>' line per first-wave bullet it targets, such as '- 2.1'")
        targets: list[str] = []
        approaches: list[str] = []
        for bullet in bullets:
            match = _TARGET.match(bullet)
            if not match or match.group(1) not in ids:
                raise PlanError(path, number, f"second-wave subtopic '{name}' has the bullet '{bullet}'; expected "
                                              "it to start with the id of a first-wave bullet "
                                              f"({', '.join(sorted(ids, key=_id_order))})")
            target = match.group(1)
            if target in targeted:
                raise PlanError(path, number, f"bullet {target} is targeted by second-wave subtopics "
                                              f"'{targeted[target]}' and '{name}'; give each bullet to one")
            targeted[target] = name
            targets.append(target)
            approaches.append(match.group(2).strip())
        slug = _checked_slug(name, number, path, seen)
        seen[slug] = Subtopic(name=name, slug=slug, establish=approaches, line=number, targets=tuple(targets))
        out.append(seen[slug])
    return out


def _id_order(bullet_id: str) -> tuple[int, int]:
    major, _, minor = bullet_id.partition(".")
    return int(major), int(minor)


def _parse_synthesis(section: _Section, path: Path | None) -> str:
    text = "\n".join(line for _, line in _strip_blank_edges(section.body)).strip()
    if not text:
        raise PlanError(path, section.line, f"section '## {section.name}' is empty; expected how the findings will be combined")
    return text


def _parse_scope_notes(section: _Section | None, path: Path | None) -> str | None:
    """The user's answers to clarifying questions, as written (None without the section)."""
    if section is None:
        return None
    text = "\n".join(line for _, line in _strip_blank_edges(section.body)).strip()
    if not text:
        raise PlanError(path, section.line, f"section '## {section.name}' is empty; expected the user's answers "
                        "to the clarifying questions, or no such section")
    return text


def _plain_budget_line(line: str) -> str:
    """Drop a bullet marker and bold/italic markers so `- **Searches per subagent:** 4` matches."""
    bullet = _BULLET.match(line.strip())
    text = (bullet.group(1) or "") if bullet else line.strip()
    return text.replace("**", "").replace("__", "")


class _BudgetLines(NamedTuple):
    tier: str | None = None
    searches: int | None = None
    page_reads: int | None = None
    researchers: int | None = None
    deepen: bool | None = None
    line: int = 0  # where a difference from start's record is pointed at: the Tier line, else the heading


def _budget_value(label: str, value: str, number: int, path: Path | None) -> str | int:
    if label == PLAN_TIER_LINE:
        tier = value.casefold()
        if tier not in TIERS:
            raise PlanError(path, number, f"'{label}' is '{value}'; expected one of {', '.join(TIER_NAMES)}")
        return tier
    if label == PLAN_DEEPEN_LINE:
        answer = value.casefold()
        if answer not in ("yes", "no"):
            raise PlanError(path, number, f"'{label}' is '{value}'; expected yes or no")
        return answer
    high, why = _budget_ceiling(label)
    if not value.isascii() or not value.isdigit() or int(value) < 1 or int(value) > high:
        raise PlanError(path, number, f"'{label}' is '{value}'; expected a whole number from 1 to {high}{why}")
    return int(value)


def _budget_ceiling(label: str) -> tuple[int, str]:
    """The highest value a budget line may state, and why: an override may not go beyond what
    the widest tier allows (budget.TIERS), nor researchers beyond the hooks' cap."""
    if label == PLAN_RESEARCHERS_LINE:
        return MAX_PARALLEL_RESEARCHERS, " (the most that run at once)"
    field = "searches" if label == PLAN_BUDGET_LINE else "page_reads"
    widest = max(TIERS.values(), key=lambda tier: getattr(tier, field))
    return getattr(widest, field), f" (the most any tier allows: 'Tier: {widest.name}')"


def _parse_budget(section: _Section, path: Path | None, errors: list[PlanError]) -> _BudgetLines:
    found: dict[str, tuple[str | int, int]] = {}  # canonical label -> (value, line)
    canonical = {label.casefold(): label for label in _BUDGET_LABELS}
    for number, line in section.body:
        match = _BUDGET.match(_plain_budget_line(line))
        if not match:
            continue
        label = canonical[match.group(1).casefold()]
        if label in found:
            errors.append(PlanError(path, number, f"duplicate '{label}' line (first at line {found[label][1]})"))
            continue
        value = match.group(2).strip("*_` \t")
        try:
            found[label] = (_budget_value(label, value, number, path), number)
        except PlanError as error:
            errors.append(error)
    stated = {label: value for label, (value, _line) in found.items()}
    return _BudgetLines(
        tier=stated.get(PLAN_TIER_LINE),  # type: ignore[arg-type]
        searches=stated.get(PLAN_BUDGET_LINE),  # type: ignore[arg-type]
        page_reads=stated.get(PLAN_PAGE_READS_LINE),  # type: ignore[arg-type]
        researchers=stated.get(PLAN_RESEARCHERS_LINE),  # type: ignore[arg-type]
        deepen=stated.get(PLAN_DEEPEN_LINE) == "yes",
        line=found[PLAN_TIER_LINE][1] if PLAN_TIER_LINE in found else section.line,
    )


def _check_tier_subtopics(subtopics: list[Subtopic], tier: str | None, path: Path | None) -> None:
    """A tier caps the number of subtopics; point at the first one too many."""
    if tier is None or len(subtopics) <= TIERS[tier].max_subtopics:
        return
    allowed = TIERS[tier].max_subtopics
    wider = [name for name, t in TIERS.items() if t.max_subtopics >= len(subtopics)]
    raise PlanError(
        path, subtopics[allowed].line,
        f"found {len(subtopics)} subtopics; 'Tier: {tier}' allows at most {allowed}: "
        f"merge or remove subtopics" + (f", or choose 'Tier: {wider[0]}'" if wider else ""),
    )


def parse_plan(text: str, path: Path | None = None, expected_question: str | None = None,
               expected_tier: str | None = None, expected_deepen: bool | None = None) -> Plan:
    """Parse plan.md text; raise `PlanError` naming every offending line (`errors`).

    `expected_question`, `expected_tier`, `expected_deepen`: what `start` recorded (run/choices.py);
    a plan whose question or budget choice differs from it is refused. A UTF-8 byte-order mark is
    ignored."""
    lines = _lines(text.removeprefix("\ufeff"))
    document = parse_markdown("\n".join(lines))
    outline = _outline(document)
    errors: list[PlanError] = []
    title, sections = _split_sections(document, lines, path, errors)
    last_line = len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)
    for name in PLAN_SECTIONS:
        if name not in sections:
            hidden = next((n for n, line in enumerate(lines, start=1)
                           if line.strip().casefold() == f"## {name}".casefold()), None)
            errors.append(PlanError(path, _missing_section_line(name, sections, last_line),
                                    f"missing section '## {name}'") if hidden is None else PlanError(
                path, hidden, f"'## {name}' is not read as a heading: a code block (```), an HTML comment (<!--) "
                              "or an indented block above it runs over this line; close or remove it"))
            sections[name] = _Section(name, 0, [])  # checked no further: its absence is the mistake
    empty = _Section("", 0, [])

    def attempt(parse, *args):  # noqa: ANN001, ANN202 - one section's parser; its error is collected
        try:
            return parse(*args)
        except PlanError as error:
            errors.extend(error.errors)
            return None

    present = {name: section for name, section in sections.items() if section.line}
    question = attempt(_parse_question, present.get(PLAN_SECTION_QUESTION, empty), path, expected_question) \
        if PLAN_SECTION_QUESTION in present else None
    subtopics = _parse_subtopics(present[PLAN_SECTION_SUBTOPICS], outline, path, errors) \
        if PLAN_SECTION_SUBTOPICS in present else []
    synthesis = attempt(_parse_synthesis, present[PLAN_SECTION_SYNTHESIS], path) \
        if PLAN_SECTION_SYNTHESIS in present else None
    scope_notes = attempt(_parse_scope_notes, sections.get(PLAN_SECTION_SCOPE_NOTES), path)
    budget = _parse_budget(present[PLAN_SECTION_BUDGET], path, errors) \
        if PLAN_SECTION_BUDGET in present else _BudgetLines()
    attempt(_check_tier_subtopics, subtopics, budget.tier, path)
    held = tier_refusal(budget.tier, bool(budget.deepen), expected_tier, expected_deepen) \
        if PLAN_SECTION_BUDGET in present else None
    if held is not None:
        errors.append(PlanError(path, budget.line, held))
    second_wave: list[Subtopic] = []
    if PLAN_SECTION_SECOND_WAVE in sections and not errors:
        allowed = tier_defaults(budget.tier).second_wave or bool(budget.deepen)
        second_wave = attempt(_parse_second_wave, sections[PLAN_SECTION_SECOND_WAVE], outline, subtopics, allowed, path) or []
    if errors:
        raise PlanError.many(errors)
    assert question is not None and synthesis is not None  # noqa: S101 - no error means both parsed
    return Plan(
        question=question,
        subtopics=subtopics,
        synthesis=synthesis,
        title=title,
        tier=budget.tier,
        searches_per_subagent=budget.searches,
        page_reads_per_subagent=budget.page_reads,
        researchers=MAX_PARALLEL_RESEARCHERS if budget.researchers is None else budget.researchers,
        deepen=bool(budget.deepen),
        second_wave=second_wave,
        scope_notes=scope_notes,
    )


def second_wave_subtopics(plan: Plan) -> list[Subtopic]:
    """The subtopics of plan.md's `## Second wave` section (none when it has no such section):
    what the dispatch cap counts beyond the first wave."""
    return list(plan.second_wave)


def load_plan(path: Path, run_dir: Path | None = None, expected_question: str | None = None,
              expected_tier: str | None = None, expected_deepen: bool | None = None) -> Plan:
    """Read and parse a plan file (UTF-8), a regular file inside `run_dir`
    (default: the plan's own folder), size-bounded: see `fsutil.read_run_file`.
    `expected_question`: see `parse_plan`."""
    path = Path(path)
    try:
        text = read_run_text(path, path.parent if run_dir is None else run_dir)
    except RunFileError as exc:
        if exc.missing:
            raise PlanError(path, 1, "file not found; expected the run's plan.md") from None
        raise PlanError(path, 1, exc.reason) from None
    return parse_plan(text, path, expected_question, expected_tier, expected_deepen)


# --- the skeleton `start` writes, and the question it records ----------------------------

def render_skeleton(question: str, tier: str | None, deepen: bool = False) -> str:
    """The plan.md `start` writes: the question verbatim, the Budget lines of start's inputs,
    and the other sections empty, in order (formats.PLAN_SECTIONS), for the model to fill."""
    parts: list[str] = []
    for name in PLAN_SECTIONS:
        parts += [f"## {name}", ""]
        if name == PLAN_SECTION_QUESTION:
            parts += [question.strip(), ""]
        elif name == PLAN_SECTION_BUDGET:
            parts += ([f"{PLAN_TIER_LINE}: {tier}"] if tier else []) + ([f"{PLAN_DEEPEN_LINE}: yes"] if deepen else [])
            parts += [""]
    return "\n".join(parts).rstrip("\n") + "\n"


def complete_plan(text: str, question: str, tier: str | None, deepen: bool = False) -> str:
    """plan.md as the model's Write gives it, completed with what the person chose at `start`:
    the question verbatim as its first section and the Budget's `Tier:` (and `Deepen: yes`) line.
    So the model writes only what it decides (Subtopics, Synthesis approach, any other Budget
    line) and never copies the question. A Question section or a Tier or Deepen line of its own is
    replaced; text above its first `## ` heading (a title) is dropped; every other section stays,
    in its order, Budget after them and a Second wave last."""
    sections: list[tuple[str | None, list[str]]] = []
    for line in text.splitlines():
        heading = line[3:].strip() if line.startswith("## ") else None
        if heading is not None:
            sections.append((_SECTION_BY_KEY.get(heading.casefold(), heading), []))
        elif sections:
            sections[-1][1].append(line)
    budget = [line for name, body in sections if name == PLAN_SECTION_BUDGET for line in body
              if _plain_budget_line(line).split(":", 1)[0].strip().casefold()
              not in (PLAN_TIER_LINE.casefold(), PLAN_DEEPEN_LINE.casefold())]
    budget = _strip_lines(budget)
    skeleton = render_skeleton(question, tier, deepen).rstrip("\n").split("\n")
    head = skeleton[:skeleton.index(f"## {PLAN_SECTION_SUBTOPICS}")]
    tail = skeleton[skeleton.index(f"## {PLAN_SECTION_BUDGET}"):]
    middle: list[str] = []
    wave: list[str] = []
    for name, body in sections:
        if name in (PLAN_SECTION_QUESTION, PLAN_SECTION_BUDGET):
            continue
        target = wave if name == PLAN_SECTION_SECOND_WAVE else middle
        target += [f"## {name}", "", *_strip_lines(body), ""]
    out = [*head, *middle, *tail, *budget]
    if wave:
        out += ["", *wave]
    return "\n".join(out).rstrip("\n") + "\n"


def _strip_lines(lines: list[str]) -> list[str]:
    """`lines` without blank lines at either end."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def start_record_path(run_dir: Path) -> Path:
    return Path(run_dir) / RUN_STATE_DIR / START_RECORD_FILE
