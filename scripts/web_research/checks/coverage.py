"""Coverage of the plan: which bullets the findings establish and the report covers.

Every first-wave bullet has an id `M.N` (plan.py). Briefs list the bullets
under those ids, and a researcher writes one `### <id> <point>` heading per
bullet under `## Claims`, with the point's cited claims beneath it; a point it
could not establish gets a `- <id>: <why>` item under `## Not established`.
A second-wave subtopic's findings count for the ids it targets.

The state of a bullet (`web-research gaps`): established (`covered`), established in part
(`partly`) or not established (`not-established`, or `missing` when no researcher answered):
- `covered`: some findings file of its subtopics cites at least one source under its heading
  and names no part of it under `## Not established`;
- `partly`: every file citing sources under its heading names the rest under Not established
  (by id or by its words): the sources it cites still count for the report, and `finish`
  names the bullet in Gaps & Limitations as established only in part;
- `missing`: none of those files exists with status ok or empty (no file, or only failed ones);
- `not-established`: otherwise.
Each state carries the findings' own words on what is missing (`reason`): the researcher's,
shown to the orchestrator marked as such, never written into report.md.

The report covers a bullet (`verify`, check `report.coverage.<id>`) when a
footnote used in the report points at a source that a findings file cites
under that bullet (same title, URL and excerpt: the report copies entries
field for field), or when Gaps & Limitations names the bullet by id or by its
text. This is mechanical on purpose: the model needs no extra markup, and a
bullet can only pass on evidence the researchers recorded or on an admitted gap.
Runs whose briefs carry no ids (made before ids existed) get no coverage checks;
nor does a missing bullet whose subtopic Gaps does not name yet, since
`report.gaps.names.<slug>` already fails for it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .. import formats
from ..core.fsutil import RunFileError, read_run_text
from ..core.markdown_doc import CODE, REF, TEXT
from ..core.result import Check, fail, ok
from ..core.text import bidi_controls, blank_chars, control_chars
from ..run.plan import Bullet, Plan, Subtopic
from .findings import Findings, load_findings
from .parsed_run import ParsedRun
from .report import Report, gaps_name, gaps_text


STATE_COVERED = "covered"
STATE_PARTLY = "partly"
STATE_NOT_ESTABLISHED = "not-established"
STATE_MISSING = "missing"

# A `### 2.1 ...` heading's text (markdown-it gives it without the `###`)
_H3_ID = re.compile(r"^\**\[?(" + formats.BULLET_ID_PATTERN + r")\]?(?![0-9])")


def id_pattern(bullet_id: str) -> re.Pattern[str]:
    """`2.1` as a token: not part of `12.1`, `2.10` or `2.1.3`."""
    return re.compile(r"(?<![0-9.])" + re.escape(bullet_id) + r"(?![0-9]|\.[0-9])")


@dataclass(slots=True)
class Evidence:
    """What one findings file says about one bullet."""

    findings: Path
    footnotes: list[int] = field(default_factory=list)  # cited under the bullet's heading
    not_established: list[str] = field(default_factory=list)  # its `## Not established` items


@dataclass(slots=True)
class BulletState:
    bullet: Bullet
    state: str
    evidence: list[Evidence]
    reason: str | None = None  # the findings' words (the researcher's) on what is missing
    citation_keys: set[tuple] = field(default_factory=set)  # (title, url, excerpt) cited under it

    @property
    def partly(self) -> bool:
        """Established only in part: sources cited under it, the rest named under Not established."""
        return self.state == STATE_PARTLY

    @property
    def references(self) -> list[str]:
        """The references a report cites this bullet's sources by, `[^<slug>:<n>]`, in findings order."""
        return [f"[^{Path(e.findings).stem}:{n}]" for e in self.evidence for n in e.footnotes]

    def to_json(self, run_dir: Path) -> dict[str, Any]:
        """`gaps --json`'s entry: `references` to cite, and `reason`, the researcher's own words
        on what is missing (`reason_by`: whose words they are)."""
        data: dict[str, Any] = {"subtopic": self.bullet.subtopic.name, "id": self.bullet.id,
                                "text": self.bullet.text, "state": self.state}
        if any(e.footnotes for e in self.evidence):
            data["references"] = self.references
            data["footnotes"] = [{"findings": _relative(e.findings, run_dir), "footnotes": e.footnotes}
                                 for e in self.evidence if e.footnotes]
        if self.partly:
            data["partly"] = True
        if self.reason:
            data["reason"] = self.reason
            data["reason_by"] = REASON_BY
        return data


