"""The blocks of a page trafilatura left out, put back where they stand.

trafilatura keeps the main text of most pages, but drops whole parts of some: a
documentation section whose id holds "footer" (`skip_header and skip_footer`),
an article's byline, a layout table's cells, a figure's caption, a table of
contents. A researcher cannot cite what the stored text lacks, so `fetch` adds
the blocks around the content that are not page furniture and that trafilatura's
text does not hold at their place (`merge_missing`): where the text holds each block
(`excerpts.find_at_bounds`: at word and number boundaries, as `verify` reads an
excerpt, so a cell "22" is not found inside "22,134") is the heaviest chain of its
places in the page's order, and each block missing from it goes right after the
block before it, at a block boundary: the stored text reads in the page's order, and
nothing is put inside a paragraph or between a term and its definition (issue 36:
API signatures spliced into a sentence after a short "Note" found far ahead).

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
import itertools
import re
from collections import Counter, defaultdict
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
    r"(?:^|[-_\s])(?:nav|navbar|navheader|navfooter|menu|footer|sidebar|comments?|share|sharing|social|related|advert|ads?|"
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
    own; a `pre` block keeps its lines, as code is read), in page order, appended to `blocks`, leaving out the elements `skip` names.
    `entered(node, True)` and `entered(node, False)` are called around each element
    walked, once the text before that point has been taken as a block where a block
    starts or ends (so `blocks` then holds exactly the blocks before it, or before its end)."""
    blocks = [] if blocks is None else blocks
    current: list[str] = []
    preformatted = 0  # pre elements the walk is in: their lines are kept

    def flush() -> None:
        raw = "".join(current)
        if preformatted:
            lines = [line.rstrip() for line in raw.split("\n")]
            text = "\n".join(lines).strip("\n") if any(line.strip() for line in lines) else ""
        else:
            text = " ".join(raw.split())
        current.clear()
        if text and len(blocks) < MAX_BLOCKS:
            blocks.append(text)

    def walk(node: etree._Element) -> None:
        nonlocal preformatted
        if not isinstance(node.tag, str) or skip(node):
            return
        tag = node.tag.lower()
        block = tag in BLOCK_TAGS
        if block:
            flush()
        elif tag == "br":
            current.append("\n" if preformatted else " ")
        if entered is not None:
            entered(node, True)
        preformatted += tag == "pre"
        current.append(node.text or "")
        for child in node:
            if len(blocks) >= MAX_BLOCKS:
                break
            walk(child)
            current.append(child.tail or "")
        if block:
            flush()
        preformatted -= tag == "pre"
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


_ROW = re.compile(r"^\|[ \t].*$", re.MULTILINE)
_SPACES = re.compile(r"[ \t]{2,}")


def tidy_rows(text: str) -> str:
    """trafilatura's table rows ("| cell | cell |") with each run of spaces made one: a cell's
    text keeps the HTML source's line breaks and indentation as runs of spaces ("|     lower (
    text )         → text", on PostgreSQL's function tables), which the page never shows."""
    return _ROW.sub(lambda row: _SPACES.sub(" ", row.group(0)), text)


def put_back(text: str, tree: etree._Element) -> tuple[str, int]:
    """trafilatura's `text` with the blocks of the page it lacks put back in reading
    order (`locate_content`, `body_blocks`, `merge_missing`); and how many were put back."""
    absent: set[str] = set()
    content = locate_content(tree, text, absent)
    return merge_missing(text, body_blocks(tree, content), absent)


# Blocks this short (normalized characters) are taken where trafilatura's text has them only
# where they stand apart: at a line's or table cell's start or end ("Note", a cell "22"), not
# inside a sentence that happens to hold the same words.
SHORT_BLOCK = 40
# Places taken and looked at per distinct block (a page of repeats: "Image", "Return type:"),
# and in all (past this, blocks are put back at their place without looking).
MAX_PLACES = 200
MAX_TRIES = 1000
MAX_ALL_PLACES = 200_000
# Tokens that only mark a line's kind in trafilatura's text: a list item, a table's cell border.
_LIST_MARKS = frozenset(("-", "*", "•", "+"))
_MARKS = _LIST_MARKS | {"|"}
_TOKEN = re.compile(r"\S+")  # a piece of a line, as str.split() makes them


