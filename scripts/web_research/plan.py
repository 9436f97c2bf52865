"""Parse plan.md, the reviewed research plan, into a `Plan`.

The skill writes plan.md, a person may edit it at the review gate, and the
briefs are derived from it mechanically; so the parser is strict and every
error names the line and what was expected, instead of guessing what an
edited plan meant.

Format (section names come from `formats.py`):

    # optional title
    ## Research question
    <the question, verbatim; plain lines (canonical) or one level of `> ` quote>
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

What a tier means and what a plan without a `Tier:` line gets: budget.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .budget import PLAN_PAGE_READS_LINE, PLAN_TIER_LINE, TIER_NAMES, TIERS, effective_budget
from .formats import (
    CLIENT_REFUSED_FILE_PREFIXES,
    MAX_PARALLEL_RESEARCHERS,
    MAX_SUBTOPICS,
    MIN_SUBTOPICS,
    PLAN_BUDGET_LINE,
    PLAN_RESEARCHERS_LINE,
    PLAN_FILE,
    PLAN_SECTION_BUDGET,
    PLAN_SECTION_QUESTION,
    PLAN_SECTION_SUBTOPICS,
    PLAN_SECTION_SYNTHESIS,
    PLAN_SECTIONS,
)
from .slug import slugify


class PlanError(ValueError):
    """A malformed plan; `str()` is `<path>:<line>: <message>` like a compiler error."""

    def __init__(self, path: Path | str | None, line: int, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        super().__init__(f"{path if path is not None else PLAN_FILE}:{line}: {message}")


@dataclass(frozen=True)
class Subtopic:
    name: str
    slug: str
    establish: list[str]
    line: int  # line of the `### ` heading (1-based)


@dataclass(frozen=True)
class Plan:
    question: str
    subtopics: list[Subtopic]
    synthesis: str
    title: str | None = field(default=None)
    tier: str | None = None  # None: no `Tier:` line (an older or hand-written plan)
    searches_per_subagent: int | None = None  # as stated in the plan, None when not stated
    page_reads_per_subagent: int | None = None  # as stated in the plan, None when not stated
    researchers: int = MAX_PARALLEL_RESEARCHERS  # researchers at once (the plan's `Researchers: N`)

    @property
    def budget(self) -> int:
        """Web searches per researcher: the stated number, else the tier's (budget.py)."""
        return effective_budget(self).searches_per_researcher


@dataclass
class _Section:
    name: str  # canonical name from formats.PLAN_SECTIONS
    line: int  # line of the `## ` heading
    body: list[tuple[int, str]]  # (line number, text) after the heading


