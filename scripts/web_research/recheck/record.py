"""The recheck record: what one `web-research recheck` found, in `checks/recheck-<UTC time>.json`.

A report outlives its run, so a recheck leaves a dated record beside the claim-checker's
verdicts and never replaces an earlier one: each recheck writes a file of its own (a second
one in the same second gets a `-2` suffix), atomically. The format is
`schemas/recheck.schema.json`; this module is its one reader and writer, and gives the
record as types (`RecheckRecord`, `CitationRecheck`, `PageRecheck`) so that `status` and the
report view never handle raw JSON.

A record in a run folder may have been planted or edited, so reading one is bounded
(`fsutil.read_run_text`: a regular file inside the run, at most `MAX_RECORD_BYTES`, UTF-8) and
validated against the schema; a record that fails is a `RecheckRecordError` naming the file
and the field, never a crash.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from .. import formats
from ..core.fsutil import RunFileError, atomic_write_text, is_within, read_run_text
from ..core.schema_validation import schema_errors
from ..core.clip import clip

SCHEMA = "recheck.schema.json"
RECORD_VERSION = 1
MAX_RECORD_BYTES = 8 * 1024 * 1024

UNCHANGED = "unchanged"  # the excerpt is still in the live page (verify's matching rules)
CHANGED = "changed"  # the page answers, the excerpt is not in it, or what surrounds it changed
MOVED = "moved"  # the URL now leads elsewhere; the excerpt is judged on the new page
GONE = "gone"  # the site itself answered 404 or 410 (a name that does not resolve is unreachable)
UNREACHABLE = "unreachable"  # no answer to judge (network error, no address, timeout, refused, too large)
STATES = (UNCHANGED, CHANGED, MOVED, GONE, UNREACHABLE)
# The states that say the report no longer stands as written (exit 1).
VERDICT_STATES = (CHANGED, MOVED, GONE)

# What fetching a page gave (`PageRecheck.outcome`).
ANSWERED = "answered"
PAGE_GONE = "gone"
PAGE_UNREACHABLE = "unreachable"

# Bounds of the record's strings (its schema's): text from the web is cut to them.
MAX_URL_CHARS = 8192
MAX_ERROR_CHARS = 2000
MAX_NOTE_CHARS = 3000

_STAMP = "%Y%m%dT%H%M%SZ"
_FILE_NAME = re.compile(r"^" + re.escape(formats.RECHECK_FILE_PREFIX) + r"([0-9]{8}T[0-9]{6}Z)(?:-([0-9]{1,4}))?\.json$")


class RecheckRecordError(Exception):
    """A recheck record that cannot be used; `str()` names the file and what is wrong."""


@dataclass(frozen=True, slots=True)
class Change:
    """Words of the excerpt (`was`) and what the live page says in their place (`now`);
    either side is '' when words were only dropped or only added."""

    was: str
    now: str

    def text(self) -> str:
        if not self.was:
            return f"added {self.now!r}"
        if not self.now:
            return f"dropped {self.was!r}"
        return f"{self.was} -> {self.now}"


BYTES_SAME = "same"
BYTES_CHANGED = "changed"
NEVER_ARCHIVED = "never-archived"


@dataclass(frozen=True, slots=True)
class PageRecheck:
    """What fetching one cited URL gave."""

    url: str
    outcome: str  # ANSWERED, PAGE_GONE or PAGE_UNREACHABLE
    status: int | None
    final_url: str | None
    fetched_at: str
    seconds: float
    error: str | None  # one line, when the page gave no text
    live_text: str | None  # rechecks/<stamp>/<id>.txt, relative to the run folder
    sha256: str | None
    truncated: bool
    # The page's bytes against its archived WARC: its body's SHA-256 now, and BYTES_SAME,
    # BYTES_CHANGED or NEVER_ARCHIVED (None: no body was read, or the run holds no snapshot of it).
    body_sha256: str | None = None
    bytes: str | None = None


@dataclass(frozen=True, slots=True)
class CitationRecheck:
    """One footnote of report.md, rechecked. `state` is one of STATES."""

    number: int
    url: str
    state: str
    status: int | None
    checked_at: str
    note: str  # one line for people: what was found, and for `unreachable` that it is no verdict
    final_url: str | None = None
    moved_to: str | None = None
    excerpt_found: bool | None = None
    closest: str | None = None
    similarity: float | None = None
    differences: tuple[Change, ...] = ()
    figures: tuple[Change, ...] = ()
    snapshot: str | None = None
    in_snapshot: bool | None = None


@dataclass(frozen=True, slots=True)
class RecheckRecord:
    """One recheck of a run. `path` is where it was read from or written to (not stored in the file)."""

    plugin_version: str
    started_at: str
    finished_at: str
    report_sha256: str
    live_dir: str
    only: tuple[int, ...] | None
    pages: tuple[PageRecheck, ...]
    citations: tuple[CitationRecheck, ...]
    path: Path | None = None

    @property
    def date(self) -> str:
        """The day of the recheck (UTC), as people read it: 2026-05-02."""
        return self.started_at[:10]

    def summary(self) -> dict[str, int]:
        """How many citations are in each state, and in all."""
        counts = {"citations": len(self.citations), **dict.fromkeys(STATES, 0)}
        for citation in self.citations:
            counts[citation.state] += 1
        return counts

    def summary_line(self) -> str:
        """`9 citations: 6 unchanged, 1 changed, 1 moved, 1 gone, 0 unreachable`."""
        counts = self.summary()
        return (f"{counts['citations']} citation{'s' if counts['citations'] != 1 else ''}: "
                + ", ".join(f"{counts[state]} {state}" for state in STATES))

    def by_number(self) -> dict[int, CitationRecheck]:
        """Each footnote's entry by its number (the report's `[^n]`)."""
        return {c.number: c for c in self.citations}

    def to_json(self) -> dict[str, Any]:
        """The record as the schema has it."""
        return {
            "version": RECORD_VERSION,
            "plugin_version": self.plugin_version,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "report_sha256": self.report_sha256,
            "live_dir": self.live_dir,
            "only": None if self.only is None else list(self.only),
            "summary": self.summary(),
            "pages": [asdict(p) for p in self.pages],
            "citations": [{**asdict(c), "differences": [asdict(d) for d in c.differences],
                           "figures": [asdict(f) for f in c.figures]} for c in self.citations],
        }


def cut(text: str, limit: int) -> str:
    """`text` within `limit` characters (an ellipsis marks a cut)."""
    return clip(text, limit, collapse=False)


# --- Times and names ------------------------------------------------------------------

def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def utc_text(moment: datetime) -> str:
    """`2026-05-02T10:15:00Z`: the record's times."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp(moment: datetime) -> str:
    """`20260502T101500Z`: the UTC time in file and folder names (no colons, sorts by time)."""
    return moment.astimezone(timezone.utc).strftime(_STAMP)


