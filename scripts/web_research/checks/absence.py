"""Statements of absence in Gaps & Limitations, judged against every page the run stored.

"The pages read do not relate sys.maxsize to container sizes" is a statement about the run's
pages, and it can be false: in a real run two stored pages said "len raises OverflowError on
lengths larger than sys.maxsize". So each absence statement (checks/gaps_prose.py) is an
*item* the claim-checker judges like a claim:

- the run's own search (evidence/closest_passages.py, `fetch --find`'s windows) finds, across
  every stored page (a sealed, intact snapshot in a run with seals), the passages that come
  closest to what the statement says is missing;
- the checker is shown the statement with those passages (`prompt_lines`), numbered among the
  claims, and answers in the same words: `supported` when none of them states it (the
  statement holds), `partial` when one states part of it, `unsupported` when one states it;
- the item's key (`absence_key`) hashes the statement's normalized words and the passages
  shown, as a claim's key hashes its words and excerpts (verdicts.check_key): a verdict
  survives renumbering and an unchanged statement, and is asked again when the statement, or
  what the pages offer against it (a later wave stored another page), changes;
- `verify` (verdicts.verdict_checks, with `judged_failures`): an item without a decided verdict
  counts as unchecked (the checker is dispatched, `report.claims.checked`); one judged partial or unsupported fails
  `report.gaps.absence` at its line, with the passage shown, and the run cannot end verified
  while it stands. An honest "not established" is judged supported and passes.

**In every tier.** A run whose plan has no claim check (a plan with no `Tier:`
line) does not judge its cited claims, but it judges its statements of absence all the same:
they are the one kind of sentence no excerpt backs, and no test the plugin can compute tells a
page that states a thing in other words from one that does not (a key-term test both refused
honest statements and passed synonyms: "how long Acme keeps logs" against "retained for 15
days"). The checker is dispatched only when report.md holds such a statement.
"""
from __future__ import annotations

import hashlib
import re
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

from .. import formats
from ..core.result import Check, fail, ok
from ..evidence.closest_passages import Page, Passage, closest_passages, key_terms, name_terms
from ..evidence.excerpts import normalize
from ..evidence.snapshots import SnapshotError, SnapshotIndex, url_key
from .finish_lines import is_own, own_lines
from ..run.finish_record import read_record
from .claims import _run_seals  # the run's seals, as every reader of stored pages takes them
from .gaps_prose import ABSENCE, GapsSentence, gaps_sentences
from .parsed_run import ParsedRun
from ..core.clip import clip

KEY_CHARS = 16
MAX_PAGES_READ = 1000  # snapshots searched; a run's budget stores far fewer
MAX_CHARS_READ = 100_000_000  # all stored text searched, in characters
MAX_ITEMS = 40  # absence statements judged; a report with more fails (`_too_many`)
CHECK_ID = "report.gaps.absence"
MARK = "a statement of absence"  # how the checker's prompt heads an item


class AbsenceItem(NamedTuple):
    line: int
    text: str
    terms: tuple[str, ...]
    passages: tuple[Passage, ...]
    names: frozenset[str] = frozenset()  # the terms that are names (closest_passages.name_terms)

    @property
    def key(self) -> str:
        return absence_key(self.text, self.passages)


def absence_key(text: str, passages: Sequence[Passage]) -> str:
    """The key a verdict names an absence item by: its words and the passages shown, hashed."""
    digest = hashlib.sha256(b"absence\n" + normalize(text).encode("utf-8"))
    for p in passages:
        digest.update(b"\n" + url_key(p.url).encode("utf-8") + b"\n" + normalize(p.text).encode("utf-8"))
    return digest.hexdigest()[:KEY_CHARS]


def absence_items(sentences: Sequence[GapsSentence], pages: Callable[[], Sequence[Page]]) -> list[AbsenceItem]:
    """The absence statements of `sentences` with the passages closest to each (`pages()` is read
    only when there is one)."""
    wanted = [s for s in sentences if s.form == ABSENCE][:MAX_ITEMS]
    if not wanted:
        return []
    stored = pages()
    items = []
    for s in wanted:
        terms, names = key_terms(s.what), name_terms(s.what)
        found = closest_passages(terms, stored, names=names) if terms else []
        items.append(AbsenceItem(s.line, s.text, tuple(terms), tuple(found), names))
    return items


def stored_pages(run_dir: Path, sealed: Mapping[str, object] | None) -> tuple[list[Page], str | None]:
    """Every page the run stored, as (pages, why some were left out or None). With `sealed` (a run
    with seals) only snapshots a fetch sealed, and only intact texts: what verify trusts."""
    index = SnapshotIndex.build(run_dir)
    snaps = sorted({id(s): s for s in index.by_key.values()}.values(), key=lambda s: s.meta_path.name)
    pages: list[Page] = []
    chars = 0
    for snap in snaps:
        if len(pages) >= MAX_PAGES_READ or chars >= MAX_CHARS_READ:
            return pages, f"the run stores more pages than are searched ({MAX_PAGES_READ} pages, " \
                          f"{MAX_CHARS_READ:,} characters)"
        if sealed is not None and f"{formats.SOURCES_DIR}/{snap.text_path.name}" not in sealed:
            continue
        try:
            text = snap.text()
        except SnapshotError:
            continue
        if snap.text_is_intact(text):
            pages.append(Page(snap.final_url, snap.title, text))
            chars += len(text)
    return pages, None


