"""The page as the site sent it: one WARC file (ISO 28500, WARC/1.1) per snapshot.

`fetch` keeps, beside a page's text (`sources/<id>.txt`) and record (`<id>.json`), the HTTP
exchange that produced it in `sources/<id>.warc.gz`: a warcinfo record, then for each hop (every
redirect, then the page) the response as received (status line, headers and body, chunked framing
and content encoding still on it) followed by the request as sent, which names it in
WARC-Concurrent-To, both dated when the response arrived; each record gzipped on its own as
archives do. The record names the file, its
SHA-256 and size, and the hook seals it with the text, so the stored text can be extracted again
from what was fetched (`reextract`) and anyone can replay the page in a WARC tool.

warcio (Webrecorder's WARC library, the fetch extra) writes and reads the records, with its
digests (WARC-Block-Digest, WARC-Payload-Digest); it is imported lazily, by `fetch` and by the
commands that read a WARC back, never by the hooks or `verify`.
"""
from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__
from ..core.fsutil import RunFileError, read_run_file
from .transport import MAX_WIRE_OVERHEAD, FetchedPage, FetchLimits, parse_content_type

WARC_VERSION = "1.1"
# A WARC holds the page's response and each redirect's, every one within fetch's limits, their requests
# and the warcinfo: a file past this was not written by fetch.
_HOPS = FetchLimits().max_redirects + 1
MAX_ARCHIVE_BYTES = _HOPS * (FetchLimits().max_bytes + MAX_WIRE_OVERHEAD) + MAX_WIRE_OVERHEAD


class ArchiveError(Exception):
    """A WARC cannot be written or read back; `str()` names the file and the problem."""


def body_sha256(body: bytes) -> str:
    return "sha256:" + hashlib.sha256(body).hexdigest()


def build_warc(page: FetchedPage, retrieved_at: str, filename: str, note: str = "") -> bytes:
    """The WARC of `page`'s exchanges (warcinfo, then each hop's response and request), gzipped record by record.

    `note`: said in the warcinfo record's description after what the file holds (the bundled
    example's reconstructed WARCs say so there). Raises ArchiveError when the page carries no
    exchange (it was not fetched over the wire)."""
    from warcio.warcwriter import WARCWriter  # lazy: the fetch extra

    exchange = page.exchange
    if exchange is None:
        raise ArchiveError(f"{page.final_url}: no HTTP exchange was recorded, so there is nothing to archive")
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version=WARC_VERSION)
    info = writer.create_warcinfo_record(filename, {
        "software": f"web-research/{__version__} (warcio)",
        "format": "WARC File Format 1.1",
        "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
        "description": f"the page web-research fetch snapshotted at {retrieved_at}; requested as {page.requested_url}"
                       + (f"; {note}" if note else ""),
    })
    writer.write_record(info)
    warcinfo_id = info.rec_headers.get_header("WARC-Record-ID")
    for url, hop in (*page.redirect_exchanges, (page.final_url, exchange)):  # each redirect, then the page
        common = {"WARC-IP-Address": hop.address.split("%", 1)[0], "WARC-Warcinfo-ID": warcinfo_id}
        if hop.received_at is not None:  # the hop's own capture time (else warcio's: now)
            common["WARC-Date"] = warc_date(hop.received_at)
        response = writer.create_warc_record(url, "response", payload=io.BytesIO(hop.response),
                                             length=len(hop.response), warc_headers_dict=dict(common))
        request = writer.create_warc_record(
            url, "request", payload=io.BytesIO(hop.request), length=len(hop.request),
            warc_headers_dict={**common, "WARC-Concurrent-To": response.rec_headers.get_header("WARC-Record-ID")})
        # Both records carry the one capture time, the response's; the response comes first, as
        # crawlers write it, so that a reader meets the record a WARC-Concurrent-To names before it.
        request.rec_headers.replace_header("WARC-Date", response.rec_headers.get_header("WARC-Date"))
        writer.write_record(response)
        writer.write_record(request)
    return out.getvalue()


def warc_date(moment: datetime) -> str:
    """WARC/1.1's WARC-Date: UTC, to the microsecond (ISO 28500:2017 allows fractions of a second)."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class Replayed:
    """The response record of a page's WARC, read back: the page as `fetch` received it."""

    page: FetchedPage  # body with transfer and content encoding undone, as the extractor read it
    warc_date: str
    request_target: str


def read_warc(path: Path, run_dir: Path, max_body_bytes: int = FetchLimits().max_bytes) -> Replayed:
    """Read `path` (a regular file inside `run_dir`, bounded) with warcio, checking its digests,
    and return the page's response: the last one, any before it being the redirects that led
    there. Everything in a run folder is hostile: any malformed record, wrong digest or
    oversized body is an ArchiveError naming the file."""
    from warcio.archiveiterator import ArchiveIterator  # lazy: the fetch extra

    try:
        data = read_run_file(path, run_dir, MAX_ARCHIVE_BYTES)
    except RunFileError as exc:
        raise ArchiveError(f"{path}: cannot read the WARC: {exc.reason}") from exc
    response = None
    request_target = ""
    try:
        for record in ArchiveIterator(io.BytesIO(data), check_digests="raise"):
            if record.rec_type == "request":
                request_target = record.rec_headers.get_header("WARC-Target-URI") or ""
            if record.rec_type != "response":
                continue
            headers = record.http_headers
            if headers is None:
                raise ArchiveError(f"{path}: the response record holds no HTTP response")
            body = record.content_stream().read(max_body_bytes + 1)
            if len(body) > max_body_bytes:
                raise ArchiveError(f"{path}: the archived body is larger than the {max_body_bytes}-byte limit")
            record.raw_stream.read()  # to the end, so that the digest check sees the whole block
            status = int((headers.get_statuscode() or "0")[:3] or 0)
            media_type, charset = parse_content_type(headers.get_header("Content-Type") or "")
            target = record.rec_headers.get_header("WARC-Target-URI") or ""
            response = (FetchedPage(target, target, status, media_type, charset, body),
                        record.rec_headers.get_header("WARC-Date") or "")
    except ArchiveError:
        raise
    except Exception as exc:  # warcio raises many types on damaged input; none may become a traceback
        raise ArchiveError(f"{path}: not a readable WARC ({type(exc).__name__}: "
                           f"{' '.join(str(exc).split())[:200]})") from None
    if response is None:
        raise ArchiveError(f"{path}: the WARC holds no response record")
    return Replayed(response[0], response[1], request_target)


def check_body(replayed: Replayed, expected: str, path: Path) -> None:
    """Raise ArchiveError when the replayed body is not the one the record says was extracted."""
    if body_sha256(replayed.page.body) != expected:
        raise ArchiveError(f"{path}: the archived body is not the one this snapshot was extracted from "
                           f"(its SHA-256 differs from the record's body_sha256)")
