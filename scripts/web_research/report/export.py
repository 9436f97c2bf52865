"""A finished report's evidence in formats other tools read: CSL-JSON and W3C Web Annotations.

- `csl_items`: the report's Sources as CSL-JSON (https://citeproc-js.readthedocs.io/en/latest/csl-json/
  markup.html), one item per page (a page cited by several footnotes is one reference): type
  `webpage` (`document` for a PDF), title, URL, accessed date; the site's name as
  `container-title` and the publication date as `issued`, both as the page's own metadata
  states them (evidence/page_meta.py: recorded by `fetch`, or read from the page's WARC for a
  page fetched before fetch kept them), the registrable domain when the page names no site.
  The id is derived from the page's URL (`csl_id`), so the same page has the same citekey in
  every run and export. Reference managers (Zotero, JabRef, Mendeley) and pandoc import it.
- `annotation_page`: a W3C `AnnotationPage` (https://www.w3.org/TR/annotation-model/) holding one
  Annotation per claim of the report and excerpt it cites. Its `partOf` collection's label states
  the run's outcome (verify's verdict on the folder), first. Each annotation's bodies are the
  claim and the claim-checker's verdict on it (purpose `assessing`); the target is the page's URL
  with a TextQuoteSelector of the passage where the one matcher finds the excerpt
  (evidence/matcher.py): its words as they stand in the page's textContent, which annotation tools
  anchor against, where the run archived the page's HTML (adjacent table cells run together there
  when the markup puts no space between them), else as the page shows them
  (evidence/quote_links.py); the excerpt alone when it is not found. And `TimeState`s
  naming when the page was fetched and the copies kept of it (its WARC, its stored text).

An unverified run is exported only when the person asks (`export --unverified`), and then says
so: the collection's label, and in CSL-JSON a `note` on every item.

Pure functions of what the checklist parsed and the run's snapshots (and, for older snapshots,
their WARCs); commands/export_cmd.py writes the result.
"""
from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any, Callable, NamedTuple, Sequence

from .. import __version__, formats
from ..checks.claims import ClaimRecord, run_claims
from ..checks.parsed_run import ParsedRun
from ..checks.verdicts import check_key, decide, report_records, verdict_files, verdicts_by_claim
from ..core.result import Check
from ..evidence.excerpts import is_layout
from ..evidence.matcher import StoredPage, find_excerpt
from ..evidence.page_meta import PageMeta, page_metadata
from ..evidence.quote_links import content_quote_selector, quote_selector
from ..evidence.sites import site_of
from ..evidence.snapshots import Snapshot, SnapshotError, SnapshotIndex, url_key
from ..run.budget import effective_budget

ANNOTATION_CONTEXT = "http://www.w3.org/ns/anno.jsonld"
# The model's `assessing` purpose is missing from the W3C context document (which has a `reviewing`
# the model does not list): defined here, so that a JSON-LD processor reads it as oa:assessing.
PAGE_CONTEXT = [ANNOTATION_CONTEXT, {"assessing": "oa:assessing"}]
_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
PDF_TYPES = ("application/pdf", "application/x-pdf")
HTML_TYPES = ("text/html", "application/xhtml+xml")
ID_HEX = 12  # hex digits of the URL's hash in a CSL id; all 64 for pages whose 12 collide
MAX_LISTED_FAILURES = 5


# --------------------------------------------------------------------------
# The run's outcome
# --------------------------------------------------------------------------

class Outcome(NamedTuple):
    """verify's verdict on the run folder, as an export states it."""

    verified: bool
    passed: int
    total: int
    failing: tuple[str, ...]  # ids of the failing error checks

    def label(self) -> str:
        if self.verified:
            return f"verified: the run passed verify ({self.passed} of {self.total} checks)"
        listed = ", ".join(self.failing[:MAX_LISTED_FAILURES]) + (
            f" and {len(self.failing) - MAX_LISTED_FAILURES} more" if len(self.failing) > MAX_LISTED_FAILURES else "")
        return (f"UNVERIFIED: the run did not pass verify ({len(self.failing)} failing check(s): {listed}); "
                "exported at the person's request, not as verified evidence")


def run_outcome(checks: Sequence[Check]) -> Outcome:
    failing = tuple(dict.fromkeys(c.id for c in checks if not c.ok and c.severity == "error"))
    return Outcome(not failing, sum(1 for c in checks if c.ok), len(checks), failing)


