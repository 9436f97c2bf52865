"""Turning a fetched page into the text a researcher quotes (transport: `transport.py`).

Extraction (`extract_page`) imports trafilatura (and `page_blocks`, which puts back the blocks
trafilatura left out) or pypdf lazily: nothing else
in the package pays for them. HTML and PDF are extracted in a child process
(`python -m web_research.evidence.extraction`) with a wall-clock limit and an
address-space limit, because a page under the download bound can still be
built to make a parser run for minutes or take gigabytes; and the text kept is
capped (`ExtractLimits`), which the snapshot record states as `truncated`.
"""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import io
import logging
import resource
from dataclasses import dataclass

from .page_meta import page_metadata
from .snapshots import MAX_TEXT_CHARS
from .transport import FetchedPage, FetchError


@dataclass(frozen=True)
class PageText:
    title: str
    other_titles: tuple[str, ...]
    text: str
    extractor: str
    truncated: bool = False  # the page had more text (or PDF pages) than ExtractLimits keeps
    site_name: str = ""  # the site's name and publication date the page's metadata states (page_meta.py)
    published: str = ""


@dataclass(frozen=True)
class ExtractLimits:
    """Bounds on turning a page into text: characters kept, PDF pages read, and the
    child process that parses HTML and PDF (seconds of wall-clock time, bytes of
    address space)."""

    max_chars: int = MAX_TEXT_CHARS
    max_pdf_pages: int = 500
    timeout_s: float = 20.0
    memory_bytes: int = 1024 * 1024 * 1024


HTML_TYPES = ("text/html", "application/xhtml+xml")
PDF_TYPES = ("application/pdf", "application/x-pdf")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_BLANK_RUNS = re.compile(r"\n{3,}")
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def page_kind(page: FetchedPage) -> str | None:
    """"html", "text" or "pdf" from the media type, sniffing the body when it is vague."""
    media = page.content_type
    head = page.body[:1024].lstrip().lower()
    if media in PDF_TYPES or page.body.startswith(b"%PDF-"):
        return "pdf"
    if media in HTML_TYPES:
        return "html"
    if media.startswith("text/"):
        return "html" if head.startswith((b"<!doctype html", b"<html")) else "text"
    if media in ("", "application/octet-stream") and head.startswith((b"<!doctype html", b"<html")):
        return "html"
    return None


def extract_page(page: FetchedPage, limits: ExtractLimits = ExtractLimits()) -> PageText:
    """The main text and title(s) of a fetched page; `FetchError` when there is none.

    Plain text is handled here; HTML and PDF go to a bounded child process.
    """
    kind = page_kind(page)
    if kind is None:
        raise FetchError(f"{page.final_url}: cannot extract text from content type {page.content_type or 'unknown'!r}")
    if kind == "text":
        return extract_in_process(page, limits)
    return _extract_in_child(page, limits)


def extract_in_process(page: FetchedPage, limits: ExtractLimits = ExtractLimits()) -> PageText:
    """`extract_page` without the child process (what the child runs)."""
    kind = page_kind(page)
    if kind is None:
        raise FetchError(f"{page.final_url}: cannot extract text from content type {page.content_type or 'unknown'!r}")
    if kind == "pdf":
        result = _extract_pdf(page, limits.max_pdf_pages, limits.max_chars)
    elif kind == "html":
        result = _extract_html(page)
    else:
        text = _decode(page.body, page.charset)
        result = PageText("", (), text, "text/plain")
    text = clean_text(result.text)
    if not text:
        raise FetchError(f"{page.final_url}: no text could be extracted from the page")
    truncated = result.truncated or len(text) > limits.max_chars
    text = text[: limits.max_chars]
    title = result.title
    if not title and kind != "html":
        title = _first_line(text)  # a PDF without metadata, a text file: its first line
    return PageText(title or page.final_url, result.other_titles, text, result.extractor, truncated,
                    result.site_name, result.published)


# --- The extraction child ---------------------------------------------------------------

_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _extract_in_child(page: FetchedPage, limits: ExtractLimits) -> PageText:
    """Run `extract_in_process` in `python -m web_research.evidence.extraction`, bounded; the page
    goes in on stdin (a JSON header line, then the body), the result comes back as JSON."""
    header = {
        "page": {"requested_url": page.requested_url, "final_url": page.final_url, "status": page.status,
                 "content_type": page.content_type, "charset": page.charset},
        "limits": {"max_chars": limits.max_chars, "max_pdf_pages": limits.max_pdf_pages,
                   "timeout_s": limits.timeout_s, "memory_bytes": limits.memory_bytes},
    }
    env = dict(os.environ)
    env["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        done = subprocess.run([sys.executable, "-m", "web_research.evidence.extraction"],
                              input=json.dumps(header).encode("utf-8") + b"\n" + page.body,
                              capture_output=True, timeout=limits.timeout_s, env=env)
    except subprocess.TimeoutExpired:
        raise FetchError(f"{page.final_url}: extracting the page's text took longer than {limits.timeout_s:g} s "
                         "(the page is too large or too complex to snapshot)") from None
    except OSError as exc:
        raise FetchError(f"{page.final_url}: cannot start the text extractor: {exc}") from exc
    try:
        result = json.loads(done.stdout.decode("utf-8"))
    except ValueError:
        result = None
    if not isinstance(result, dict):
        megabytes = limits.memory_bytes // (1024 * 1024)
        raise FetchError(f"{page.final_url}: extracting the page's text failed (exit {done.returncode}); it may "
                         f"need more than {megabytes} MB of memory (the page is too large or too complex "
                         "to snapshot)")
    if "error" in result:
        raise FetchError(str(result["error"]))
    return PageText(str(result["title"]), tuple(result["other_titles"]), str(result["text"]),
                    str(result["extractor"]), bool(result["truncated"]), str(result.get("site_name") or ""),
                    str(result.get("published") or ""))


