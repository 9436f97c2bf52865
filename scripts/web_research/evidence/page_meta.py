"""What a page says about itself: the site's name and the date it was published.

A reference manager files a web page under its site ("Acme Observability Docs", not the bare
domain) and dates it by its publication; both are in the page's own metadata, which the stored
text does not keep. `page_metadata(markup)` reads them from the HTML as `fetch` received it (at
fetch time, into the snapshot record; for a page fetched before that, from its WARC):

- the site's name: `og:site_name`, then `application-name`, then the JSON-LD `WebSite`'s name or
  the `publisher`'s name (an Organization);
- the publication date: the meta `article:published_time`, `og:published_time`,
  `citation_publication_date`, `DC.date.issued`, `dcterms.issued` or `date`, then the JSON-LD
  `datePublished`, then an element with `itemprop="datePublished"` (its `content` or `datetime`).
  A modification date is not a publication date and is never taken. Only a value that starts
  with an ISO date (YYYY, YYYY-MM or YYYY-MM-DD) is kept, as written.

The page is hostile: only its first `MAX_SCAN_CHARS` characters are read, each value is cut to
`MAX_VALUE_CHARS` with control characters dropped, and a JSON-LD block that does not parse (or is
too large or too deep) is skipped. Standard library only, so `export` can read a WARC's page
without the fetch extra's parsers.
"""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any, NamedTuple

MAX_SCAN_CHARS = 1_000_000
MAX_VALUE_CHARS = 200
MAX_JSON_LD_CHARS = 200_000
MAX_JSON_LD_NODES = 2_000
_ISO_DATE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?)?(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")

# Meta keys (property or name, lower-cased) in the order they are trusted.
SITE_KEYS = ("og:site_name", "application-name")
DATE_KEYS = ("article:published_time", "og:published_time", "citation_publication_date", "dc.date.issued",
             "dcterms.issued", "date")


class PageMeta(NamedTuple):
    site_name: str = ""
    published: str = ""


def clean_value(value: str) -> str:
    """A metadata value as plain text on one line, bounded."""
    return " ".join(_CONTROLS.sub("", " ".join(value.split())).split())[:MAX_VALUE_CHARS]


def iso_date(value: str) -> str:
    """`value` when it is an ISO date (or date and time); else ""."""
    value = clean_value(value)
    return value if _ISO_DATE.match(value) else ""


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.itemprop_date = ""
        self.json_ld: list[str] = []
        self._in_json_ld = False
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name.lower(): value or "" for name, value in attrs}
        if tag == "meta":
            key = (values.get("property") or values.get("name") or "").strip().lower()
            if key and key not in self.meta and values.get("content"):
                self.meta[key] = values["content"]
        if values.get("itemprop", "").strip() == "datePublished" and not self.itemprop_date:
            self.itemprop_date = values.get("content") or values.get("datetime") or ""
        if tag == "script" and values.get("type", "").strip().lower() == "application/ld+json":
            self._in_json_ld, self._buffer = True, []

    def handle_data(self, data: str) -> None:
        if self._in_json_ld:
            self._buffer.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._in_json_ld:
            self._in_json_ld = False
            block = "".join(self._buffer)
            if len(block) <= MAX_JSON_LD_CHARS:
                self.json_ld.append(block)


def _nodes(data: Any) -> list[dict[str, Any]]:
    """The JSON-LD objects of a block (a list, an object, its `@graph`), breadth first, bounded."""
    out: list[dict[str, Any]] = []
    queue = [data]
    while queue and len(out) < MAX_JSON_LD_NODES:
        item = queue.pop(0)
        if isinstance(item, list):
            queue.extend(item[:MAX_JSON_LD_NODES])
        elif isinstance(item, dict):
            out.append(item)
            if isinstance(item.get("@graph"), list):
                queue.extend(item["@graph"][:MAX_JSON_LD_NODES])
    return out


def _types(node: dict[str, Any]) -> set[str]:
    kind = node.get("@type")
    return {kind} if isinstance(kind, str) else {k for k in kind if isinstance(k, str)} if isinstance(kind, list) else set()


def _name(value: Any) -> str:
    if isinstance(value, str):
        return clean_value(value)
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        return clean_value(value["name"])
    return ""


def _from_json_ld(blocks: list[str]) -> PageMeta:
    site = publisher = published = ""
    for block in blocks:
        try:
            data = json.loads(block)
        except (ValueError, RecursionError):
            continue
        for node in _nodes(data):
            if not site and "WebSite" in _types(node):
                site = _name(node.get("name"))
            if not publisher:
                publisher = _name(node.get("publisher"))
            if not published and isinstance(node.get("datePublished"), str):
                published = iso_date(node["datePublished"])
    return PageMeta(site or publisher, published)


def page_metadata(markup: str) -> PageMeta:
    """The site's name and the publication date `markup` (an HTML page) states; "" for each it does not."""
    collector = _Collector()
    try:
        collector.feed(markup[:MAX_SCAN_CHARS])
        collector.close()
    except (AssertionError, ValueError, RecursionError):  # html.parser on malformed input
        pass
    meta = collector.meta
    from_json_ld = _from_json_ld(collector.json_ld)
    site = next((clean_value(meta[k]) for k in SITE_KEYS if clean_value(meta.get(k, ""))), "") or from_json_ld.site_name
    published = (next((iso_date(meta[k]) for k in DATE_KEYS if iso_date(meta.get(k, ""))), "")
                 or from_json_ld.published or iso_date(collector.itemprop_date))
    return PageMeta(site, published)
