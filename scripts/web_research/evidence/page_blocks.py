"""The blocks of a page trafilatura left out, put back where they stand.

trafilatura keeps the main text of most pages, but drops whole parts of some: a
documentation section whose id holds "footer" (`skip_header and skip_footer`),
an article's byline, a layout table's cells, a figure's caption, a table of
contents. A researcher cannot cite what the stored text lacks, so `fetch` adds
the blocks around the content that are not page furniture and that trafilatura's
text does not already let a researcher quote (`excerpts.find_at_bounds`: at word
and number boundaries, as `verify` reads an excerpt, so a cell "22" is not found
inside "22,134"); each goes after the line where the block before it in the page
was found, so the reading order holds.

Where the content is comes from where trafilatura found its text (`locate_content`;
when that text is under a tenth of the body's, it is a fragment such as a front
page's one teaser, and blocks are put back from the whole body):
- an element holding most of it is never furniture, whatever its class says (a body
  of class "feature-footer-v2", a wrapper of class "has-sidebar", a page in a form);
- inside the content region (the deepest such element) the page's own structure is
  content: a table of contents marked as navigation, a box, an aside the article holds;
- blocks are put back only from the region's parent (headline, lede, byline, captions,
  author box), widened while that holds less than `SCOPE_SHARE` of the text; the
  site's rails and footers around it stay out even when no class names them;
- never read, anywhere: scripts, styles, form controls, frames, hidden elements;
  outside the region, navigation, header, footer, aside, forms, and classes or
  roles that name menus, sidebars, sharing, comments or ads; but a header or
  footer inside an article, section or main, and an aside inside an article or
  section, are that part's own (HTML's landmark rules): an article's standfirst
  in its header, its author box in an aside.
Before any of this, `drop_invisible` removes what a reader never sees (a `hidden`
attribute, an inline `display: none`), so trafilatura does not store it either.
The benchmark in `tests/benchmarks/extraction/` measures what this buys in coverage
and costs in boilerplate kept.

Imported only by the extraction child (`extraction.py`), with the fetch extra's lxml.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from .excerpts import find_at_bounds, normalize

# Elements whose text a reader sees as a block of its own.
BLOCK_TAGS = frozenset((
    "p", "li", "pre", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "blockquote",
    "figcaption", "caption", "div", "section", "article", "main", "ul", "ol", "dl", "table", "thead",
    "tbody", "tfoot", "tr", "figure", "details", "summary", "address", "body", "hr"))
# Never read as the page's text, wherever they stand.
NEVER_TEXT_TAGS = frozenset((
    "script", "style", "noscript", "template", "select", "button", "head", "svg", "iframe"))
# Site furniture when outside the content region (`_furniture`).
FURNITURE_TAGS = frozenset(("nav", "header", "footer", "aside", "form"))
SECTIONING_TAGS = frozenset(("article", "section", "aside", "nav"))
FURNITURE_ROLES = frozenset(("navigation", "banner", "contentinfo", "complementary", "search", "menu", "dialog"))
FURNITURE_CLASS = re.compile(
    r"(?:^|[-_\s])(?:nav|navbar|menu|footer|sidebar|comments?|share|sharing|social|related|advert|ads?|"
    r"cookies?|newsletter|subscribe|promo|breadcrumbs?|masthead|banner)(?:[-_\s]|$)", re.IGNORECASE)
# An element "holds the content" when more than this share of the characters of
# trafilatura's text found in the page's blocks lies within it.
CONTENT_SHARE = 0.5
# Blocks are put back from an element holding at least this share of it, at the least.
SCOPE_SHARE = 0.9
# Below this share of the body's text, trafilatura's text is taken as a fragment the page
# does not centre on (one teaser of a front page): the content is not located.
LOCATED_SHARE = 0.1
# An inline style that hides the element.
_INVISIBLE_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!\s*important\s*)?(?:;|$)", re.IGNORECASE)
# Bounds on the work a hostile page can cause: blocks looked at, characters added.
MAX_BLOCKS = 20_000
MAX_ADDED_CHARS = 500_000


def _never_text(element: etree._Element) -> bool:
    return (element.tag.lower() in NEVER_TEXT_TAGS
            or element.get("hidden") is not None
            or (element.get("aria-hidden") or "").lower() == "true")


def _marked_furniture(element: etree._Element) -> bool:
    return ((element.get("role") or "").lower() in FURNITURE_ROLES
            or FURNITURE_CLASS.search(element.get("class") or "") is not None)


def _furniture(element: etree._Element, sections: int = 0, mains: int = 0) -> bool:
    """Page furniture by tag, role or class; `sections` and `mains` count the element's
    article/section/aside/nav and main ancestors, inside which a header, footer or
    aside is that section's own (HTML's landmark rules), not the site's."""
    tag = element.tag.lower()
    if (tag in ("header", "footer") and (sections or mains)) or (tag == "aside" and sections):
        return _marked_furniture(element)
    return tag in FURNITURE_TAGS or _marked_furniture(element)


