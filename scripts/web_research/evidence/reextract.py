"""Is each stored text what its archived page gives? Extract every page again from its WARC.

A snapshot's text is only as good as the extractor on the day of the fetch. With the page's
WARC beside it (archive.py), the text can be made again: the response record is read back (its
digests checked, its body compared with the body the record says was extracted), handed to the
same `extract_page` that `fetch` runs, and the result compared with the stored text. A page
whose record names no WARC was fetched before fetch kept one: it is "never archived", which is
stated and fails nothing.

The recorded extractor (`trafilatura 2.0.0 (+2 page blocks)`) names the library and version the
text came from; when this Python has another version, a difference is reported as such (a
warning: the page may extract differently with another version), not as a changed text.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from .archive import ArchiveError, check_body, read_warc
from .extraction import ExtractLimits, extract_page
from .snapshots import Snapshot, SnapshotError, SnapshotIndex
from .transport import FetchedPage, FetchError

SAME = "same"  # the text extracted again is the stored text
DIFFERS = "differs"  # it is not, with the recorded extractor version
OTHER_VERSION = "other-version"  # it is not, but this Python's extractor is another version
NEVER_ARCHIVED = "never-archived"  # the record names no WARC (fetched before fetch kept one)
BROKEN = "broken"  # the WARC or the text cannot be read, or the WARC is not what the record says

DEFAULT_LIMITS = ExtractLimits()  # fetch's own defaults


class Reextraction(NamedTuple):
    snapshot: Snapshot
    state: str
    detail: str  # what differs, or why it could not be compared; "" when the same


def extractor_version(extractor: str) -> str:
    """`trafilatura 2.0.0` of `trafilatura 2.0.0 (+2 page blocks)`: the library and its version."""
    return " ".join(extractor.split()[:2])


def first_difference(stored: str, again: str) -> int:
    """The index of the first character where the two texts part."""
    for index, (a, b) in enumerate(zip(stored, again)):
        if a != b:
            return index
    return min(len(stored), len(again))


def reextract(snap: Snapshot, limits: ExtractLimits = DEFAULT_LIMITS) -> Reextraction:
    """Extract `snap`'s page again from its WARC and compare with its stored text."""
    path = snap.archive_path
    if snap.archive is None or path is None:
        return Reextraction(snap, NEVER_ARCHIVED, "never archived: fetched before fetch kept the page's WARC, so its "
                                                  "text cannot be extracted again")
    try:
        replayed = read_warc(path, snap.run_dir)
        check_body(replayed, snap.archive.body_sha256, path)
        stored = snap.text()
    except (ArchiveError, SnapshotError) as exc:
        return Reextraction(snap, BROKEN, str(exc))
    page = FetchedPage(snap.requested_url, snap.final_url, replayed.page.status, replayed.page.content_type,
                       replayed.page.charset, replayed.page.body)
    try:
        content = extract_page(page, limits)
    except FetchError as exc:
        return Reextraction(snap, BROKEN, f"the archived page cannot be extracted again: {exc}")
    again = content.text
    if snap.truncated:  # only the start was kept: compare what was kept
        again = again[:len(stored)]
    if again == stored:
        return Reextraction(snap, SAME, "")
    at = first_difference(stored, again)
    start = max(0, at - 30)  # a little of what agrees, then where they part
    detail = (f"the text extracted again from {path.name} differs from {snap.text_path.name} at character {at} "
              f"(stored {len(stored)} characters, extracted {len(again)}): stored {stored[start:at + 40]!r}, "
              f"extracted {again[start:at + 40]!r}")
    recorded, now = extractor_version(snap.extractor), extractor_version(content.extractor)
    if recorded != now:
        return Reextraction(snap, OTHER_VERSION, f"{detail}; the text was extracted with {recorded}, this Python "
                                                 f"has {now}")
    return Reextraction(snap, DIFFERS, detail)


def reextract_run(run_dir: Path, limits: ExtractLimits = DEFAULT_LIMITS) -> tuple[list[Reextraction], list[str]]:
    """Every snapshot of the run extracted again (in file order), and the records that cannot be read."""
    index = SnapshotIndex.build(run_dir)
    snaps = sorted({id(s): s for s in index.by_key.values()}.values(), key=lambda s: s.meta_path.name)
    return [reextract(snap, limits) for snap in snaps], [message for _, message in index.problems]