# --------------------------------------------------------------------------
# CSL-JSON
# --------------------------------------------------------------------------

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


def csl_id(url: str, digits: int = ID_HEX) -> str:
    """A citekey for the page at `url`, the same in every run: its site, then the first `digits`
    hex digits of SHA-256 of the URL's key (two spellings of one page share it)."""
    label = re.sub(r"[^a-z0-9]+", "-", (site_of(url) or "page").lower()).strip("-") or "page"
    return f"{label}-{hashlib.sha256(url_key(url).encode('utf-8')).hexdigest()[:digits]}"


def stated_metadata(snap: Snapshot | None) -> PageMeta:
    """The site's name and publication date the page states: as `fetch` recorded them, else read
    from the page's WARC (a snapshot made before fetch recorded them), else none."""
    if snap is None:
        return PageMeta()
    if snap.site_name is not None:
        return PageMeta(snap.site_name, snap.published or "")
    html = archived_html(snap)
    return PageMeta() if html is None else page_metadata(html)


def archived_html(snap: Snapshot | None) -> str | None:
    """The page's HTML as its WARC holds it, decoded; None for a page with no archive, not HTML,
    or when the WARC cannot be read (or warcio, the fetch extra, is missing)."""
    if snap is None or snap.archive_path is None or snap.content_type not in HTML_TYPES:
        return None
    try:
        from ..evidence.archive import ArchiveError, read_warc  # lazy: warcio, the fetch extra
        from ..evidence.extraction import decode_html  # lazy: only an export with archived pages reads one
    except ImportError:
        return None
    try:
        replayed = read_warc(snap.archive_path, snap.run_dir)
    except (ArchiveError, ImportError):
        return None
    return decode_html(replayed.page.body, replayed.page.charset)


def text_content(html: str) -> str | None:
    """`document.body.textContent` of `html` as a browser computes it: every text node of the body
    in document order, script and style text included, comments not (lxml's HTML parser; the
    fetch extra). None when it cannot be parsed."""
    try:
        from lxml import etree, html as lxml_html  # lazy: lxml, the fetch extra
    except ImportError:
        return None
    try:
        root = lxml_html.document_fromstring(re.sub(r"^\s*<\?xml[^>]*>", "", html, count=1))
    except (etree.ParserError, ValueError):
        return None
    body = root.find("body")
    return (body if body is not None else root).text_content()


def csl_items(parsed: ParsedRun, index: SnapshotIndex, outcome: Outcome | None = None) -> list[dict[str, Any]]:
    """The report's Sources as CSL-JSON items, in footnote order, one per page; each with a
    `note` saying the run is unverified when `outcome` says so."""
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for citation in parsed.report.citations if parsed.report is not None else ():
        url = citation.url
        if not url or url_key(url) in seen:
            continue
        seen.add(url_key(url))
        snap = index.find(url)
        stated = stated_metadata(snap)
        item: dict[str, Any] = {"id": csl_id(url),
                                "type": "document" if snap is not None and snap.content_type in PDF_TYPES
                                else "webpage",
                                "title": citation.title or (snap.title if snap is not None else url), "URL": url}
        site = stated.site_name or site_of(url)
        if site:
            item["container-title"] = site
        accessed = date_parts(citation.retrieved_at) or date_parts(snap.retrieved_at if snap is not None else None)
        if accessed:
            item["accessed"] = accessed
        issued = date_parts(stated.published) or date_parts(citation.published_at)
        if issued:
            item["issued"] = issued
        if outcome is not None and not outcome.verified:
            item["note"] = f"web-research: {outcome.label()}"
        items.append(item)
    ids = [item["id"] for item in items]
    for item in items:  # two pages whose short ids collide: both get the whole hash
        if ids.count(item["id"]) > 1:
            item["id"] = csl_id(item["URL"], 64)
    return items


# --------------------------------------------------------------------------
# Web Annotations
# --------------------------------------------------------------------------

def verdict_reader(parsed: ParsedRun) -> Callable[[ClaimRecord], str]:
    """The claim-checker's verdict on a claim of report.md, in words (its reason after it)."""
    budget = effective_budget(parsed.plan) if parsed.plan is not None else None
    if budget is None or not budget.claim_check:
        return lambda record: "not judged: this run's plan has no claim check"
    known = verdicts_by_claim(verdict_files(parsed.run_dir))
    gaps = parsed.report.section(formats.REPORT_SECTIONS[2]) if parsed.report is not None else None

    def verdict(record: ClaimRecord) -> str:
        decision = decide(known.get(check_key(record), []), budget.voting)
        if decision.verdict is None:
            return "no current verdict from the claim-checker"
        words = f"claim-checker verdict: {decision.verdict}"
        if decision.verdict != formats.VERDICT_SUPPORTED and decision.reason:
            words += f" ({' '.join(decision.reason.split())[:300]})"
        if gaps is not None and gaps.line <= record.claim.line <= gaps.end:
            words += "; stated under Gaps & Limitations"
        return words

    return verdict


