"""One recheck of a run folder: the report's footnotes in, live texts and a record out.

The run's evidence is only read: report.md, the snapshots under sources/ and the findings stay
byte for byte. What a recheck writes lies apart, in the run folder or in the folder the person
named instead (`--out`: a folder they do not own, such as the bundled example, gets nothing): the
live text of each page that answered in `rechecks/<UTC time>/<id>.txt` (named like its snapshot,
`snapshots.snapshot_id`), and the record in `checks/recheck-<UTC time>.json` (record.py), written
last and atomically, so an interrupted recheck leaves no record that claims more than was checked.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Callable, Sequence

from .. import __version__, formats
from ..checks.report import parse_report
from ..core.fsutil import RunFileError, atomic_write_text, decode_run_text, read_run_file
from ..evidence.excerpt_context import ExcerptContext
from ..evidence.matcher import StoredPage, find_excerpt
from ..evidence.page_contexts import Excerpt, contexts as page_contexts
from ..evidence.snapshots import Snapshot, SnapshotError, SnapshotIndex, snapshot_id, text_sha256, url_key
from ..evidence.structure_child import PageRequest
from .judge import Baseline, LiveOutcome, judge
from .live import DEFAULT_WORKERS, LivePage, Transport, fetch_each, fetch_live
from .record import (BYTES_CHANGED, BYTES_SAME, MAX_URL_CHARS, NEVER_ARCHIVED, CitationRecheck, PageRecheck,
                     RecheckRecord, RecheckRecordError, free_stamp, safe_folder, utc_now, utc_text, write_record)

# The record holds at most this many footnotes and pages (its schema's bound); a larger
# report is rechecked in parts with --only.
MAX_CITATIONS = 1000


class RecheckInputError(Exception):
    """The folder or the arguments cannot be rechecked; `str()` says why, in one line."""


@dataclass(frozen=True, slots=True)
class Footnote:
    """A footnote of report.md with what a recheck needs."""

    number: int
    url: str
    excerpt: str


@dataclass(frozen=True, slots=True)
class RecheckResult:
    record: RecheckRecord
    path: Path  # the record's file
    skipped: tuple[tuple[int, str], ...]  # (footnote, why it could not be rechecked)


def report_footnotes(run_dir: Path) -> tuple[bytes, list[Footnote], list[tuple[int, str]]]:
    """report.md's bytes, its footnotes that have a URL and an excerpt, and the others with why."""
    path = Path(run_dir) / formats.REPORT_FILE
    try:
        raw = read_run_file(path, run_dir, formats.MAX_MARKDOWN_BYTES)
        text = decode_run_text(path, raw)
    except RunFileError as exc:
        raise RecheckInputError(f"{formats.REPORT_FILE} {exc.reason}"
                                + ("; a recheck checks the report's citations" if exc.missing else "")) from None
    footnotes, skipped = [], []
    for citation in parse_report(text).citations:
        url, excerpt = (citation.url or "").strip(), (citation.excerpt or "").strip()
        if citation.number < 1:
            skipped.append((citation.number, "not a footnote number (they start at 1)"))
        elif not url or not excerpt:
            skipped.append((citation.number, "no URL" if not url else "no excerpt"))
        elif len(url) > MAX_URL_CHARS:
            skipped.append((citation.number, f"a URL longer than {MAX_URL_CHARS} characters"))
        else:
            footnotes.append(Footnote(citation.number, url, excerpt))
    return raw, footnotes, skipped


