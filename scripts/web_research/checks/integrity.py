"""Citation integrity: does each cited page really say what its excerpt quotes?

For every citation of report.md and of the findings files whose URL (or the
URL it redirected to) has a page snapshot under `sources/`, the excerpt must
appear in the snapshot's text (see `excerpts`): a mismatch is an error naming
the citation, the URL and the closest passage of the page, so the writer can
correct the quote. A citation without a snapshot cannot be checked: in a run
the plugin's hooks managed (there are seals: `sealed` is given) that is an
error, since every page a researcher read went through `fetch` and was sealed,
so a citation with no sealed snapshot cites a page nobody read; in a folder
with no record of seals it is a warning ("not verifiable"), as are a site root
cited where a page was meant and one URL under two numbers.

The source is the page: a cited title is the stored page's own title (or its main part,
the site name dropped), and a cited URL is the one the fetch ended at after redirects, the
page whose text was stored. Both are errors: a title that merely contains the page's
("Log pricing | Acme - Acme was fined $2 million") reaches the Sources, the view and the
exports as if the page said it, and a URL the page was only reached from counts one page
as a second site.

Checks follow the checklist's naming, `<scope>.citations.<rule>` with scope
`report` or `findings.<slug>`:

    verbatim      error    one failing check per mismatched excerpt (not in the
                           page, a part between omission marks too short, parts
                           spread beyond one passage: `excerpts` rules; a figure
                           of the page cut short: `whole_figures`; or a changed
                           snapshot); one passing check per file otherwise
    snapshot      warning  citations with no snapshot (not verifiable); error, one
                           check per citation, when `sealed` is given and the
                           citation has no snapshot a researcher's fetch sealed
    site_root     warning  a bare domain or site root, or a page that
                           redirected to one
    repeated_url  warning  the same URL and excerpt under two numbers in one file (one
                           footnote per excerpt: two excerpts of one page are two
                           footnotes, and asking to merge them would lose one)
    title         error    the cited title is not the page's title: equal after `title_form`
                           (the excerpt's normalisation, `excerpts.normalize`: invisible
                           characters, NFKC, quote marks, dashes and runs of whitespace folded,
                           and case folded too, since a retyped capital adds no word), or the
                           main part of it (its longest segment between separators: the site
                           name dropped); any title the page declares counts
    final_url     error    the cited URL is one the fetch was redirected from: cite the URL it
                           ended at (the snapshot's `final_url`, which fetch prints as URL)
    retrieved     warning  a Retrieved date that is not the day of the snapshot's
                           fetch stamp, or one with no snapshot behind it (the
                           date comes from the fetch command, never the model)
    sources.records          warning  unreadable snapshot records
    citations.integrity      (always passes) the summary line: citations,
                             verified verbatim, not verifiable, mismatched

A citation without a usable URL or excerpt counts as not verifiable but gets
no check here: the checklist's `required` rule reports it (one defect, one check).

Standard library only, and each page is normalized once: verify must stay fast.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple
from urllib.parse import urlsplit

from .. import formats
from ..core.result import Check
from ..evidence.excerpts import RULE_SHORT_PART, RULE_SPREAD, MatchResult, normalize, part_words
from ..evidence.matcher import StoredPage, find_excerpt
from ..evidence.snapshots import Snapshot, SnapshotError, SnapshotIndex, url_key
from .whole_figures import CutFigure, cut_figures, describe
from ..core.clip import clip

INTEGRITY_CHECK_ID = "citations.integrity"
SOURCES_CHECK_ID = "sources.records"
MAX_LISTED = 6
_ROOT_PATHS = {"", "/", "/index.html", "/index.htm", "/index.php", "/default.aspx", "/home"}
_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

# How a mismatch names the page's closest passage; the researcher's refusal points at it only when
# one is shown (guard/handlers/subagent_stop.block_reason).
CLOSEST_SHOWN = "closest passage in the page:"


class IntegritySummary(NamedTuple):
    """Counts behind the citation-integrity line; every citation is in exactly one bucket."""

    citations: int = 0
    verified: int = 0
    not_verifiable: int = 0
    mismatched: int = 0

    def line(self) -> str:
        return (f"Citation integrity: {self.citations} citations, {self.verified} verified verbatim, "
                f"{self.not_verifiable} not verifiable, {self.mismatched} mismatched")


class _Finding(NamedTuple):
    line: int | None
    message: str


@dataclass(slots=True)
class _FileResult:
    """What one file's citations produced, before it becomes checks."""

    path: Path
    scope: str
    snapshot_backed: int = 0
    mismatches: list[_Finding] = field(default_factory=list)
    unverifiable: list[_Finding] = field(default_factory=list)
    site_roots: list[_Finding] = field(default_factory=list)
    repeated: list[_Finding] = field(default_factory=list)
    titles: list[_Finding] = field(default_factory=list)
    redirected: list[_Finding] = field(default_factory=list)  # cited by a URL the fetch left (errors)
    dates: list[_Finding] = field(default_factory=list)
    unsealed: list[_Finding] = field(default_factory=list)  # no sealed snapshot in a run the hooks managed (errors)