@dataclass(frozen=True)
class _Tokens:
    """trafilatura's text as normalized tokens: `joined` holds them separated by single
    spaces (the text `excerpts.normalize` makes of it), `starts` where each begins in it,
    `words` the tokens themselves, `line` the line each is on and `raw` which of that line's
    whitespace-separated pieces it comes from, `plain` how many of the tokens before each (and
    in all) are not marks; `offsets` where each line starts in the text."""

    joined: str
    starts: list[int]
    words: list[str]
    line: list[int]
    raw: list[int]
    plain: list[int]
    text: str
    offsets: list[int]

    def at(self, position: int) -> int:
        """The token holding `joined[position]`."""
        return bisect.bisect_right(self.starts, position) - 1

    def span(self, index: int) -> tuple[int, int]:
        """Where token `index` lies in the text (found again in its line: needed for a few only)."""
        line = self.line[index]
        end = self.offsets[line + 1] - 1 if line + 1 < len(self.offsets) else len(self.text)
        piece = next(itertools.islice(_TOKEN.finditer(self.text, self.offsets[line], end), self.raw[index], None), None)
        return (piece.start(), piece.end()) if piece is not None else (end, end)

    def apart(self, first: int, last: int) -> bool:
        """Whether tokens `first` to `last` stand apart: they start or end their line or a
        table cell (a list item's mark before them does not count)."""
        before = first - 1
        if before >= 0 and self.line[before] == self.line[first] and self.words[before] in _LIST_MARKS:
            before -= 1
        if before < 0 or self.line[before] != self.line[first] or self.words[before] == "|":
            return True
        after = last + 1
        return after >= len(self.line) or self.line[after] != self.line[last] or self.words[after] == "|"

    def only_marks(self, first: int, last: int) -> bool:
        """Whether tokens `first` to `last` (inclusive) are all marks (or there are none)."""
        return last < first or self.plain[last + 1] == self.plain[first]

    def line_bounds(self, index: int) -> tuple[int, int]:
        """The first and last token of token `index`'s line."""
        line = self.line[index]
        return bisect.bisect_left(self.line, line), bisect.bisect_right(self.line, line) - 1


def _tokens(text: str) -> _Tokens:
    """`text` as `_Tokens`. A line is normalized whole (fast) and its words paired with the
    text's pieces; only when their numbers differ (a quote mark standing alone, a character
    that normalizes to two words) is each piece normalized on its own."""
    words: list[str] = []
    lines: list[int] = []
    raw: list[int] = []
    offsets: list[int] = []
    offset = 0
    for number, line in enumerate(text.split("\n")):
        offsets.append(offset)
        offset += len(line) + 1
        pieces = line.split()
        if not pieces:
            continue
        normalized = normalize(line).split(" ")
        if len(normalized) == len(pieces):
            words.extend(normalized)
            raw.extend(range(len(pieces)))
            lines.extend([number] * len(pieces))
            continue
        for place, piece in enumerate(pieces):
            for word in normalize(piece).split(" "):
                if word:
                    words.append(word)
                    raw.append(place)
                    lines.append(number)
    starts = list(itertools.accumulate((len(word) + 1 for word in words[:-1]), initial=0)) if words else []
    plain = list(itertools.accumulate((word not in _MARKS for word in words), initial=0))
    return _Tokens(" ".join(words), starts, words, lines, raw, plain, text, offsets)