# --------------------------------------------------------------------------
# What the checker is shown
# --------------------------------------------------------------------------

PASSAGE_SHOWN = 'Passage {n} ({url}, "{title}"): "{text}"'
NO_PASSAGE = "Passages: none (no stored page holds its words)"


def prompt_lines(number: int, item: AbsenceItem) -> list[str]:
    """An absence item in the checker's prompt, numbered among the claims."""
    lines = [f"## Claim {number} (report.md line {item.line}): {MARK}", f"Statement: {item.text}"]
    if not item.passages:
        return lines + [NO_PASSAGE, ""]
    for n, p in enumerate(item.passages, start=1):
        lines.append(PASSAGE_SHOWN.format(n=n, url=p.url, title=_short(p.title, 120), text=p.text))
    return lines + [""]


# --------------------------------------------------------------------------
# The verify rules
# --------------------------------------------------------------------------

def judged_failures(report: Path, items: Iterable[AbsenceItem], decided: Callable[[str], object]) -> list[Check]:
    """`report.gaps.absence` for each item the checker found partial or unsupported: a stored page
    states (part of) what it says is missing. `decided(key)`: the item's verdicts.Decision."""
    checks = []
    for item in items:
        decision = decided(item.key)
        verdict = getattr(decision, "verdict", None)
        if verdict not in (formats.VERDICT_UNSUPPORTED, formats.VERDICT_PARTIAL):
            continue
        reason = getattr(decision, "reason", "")
        how = "states part of what it says is missing" if verdict == formats.VERDICT_PARTIAL else "states it"
        checks.append(fail(CHECK_ID, (
            f"line {item.line}: \"{_short(item.text, 160)}\": a stored page {how} (checker: {reason}). "
            f"{_passages_named(item, reason)}. Drop the statement, or say only what no passage states, or cite "
            "the passage in a claim that says what it states; then run finish again"), report, item.line))
    return checks


def summary(report: Path, items: Sequence[AbsenceItem], why_partial: str | None) -> list[Check]:
    """The passing line, or why not every page could be searched."""
    return _too_many(report, items, why_partial) or (
        [ok(CHECK_ID, f"{len(items)} statement(s) of absence judged against every stored page", report)]
        if items else [])


def _too_many(report: Path, items: Sequence[AbsenceItem], why_partial: str | None) -> list[Check]:
    if items and why_partial:
        return [fail(CHECK_ID, f"{why_partial}: not every statement of absence can be judged against every "
                     "stored page; keep only those the answer needs", report, items[0].line)]
    return []


def _passages_named(item: AbsenceItem, reason: str) -> str:
    """The passage(s) the checker's reason names ("passage 2"), else all of them, shortened."""
    named = {int(n) for n in re.findall(r"passages?\s*#?\s*(\d{1,2})", reason, re.IGNORECASE)}
    shown = [(n, p) for n, p in enumerate(item.passages, start=1) if n in named] or \
        list(enumerate(item.passages, start=1))
    if not shown:
        return "No passage was shown to the checker"
    return "; ".join(f"Passage {n}: {_passage(p, 400 if len(shown) == 1 else 220)}" for n, p in shown)


def _passage(p: Passage, limit: int = 300) -> str:
    return f"{p.url} \"{_short(p.text, limit)}\""


def _short(text: str, limit: int) -> str:
    return clip(text, limit)


# --------------------------------------------------------------------------
# A run's items
# --------------------------------------------------------------------------

def finish_lines(parsed: ParsedRun) -> Callable[[str], bool]:
    """Whether a report line is one `finish` writes: one it would write now (report/gaps.own_lines),
    or one it wrote last (its record), which a check run before the next `finish` still finds there.
    Either is fixed words and the plan (report/gaps.py). Needs a plan."""
    unreadable = {p.stem: getattr(e, "reason", str(e)) for p, e in parsed.unreadable.items()
                  if p.parent.name == formats.FINDINGS_DIR}
    written = {line for line in read_record(parsed.run_dir).get("gaps", []) if isinstance(line, str)}
    return partial(is_own, own=own_lines(parsed.plan, parsed.findings, unreadable) | written)


def run_items(parsed: ParsedRun) -> tuple[list[AbsenceItem], str | None]:
    """The absence items of a parsed run's report.md, and why not every stored page was searched
    (None when all were). Nothing without a plan: then the lines `finish` writes are not known."""
    if parsed.report is None or parsed.plan is None:
        return [], None
    own = finish_lines(parsed)
    names = [n for s in parsed.plan.all_subtopics for n in (s.name, s.slug)]
    why: list[str | None] = []

    def pages() -> list[Page]:
        found, partial = stored_pages(parsed.run_dir, _run_seals(parsed))
        why.append(partial)
        return found

    sentences = gaps_sentences(parsed.report, own, names)
    items = absence_items(sentences, pages)
    count = sum(1 for s in sentences if s.form == ABSENCE)
    if count > MAX_ITEMS:
        return items, f"report.md holds {count} statements of absence, more than the {MAX_ITEMS} judged"
    return items, (why[0] if why else None)