def select(footnotes: list[Footnote], only: Sequence[int] | None) -> list[Footnote]:
    """The footnotes --only names (all of them without it); a number the report lacks is an error."""
    if only is None:
        chosen = footnotes
    else:
        have = {f.number for f in footnotes}
        unknown = sorted(set(only) - have)
        if unknown:
            listed = ", ".join(str(n) for n in sorted(have)) or "none"
            raise RecheckInputError(f"--only: no footnote {', '.join(f'[^{n}]' for n in unknown)} with a URL and "
                                    f"an excerpt in {formats.REPORT_FILE} (it has {listed})")
        chosen = [f for f in footnotes if f.number in set(only)]
    if len(chosen) > MAX_CITATIONS:
        raise RecheckInputError(f"{formats.REPORT_FILE} has {len(chosen)} footnotes; a recheck takes at most "
                                f"{MAX_CITATIONS}: name some with --only")
    return chosen


def recheck_run(run_dir: Path, transport: Transport, only: Sequence[int] | None = None,
                progress: Callable[[int, int], None] | None = None, workers: int = DEFAULT_WORKERS,
                fetch: Callable[[str, Transport], LivePage] = fetch_live,
                clock: Callable[[], datetime] = utc_now, out_dir: Path | None = None) -> RecheckResult:
    """Recheck the report's footnotes (those `only` names) against the live pages, store the
    live texts and write the record, under `out_dir` when given (created if missing), else in the
    run folder. `RecheckInputError` when there is nothing to recheck."""
    run_dir = Path(run_dir)
    home = run_dir if out_dir is None else _out_folder(Path(out_dir))
    report_bytes, footnotes, skipped = report_footnotes(run_dir)
    chosen = select(footnotes, only)
    if not chosen:
        raise RecheckInputError(f"{formats.REPORT_FILE} cites no page with a URL and an excerpt: nothing to recheck")
    started = clock()
    name, live_dir = _claim_live_dir(home, started)

    by_url: dict[str, list[Footnote]] = {}
    for footnote in chosen:
        by_url.setdefault(url_key(footnote.url), []).append(footnote)
    first_spelling = {key: notes[0].url for key, notes in by_url.items()}
    baselines = _Baselines(run_dir)
    pages: list[PageRecheck] = []
    citations: list[CitationRecheck] = []
    for live in fetch_each(first_spelling.values(), transport, workers, progress, fetch):
        live_text, digest = _store_text(home, live_dir, live)
        pages.append(PageRecheck(url=live.url, outcome=live.outcome, status=live.status, final_url=live.final_url,
                                 fetched_at=live.fetched_at, seconds=live.seconds, error=live.error,
                                 live_text=live_text, sha256=digest, truncated=live.truncated,
                                 body_sha256=live.body_sha256, bytes=baselines.bytes_of(live)))
        outcome = LiveOutcome(live.outcome, live.status, live.final_url,
                              StoredPage(live.text) if live.text is not None else None, live.truncated, live.error)
        notes = by_url[url_key(live.url)]
        for footnote, (baseline, now) in zip(notes, baselines.with_live(notes, live, outcome.page)):
            citations.append(judge(footnote.number, footnote.url, footnote.excerpt, outcome, baseline,
                                   live.fetched_at, live_context=now))
    order = {key: index for index, key in enumerate(first_spelling)}
    record = RecheckRecord(plugin_version=__version__, started_at=utc_text(started), finished_at=utc_text(clock()),
                           report_sha256="sha256:" + hashlib.sha256(report_bytes).hexdigest(),
                           live_dir=f"{formats.RECHECKS_DIR}/{name}",
                           only=None if only is None else tuple(sorted(set(only))),
                           pages=tuple(sorted(pages, key=lambda p: order[url_key(p.url)])),
                           citations=tuple(sorted(citations, key=lambda c: c.number)))
    path = write_record(home, record, name)
    return RecheckResult(replace(record, path=path), path, tuple(skipped))