def free_stamp(run_dir: Path, moment: datetime) -> str:
    """A name for a new recheck at `moment` that neither an earlier record nor an earlier live
    folder uses: the stamp, or the stamp with `-2`, `-3`, ... when rechecks run in one second."""
    base = stamp(moment)
    for suffix in range(1, 10000):
        name = base if suffix == 1 else f"{base}-{suffix}"
        record = Path(run_dir) / formats.CHECKS_DIR / f"{formats.RECHECK_FILE_PREFIX}{name}.json"
        live = Path(run_dir) / formats.RECHECKS_DIR / name
        if not record.exists() and not record.is_symlink() and not live.exists() and not live.is_symlink():
            return name
    raise RecheckRecordError(f"{run_dir}: 9999 rechecks in one second; try again")


def safe_folder(run_dir: Path, name: str) -> Path:
    """`run_dir/name`, refusing one that leads outside the run folder (a planted link)."""
    folder = Path(run_dir) / name
    if (folder.exists() or folder.is_symlink()) and (folder.is_symlink() or not is_within(folder, run_dir)):
        raise RecheckRecordError(f"{folder}: leads outside the run folder or is a link; refusing to write there")
    return folder


# --- Writing --------------------------------------------------------------------------

def write_record(run_dir: Path, record: RecheckRecord, name: str) -> Path:
    """Write `record` as checks/recheck-<name>.json, atomically; never over an existing file."""
    folder = safe_folder(run_dir, formats.CHECKS_DIR)
    path = folder / f"{formats.RECHECK_FILE_PREFIX}{name}.json"
    if path.exists() or path.is_symlink():
        raise RecheckRecordError(f"{path}: already exists; a recheck never overwrites an earlier record")
    data = record.to_json()
    problems = schema_errors(SCHEMA, data)
    if problems:  # our own bug: say which field, never write a record the reader would refuse
        raise RecheckRecordError(f"{path}: the record does not match {SCHEMA}: "
                                 + "; ".join(f"{field} {what}" for field, what in problems[:3]))
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    return path


# --- Reading --------------------------------------------------------------------------

def record_files(run_dir: Path) -> list[Path]:
    """Every checks/recheck-*.json of the run, oldest first (by the time in its name)."""
    folder = Path(run_dir) / formats.CHECKS_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    named = []
    for path in folder.iterdir():
        found = _FILE_NAME.match(path.name)
        if found:
            named.append(((found.group(1), int(found.group(2) or 1)), path))
    return [path for _, path in sorted(named)]


def latest_recheck(run_dir: Path) -> RecheckRecord | None:
    """The run's most recent recheck, or None when it was never rechecked.

    Raises `RecheckRecordError` when the most recent record cannot be used (too large, a link,
    not JSON, not the schema's shape): a reader says so rather than falling back to an older
    record as if it were the latest."""
    files = record_files(run_dir)
    return read_record(files[-1], run_dir) if files else None


def read_record(path: Path, run_dir: Path) -> RecheckRecord:
    """One record, read as hostile input; `RecheckRecordError` when it cannot be used."""
    rel = f"{formats.CHECKS_DIR}/{Path(path).name}"
    try:
        text = read_run_text(Path(path), Path(run_dir), MAX_RECORD_BYTES)
    except RunFileError as exc:
        raise RecheckRecordError(f"{rel}: {exc.reason}") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RecheckRecordError(f"{rel}: not a JSON recheck record ({str(exc)[:200]})") from None
    if not isinstance(data, dict):
        raise RecheckRecordError(f"{rel}: expected a JSON object")
    problems = schema_errors(SCHEMA, data)
    if problems:
        field, what = problems[0]
        raise RecheckRecordError(f"{rel}: field '{field or '(top level)'}' {what[:300]}")
    return record_from_json(data, Path(path))


def record_from_json(data: Mapping[str, Any], path: Path | None = None) -> RecheckRecord:
    """A record from JSON that passed the schema."""
    def changes(items: list[Mapping[str, str]]) -> tuple[Change, ...]:
        return tuple(Change(item["was"], item["now"]) for item in items)

    pages = tuple(PageRecheck(**page) for page in data["pages"])
    citations = tuple(CitationRecheck(**{**item, "differences": changes(item["differences"]),
                                         "figures": changes(item["figures"])})
                      for item in data["citations"])
    only = data["only"]
    return RecheckRecord(plugin_version=data["plugin_version"], started_at=data["started_at"],
                         finished_at=data["finished_at"], report_sha256=data["report_sha256"],
                         live_dir=data["live_dir"], only=None if only is None else tuple(only),
                         pages=pages, citations=citations, path=path)
