"""Fetching the cited pages again: the same transport, address policy and limits as `fetch`.

Each URL is fetched once (`evidence.transport.fetch_page`: every hop resolved and checked,
loopback only when a test asks, one deadline, a size bound) and its text extracted
(`evidence.extraction.extract_page`: a bounded child process for HTML and PDF). A small
pool of threads fetches a few pages at a time; each page is handed back as soon as it is
done, so a report with many sources never holds all their texts at once.

What went wrong is sorted into the recheck's words: only an answer from the site itself, an
HTTP 404 or 410, is `gone`. Anything else that leaves no text to judge is `unreachable`, which
is no verdict: a timeout, a refused address, a page past the size bound, another HTTP error, an
unreadable body, and a host name that does not resolve. A failed lookup says nothing about the
site: offline, or behind a resolver that answers for some names and not others, every name fails
to resolve, and calling each page gone would be false.
"""
from __future__ import annotations

import ssl
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator
from urllib.parse import urlsplit

from ..evidence.archive import body_sha256
from ..evidence.extraction import ExtractLimits, extract_page, page_kind
from ..evidence.transport import (FetchedPage, FetchError, FetchLimits, HTTPStatusError, NameNotResolved, Resolver,
                                  system_resolver, fetch_page)
from .record import (ANSWERED, MAX_ERROR_CHARS, MAX_URL_CHARS, PAGE_GONE, PAGE_UNREACHABLE, cut, utc_now,
                     utc_text)

GONE_STATUSES = (404, 410)
DEFAULT_WORKERS = 4
MAX_WORKERS = 8


@dataclass(frozen=True)
class Transport:
    """How pages are fetched: `fetch`'s limits (commands/fetch_cmd.limits_from_env), and for
    tests only, loopback allowed, a resolver and a TLS context of their own."""

    fetch_limits: FetchLimits = FetchLimits()
    extract_limits: ExtractLimits = ExtractLimits()
    allow_loopback: bool = False
    resolver: Resolver = system_resolver
    ssl_context: ssl.SSLContext | None = None


@dataclass(frozen=True, slots=True)
class LivePage:
    """One cited URL as it answered now."""

    url: str
    outcome: str  # record.ANSWERED, PAGE_GONE or PAGE_UNREACHABLE
    status: int | None
    final_url: str | None
    text: str | None
    truncated: bool
    error: str | None
    fetched_at: str
    seconds: float
    body_sha256: str | None = None  # of the body as the extractor reads it, to compare with the archived one
    html: bytes | None = None  # the body of an HTML page, whose structure is compared (judge.context_changes)
    charset: str | None = None


def fetch_live(url: str, transport: Transport) -> LivePage:
    """Fetch and extract `url` once; never raises for anything the page or network does."""
    fetched_at = utc_text(utc_now())
    began = time.monotonic()

    body: list[str] = []
    html: list[FetchedPage] = []

    def done(outcome: str, status: int | None = None, final_url: str | None = None, text: str | None = None,
             truncated: bool = False, error: str | None = None) -> LivePage:
        return LivePage(url, outcome, status, final_url and cut(final_url, MAX_URL_CHARS), text, truncated,
                        error and cut(" ".join(error.split()), MAX_ERROR_CHARS), fetched_at,
                        round(time.monotonic() - began, 3), body[0] if body else None,
                        html[0].body if html else None, html[0].charset if html else None)

    try:
        page = fetch_page(url, limits=transport.fetch_limits, allow_loopback=transport.allow_loopback,
                          resolver=transport.resolver, ssl_context=transport.ssl_context)
    except HTTPStatusError as exc:
        outcome = PAGE_GONE if exc.status in GONE_STATUSES else PAGE_UNREACHABLE
        return done(outcome, exc.status, exc.url, error=str(exc))
    except NameNotResolved as exc:
        host = urlsplit(url).hostname or url
        return done(PAGE_UNREACHABLE, error=f"the name {host} does not resolve here ({exc}): this machine may be "
                    "offline or its resolver may not know the name; a lookup cannot tell that the site is gone")
    except FetchError as exc:  # RefusedURL included: the address policy is `fetch`'s
        return done(PAGE_UNREACHABLE, error=str(exc))
    except (ValueError, OSError) as exc:
        return done(PAGE_UNREACHABLE, error=f"cannot fetch {url}: {type(exc).__name__}: {exc}")
    body.append(body_sha256(page.body))
    try:
        content = extract_page(page, transport.extract_limits)
    except FetchError as exc:
        return done(PAGE_UNREACHABLE, page.status, page.final_url, error=str(exc))
    except Exception as exc:  # an extraction library failing on odd input: still one line
        return done(PAGE_UNREACHABLE, page.status, page.final_url,
                    error=f"{page.final_url}: cannot extract the page's text ({type(exc).__name__}: {exc})")
    if page_kind(page) == "html":
        html.append(page)
    return done(ANSWERED, page.status, page.final_url, content.text, content.truncated)


def fetch_each(urls: Iterable[str], transport: Transport, workers: int = DEFAULT_WORKERS,
               progress: Callable[[int, int], None] | None = None,
               fetch: Callable[[str, Transport], LivePage] = fetch_live) -> Iterator[LivePage]:
    """Every URL fetched once, `workers` at a time, each yielded as soon as it is done;
    `progress(done, total)` after each."""
    pending_urls = list(dict.fromkeys(urls))
    total = len(pending_urls)
    workers = max(1, min(workers, MAX_WORKERS, total or 1))
    finished = 0
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="recheck") as pool:
        queue = iter(pending_urls)
        running: set[Future[LivePage]] = set()
        for url in queue:  # fill the pool, then one new URL per page done: texts are not hoarded
            running.add(pool.submit(fetch, url, transport))
            if len(running) >= workers:
                break
        while running:
            completed, running = wait(running, return_when=FIRST_COMPLETED)
            for future in completed:
                finished += 1
                if progress is not None:
                    progress(finished, total)
                yield future.result()
                following = next(queue, None)
                if following is not None:
                    running.add(pool.submit(fetch, following, transport))