def drop_invisible(tree: etree._Element) -> int:
    """Remove the elements a reader never sees, keeping the text after each: those with a
    `hidden` attribute or an inline style of `display: none` or `visibility: hidden` (as
    Readability does). Wikipedia's hidden "[update]" mark otherwise splits a sentence in
    the stored text, and a researcher quoting the sentence as the page shows it is refused.
    Returns how many were removed."""
    gone = [node for node in tree.iter() if isinstance(node.tag, str) and (
        node.get("hidden") is not None or _INVISIBLE_STYLE.search(node.get("style") or ""))]
    for node in gone:
        if node.getparent() is not None:
            node.drop_tree()  # lxml.html: the tail stays
    return len(gone)


def _tag(element: etree._Element) -> str:
    return element.tag.lower() if isinstance(element.tag, str) else ""


def _body(tree: etree._Element) -> etree._Element:
    body = tree.find(".//body")
    return body if body is not None else tree


def _walk_blocks(root: etree._Element, skip: Callable[[etree._Element], bool],
                 entered: Callable[[etree._Element, bool], None] | None = None,
                 blocks: list[str] | None = None) -> list[str]:
    """The own text of each block under `root` (nested blocks come as blocks of their
    own), in page order, appended to `blocks`, leaving out the elements `skip` names.
    `entered(node, True)` and `entered(node, False)` are called around each element
    walked, once the text before that point has been taken as a block where a block
    starts or ends (so `blocks` then holds exactly the blocks before it, or before its end)."""
    blocks = [] if blocks is None else blocks
    current: list[str] = []

    def flush() -> None:
        text = " ".join("".join(current).split())
        current.clear()
        if text and len(blocks) < MAX_BLOCKS:
            blocks.append(text)

    def walk(node: etree._Element) -> None:
        if not isinstance(node.tag, str) or skip(node):
            return
        block = node.tag.lower() in BLOCK_TAGS
        if block:
            flush()
        elif node.tag.lower() == "br":
            current.append(" ")
        if entered is not None:
            entered(node, True)
        current.append(node.text or "")
        for child in node:
            if len(blocks) >= MAX_BLOCKS:
                break
            walk(child)
            current.append(child.tail or "")
        if block:
            flush()
        if entered is not None:
            entered(node, False)

    current.append(root.text or "")  # the root itself is never skipped
    for child in root:
        if len(blocks) >= MAX_BLOCKS:
            break
        walk(child)
        current.append(child.tail or "")
    flush()
    return blocks


@dataclass(frozen=True)
class Content:
    """Where trafilatura found the page's text (`locate_content`).

    `holding`: the elements that each hold more than `CONTENT_SHARE` of it (a path from
    the body down); never furniture, whatever their class or tag. `region`: the deepest
    of them, unless that is the body; inside it the page's own structure is content.
    `scope`: where blocks are put back from: the region's parent (which holds the
    article's headline, lede, byline, captions, author box), or the deepest holding
    element with at least `SCOPE_SHARE` of the text when that is higher (text spread
    over a layout's parts); the site's rails and footers around it stay out."""

    holding: frozenset[etree._Element]
    region: etree._Element | None
    scope: etree._Element


def whole_body(tree: etree._Element) -> Content:
    """No content located: blocks are put back from the whole body, furniture left out."""
    body = _body(tree)
    return Content(frozenset((body,)), None, body)