def citation_integrity_checks(run_dir: Path, cited: Iterable[Any],
                              sealed: "Mapping[str, Any] | None" = None) -> "list[Check]":
    """The integrity checks for `cited`: items with `.path` and `.citation`
    (the checklist's `Cited`) or `(path, citation)` pairs. `sealed`: the run's seals
    (path relative to the run -> seal) when the hooks managed it, else None."""
    checks, _ = citation_integrity(run_dir, cited, sealed)
    return checks


def citation_integrity(run_dir: Path, cited: Iterable[Any],
                       sealed: "Mapping[str, Any] | None" = None) -> "tuple[list[Check], IntegritySummary]":
    """Checks and summary counts in one pass (`sealed`: see `citation_integrity_checks`)."""
    run_dir = Path(run_dir)
    index = SnapshotIndex.build(run_dir)
    pages = _PageCache()
    files: dict[Path, _FileResult] = {}
    seen_urls: dict[tuple[Path, str], int] = {}
    counts = {"citations": 0, "verified": 0, "not_verifiable": 0, "mismatched": 0}

    for path, citation in _pairs(cited):
        result = files.get(path)
        if result is None:
            result = files[path] = _FileResult(path, _scope(run_dir, path))
        counts["citations"] += 1
        outcome = _check_citation(citation, index, pages, result, seen_urls, sealed)
        counts[outcome] += 1

    checks: list[Check] = []
    for result in files.values():
        checks.extend(_file_checks(Check, result))
    for meta_path, message in index.problems:
        checks.append(Check(SOURCES_CHECK_ID, False, "warning",
                            f"{message}; its page cannot back any citation", str(meta_path), None))
    summary = IntegritySummary(**counts)
    if summary.citations:
        # A summary, never a failure of its own: the checks above carry the defects.
        checks.append(Check(INTEGRITY_CHECK_ID, True, "warning", summary.line(), None, None))
    return checks, summary


def _pairs(cited: Iterable[Any]) -> Iterable[tuple[Path, Any]]:
    for item in cited:
        if hasattr(item, "citation") and hasattr(item, "path"):
            path, citation = item.path, item.citation
        else:
            path, citation = item
        yield (path if isinstance(path, Path) else Path(path)), citation


def _scope(run_dir: Path, path: Path) -> str:
    """`report` or `findings.<slug>`, as the checklist names checks about that file."""
    if path.name == formats.REPORT_FILE:
        return "report"
    if path.parent.name == formats.FINDINGS_DIR:
        return f"findings.{path.stem}"
    return path.stem