REASON_BY = "the researcher (its findings file's words, unchecked)"


def _relative(path: Path, run_dir: Path) -> str:
    try:
        return str(Path(path).relative_to(run_dir))
    except ValueError:
        return str(path)


def citation_key(citation: Any) -> tuple:
    return tuple(citation.fields.get(name) for name in formats.CITATION_REQUIRED)


def _sections(found: Findings) -> dict[str, tuple[int, int]]:
    """`## ` section name -> (heading line, last line), the first of each name."""
    out: dict[str, tuple[int, int]] = {}
    for section in found.doc.sections(2):
        out.setdefault(section.name, (section.line, section.end))
    return out


def evidence_in(found: Findings, ids: Iterable[str],
                bullet_texts: "dict[str, str] | None" = None) -> dict[str, Evidence]:
    """Per bullet id (only `ids`): footnotes cited under its `### <id>` heading in Claims
    (markers with a Sources entry) and the Not established items naming it, by id or by its
    words (`bullet_texts`: each id's bullet text)."""
    wanted = list(ids)
    out = {bullet_id: Evidence(found.path) for bullet_id in wanted}
    sections = _sections(found)
    defined = {c.number for c in found.citations}
    if formats.FINDINGS_SECTION_CLAIMS in sections:
        start, end = sections[formats.FINDINGS_SECTION_CLAIMS]
        # Headings and footnote uses in reading order: a heading names the bullet of what follows.
        events: list[tuple[int, int, str | None, int]] = \
            [(h.line, 0, _heading_id(h.level, h.text), 0) for h in found.doc.headings if start < h.line <= end]
        events += [(line, 1, None, number) for number, line in found.markers if start < line <= end]
        current: str | None = None
        for _line, kind, heading_id, footnote in sorted(events, key=lambda e: (e[0], e[1])):
            if kind == 0:
                current = heading_id if heading_id in out else None
            elif current is not None and footnote in defined and footnote not in out[current].footnotes:
                out[current].footnotes.append(footnote)
    if formats.FINDINGS_SECTION_NOT_ESTABLISHED in sections:
        start, end = sections[formats.FINDINGS_SECTION_NOT_ESTABLISHED]
        words = {bullet_id: words_key(text) for bullet_id, text in (bullet_texts or {}).items()}
        for block in found.doc.blocks_in(start + 1, end):
            text = " ".join("".join(s.text if s.kind in (TEXT, CODE) else "" if s.kind == REF else " "
                                    for s in block.spans).split())
            for bullet_id in wanted:
                named = words.get(bullet_id)
                if text and (id_pattern(bullet_id).search(text) or (named and named in words_key(text))):
                    out[bullet_id].not_established.append(text)
    return out


def words_key(text: str) -> str:
    """Text as compared when a bullet is named by its words: case, whitespace and the
    Markdown marks a writer or the parser may add or drop (`*`, `_`, backticks, brackets
    written as parentheses, a `~` written as finish writes it, TILDE) aside."""
    return " ".join(visible(text).replace("[", "(").replace("]", ")").translate(_MARKUP).split()).casefold()


def visible(text: str) -> str:
    """`text` without the characters report.md may not hold (text_controls.py: controls, bidirectional
    controls, blank-looking characters), which show nothing anyway: how report/gaps.words writes
    the plan's words, and how they are compared."""
    if text.isascii() and text.isprintable():
        return text
    places = blank_chars(text, len(text))[0] + control_chars(text) + bidi_controls(text)
    drop = {offset for offset, _what in places}
    return "".join(ch for i, ch in enumerate(text) if i not in drop)