def _child_main() -> int:
    """The child's side of `_extract_in_child`: limit ourselves, then extract."""
    header = json.loads(sys.stdin.buffer.readline())
    limits = ExtractLimits(**header["limits"])
    memory = int(limits.memory_bytes)
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits.timeout_s) + 1  # a second line of defence behind the parent's wall-clock limit
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    page = FetchedPage(body=sys.stdin.buffer.read(), **header["page"])
    try:
        content = extract_in_process(page, limits)
        out: dict = {"title": content.title, "other_titles": list(content.other_titles), "text": content.text,
                     "extractor": content.extractor, "truncated": content.truncated,
                     "site_name": content.site_name, "published": content.published}
    except FetchError as exc:
        out = {"error": str(exc)}
    except MemoryError:
        out = {"error": f"{page.final_url}: extracting the page's text needed more than "
                        f"{memory // (1024 * 1024)} MB of memory (the page is too large or too complex to snapshot)"}
    except RecursionError:
        out = {"error": f"{page.final_url}: the page is nested too deeply to extract its text"}
    except Exception as exc:  # an extraction library failing on odd input: one line, not a traceback
        out = {"error": f"{page.final_url}: cannot extract the page's text ({type(exc).__name__}: {exc})"}
    sys.stdout.buffer.write(json.dumps(out).encode("ascii"))
    sys.stdout.flush()
    return 0


def clean_text(text: str) -> str:
    """Drop control characters (terminal escapes included), trailing spaces and long blank runs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip()


def decode_html(body: bytes, charset: str | None) -> str:
    """An HTML page's text: in the charset its response declared, else the one its `<meta>` declares
    in its first 4 KB, else UTF-8 (else cp1252, replacing). The one reading of a page's markup that
    extraction, the checker's context (structure_child) and export share, so all three read the
    same characters."""
    if not charset:
        declared = _META_CHARSET.search(body[:4096])
        charset = declared.group(1).decode("ascii", "replace") if declared else None
    return _decode(body, charset)


def _decode(body: bytes, charset: str | None) -> str:
    for candidate in (charset, "utf-8"):
        if not candidate:
            continue
        try:
            return body.decode(candidate)
        except (LookupError, UnicodeDecodeError):
            continue
    return body.decode("cp1252", errors="replace")


def _html_title(markup: str) -> str:
    found = _TITLE.search(markup)
    return " ".join(html.unescape(found.group(1)).split()) if found else ""


def _first_line(text: str) -> str:
    for line in text.split("\n"):
        if line.strip():
            return line.strip()[:200]
    return ""


def _extract_html(page: FetchedPage) -> PageText:
    import trafilatura  # lazy: the fetch extra, imported by `fetch` only

    from . import page_blocks  # lazy: needs lxml, from the fetch extra

    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    markup = decode_html(page.body, page.charset)
    title = _html_title(markup)
    tree = trafilatura.load_html(markup)  # parsed once; trafilatura.extract works on a copy
    if tree is not None:
        page_blocks.drop_invisible(tree)
    source = tree if tree is not None else markup
    text = trafilatura.extract(
        source,
        url=page.final_url,
        output_format="txt",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_links=False,
        favor_recall=True,
        deduplicate=False,
        with_metadata=False,
    )
    extractor = f"trafilatura {trafilatura.__version__}"
    if not text:
        text = trafilatura.html2txt(source)
        extractor += " (whole page)"
    elif tree is not None:
        text, added = page_blocks.put_back(page_blocks.tidy_rows(text), tree)
        if added:
            extractor += f" (+{added} page blocks)"
    other: tuple[str, ...] = ()
    # Last, as it may change the tree. extensive=False: only the title is used, and the extensive
    # date search loads dateparser's patterns, about 2 s in each extraction child.
    metadata = trafilatura.extract_metadata(source, default_url=page.final_url, extensive=False)
    if metadata is not None and metadata.title and metadata.title != title:
        other = (metadata.title,)
    if not title and other:
        title, other = other[0], ()
    stated = page_metadata(markup)
    return PageText(title, other, text or "", extractor, site_name=stated.site_name, published=stated.published)


def _extract_pdf(page: FetchedPage, max_pages: int, max_chars: int) -> PageText:
    import pypdf  # lazy: the fetch extra, imported by `fetch` only

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    try:
        reader = pypdf.PdfReader(io.BytesIO(page.body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FetchError(f"{page.final_url}: the PDF is encrypted")
        parts: list[str] = []
        total, truncated = 0, False
        for index, pdf_page in enumerate(reader.pages):
            if index >= max_pages or total > max_chars:
                truncated = True
                break
            part = pdf_page.extract_text() or ""
            parts.append(part)
            total += len(part) + 2
        text = "\n\n".join(parts)
        info = reader.metadata
        title = str(info.title).strip() if info is not None and info.title else ""
    except FetchError:
        raise
    except Exception as exc:  # pypdf raises many types on damaged files
        raise FetchError(f"{page.final_url}: cannot read the PDF: {exc}") from exc
    return PageText(title, (), text, f"pypdf {pypdf.__version__}", truncated)


if __name__ == "__main__":  # the extraction child: see _extract_in_child
    sys.exit(_child_main())