class _PageCache:
    """Each snapshot's text, read, hash-checked and normalized once per verify."""

    def __init__(self) -> None:
        self._pages: dict[Path, tuple[StoredPage | None, str | None]] = {}
        self._matches: dict[tuple[Path, str], MatchResult] = {}
        self._cuts: dict[tuple[Path, str], list[CutFigure]] = {}

    def get(self, snap: Snapshot) -> tuple[StoredPage | None, str | None]:
        """(page, None) or (None, why the snapshot's text cannot be used)."""
        if snap.text_path not in self._pages:
            try:
                text = snap.text()
            except SnapshotError as exc:
                self._pages[snap.text_path] = (None, str(exc))
            else:
                if snap.text_is_intact(text):
                    self._pages[snap.text_path] = (StoredPage(text), None)
                else:
                    self._pages[snap.text_path] = (None, (
                        f"{formats.SOURCES_DIR}/{snap.text_path.name} was changed after it was fetched "
                        "(its SHA-256 no longer matches); fetch the page again"))
        return self._pages[snap.text_path]

    def match(self, snap: Snapshot, page: StoredPage, excerpt: str) -> MatchResult:
        """The one matcher's verdict (`matcher.find_excerpt`, no spans needed here), once per
        page and excerpt: a report quotes the same excerpts as its findings files."""
        key = (snap.text_path, excerpt)
        found = self._matches.get(key)
        if found is None:
            found = self._matches[key] = find_excerpt(excerpt, page, spans=False)
        return found

    def cuts(self, snap: Snapshot, page: StoredPage, excerpt: str, match: MatchResult) -> list[CutFigure]:
        """The page's figures a matched excerpt cuts short (`whole_figures`), once per page and excerpt."""
        key = (snap.text_path, excerpt)
        found = self._cuts.get(key)
        if found is None:
            found = self._cuts[key] = cut_figures(page.normalized, match.at)
        return found


def _check_citation(citation: Any, index: SnapshotIndex, pages: _PageCache, result: _FileResult,
                    seen_urls: dict[tuple[Path, str], int], sealed: "Mapping[str, Any] | None" = None) -> str:
    """Record the citation's problems in `result`; return its summary bucket."""
    number, line = citation.number, citation.line or None
    url = (citation.url or "").strip()
    excerpt = citation.excerpt or ""
    if not _is_web_url(url):
        return "not_verifiable"  # the checklist's `required` rule already reports it: one defect, one check

    key = url_key(url) + "\n" + " ".join(normalize(excerpt).split())
    first = seen_urls.setdefault((result.path, key), number)
    if first != number:
        result.repeated.append(_Finding(line, f"[^{number}] repeats [^{first}]: the same page ({url}) and the "
                                              f"same excerpt; cite [^{first}] again instead of a second entry"))
    snap = index.find(url)
    if is_site_root(url):
        result.site_roots.append(_Finding(line, f"[^{number}] cites the site root {url}; "
                                                "cite the page that makes the claim"))
    elif snap is not None and is_site_root(snap.final_url):
        result.site_roots.append(_Finding(line, f"[^{number}] {url} redirected to the site root "
                                                f"{snap.final_url}; the page it names may be gone"))
    if snap is not None and citation.title and not _title_matches(citation.title, snap.titles):
        result.titles.append(_Finding(line, f"[^{number}] title {citation.title!r} is not the page's title "
                                            f"{snap.title!r} ({url}): copy the title fetch printed, as it is"))
    if snap is not None and url_key(url) != url_key(snap.final_url):
        result.redirected.append(_Finding(line, f"[^{number}] {url} redirected to {snap.final_url}: cite the "
                                                "URL the fetch ended at (fetch prints it as URL), the page whose "
                                                "text was stored"))
    _check_retrieved(citation, snap, result)
    if not excerpt.strip():
        return "not_verifiable"  # reported by the `required` rule
    if sealed is not None and (snap is None or f"{formats.SOURCES_DIR}/{snap.text_path.name}" not in sealed):
        what = "has no page snapshot" if snap is None else \
            f"has only a page snapshot no researcher's fetch sealed ({formats.SOURCES_DIR}/{snap.text_path.name})"
        result.unsealed.append(_Finding(line, (
            f"[^{number}] {url} {what}: no page read through the fetch command backs it. Read the page with "
            "'web-research fetch' and quote from its text, or drop the claim")))
        return "not_verifiable"
    if snap is None:
        result.unverifiable.append(_Finding(line, f"[^{number}] {url} has no page snapshot (not verifiable); "
                                                  "fetch it with 'web-research fetch' and quote from its text"))
        return "not_verifiable"

    result.snapshot_backed += 1
    page, problem = pages.get(snap)
    where = f"{formats.SOURCES_DIR}/{snap.text_path.name}"
    if page is None:
        result.mismatches.append(_Finding(line, f"[^{number}] cannot be checked against {url}: {problem}"))
        return "mismatched"
    match = pages.match(snap, page, excerpt)
    if match.ok:
        cuts = pages.cuts(snap, page, excerpt, match)
        if not cuts:
            return "verified"
        result.mismatches.append(_Finding(line, (
            f"[^{number}] excerpt cuts a figure of the page {url} ({where}) short: "
            f"{'; '.join(describe(cut) for cut in cuts[:3])}. Quote each figure whole: its sign, currency, "
            "every digit, its magnitude and both ends of a range")))
        return "mismatched"
    if match.rule in (RULE_SHORT_PART, RULE_SPREAD):
        result.mismatches.append(_Finding(line, _collage_message(number, url, where, match)))
        return "mismatched"
    part = "" if match.parts_total <= 1 else f" (part {match.parts_found + 1} of {match.parts_total}, split at '...')"
    closest = f"{CLOSEST_SHOWN} \"{match.closest}\"" if match.closest else "the page has no similar passage"
    result.mismatches.append(_Finding(line, (
        f"[^{number}] excerpt is not in the page {url} ({where}){part}: \"{_shorten(match.failed_part or '')}\"; "
        f"{closest}. Quote the page exactly, or drop the claim")))
    return "mismatched"


