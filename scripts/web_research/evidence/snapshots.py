"""Page snapshots: the stored text of every page a researcher fetched.

A snapshot is two files under `<run>/sources/`, named from the hash of the
page's URL: `<id>.txt` (the page's main text, exactly what the researcher was
shown) and `<id>.json` (where it came from, when, and the SHA-256 of the text).
`verify` checks each cited excerpt against the snapshot of its URL, so a
snapshot must be found from either the URL the researcher asked for or the one
it finally landed on after redirects; `SnapshotIndex` maps both.

Only the standard library is used here: `verify` imports this module.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit, urlunsplit

from ..formats import SOURCES_DIR
from ..core.fsutil import RunFileError, atomic_write_bytes, atomic_write_text, is_within, read_run_file, read_run_text

SNAPSHOT_VERSION = 1
ID_LENGTH = 16
# `fetch` stores at most this many characters of a page's text (and says so in
# the record's `truncated` field); readers refuse anything larger than it can be.
MAX_TEXT_CHARS = 2_000_000
ARCHIVE_SUFFIX = ".warc.gz"  # the page's WARC beside its text (archive.py)
MAX_TEXT_BYTES = 4 * MAX_TEXT_CHARS  # UTF-8: at most 4 bytes a character
# A record holds a few URLs and titles: anything near this bound was not written by fetch.
MAX_RECORD_BYTES = 256 * 1024
_DEFAULT_PORTS = {"http": 80, "https": 443}


class SnapshotError(Exception):
    """A snapshot cannot be written or read; `str()` names the file and the problem."""


@lru_cache(maxsize=8192)
def url_key(url: str) -> str:
    """The form of a URL used to find its snapshot.

    Scheme and host lower-cased, default port and fragment dropped, an empty
    path written as `/`, one trailing slash of a non-root path ignored: two
    spellings of the same page share a key, different pages never do.
    Cached: verify looks up every citation's URL, and a report repeats its findings' URLs.
    """
    raw = url.strip()
    try:
        parts = urlsplit(raw)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        return raw
    if not parts.scheme or not host:
        return raw
    scheme = parts.scheme.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc = f"{netloc}:{port}"
    path = parts.path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return urlunsplit((scheme, netloc, path, parts.query, ""))


def snapshot_id(url: str) -> str:
    """File stem of the snapshot of `url`: the first hex digits of SHA-256 of its key."""
    return hashlib.sha256(url_key(url).encode("utf-8")).hexdigest()[:ID_LENGTH]


def text_sha256(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


class Snapshot(NamedTuple):
    """Metadata of one stored page; `text()` reads the stored text."""

    requested_url: str
    final_url: str
    title: str
    status: int
    content_type: str
    retrieved_at: str
    sha256: str
    chars: int
    extractor: str
    meta_path: Path
    text_path: Path
    other_titles: tuple[str, ...] = ()
    truncated: bool = False  # the page had more text than MAX_TEXT_CHARS; only its start is stored
    # The page's WARC (`archive` in the record): None for a page never archived (fetched before
    # fetch kept the exchange).
    archive: "ArchiveRef | None" = None
    # The site's name and publication date the page's metadata states ("" where it states none;
    # None in a record written before fetch kept them: evidence/page_meta.py).
    site_name: str | None = None
    published: str | None = None

    @property
    def archive_path(self) -> Path | None:
        return self.meta_path.parent / self.archive.file if self.archive is not None else None

    @property
    def titles(self) -> tuple[str, ...]:
        """Every title the page declares (the `<title>` first), for comparing with a cited title."""
        return tuple(t for t in (self.title, *self.other_titles) if t)

    @property
    def run_dir(self) -> Path:
        """The run folder this snapshot belongs to (`<run>/sources/<id>.json`)."""
        return self.meta_path.parent.parent

    def text(self) -> str:
        try:
            return read_run_text(self.text_path, self.run_dir, MAX_TEXT_BYTES)
        except RunFileError as exc:
            raise SnapshotError(f"{self.text_path}: cannot read snapshot text: {exc.reason}") from exc

    def text_is_intact(self, text: str) -> bool:
        """True when `text` still has the SHA-256 recorded at fetch time."""
        return text_sha256(text) == self.sha256


class ArchiveRef(NamedTuple):
    """The record's `archive` object: the WARC beside it (archive.py writes it)."""

    file: str
    sha256: str
    bytes: int
    body_sha256: str
    ms: int


def sources_dir(run_dir: Path) -> Path:
    return Path(run_dir) / SOURCES_DIR