TILDE = "\u223c"  # how report/gaps.words writes a plan's `~`, read here as the `~` it stands for
_MARKUP = str.maketrans({**dict.fromkeys(map(ord, "*_`")), ord(TILDE): "~"})


def _heading_id(level: int, text: str) -> str | None:
    """The bullet id a `### <id> ...` heading opens with (None for any other heading)."""
    match = _H3_ID.match(text) if level == 3 else None
    return match.group(1) if match else None


def subtopics_for(plan: Plan, bullet: Bullet) -> list[Subtopic]:
    """The subtopics whose findings count for a bullet: its own, then second-wave ones targeting it."""
    return [bullet.subtopic, *(s for s in plan.second_wave if bullet.id in s.targets)]


def bullet_states(plan: Plan, findings: dict[str, Findings],
                  unreadable: "dict[str, str] | None" = None) -> list[BulletState]:
    """The state of every first-wave bullet, from the findings files parsed so far (by slug);
    `unreadable`: why each findings file that is there could not be read (by slug)."""
    texts = {b.id: b.text for b in plan.bullets}
    per_file = {slug: evidence_in(found, next((s.bullet_ids for s in plan.all_subtopics if s.slug == slug), ()), texts)
                for slug, found in findings.items()}
    by_number = {slug: {c.number: c for c in found.citations} for slug, found in findings.items()}
    states: list[BulletState] = []
    for bullet in plan.bullets:
        evidence: list[Evidence] = []
        keys: set[tuple] = set()
        usable = False  # a findings file with status ok or empty answered for it
        failures: list[str] = []
        for subtopic in subtopics_for(plan, bullet):
            found = findings.get(subtopic.slug)
            if found is None:
                problem = (unreadable or {}).get(subtopic.slug)
                failures.append(f'subtopic "{subtopic.name}": findings/{subtopic.slug}.md {problem}' if problem
                                else f'subtopic "{subtopic.name}" has no findings file')
                continue
            item = per_file[subtopic.slug].get(bullet.id)
            if item is not None:
                evidence.append(item)
                keys.update(citation_key(by_number[subtopic.slug][n]) for n in item.footnotes
                            if n in by_number[subtopic.slug])
            if found.status in (formats.STATUS_OK, formats.STATUS_EMPTY):
                usable = True
            else:
                failures.append(f'subtopic "{subtopic.name}" {found.status or "has no valid status"}'
                                + (f": {found.reason}" if found.reason else ""))
        # Covered when a findings file cites sources under it and names no part of it as not
        # established (a later wave may answer what an earlier one left open); established only
        # in part when every file citing sources under it names the rest under Not established.
        partly = [text for e in evidence if e.footnotes for text in e.not_established]
        if any(e.footnotes and not e.not_established for e in evidence):
            states.append(BulletState(bullet, STATE_COVERED, evidence, None, keys))
        elif partly:
            states.append(BulletState(bullet, STATE_PARTLY, evidence, "; ".join(partly), keys))
        elif not usable:
            states.append(BulletState(bullet, STATE_MISSING, evidence, "; ".join(failures) or None))
        else:
            said = [text for e in evidence for text in e.not_established]
            states.append(BulletState(bullet, STATE_NOT_ESTABLISHED, evidence,
                                      "; ".join(said) or "no cited claim under its heading"))
    return states


def briefs_carry_ids(run_dir: Path, plan: Plan) -> bool:
    """Whether this run's briefs list bullet ids (a run made before ids had none)."""
    for subtopic in plan.subtopics:
        try:
            text = read_run_text(Path(run_dir) / formats.BRIEFS_DIR / f"{subtopic.slug}.md", run_dir)
        except RunFileError:
            continue
        if any(line.startswith(f"- {subtopic.number}.1 ") for line in text.splitlines()):
            return True
    return False