def _collage_message(number: int, url: str, where: str, match: MatchResult) -> str:
    """Why an excerpt with omission marks is not an honest quote (excerpts' rules)."""
    if match.rule == RULE_SHORT_PART:
        words = part_words(match.failed_part or "")
        return (f"[^{number}] excerpt part {match.parts_found + 1} of {match.parts_total} (split at '...'), "
                f"\"{_shorten(match.failed_part or '')}\", has {words} word(s); each part between omission marks "
                f"needs at least {formats.EXCERPT_MIN_PART_WORDS} words. Quote whole sentences")
    return (f"[^{number}] excerpt parts are found in the page {url} ({where}) only spread over {match.span} "
            f"characters; all parts must lie within one passage of at most {formats.EXCERPT_MAX_SPAN_CHARS} "
            "characters. Quote one passage, or cite each part under its own claim")
def _check_retrieved(citation: Any, snap: Snapshot | None, result: _FileResult) -> None:
    """A Retrieved date is copied from the fetch command's stamp: the snapshot's UTC day."""
    written = (getattr(citation, "retrieved_at", None) or "").strip()
    if not _ISO_DAY.fullmatch(written):
        return  # absent, or malformed: the checklist's `optional` rule reports that
    where = f"[^{citation.number}] **Retrieved** {written}"
    if snap is None:
        result.dates.append(_Finding(citation.line or None, f"{where} has no page snapshot behind it; "
                                     "the date comes from the fetch command's stamp, so leave the line out"))
        return
    fetched = (snap.retrieved_at or "")[:10]
    if fetched and written != fetched:
        result.dates.append(_Finding(citation.line or None, f"{where} differs from the day the page was fetched, "
                                     f"{fetched} ({snap.retrieved_at}); copy that date or leave the line out"))