def store_snapshot(
    run_dir: Path,
    *,
    requested_url: str,
    final_url: str,
    title: str,
    status: int,
    content_type: str,
    retrieved_at: str,
    text: str,
    extractor: str,
    other_titles: tuple[str, ...] = (),
    truncated: bool = False,
    warc: bytes | None = None,
    body_sha256: str = "",
    archive_ms: int = 0,
    site_name: str = "",
    published: str = "",
) -> Snapshot:
    """Write `text` and its metadata under `run_dir/sources/`, atomically, and `warc` (the
    page's WARC, archive.py; `body_sha256`: of the body it holds decoded) beside them.

    The WARC and the text are written first, so a metadata file never points at a missing or
    older file. Refuses a `sources` folder that leads outside the run folder.
    """
    folder = sources_dir(run_dir)
    if folder.exists() and not is_within(folder, run_dir):
        raise SnapshotError(f"{folder}: leads outside the run folder {run_dir}; refusing to write there")
    stem = snapshot_id(requested_url)
    text_path, meta_path = folder / f"{stem}.txt", folder / f"{stem}.json"
    meta = {
        "version": SNAPSHOT_VERSION,
        "requested_url": requested_url,
        "final_url": final_url,
        "title": title,
        "other_titles": list(other_titles),
        "status": status,
        "content_type": content_type,
        "retrieved_at": retrieved_at,
        "sha256": text_sha256(text),
        "chars": len(text),
        "extractor": extractor,
        "truncated": truncated,
        "site_name": site_name,
        "published": published,
        "text_file": text_path.name,
    }
    if warc is not None:
        warc_path = folder / f"{stem}{ARCHIVE_SUFFIX}"
        started = time.monotonic()
        atomic_write_bytes(warc_path, warc)
        archive_ms += round((time.monotonic() - started) * 1000)
        meta["archive"] = {"file": warc_path.name, "sha256": "sha256:" + hashlib.sha256(warc).hexdigest(),
                           "bytes": len(warc), "body_sha256": body_sha256, "ms": archive_ms}
    else:  # a page fetched again without an exchange: no older WARC may pass for this one
        stale = folder / f"{stem}{ARCHIVE_SUFFIX}"
        if stale.is_file() and not stale.is_symlink():
            stale.unlink()
    atomic_write_text(text_path, text)
    atomic_write_text(meta_path, json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
    return _from_meta(meta, meta_path)


def load_snapshot(meta_path: Path) -> Snapshot:
    """Read one `<id>.json`; raise `SnapshotError` naming the file and the bad field.

    The record may have been planted or edited by a model, so it is read through
    `fsutil.read_run_file` (a regular file inside the run, size-bounded) and any
    JSON the parser chokes on (numbers of thousands of digits, brackets nested
    past the recursion limit) is a `SnapshotError` too, never a crash.
    """
    meta_path = Path(meta_path)
    try:
        data = read_run_file(meta_path, meta_path.parent.parent, MAX_RECORD_BYTES)
    except RunFileError as exc:
        raise SnapshotError(f"{meta_path}: not a readable snapshot record: {exc.reason}") from exc
    try:
        meta = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        detail = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
        raise SnapshotError(f"{meta_path}: not a readable snapshot record: {detail}") from None
    if not isinstance(meta, dict):
        raise SnapshotError(f"{meta_path}: expected a JSON object")
    return _from_meta(meta, meta_path)


_STRING_FIELDS = ("requested_url", "final_url", "title", "content_type", "retrieved_at", "sha256", "extractor", "text_file")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _stays_beside(text_path: Path) -> bool:
    """`is_within(text_path, its folder)` for a bare file name: only a symbolic link can lead
    elsewhere, so only one is resolved (the index reads a record per page, and resolving
    both paths of each cost verify a millisecond per page)."""
    try:
        if not stat.S_ISLNK(os.lstat(text_path).st_mode):
            return True
    except OSError:
        pass
    return is_within(text_path, text_path.parent)


def _from_meta(meta: dict, meta_path: Path) -> Snapshot:
    for name in _STRING_FIELDS:
        if not isinstance(meta.get(name), str):
            raise SnapshotError(f"{meta_path}: field '{name}' must be a string")
    for name in ("status", "chars"):
        if not _is_int(meta.get(name)):
            raise SnapshotError(f"{meta_path}: field '{name}' must be an integer")
    other = meta.get("other_titles", [])
    if not isinstance(other, list) or not all(isinstance(t, str) for t in other):
        raise SnapshotError(f"{meta_path}: field 'other_titles' must be a list of strings")
    truncated = meta.get("truncated", False)  # absent in records written before the field existed
    if not isinstance(truncated, bool):
        raise SnapshotError(f"{meta_path}: field 'truncated' must be true or false")
    for name in ("site_name", "published"):  # absent in records written before fetch kept them
        if meta.get(name) is not None and not isinstance(meta[name], str):
            raise SnapshotError(f"{meta_path}: field '{name}' must be a string")
    text_path = _beside(meta_path, meta["text_file"], "text_file")
    archive = _archive_ref(meta_path, meta.get("archive"))
    return Snapshot(
        requested_url=meta["requested_url"],
        final_url=meta["final_url"],
        title=meta["title"],
        other_titles=tuple(other),
        status=meta["status"],
        content_type=meta["content_type"],
        retrieved_at=meta["retrieved_at"],
        sha256=meta["sha256"],
        chars=meta["chars"],
        extractor=meta["extractor"],
        meta_path=meta_path,
        text_path=text_path,
        truncated=truncated,
        archive=archive,
        site_name=meta.get("site_name"),
        published=meta.get("published"),
    )


def _beside(meta_path: Path, name: str, field_name: str) -> Path:
    """The file `name` in the record's folder; a name that leads elsewhere is refused."""
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\x00" in name:
        raise SnapshotError(f"{meta_path}: field '{field_name}' must name a file beside it")
    path = meta_path.parent / name
    if path.parent != meta_path.parent or not _stays_beside(path):
        raise SnapshotError(f"{meta_path}: field '{field_name}' must name a file beside it")
    return path


def _archive_ref(meta_path: Path, value: object) -> ArchiveRef | None:
    """The record's `archive` object, checked; None when absent (a page never archived)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise SnapshotError(f"{meta_path}: field 'archive' must be an object")
    for name in ("file", "sha256", "body_sha256"):
        if not isinstance(value.get(name), str):
            raise SnapshotError(f"{meta_path}: field 'archive.{name}' must be a string")
    for name in ("bytes", "ms"):
        if not _is_int(value.get(name)):
            raise SnapshotError(f"{meta_path}: field 'archive.{name}' must be an integer")
    if not value["file"].endswith(ARCHIVE_SUFFIX):
        raise SnapshotError(f"{meta_path}: field 'archive.file' must name a {ARCHIVE_SUFFIX} file")
    _beside(meta_path, value["file"], "archive.file")
    return ArchiveRef(value["file"], value["sha256"], value["bytes"], value["body_sha256"], value["ms"])


@dataclass(slots=True)
class SnapshotIndex:
    """Every snapshot of a run, found by requested or final URL.

    Built by reading each metadata file once; texts are read only on demand.
    Unreadable records are kept in `problems` (path, message) instead of
    failing the whole index.
    """

    by_key: dict[str, Snapshot] = field(default_factory=dict)
    problems: list[tuple[Path, str]] = field(default_factory=list)

    @classmethod
    def build(cls, run_dir: Path) -> "SnapshotIndex":
        index = cls()
        folder = sources_dir(run_dir)
        if not folder.is_dir():
            return index
        if not is_within(folder, run_dir):
            index.problems.append((folder, f"{folder}: leads outside the run folder; snapshots ignored"))
            return index
        for meta_path in sorted(folder.glob("*.json")):
            try:
                snap = load_snapshot(meta_path)
            except SnapshotError as exc:
                index.problems.append((meta_path, str(exc)))
                continue
            # A page fetched under its own URL wins over one that merely redirected there.
            index.by_key.setdefault(url_key(snap.final_url), snap)
            index.by_key[url_key(snap.requested_url)] = snap
        return index

    def find(self, url: str) -> Snapshot | None:
        return self.by_key.get(url_key(url))

    def __len__(self) -> int:
        return len({id(s) for s in self.by_key.values()})


def find_snapshot(run_dir: Path, url: str) -> Snapshot | None:
    """The snapshot whose requested or final URL is `url`, or None.

    Looks up the file named from `url` first (the common case, no scan), then
    falls back to the index for a URL reached only through a redirect.
    """
    meta_path = sources_dir(run_dir) / f"{snapshot_id(url)}.json"
    try:
        return load_snapshot(meta_path)
    except SnapshotError:
        pass
    return SnapshotIndex.build(run_dir).find(url)


def snapshot_as_dict(snap: Snapshot) -> dict:
    """JSON-friendly view of a snapshot (paths as strings)."""
    data = snap._asdict()
    data["meta_path"], data["text_path"] = str(snap.meta_path), str(snap.text_path)
    data["other_titles"] = list(snap.other_titles)
    data["archive"] = snap.archive._asdict() if snap.archive is not None else None
    return data