def load_findings_files(run_dir: Path, plan: Plan) -> dict[str, Findings]:
    """The findings files of every subtopic that has a readable one, by slug."""
    return read_findings_files(run_dir, plan)[0]


def read_findings_files(run_dir: Path, plan: Plan) -> tuple[dict[str, Findings], dict[str, str]]:
    """(the findings files of every subtopic that has a readable one, why each file that is there
    could not be read), both by slug; the reasons are `fsutil.read_run_text`'s, as verify gives them."""
    out: dict[str, Findings] = {}
    problems: dict[str, str] = {}
    for subtopic in plan.all_subtopics:
        path = Path(run_dir) / formats.FINDINGS_DIR / f"{subtopic.slug}.md"
        try:
            out[subtopic.slug] = load_findings(path, read_run_text(path, run_dir, formats.MAX_MARKDOWN_BYTES))
        except RunFileError as error:
            if not error.missing:
                problems[subtopic.slug] = error.reason
    return out, problems


def gaps_names_bullet(gaps: str | None, bullet: Bullet) -> bool:
    """Whether Gaps & Limitations (its text) names the bullet by id or by its whole text."""
    if not gaps:
        return False
    return bool(id_pattern(bullet.id).search(gaps)) or words_key(bullet.text) in words_key(gaps)


def report_coverage(report: Report, states: list[BulletState]) -> list[tuple[BulletState, str | None]]:
    """Each bullet with how the report covers it: 'cited', 'gaps', or None (not at all)."""
    used = {number for number, _line in report.markers}
    cited = {citation_key(c) for c in report.citations if c.number in used}
    gaps = gaps_text(report)
    out: list[tuple[BulletState, str | None]] = []
    for state in states:
        if state.citation_keys & cited:
            out.append((state, "cited"))
        elif gaps_names_bullet(gaps, state.bullet):
            out.append((state, "gaps"))
        else:
            out.append((state, None))
    return out


def coverage_checks(run_dir: Path, parsed: ParsedRun) -> list[Check]:
    """`report.coverage.<id>`: each bullet is supported by a cited source or named in Gaps."""
    if parsed.plan is None or parsed.report is None or parsed.report_path is None \
            or not briefs_carry_ids(run_dir, parsed.plan):
        return []
    path = parsed.report_path
    gaps = parsed.report.section(formats.REPORT_SECTIONS[2])
    checks = []
    unreadable = {path.stem: error.reason for path, error in parsed.unreadable.items()
                  if path.parent.name == formats.FINDINGS_DIR}
    for state, how in report_coverage(parsed.report, bullet_states(parsed.plan, parsed.findings, unreadable)):
        bullet = state.bullet
        check_id = f"report.coverage.{bullet.id}"
        if how is None and state.state == STATE_MISSING \
                and not gaps_name(parsed.report, bullet.subtopic.name, bullet.subtopic.slug):
            continue  # one defect, one check: report.gaps.names.<slug> already asks for the subtopic
        if how == "cited":
            checks.append(ok(check_id, f"bullet {bullet.id} is supported by a cited source", path))
        elif how == "gaps":
            checks.append(ok(check_id, f"bullet {bullet.id} is named under Gaps & Limitations", path))
        else:
            # The fix asked for never leads to another failure: a reference its findings give, or
            # finish's own line (fixed words and the plan's), never a researcher's reason copied.
            if state.state == STATE_COVERED:
                hint = f"cite one of {' '.join(state.references[:6])} in a claim it supports"
            else:
                hint = (f"its state is {state.state}: finish names it under Gaps & Limitations when it runs on a "
                        f"report with that section, unless your own words there already name it ({bullet.id})")
            checks.append(fail(
                check_id,
                f'bullet {bullet.id} "{bullet.text}" (subtopic "{bullet.subtopic.name}") is neither supported '
                f"by a cited claim in the report nor named under Gaps & Limitations; {hint}",
                path, gaps.line if gaps is not None else None))
    return checks
