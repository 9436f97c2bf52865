"""A finished report's evidence in formats other tools read: CSL-JSON and W3C Web Annotations.

- `csl_items`: the report's Sources as CSL-JSON (https://citeproc-js.readthedocs.io/en/latest/csl-json/
  markup.html), one item per page (a page cited by several footnotes is one reference): type
  `webpage` (`document` for a PDF), title, URL, accessed date, the site as container-title, and
  the published date when the entry gives one. Reference managers (Zotero, JabRef, Mendeley)
  and pandoc's citeproc import it.
- `annotations`: one Web Annotation (https://www.w3.org/TR/annotation-model/) per claim of the
  report and excerpt it cites: the body is the claim, the target the page's URL with a
  TextQuoteSelector (exact, prefix, suffix) taken from the stored page text where the one matcher
  finds the excerpt (evidence/matcher.py), else the excerpt alone. Annotation tools load it.

Pure functions of what the checklist parsed and the run's snapshots; commands/export_cmd.py
writes the result.
"""
from __future__ import annotations

import re
import uuid
from typing import Any

from .. import __version__
from ..checks.claims import run_claims
from ..checks.parsed_run import ParsedRun
from ..evidence.matcher import StoredPage, find_excerpt
from ..evidence.quote_links import quote_selector
from ..evidence.sites import site_of
from ..evidence.snapshots import SnapshotError, SnapshotIndex

ANNOTATION_CONTEXT = "http://www.w3.org/ns/anno.jsonld"
_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
PDF_TYPES = ("application/pdf", "application/x-pdf")


def date_parts(value: str | None) -> dict[str, list[list[int]]] | None:
    """CSL's `{"date-parts": [[Y, M, D]]}` of a date written YYYY, YYYY-MM or YYYY-MM-DD (an ISO
    time after it is ignored); None for anything else."""
    found = _DATE.match(value or "")
    if found is None:
        return None
    parts = [int(p) for p in found.groups() if p is not None]
    if len(parts) > 1 and not 1 <= parts[1] <= 12 or len(parts) > 2 and not 1 <= parts[2] <= 31:
        return None
    return {"date-parts": [parts]}


def csl_items(parsed: ParsedRun, index: SnapshotIndex) -> list[dict[str, Any]]:
    """The report's Sources as CSL-JSON items, in footnote order, one per URL."""
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for citation in parsed.report.citations if parsed.report is not None else ():
        url = citation.url
        if not url or url in seen:
            continue
        seen.add(url)
        snap = index.find(url)
        item: dict[str, Any] = {"id": f"source-{citation.number}",
                                "type": "document" if snap is not None and snap.content_type in PDF_TYPES
                                else "webpage",
                                "title": citation.title or (snap.title if snap is not None else url), "URL": url}
        site = site_of(url)
        if site:
            item["container-title"] = site
        accessed = date_parts(citation.retrieved_at) or date_parts(snap.retrieved_at if snap is not None else None)
        if accessed:
            item["accessed"] = accessed
        issued = date_parts(citation.published_at)
        if issued:
            item["issued"] = issued
        items.append(item)
    return items


def annotations(parsed: ParsedRun, index: SnapshotIndex) -> list[dict[str, Any]]:
    """One Web Annotation per claim of report.md and excerpt it cites."""
    pages: dict[str, StoredPage | None] = {}
    out: list[dict[str, Any]] = []
    for record in run_claims(parsed):
        if record.scope != "report":
            continue
        for number, url, excerpt in record.excerpts:
            if not url or not excerpt:
                continue
            selector: dict[str, str] = {"type": "TextQuoteSelector", "exact": excerpt}
            page = _stored(pages, index, url)
            if page is not None:
                found = find_excerpt(excerpt, page)
                if found.ok and found.spans:
                    selector = quote_selector(page.text, found.spans[0][0], found.spans[-1][1])
            out.append({
                "@context": ANNOTATION_CONTEXT,
                "id": "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"{url}\n{record.claim.hash}\n{number}")),
                "type": "Annotation",
                "motivation": "commenting",
                "generator": {"type": "Software", "name": f"web-research {__version__}"},
                "body": {"type": "TextualBody", "value": record.claim.text, "format": "text/plain",
                         "purpose": "commenting"},
                "target": {"source": url, "selector": selector},
            })
    return out


def _stored(pages: dict[str, StoredPage | None], index: SnapshotIndex, url: str) -> StoredPage | None:
    """The matcher's page for `url`'s stored text, read once; None without a readable snapshot."""
    snap = index.find(url)
    if snap is None:
        return None
    key = str(snap.text_path)
    if key not in pages:
        try:
            pages[key] = StoredPage(snap.text())
        except SnapshotError:
            pages[key] = None
    return pages[key]