def _places(tokens: _Tokens, key: str, absent: bool, words: dict[str, list[int]]) -> list[tuple[int, int]]:
    """Where `key` stands in the text, as (first token, last token), at word and number
    boundaries; a short key only where it stands apart (`SHORT_BLOCK`). Looked for where the
    tokens are the key's first two words, or its one word (`words`: fast, where searching the
    whole text for each block is not), and
    searched for only when it stands nowhere so (a key starting inside a token: "(" before it).
    A key of one word is never searched for: a table cell "d" stands inside too many words
    before it; `absent`: not found by searching already."""
    head = " ".join(key.split(" ", 2)[:2])
    places = []
    for index in words.get(head, ())[:MAX_TRIES]:
        at = tokens.starts[index]
        if tokens.joined.startswith(key, at) and find_at_bounds(tokens.joined, key, at) == at:
            last = tokens.at(at + len(key) - 1)
            if len(key) >= SHORT_BLOCK or tokens.apart(index, last):
                places.append((index, last))
                if len(places) >= MAX_PLACES:
                    break
    if places or absent or head == key:
        return places
    at, tries = find_at_bounds(tokens.joined, key, 0), 0
    while at >= 0 and len(places) < MAX_PLACES and tries < MAX_TRIES:
        first, last = tokens.at(at), tokens.at(at + len(key) - 1)
        if len(key) >= SHORT_BLOCK or tokens.apart(first, last):
            places.append((first, last))
        at, tries = find_at_bounds(tokens.joined, key, at + 1), tries + 1
    return places


def _align(candidates: list[list[tuple[int, int]]], weights: list[int]) -> list[tuple[int, int] | None]:
    """For each block, the place (first token, last token) it takes in the heaviest chain of
    places in the page's order (each block at most once, each place after the one before, a
    block weighing its characters), or None: where trafilatura's text has each block."""
    ends = sorted({last for places in candidates for _, last in places})
    tree = [(0, -1)] * (len(ends) + 1)  # a Fenwick tree of (weight of the best chain, its node), by last token
    nodes: list[tuple[int, int, int, int]] = []  # (block, first, last, previous node)

    def best(upto: int) -> tuple[int, int]:
        result = (0, -1)
        while upto > 0:
            result = max(result, tree[upto])
            upto -= upto & -upto
        return result

    for block, places in enumerate(candidates):
        chains = [(best(bisect.bisect_left(ends, first)), first, last) for first, last in places]
        for (weight, previous), first, last in chains:  # all looked up first: one place per block
            nodes.append((block, first, last, previous))
            at = bisect.bisect_left(ends, last) + 1
            value = (weight + weights[block], len(nodes) - 1)
            while at < len(tree):
                tree[at] = max(tree[at], value)
                at += at & -at
    placed: list[tuple[int, int] | None] = [None] * len(candidates)
    node = best(len(ends))[1]
    while node >= 0:
        block, first, last, node = nodes[node]
        placed[block] = (first, last)
    return placed


def _letters(text: str) -> Counter[str]:
    return Counter(char for char in text if char.isalnum())