def annotation_page(parsed: ParsedRun, index: SnapshotIndex, outcome: Outcome, created: str) -> dict[str, Any]:
    """The report's claims as one W3C AnnotationPage, the run's outcome first."""
    items = annotations(parsed, index, created)
    report_digest = hashlib.sha256("\n".join(parsed.report.lines if parsed.report is not None else ()).encode("utf-8"))
    run_id = uuid.uuid5(uuid.NAMESPACE_URL, f"web-research:{report_digest.hexdigest()}")
    question = parsed.plan.question if parsed.plan is not None and getattr(parsed.plan, "question", None) else ""
    return {
        "@context": PAGE_CONTEXT,
        "id": f"urn:uuid:{uuid.uuid5(run_id, 'page-1')}",
        "type": "AnnotationPage",
        "partOf": {
            "id": f"urn:uuid:{run_id}",
            "type": "AnnotationCollection",
            "label": f"web-research run{f' on {question!r}' if question else ''}: {outcome.label()}",
            "total": len(items),
            "created": created,
            "generator": _GENERATOR,
        },
        "startIndex": 0,
        "items": items,
    }


_GENERATOR = {"type": "Software", "name": f"web-research {__version__}"}


def annotations(parsed: ParsedRun, index: SnapshotIndex, created: str) -> list[dict[str, Any]]:
    """One Web Annotation per claim of report.md and excerpt it cites, with the claim's verdict."""
    pages: dict[str, StoredPage | None] = {}
    contents: dict[str, str | None] = {}
    verdict = verdict_reader(parsed)
    keyed = {check_key(r): r for r in report_records(parsed)}
    out: list[dict[str, Any]] = []
    for record in run_claims(parsed):
        if record.scope != "report":
            continue
        judged = verdict(keyed.get(check_key(record), record))
        for number, url, excerpt in record.excerpts:
            if not url or not excerpt:
                continue
            selector: dict[str, str] = {"type": "TextQuoteSelector",  # the excerpt as written, no table borders
                                        "exact": " ".join(t for t in excerpt.split() if not is_layout(t))}
            page = _stored(pages, index, url)
            if page is not None:
                found = find_excerpt(excerpt, page)
                if found.ok and found.spans:
                    start, end = found.spans[0][0], found.spans[-1][1]
                    content = _content(contents, index, url)
                    selector = ((content_quote_selector(page.text, start, end, content) if content else None)
                                or quote_selector(page.text, start, end))
            target: dict[str, Any] = {"source": url, "selector": selector}
            states = _time_states(index.find(url))
            if states:
                target["state"] = states
            out.append({
                "id": "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"{url}\n{record.claim.hash}\n{number}")),
                "type": "Annotation",
                "motivation": "commenting",
                "created": created,
                "generator": _GENERATOR,
                "body": [
                    {"type": "TextualBody", "value": record.claim.text, "format": "text/plain",
                     "purpose": "commenting"},
                    {"type": "TextualBody", "value": judged, "format": "text/plain", "purpose": "assessing"},
                ],
                "target": target,
            })
    return out


def _time_states(snap: Snapshot | None) -> list[dict[str, Any]]:
    """When the page was fetched and each copy kept of it (its WARC, then its stored text), one
    TimeState a copy (the model's `cached` names one copy)."""
    if snap is None or not snap.retrieved_at:
        return []
    return [{"type": "TimeState", "sourceDate": snap.retrieved_at, "cached": path.resolve().as_uri()}
            for path in (snap.archive_path, snap.text_path) if path is not None]


def _content(contents: dict[str, str | None], index: SnapshotIndex, url: str) -> str | None:
    """The textContent of `url`'s archived HTML, read once a page; None without one."""
    snap = index.find(url)
    if snap is None:
        return None
    key = str(snap.text_path)
    if key not in contents:
        html = archived_html(snap)
        contents[key] = text_content(html) if html is not None else None
    return contents[key]


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