def locate_content(tree: etree._Element, text: str, absent: set[str] | None = None) -> Content:
    """Where the blocks of the page that trafilatura's `text` holds (at word and number
    boundaries) lie, by their characters; the whole body when it holds none of them.
    The normalized blocks found nowhere in `text` are added to `absent` (for `merge_missing`)."""
    root = _body(tree)
    kept = normalize(text)
    absent = set() if absent is None else absent
    blocks: list[str] = []
    counted, found, every = 0, 0, 0  # blocks looked up so far; characters of those found in `kept`, of all
    start: dict[etree._Element, int] = {}
    held: dict[etree._Element, int] = {}

    def found_so_far() -> int:
        nonlocal counted, found, every
        for block in blocks[counted:]:
            key = normalize(block)
            every += len(key)
            if not key or key in absent:
                continue
            if find_at_bounds(kept, key, 0) >= 0:
                found += len(key)
            else:
                absent.add(key)
        counted = len(blocks)
        return found

    def entered(node: etree._Element, entering: bool) -> None:
        if entering:
            start[node] = found_so_far()
        else:
            amount = found_so_far() - start.pop(node)
            if amount:
                held[node] = amount

    _walk_blocks(root, _never_text, entered, blocks)
    total = found_so_far()
    if not total or total < LOCATED_SHARE * every:
        return whole_body(tree)
    held[root] = total
    chain = [root]
    while True:  # children hold disjoint parts: at most one holds more than half
        node = next((child for child in chain[-1] if held.get(child, 0) > CONTENT_SHARE * total), None)
        if node is None:
            break
        chain.append(node)
    scope = chain[max(0, len(chain) - 2)]
    wide = [node for node in chain if held[node] >= SCOPE_SHARE * total][-1]
    if chain.index(wide) < chain.index(scope):
        scope = wide
    return Content(frozenset(chain), chain[-1] if len(chain) > 1 else None, scope)


def body_blocks(tree: etree._Element, content: Content | None = None) -> list[str]:
    """The text of each block in the content's scope (`locate_content`; the whole body
    by default) outside page furniture, in page order (a block's own text: its nested
    blocks come as blocks of their own). Inside the content region only `_never_text`
    elements are left out; elsewhere furniture too, except the elements holding the content."""
    content = content or whole_body(tree)
    inside = content.scope is content.region
    around = [content.scope, *content.scope.iterancestors()]
    sections = sum(1 for node in around if _tag(node) in SECTIONING_TAGS)
    mains = sum(1 for node in around if _tag(node) == "main")

    def skip(node: etree._Element) -> bool:
        return _never_text(node) or (not inside and node not in content.holding
                                     and _furniture(node, sections, mains))

    def entered(node: etree._Element, entering: bool) -> None:
        nonlocal inside, sections, mains
        step = 1 if entering else -1
        if node is content.region:
            inside = entering
        if _tag(node) in SECTIONING_TAGS:
            sections += step
        elif _tag(node) == "main":
            mains += step

    return _walk_blocks(content.scope, skip, entered)


def put_back(text: str, tree: etree._Element) -> tuple[str, int]:
    """trafilatura's `text` with the blocks of the page it lacks put back in reading
    order (`locate_content`, `body_blocks`, `merge_missing`); and how many were put back."""
    absent: set[str] = set()
    content = locate_content(tree, text, absent)
    return merge_missing(text, body_blocks(tree, content), absent)


def merge_missing(text: str, blocks: list[str], absent: set[str] | frozenset[str] = frozenset()) -> tuple[str, int]:
    """`text` with each block it does not already hold (at word and number boundaries)
    inserted after the line where the block before it ends (so never inside a
    multi-line block such as code); and how many blocks were added. `absent` holds
    normalized blocks already known to be nowhere in `text` (not searched again)."""
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
        at = -1 if key in absent else find_at_bounds(joined, key, starts[anchor] if anchor >= 0 else 0)
        if at >= 0:
            anchor = bisect.bisect_right(starts, at + len(key) - 1) - 1  # the line where it ends: never inside it
            continue
        if key not in absent and find_at_bounds(joined, key, 0) >= 0:
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