def merge_missing(text: str, blocks: list[str], absent: set[str] | frozenset[str] = frozenset()) -> tuple[str, int]:
    """`text` with each of the page's `blocks` (in page order) that it does not hold at its
    place put there; and how many blocks were put.

    Where the text holds each block is the heaviest chain of its places in page order
    (`_align`): a short block found far ahead ("Note", "New in version 3.11.") no longer
    drags the blocks after it there. The blocks between two placed ones go right after the
    first, at a block boundary of the page, split from the rest of its line if need be (a
    line of trafilatura's text may hold two blocks, or part of a paragraph: never put inside
    one). trafilatura's text between the two that is made only of those blocks' letters is
    a garbled copy of them (inline code and emphasis reordered, words dropped, as on
    PostgreSQL's reference pages) and is replaced by them. `absent` holds normalized blocks
    already known to be nowhere in `text` (not searched again)."""
    tokens = _tokens(text)
    keys = [normalize(block) for block in blocks]
    words: defaultdict[str, list[int]] = defaultdict(list)  # where each word, and each pair of words, starts
    for index, word in enumerate(tokens.words):
        words[word].append(index)
    for index, pair in enumerate(map(" ".join, zip(tokens.words, tokens.words[1:]))):
        words[pair].append(index)
    cache: dict[str, list[tuple[int, int]]] = {}
    candidates, total = [], 0
    for key in keys:
        if key and key not in cache and total < MAX_ALL_PLACES:
            cache[key] = _places(tokens, key, key in absent, words)
        candidates.append(cache.get(key, []) if key else [])
        total += len(candidates[-1])
    placed = _align(candidates, [len(key) for key in keys])
    edits: list[tuple[int, int, list[str]]] = []  # (start, end, blocks) in the text
    gap: list[str] = []
    after = -1  # the last token of the last placed block
    added, added_chars = 0, 0
    for index in range(len(blocks) + 1):
        place = placed[index] if index < len(blocks) else (len(tokens.starts), len(tokens.starts))
        if place is None:
            if keys[index] and added_chars + len(blocks[index]) <= MAX_ADDED_CHARS:
                gap.append(blocks[index])
                added_chars += len(blocks[index])
            continue
        if gap:
            edits.append(_gap_edit(text, tokens, after, place[0], gap))
            added += len(gap)
            gap = []
        after = place[1]
        if index < len(blocks) and "\n" in blocks[index]:
            edits.extend(_code_edit(text, tokens, place, keys[index], blocks[index]))
    if not edits:
        return text, 0
    out, position = [], 0
    for start, end, lines in edits:
        before = text[position:start].rstrip(" \t")
        out.append(before)
        if before and not before.endswith("\n"):
            out.append("\n")
        out.append("\n".join(lines) + "\n")
        position = end
        if end < len(text) and end > 0 and text[end - 1] != "\n":  # split inside a line: the rest starts a line
            while position < len(text) and text[position] in " \t":
                position += 1
        if text[position:position + 1] == "\n":
            position += 1
    out.append(text[position:])
    merged = "".join(out)
    return (merged if text.endswith("\n") else merged.rstrip("\n")), added


def _code_edit(text: str, tokens: _Tokens, place: tuple[int, int], key: str,
               block: str) -> list[tuple[int, int, list[str]]]:
    """A code block (a block of several lines: `body_blocks` keeps only a `pre`'s lines) that
    trafilatura's text holds run together, on one line with the sentence before it ("Example:
    async def main(): try: …"): its place replaced by the block's lines. Nothing when the text
    keeps its lines, or when its tokens there hold more than the block."""
    first, last = place
    start, end = tokens.span(first)[0], tokens.span(last)[1]
    if tokens.joined[tokens.starts[first]:tokens.starts[last] + len(tokens.words[last])] != key:
        return []
    if text.count("\n", start, end) >= block.count("\n"):
        return []
    return [(start, end, [block])]


def _gap_edit(text: str, tokens: _Tokens, after: int, before: int, gap: list[str]) -> tuple[int, int, list[str]]:
    """Where the blocks of `gap` go, between the placed tokens `after` and `before` (-1: the
    text's start; `len(tokens.starts)`: its end): (start, end, blocks), `start` to `end` being
    the text they replace (empty unless a garbled copy of them stands there)."""
    count = len(tokens.starts)
    if after >= 0:  # right after the block before; at its line's end when only marks follow on that line
        line_end = tokens.line_bounds(after)[1]
        start = tokens.span(after)[1]
        if tokens.only_marks(after + 1, line_end):
            start = text.find("\n", start)
            start = len(text) if start < 0 else start
    else:
        start = 0
    if before < count:  # right before the block after; at its line's start when only marks precede it
        line_start = tokens.line_bounds(before)[0]
        end = tokens.span(before)[0]
        if tokens.only_marks(line_start, before - 1):
            end = text.rfind("\n", 0, end) + 1
    else:
        end = len(text)
    stop = tokens.starts[before] if before < count else len(tokens.joined)
    between = tokens.joined[tokens.starts[after + 1]:stop] if after + 1 < before else ""
    letters = _letters(between)
    if letters and start <= end and not letters - _letters(" ".join(gap)):
        return start, end, gap  # a garbled copy of the gap's blocks: replaced by them
    if after < 0:
        return end, end, gap  # nothing placed before: right before the first placed block
    return start, start, gap
