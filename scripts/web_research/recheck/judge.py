"""The rules of a recheck: one citation's state from what its page answers today.

Pure: the page's outcome and text come in, a `CitationRecheck` goes out. Whether the excerpt
is still in the page is decided by the one matcher (`evidence.matcher.find_excerpt`, verify's
`match_excerpt` on the page), so a recheck, a verification and the report view can never
disagree about what "the page says this" means.

When the excerpt is gone, the closest passage of the live page is shown with the words that
differ, and the differing words that are figures (a price, a percent, a multiplier: the
quantities `checks.quantities` reads) are named apart, since a changed figure is what a
reader of a report most needs to know about.

When the excerpt is still there, what surrounds it is compared too (`context_changes`: every
piece the claim-checker saw in the snapshot, headings, notices, term, lead-in, table header and
row, paragraph, the text before and after, read the same way on both pages): "It is no longer
true that <excerpt>", a "withdrawn" notice or a lead-in added above it is a changed page, not an
unchanged one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from urllib.parse import urlsplit

from ..checks.quantities import extract_quantities
from ..evidence.excerpt_context import ExcerptContext, find_context
from ..evidence.excerpts import closest_passage, normalize
from ..evidence.matcher import StoredPage, find_excerpt
from ..evidence.snapshots import url_key
from .record import (ANSWERED, CHANGED, GONE, MAX_NOTE_CHARS, MOVED, PAGE_GONE, UNCHANGED, UNREACHABLE, Change,
                     CitationRecheck, cut)

# Below this similarity the closest passage is another text, not a changed version of the
# excerpt: no word-by-word differences are listed for it.
MIN_SIMILARITY_FOR_DIFFERENCES = 0.5
MAX_CHANGES = 12
MAX_CHANGE_CHARS = 200


@dataclass(frozen=True, slots=True)
class LiveOutcome:
    """What fetching a cited URL gave, as the rules need it (live.LivePage carries more)."""

    outcome: str  # record.ANSWERED, PAGE_GONE or PAGE_UNREACHABLE
    status: int | None
    final_url: str | None
    page: StoredPage | None  # the live page's text, when it answered (normalized once)
    truncated: bool
    error: str | None


@dataclass(frozen=True, slots=True)
class Baseline:
    """What the run knew of the page: its sealed snapshot, when the folder has an intact one."""

    snapshot: str | None  # sources/<id>.txt
    final_url: str | None  # where the URL led on the day of the run
    in_snapshot: bool | None  # whether the excerpt is in the snapshot (verify's verdict)
    context: ExcerptContext | None = None  # what surrounded the excerpt in the snapshot


_FIND = object()  # judge's default: the live context is read from the live text


def judge(number: int, url: str, excerpt: str, live: LiveOutcome, baseline: Baseline,
          checked_at: str, live_context: ExcerptContext | None | object = _FIND) -> CitationRecheck:
    """The state of footnote `number` (see record.STATES) and the one line that says why.
    `live_context`: the excerpt's context in the live page read the same way as `baseline.context`
    (with the page's HTML structure when both pages have HTML: page_contexts.contexts); by default
    the live text's alone."""
    found = _judge(number, url, excerpt, live, baseline, checked_at, live_context)
    return replace(found, note=cut(found.note, MAX_NOTE_CHARS))


def _judge(number: int, url: str, excerpt: str, live: LiveOutcome, baseline: Baseline,
           checked_at: str, live_context: ExcerptContext | None | object = _FIND) -> CitationRecheck:
    common = {"number": number, "url": url, "status": live.status, "checked_at": checked_at,
              "final_url": live.final_url, "snapshot": baseline.snapshot, "in_snapshot": baseline.in_snapshot}
    if live.outcome == PAGE_GONE:
        return CitationRecheck(state=GONE, note=f"gone: {live.error}", **common)
    if live.outcome != ANSWERED or live.page is None:
        return CitationRecheck(state=UNREACHABLE, note=f"no verdict: {live.error}", **common)

    moved_to = live.final_url if moved(url, baseline.final_url, live.final_url) else None
    match = find_excerpt(excerpt, live.page, spans=False)
    if match.ok and baseline.context is not None:
        now = find_context(excerpt, live.page) if live_context is _FIND else live_context
        around = context_changes(baseline.context, now if isinstance(now, ExcerptContext) else None)
        if around:
            said = "; ".join(change.text() for change in around[:3])
            where = f"moved to {moved_to}; the excerpt is there" if moved_to else "the excerpt is still in the page"
            return CitationRecheck(state=MOVED if moved_to else CHANGED,
                                   note=f"{where}, but what surrounds it changed: {said}", moved_to=moved_to,
                                   excerpt_found=True, differences=around, figures=figure_changes(around), **common)
    if match.ok:
        if moved_to:
            return CitationRecheck(state=MOVED, note=f"moved to {moved_to}; the excerpt is there",
                                   moved_to=moved_to, excerpt_found=True, **common)
        return CitationRecheck(state=UNCHANGED, note="the excerpt is still in the page", excerpt_found=True,
                               **common)

    part = match.failed_part or excerpt
    closest, similarity = match.closest, match.similarity
    if closest is None:  # the parts are all there but spread apart: show the passage nearest the first
        closest, similarity = closest_passage(part, live.page.text, normalized=live.page.normalized)
    differences = word_changes(part, closest) if closest and similarity >= MIN_SIMILARITY_FOR_DIFFERENCES else ()
    figures = figure_changes(differences)
    found = _what_differs(closest, similarity, differences, figures)
    if live.truncated and not moved_to:
        return CitationRecheck(
            state=UNREACHABLE, excerpt_found=False, closest=closest, similarity=similarity,
            note=("no verdict: the live page is longer than the text kept of it and the excerpt is not in "
                  "the part read; it may lie beyond"), **common)
    history = ""
    if baseline.in_snapshot is False:
        history = " (nor is it in the run's snapshot: verify fails this citation too)"
    elif baseline.snapshot is None:
        history = " (the folder keeps no snapshot of the page, so what it said then cannot be shown)"
    if moved_to:
        return CitationRecheck(state=MOVED, note=f"moved to {moved_to}; the excerpt is not there{history}: {found}",
                               moved_to=moved_to, excerpt_found=False, closest=closest, similarity=similarity,
                               differences=differences, figures=figures, **common)
    return CitationRecheck(state=CHANGED, note=f"the excerpt is no longer in the page{history}: {found}",
                           excerpt_found=False, closest=closest, similarity=similarity, differences=differences,
                           figures=figures, **common)


def _what_differs(closest: str | None, similarity: float, differences: tuple[Change, ...],
                  figures: tuple[Change, ...]) -> str:
    if not closest or similarity < MIN_SIMILARITY_FOR_DIFFERENCES:
        return "the page has no similar passage"
    if figures:
        said = "; ".join(f.text() for f in figures)
        return f"figure{'s' if len(figures) > 1 else ''} changed: {said}"
    if differences:
        return "words changed: " + "; ".join(d.text() for d in differences[:4])
    return "the closest passage differs only in its spacing or punctuation"


def moved(cited: str, then: str | None, now: str | None) -> bool:
    """Whether the URL now leads somewhere else than it did on the day of the run (`then`: the
    snapshot's final URL; without a snapshot, the cited URL itself). The same page reached over
    https where it was http, or with a different fragment, is not a move."""
    if not now:
        return False
    return _place(now) != _place(then or cited)


def _place(url: str) -> str:
    key = url_key(url)
    parts = urlsplit(key)
    return key.removeprefix(parts.scheme + "://") if parts.scheme in ("http", "https") else key


def context_changes(was: ExcerptContext, now: ExcerptContext | None) -> tuple[Change, ...]:
    """What the live page says otherwise around the excerpt than the snapshot did: each piece of
    the context (`evidence.excerpt_context`: heading, term, the sentences before, around and after
    it) compared word by word, normalized as the match is; a piece added or dropped whole counts."""
    now = now or ExcerptContext("")
    changes: list[Change] = []
    for name in ExcerptContext._fields:
        before, after = normalize(getattr(was, name) or "").split(), normalize(getattr(now, name) or "").split()
        if before == after:
            continue
        label = name + ": "
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            if tag != "equal":
                old, new = " ".join(before[i1:i2]), " ".join(after[j1:j2])
                changes.append(Change(_cut(label + old) if old else "", _cut(label + new) if new else ""))
                label = ""
    return tuple(changes[:MAX_CHANGES])


def word_changes(excerpt: str, passage: str) -> tuple[Change, ...]:
    """The words of `excerpt` that `passage` says otherwise, as (was, now) pairs, both
    normalized the way the match is. Words the passage has beyond either end of the excerpt
    are its context, not a difference."""
    was, now = normalize(excerpt).split(), normalize(passage).split()
    opcodes = SequenceMatcher(None, was, now, autojunk=False).get_opcodes()
    while opcodes and opcodes[0][0] == "insert":
        opcodes.pop(0)
    while opcodes and opcodes[-1][0] == "insert":
        opcodes.pop()
    changes = [Change(_cut(" ".join(was[i1:i2])), _cut(" ".join(now[j1:j2])))
               for tag, i1, i2, j1, j2 in opcodes if tag != "equal"]
    return tuple(changes[:MAX_CHANGES])


def figure_changes(changes: tuple[Change, ...]) -> tuple[Change, ...]:
    """The figures among `changes`: each quantity of a changed stretch paired, in order, with
    the live page's quantity in its place ('' when there is none on one side); quantities that
    still state the same value are left out."""
    out: list[Change] = []
    for change in changes:
        before, after = extract_quantities(change.was), extract_quantities(change.now)
        for index in range(max(len(before), len(after))):
            old = before[index] if index < len(before) else None
            new = after[index] if index < len(after) else None
            if old is not None and new is not None and old.matches(new) and new.matches(old):
                continue
            out.append(Change(old.text if old else "", new.text if new else ""))
    return tuple(out[:MAX_CHANGES])


def _cut(text: str) -> str:
    return cut(text, MAX_CHANGE_CHARS)