def _out_folder(folder: Path) -> Path:
    """The folder `--out` names, created if missing; a file there is an input error."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RecheckInputError(f"--out {folder}: cannot create the folder ({exc.strerror or exc})") from None
    if not folder.is_dir():
        raise RecheckInputError(f"--out {folder}: not a folder")
    return folder.resolve()


def _claim_live_dir(run_dir: Path, moment: datetime) -> tuple[str, Path]:
    """A new, empty rechecks/<stamp>/ of this recheck's own (created here, so two rechecks at
    once never share one)."""
    root = safe_folder(run_dir, formats.RECHECKS_DIR)
    root.mkdir(exist_ok=True)
    safe_folder(run_dir, formats.RECHECKS_DIR)  # not swapped for a link meanwhile
    for _ in range(100):
        name = free_stamp(run_dir, moment)
        try:
            (root / name).mkdir()
        except FileExistsError:
            continue
        return name, root / name
    raise RecheckRecordError(f"{root}: cannot create a folder of its own for this recheck")


def _store_text(run_dir: Path, live_dir: Path, live: LivePage) -> tuple[str | None, str | None]:
    """Write the live text beside the others of this recheck; (its path in the run, its SHA-256)."""
    if live.text is None:
        return None, None
    path = live_dir / f"{snapshot_id(live.url)}.txt"
    atomic_write_text(path, live.text)
    return path.relative_to(run_dir).as_posix(), text_sha256(live.text)


class _Baselines:
    """What the run's sealed snapshots say of each footnote, read once per page."""

    def __init__(self, run_dir: Path) -> None:
        self._index = SnapshotIndex.build(run_dir)
        self._texts: dict[Path, StoredPage | None] = {}  # None: unusable

    def bytes_of(self, live: LivePage) -> str | None:
        """The live body against the archived one: same, changed, never archived; None when no
        body was read or the run holds no snapshot of the page."""
        snap = self._index.find(live.url)
        if live.body_sha256 is None or snap is None:
            return None
        if snap.archive is None:
            return NEVER_ARCHIVED
        return BYTES_SAME if snap.archive.body_sha256 == live.body_sha256 else BYTES_CHANGED

    def _page(self, snap: Snapshot) -> StoredPage | None:
        if snap.text_path not in self._texts:
            try:
                text = snap.text()
            except SnapshotError:
                text = None
            usable = text is not None and snap.text_is_intact(text)
            self._texts[snap.text_path] = StoredPage(text) if usable and text is not None else None
        return self._texts[snap.text_path]

    def with_live(self, footnotes: Sequence[Footnote], live: LivePage | None,
                  live_page: StoredPage | None) -> list[tuple[Baseline, ExcerptContext | None]]:
        """Each footnote's baseline and its excerpt's context in the live page, both read the same
        way: with the page's HTML structure when the run archived the page and the live page is
        HTML (one bounded child for both), from the texts alone otherwise, so that a difference in
        how they were read never passes for a change of the page."""
        snap = self._index.find(footnotes[0].url) if footnotes else None
        page = self._page(snap) if snap is not None else None
        archived = live_html = None
        if snap is not None and snap.archive is not None and snap.archive_path is not None and live is not None \
                and live.html is not None:
            archived = PageRequest((), warc=snap.archive_path, run_dir=snap.run_dir,
                                   body_sha256=snap.archive.body_sha256)
            live_html = PageRequest((), body=live.html, charset=live.charset)
        found = [page is not None and find_excerpt(f.excerpt, page, spans=False).ok for f in footnotes]
        items = [Excerpt(page, archived, f.excerpt) for f, ok in zip(footnotes, found) if ok and page is not None]
        items += [Excerpt(live_page, live_html, f.excerpt) for f in footnotes] if live_page is not None else []
        read = iter(page_contexts(items))
        was = [next(read) if ok and page is not None else None for ok in found]
        now = [next(read) for _ in footnotes] if live_page is not None else [None] * len(footnotes)
        if snap is None:
            return [(Baseline(None, None, None), context) for context in now]
        where = f"{formats.SOURCES_DIR}/{snap.text_path.name}"
        return [(Baseline(where, snap.final_url, ok if page is not None else None, context), live_context)
                for ok, context, live_context in zip(found, was, now)]