@lru_cache(maxsize=8192)
def _is_web_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def _file_checks(Check: Any, result: _FileResult) -> "list[Check]":
    prefix = f"{result.scope}.citations"
    path = str(result.path)
    checks = []
    if result.mismatches:
        checks.extend(Check(f"{prefix}.verbatim", False, "error", f.message, path, f.line) for f in result.mismatches)
    elif result.snapshot_backed:
        checks.append(Check(f"{prefix}.verbatim", True, "error",
                            f"all {result.snapshot_backed} snapshot-backed excerpts appear verbatim in their pages",
                            path, None))
    if result.unsealed:
        checks.extend(Check(f"{prefix}.snapshot", False, "error", f.message, path, f.line) for f in result.unsealed)
    else:
        checks.append(_aggregate(Check, f"{prefix}.snapshot", path, result.unverifiable,
                                 "every citation has a page snapshot to check its excerpt against"))
    checks.append(_aggregate(Check, f"{prefix}.site_root", path, result.site_roots,
                             "no citation points at a bare site root"))
    checks.append(_aggregate(Check, f"{prefix}.repeated_url", path, result.repeated,
                             "no entry repeats another's page and excerpt"))
    if result.snapshot_backed or result.titles:
        checks.append(_aggregate(Check, f"{prefix}.title", path, result.titles,
                                 "every cited title is its page's title", severity="error"))
    if result.snapshot_backed or result.redirected:
        checks.append(_aggregate(Check, f"{prefix}.final_url", path, result.redirected,
                                 "every citation names the URL its fetch ended at", severity="error"))
    checks.append(_aggregate(Check, f"{prefix}.retrieved", path, result.dates,
                             "every Retrieved date is the day its page was fetched"))
    return checks


def _aggregate(Check: Any, check_id: str, path: str, found: list[_Finding], passed: str,
               severity: str = "warning") -> "Check":
    """One check per rule and file (a warning unless told): the first finding gives the line,
    the message lists them."""
    if not found:
        return Check(check_id, True, severity, passed, path, None)
    message = found[0].message
    rest = found[1:]
    if rest:
        message += "; also " + "; ".join(f"line {f.line}: {f.message}" for f in rest[: MAX_LISTED - 1])
        if len(rest) > MAX_LISTED - 1:
            message += f"; and {len(rest) - (MAX_LISTED - 1)} more"
    return Check(check_id, False, severity, message, path, found[0].line)


def _shorten(text: str, limit: int = 240) -> str:
    return clip(text, limit, collapse=False)


@lru_cache(maxsize=8192)
def is_site_root(url: str) -> bool:
    """True for a bare domain or home page (no path beyond `/` or an index file, no query)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    if not parts.scheme or not parts.netloc or parts.query:
        return False
    return parts.path.lower() in _ROOT_PATHS or parts.path.lower().rstrip("/") in _ROOT_PATHS


_TITLE_SEPARATORS = re.compile(r"\s+[-|:\u00b7\u2022\u00bb/]\s+")


def title_form(title: str) -> str:
    """A title as the title rule compares it: `normalize`d (the excerpt's folding), case folded,
    and each separator between its parts written ` - ` (`|`, `:`, `·`, `»` and `/` separate the
    same parts: another one adds no word)."""
    return _TITLE_SEPARATORS.sub(" - ", normalize(title).casefold())


@lru_cache(maxsize=4096)
def _title_matches(cited: str, page_titles: tuple[str, ...]) -> bool:
    # Cached: a report repeats its findings' titles, and one page backs many citations.
    return title_matches(cited, page_titles)


def title_matches(cited: str, page_titles: Iterable[str]) -> bool:
    """True when the cited title is one of the page's titles, or the main part of one (its
    longest segment between separators: "Enterprise Pricing" for "Enterprise Pricing - Acme
    Docs", never "Acme Docs"; or its longest before the last, where a site names itself:
    "Log Management Pricing" for "Log Management Pricing | Acme Observability Docs", whose site
    name is the longer), after `title_form`. Nothing else: a title with words added, even
    around the page's own, is no title of the page."""
    mine = title_form(cited)
    if not mine:
        return True  # an empty title is the `required` rule's defect
    for title in page_titles:
        theirs = title_form(title)
        parts = _TITLE_SEPARATORS.split(theirs)
        if theirs and (mine == theirs or mine == max(parts, key=len)
                       or (len(parts) > 1 and mine == max(parts[:-1], key=len))):
            return True
    return False