# ATX headings; an optional closing run of `#` needs a space before it ("C#" stays intact).
_H1 = re.compile(r"^#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_H2 = re.compile(r"^##(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_H3 = re.compile(r"^###(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_H3_NUMBER = re.compile(r"^\d+\.(?:\s+|$)")
_BULLET = re.compile(r"^[-*][ \t]+(.*)$|^[-*]$")
_BUDGET_LABELS = (PLAN_TIER_LINE, PLAN_BUDGET_LINE, PLAN_PAGE_READS_LINE, PLAN_RESEARCHERS_LINE)
_BUDGET = re.compile(
    r"^(" + "|".join(re.escape(label) for label in _BUDGET_LABELS) + r")\s*:\s*(.*?)\s*$", re.IGNORECASE)
_SECTION_BY_KEY = {name.casefold(): name for name in PLAN_SECTIONS}


def _lines(text: str) -> list[str]:
    # Split on \n only: str.splitlines() would also split on characters such as
    # U+2028 that may legitimately sit inside a question.
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _split_sections(lines: list[str], path: Path | None) -> tuple[str | None, dict[str, _Section]]:
    title: str | None = None
    sections: dict[str, _Section] = {}
    current: _Section | None = None
    for number, line in enumerate(lines, start=1):
        heading = _H2.match(line)
        if heading:
            key = (heading.group(1) or "").casefold()
            if key not in _SECTION_BY_KEY:
                expected = ", ".join(f"'## {name}'" for name in PLAN_SECTIONS)
                raise PlanError(path, number, f"unknown section '{line.strip()}'; expected one of {expected}")
            name = _SECTION_BY_KEY[key]
            if name in sections:
                raise PlanError(
                    path, number,
                    f"duplicate section '## {name}' (first at line {sections[name].line})",
                )
            current = sections[name] = _Section(name, number, [])
            continue
        if current is not None:
            current.body.append((number, line))
            continue
        if not line.strip():
            continue
        h1 = _H1.match(line)
        if h1 and title is None:
            title = h1.group(1)
            continue
        raise PlanError(
            path, number,
            f"unexpected text before the first section; expected '## {PLAN_SECTIONS[0]}'",
        )
    return title, sections


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


def _parse_question(section: _Section, path: Path | None) -> str:
    body = _strip_blank_edges(section.body)
    texts = [text for _, text in body]
    if texts and all(text.startswith(">") for text in texts):
        texts = [text[2:] if text.startswith("> ") else text[1:] for text in texts]
    question = "\n".join(texts).strip()
    if not question:
        raise PlanError(path, section.line, f"section '## {section.name}' is empty; expected the research question verbatim")
    return question


def _subtopic_name(heading: str, number: int, path: Path | None) -> str:
    name = _H3_NUMBER.sub("", heading, count=1).strip()
    if not name:
        raise PlanError(path, number, "empty subtopic name; expected '### <name>'")
    return name


def _parse_subtopics(section: _Section, path: Path | None) -> list[Subtopic]:
    drafts: list[tuple[str, int, list[str]]] = []
    for number, line in section.body:
        if not line.strip():
            continue
        heading = _H3.match(line)
        if heading:
            drafts.append((_subtopic_name(heading.group(1) or "", number, path), number, []))
            continue
        if not drafts:
            raise PlanError(path, number, "expected a subtopic heading '### <name>'")
        name, _, establish = drafts[-1]
        bullet = _BULLET.match(line)
        if bullet:
            item = (bullet.group(1) or "").strip()
            if not item:
                raise PlanError(path, number, f"empty bullet under subtopic '{name}'; expected what it must establish")
            establish.append(item)
        elif line[:1] in (" ", "\t") and establish:
            establish[-1] = f"{establish[-1]} {line.strip()}"
        else:
            raise PlanError(
                path, number,
                f"expected a bullet ('- ' or '* ') of what subtopic '{name}' must establish",
            )
    if not (MIN_SUBTOPICS <= len(drafts) <= MAX_SUBTOPICS):
        where = drafts[MAX_SUBTOPICS][1] if len(drafts) > MAX_SUBTOPICS else section.line
        raise PlanError(
            path, where,
            f"found {len(drafts)} subtopics; expected {MIN_SUBTOPICS} to {MAX_SUBTOPICS} '### ' headings under '## {section.name}'",
        )
    subtopics: list[Subtopic] = []
    seen: dict[str, Subtopic] = {}
    for name, number, establish in drafts:
        if not establish:
            raise PlanError(path, number, f"subtopic '{name}' has no bullets; expected at least one '- ' line of what it must establish")
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
        seen[slug] = Subtopic(name=name, slug=slug, establish=establish, line=number)
        subtopics.append(seen[slug])
    return subtopics


def _parse_synthesis(section: _Section, path: Path | None) -> str:
    text = "\n".join(line for _, line in _strip_blank_edges(section.body)).strip()
    if not text:
        raise PlanError(path, section.line, f"section '## {section.name}' is empty; expected how the findings will be combined")
    return text


def _plain_budget_line(line: str) -> str:
    """Drop a bullet marker and bold/italic markers so `- **Searches per subagent:** 4` matches."""
    bullet = _BULLET.match(line.strip())
    text = (bullet.group(1) or "") if bullet else line.strip()
    return text.replace("**", "").replace("__", "")


@dataclass(frozen=True)
class _BudgetLines:
    tier: str | None = None
    searches: int | None = None
    page_reads: int | None = None
    researchers: int | None = None


def _budget_value(label: str, value: str, number: int, path: Path | None) -> str | int:
    if label == PLAN_TIER_LINE:
        tier = value.casefold()
        if tier not in TIERS:
            raise PlanError(path, number, f"'{label}' is '{value}'; expected one of {', '.join(TIER_NAMES)}")
        return tier
    high = MAX_PARALLEL_RESEARCHERS if label == PLAN_RESEARCHERS_LINE else None
    if not value.isascii() or not value.isdigit() or int(value) < 1 or (high is not None and int(value) > high):
        expected = f"a whole number from 1 to {high}" if high is not None else "a whole number of at least 1"
        raise PlanError(path, number, f"'{label}' is '{value}'; expected {expected}")
    return int(value)


def _parse_budget(section: _Section, path: Path | None) -> _BudgetLines:
    found: dict[str, tuple[str | int, int]] = {}  # canonical label -> (value, line)
    canonical = {label.casefold(): label for label in _BUDGET_LABELS}
    for number, line in section.body:
        match = _BUDGET.match(_plain_budget_line(line))
        if not match:
            continue
        label = canonical[match.group(1).casefold()]
        if label in found:
            raise PlanError(path, number, f"duplicate '{label}' line (first at line {found[label][1]})")
        value = match.group(2).strip("*_` \t")
        found[label] = (_budget_value(label, value, number, path), number)
    stated = {label: value for label, (value, _line) in found.items()}
    return _BudgetLines(
        tier=stated.get(PLAN_TIER_LINE),  # type: ignore[arg-type]
        searches=stated.get(PLAN_BUDGET_LINE),  # type: ignore[arg-type]
        page_reads=stated.get(PLAN_PAGE_READS_LINE),  # type: ignore[arg-type]
        researchers=stated.get(PLAN_RESEARCHERS_LINE),  # type: ignore[arg-type]
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


def parse_plan(text: str, path: Path | None = None) -> Plan:
    """Parse plan.md text; raise `PlanError` naming the offending line."""
    lines = _lines(text)
    title, sections = _split_sections(lines, path)
    last_line = len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)
    for name in PLAN_SECTIONS:
        if name not in sections:
            raise PlanError(path, _missing_section_line(name, sections, last_line), f"missing section '## {name}'")
    question = _parse_question(sections[PLAN_SECTION_QUESTION], path)
    subtopics = _parse_subtopics(sections[PLAN_SECTION_SUBTOPICS], path)
    synthesis = _parse_synthesis(sections[PLAN_SECTION_SYNTHESIS], path)
    budget = _parse_budget(sections[PLAN_SECTION_BUDGET], path)
    _check_tier_subtopics(subtopics, budget.tier, path)
    return Plan(
        question=question,
        subtopics=subtopics,
        synthesis=synthesis,
        title=title,
        tier=budget.tier,
        searches_per_subagent=budget.searches,
        page_reads_per_subagent=budget.page_reads,
        researchers=MAX_PARALLEL_RESEARCHERS if budget.researchers is None else budget.researchers,
    )


def load_plan(path: Path, run_dir: Path | None = None) -> Plan:
    """Read and parse a plan file (UTF-8), a regular file inside `run_dir`
    (default: the plan's own folder), size-bounded: see `fsutil.read_run_file`."""
    from .fsutil import RunFileError, read_run_text  # lazy: hook start-up

    path = Path(path)
    try:
        text = read_run_text(path, path.parent if run_dir is None else run_dir)
    except RunFileError as exc:
        if exc.missing:
            raise PlanError(path, 1, "file not found; expected the run's plan.md") from None
        raise PlanError(path, 1, exc.reason) from None
    return parse_plan(text, path)
