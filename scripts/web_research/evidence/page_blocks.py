"""The blocks of a page trafilatura left out, put back where they stand.

trafilatura keeps the main text of most pages, but drops whole parts of some: a
documentation section whose id holds "footer" (`skip_header and skip_footer`),
an article's byline, a layout table's cells, a figure's caption. A researcher
cannot cite what the stored text lacks, so `fetch` adds every block of the
page's body that is not page furniture (navigation, header, footer, aside,
form, hidden elements, classes that name menus, sidebars, sharing, comments,
ads) and whose text is not already in trafilatura's text; each goes after the
line where the block before it in the page was found, so the reading order
holds. The cost is some boilerplate kept (the benchmark in
`tests/benchmarks/extraction/` measures both).

Imported only by the extraction child (`extraction.py`), with the fetch extra's lxml.
"""
from __future__ import annotations

import bisect
import re

from lxml import etree

from .excerpts import normalize

# Elements whose text a reader sees as a block of its own.
BLOCK_TAGS = frozenset((
    "p", "li", "pre", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "blockquote",
    "figcaption", "caption", "div", "section", "article", "main", "ul", "ol", "dl", "table", "thead",
    "tbody", "tfoot", "tr", "figure", "details", "summary", "address", "body", "hr"))
FURNITURE_TAGS = frozenset((
    "nav", "header", "footer", "aside", "form", "script", "style", "noscript", "template", "select",
    "button", "head", "svg", "iframe"))
FURNITURE_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary", "search", "menu", "dialog"))
FURNITURE_CLASS = re.compile(
    r"(?:^|[-_\s])(?:nav|navbar|menu|footer|sidebar|comments?|share|sharing|social|related|advert|ads?|"
    r"cookies?|newsletter|subscribe|promo|breadcrumbs?|masthead|banner)(?:[-_\s]|$)", re.IGNORECASE)
# Bounds on the work a hostile page can cause: blocks looked at, characters added.
MAX_BLOCKS = 20_000
MAX_ADDED_CHARS = 500_000


def _furniture(element: etree._Element) -> bool:
    tag = element.tag.lower()
    return (tag in FURNITURE_TAGS
            or (element.get("role") or "").lower() in FURNITURE_ROLES
            or element.get("hidden") is not None
            or (element.get("aria-hidden") or "").lower() == "true"
            or FURNITURE_CLASS.search(element.get("class") or "") is not None)


def body_blocks(tree: etree._Element) -> list[str]:
    """The text of each block of the page outside page furniture, in page order
    (a block's own text: its nested blocks come as blocks of their own)."""
    blocks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        text = " ".join("".join(current).split())
        current.clear()
        if text and len(blocks) < MAX_BLOCKS:
            blocks.append(text)

    def walk(node: etree._Element) -> None:
        if not isinstance(node.tag, str) or _furniture(node):
            return
        block = node.tag.lower() in BLOCK_TAGS
        if block:
            flush()
        elif node.tag.lower() == "br":
            current.append(" ")
        current.append(node.text or "")
        for child in node:
            if len(blocks) >= MAX_BLOCKS:
                return
            walk(child)
            current.append(child.tail or "")
        if block:
            flush()

    body = tree.find(".//body")
    walk(body if body is not None else tree)
    flush()
    return blocks


def merge_missing(text: str, blocks: list[str]) -> tuple[str, int]:
    """`text` with each block whose normalized text it lacks inserted after the line
    where the block before it ends (so never inside a multi-line block such as code);
    and how many blocks were added."""
    lines = text.split("\n")
    kept = [(index, normalize(line)) for index, line in enumerate(lines)]
    kept = [(index, line) for index, line in kept if line]
    starts, position = [], 0
    for _, line in kept:
        starts.append(position)
        position += len(line) + 1
    joined = " ".join(line for _, line in kept)
    after: dict[int, list[str]] = {}
    anchor, added, added_chars, seen = -1, 0, 0, set()  # anchor: the index in `kept` of the last block found
    for block in blocks:
        key = normalize(block)
        if not key or key in seen:
            continue
        seen.add(key)
        at = joined.find(key, starts[anchor] if anchor >= 0 else 0)
        if at >= 0:
            anchor = bisect.bisect_right(starts, at + len(key) - 1) - 1  # the line where it ends: never inside it
            continue
        if key in joined:
            continue  # found only before the anchor: the page repeats it
        if added_chars + len(block) > MAX_ADDED_CHARS:
            break
        after.setdefault(kept[anchor][0] if anchor >= 0 else -1, []).append(block)
        added += 1
        added_chars += len(block)
    if not added:
        return text, 0
    out = list(after.get(-1, ()))
    for index, line in enumerate(lines):
        out.append(line)
        out.extend(after.get(index, ()))
    return "\n".join(out), added
