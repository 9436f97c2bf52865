"""How much of a page's main content a researcher can quote from the stored text.

A researcher cites an excerpt, and `verify` accepts it when the excerpt's
normalized text is in the stored page text (`evidence.excerpts.normalize`). So an
element of the main content (a paragraph, list item, code block, table cell or
heading) counts as quotable when its normalized text is found in the normalized
stored text, at word boundaries. An element holding other blocks (a list item
with a nested list, a cell with paragraphs) is judged on its own text: each
stretch of it between nested blocks must be found; the nested blocks count on
their own. Elements with no text (an image in a paragraph) are not counted.

Boilerplate kept is the share of the stored text's characters (normalized)
that are not in the main content: each stored line (a table line split at its
cell separators) is looked for in the main content's normalized text.
Pure functions over lxml trees: the benchmark (`run.py`) and its unit test use them.
"""
from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree
from lxml import html as lxml_html
from web_research.evidence.excerpts import Reading, excerpt_parts, find_at_bounds, match_excerpt, normalize

KINDS: dict[str, tuple[str, ...]] = {
    "paragraph": ("p",),
    "list item": ("li",),
    "code block": ("pre",),
    "table cell": ("td", "th"),
    "heading": ("h1", "h2", "h3", "h4", "h5", "h6"),
}
KIND_OF = {tag: kind for kind, tags in KINDS.items() for tag in tags}
# Elements that start a block of their own: their text is not part of the enclosing element's.
BLOCKS = frozenset(KIND_OF) | frozenset((
    "div", "section", "article", "main", "aside", "nav", "header", "footer", "ul", "ol", "dl", "dt", "dd",
    "table", "thead", "tbody", "tfoot", "tr", "caption", "blockquote", "figure", "figcaption", "form",
    "fieldset", "details", "summary", "hr", "address", "body", "html"))
# Never text a reader sees.
SKIPPED = frozenset(("script", "style", "noscript", "template", "head", "title", "meta", "link"))
LIST_MARK = re.compile(r"^\s*(?:[-*•]\s+)")


@dataclass
class Coverage:
    """Per kind: elements counted and elements quotable; a few elements that were not."""

    total: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    found: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    missed: list[tuple[str, str]] = field(default_factory=list)

    def add(self, other: Coverage) -> None:
        for kind in KINDS:
            self.total[kind] += other.total[kind]
            self.found[kind] += other.found[kind]
        self.missed.extend(other.missed)

    def share(self, kind: str | None = None) -> float | None:
        """Found / counted, for one kind or all; None when nothing was counted."""
        kinds = KINDS if kind is None else (kind,)
        total = sum(self.total[k] for k in kinds)
        return sum(self.found[k] for k in kinds) / total if total else None


def parse(markup: str | bytes) -> etree._Element:
    """An HTML document or fragment as an lxml tree (a fragment is wrapped in a `div`)."""
    return lxml_html.document_fromstring(markup) if _looks_like_document(markup) \
        else lxml_html.fragment_fromstring(markup, create_parent="div")


def _looks_like_document(markup: str | bytes) -> bool:
    head = (markup[:2048].decode("utf-8", "replace") if isinstance(markup, bytes) else markup[:2048]).lower()
    return "<html" in head or "<!doctype" in head or "<body" in head


def main_element(tree: etree._Element, xpath: str | None = None) -> etree._Element:
    """The main content: `xpath` when given, else `<main>`, `<article>`, `[role=main]`,
    Sphinx's article body or `div.body`, else the body."""
    queries = [xpath] if xpath else [
        "//main", "//*[@role='main']", "//*[@itemprop='articleBody']", "//article",
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' body ')]", "//body"]
    for query in queries:
        found = tree.xpath(query)
        if found:
            return found[0]
    if xpath:
        raise ValueError(f"no element matches {xpath!r}")
    return tree


def _tag(node: etree._Element) -> str | None:
    return node.tag.lower() if isinstance(node.tag, str) else None  # None: a comment or processing instruction


def stretches(element: etree._Element, *, descend: bool = False) -> list[str]:
    """The element's text as a reader sees it, split where a nested block starts or ends.

    With `descend`, nested blocks' text is included (as stretches of their own);
    without, it is left out (a nested block is counted as an element of its own).
    """
    out: list[str] = []
    current: list[str] = []

    def flush() -> None:
        text = "".join(current)
        current.clear()
        if text.strip():
            out.append(text)

    def walk(node: etree._Element, top: bool) -> None:
        tag = _tag(node)
        if tag is None or tag in SKIPPED:
            return
        block = tag in BLOCKS and not top
        if block:
            flush()
            if not descend:
                return
        if tag == "br":
            current.append(" ")
        current.append(node.text or "")
        for child in node:
            walk(child, False)
            current.append(child.tail or "")
        if block:
            flush()

    walk(element, True)
    flush()
    return out


def _skipped(element: etree._Element) -> bool:
    return any(_tag(a) in SKIPPED for a in element.iterancestors())


def elements(main: etree._Element) -> Iterator[tuple[str, list[str]]]:
    """(kind, normalized stretches) for each countable element with text under `main`."""
    for node in main.iter():
        kind = KIND_OF.get(_tag(node) or "")
        if kind is None or _skipped(node):
            continue
        parts = [p for p in (normalize(s) for s in stretches(node)) if p and excerpt_parts(p)]
        if parts:
            yield kind, parts


def found_in(text: str, stored: str) -> bool:
    """Whether `verify` would accept `text` as an excerpt of the stored text (`stored`, normalized):
    `excerpts.match_excerpt` on each stretch between omission marks, so the same normalization and
    the same word and number boundaries apply."""
    parts = excerpt_parts(text)
    return bool(parts) and all((part in stored or part in _as_read(stored))
                               and match_excerpt(part, "", normalized=stored).ok for part in parts)


@functools.lru_cache(maxsize=4)
def _as_read(stored: str) -> str:
    """`stored` without its table layout, as the matcher reads it (`Reading.of`): an excerpt part
    has its layout dropped (`excerpt_parts`), so a cell holding a pipe ("float | None") is found
    here, not in `stored`. Cached: a page's units are all looked for in the same text."""
    return Reading.of(stored).text


def coverage(main: etree._Element, stored_text: str, *, keep_missed: int = 5) -> Coverage:
    """Which of `main`'s elements a researcher can quote from `stored_text`."""
    stored = normalize(stored_text)
    result = Coverage()
    for kind, parts in elements(main):
        result.total[kind] += 1
        if all(found_in(part, stored) for part in parts):
            result.found[kind] += 1
        elif len(result.missed) < keep_missed:
            result.missed.append((kind, " ".join(parts)[:160]))
    return result


def boilerplate_share(main: etree._Element, stored_text: str) -> float:
    """The share of the stored text's characters (normalized) not found in the main content."""
    content = normalize(" ".join(stretches(main, descend=True)))
    kept = other = 0
    for line in stored_text.split("\n"):
        pieces = line.split("|") if "|" in line else [line]
        for piece in pieces:
            text = normalize(LIST_MARK.sub("", piece))
            if not text or set(text) <= set("-: "):
                continue  # a table's separator line
            if found_in(text, content):
                kept += len(text)
            else:
                other += len(text)
    return other / (kept + other) if kept + other else 0.0


# --- Reading order: do the kept units stand in the page's order, each whole? ---------------

# Order counts definition terms too (an API page's signatures), besides the elements counted above.
ORDER_TAGS = frozenset(KIND_OF) | {"dt"}
# Bounds for a page of repeats: placements looked at per unit, lines a split unit may span.
MAX_OCCURRENCES = 200
MAX_SPLIT_LINES = 60


@dataclass
class Order:
    """Kept units (a unit: an element's text between its nested blocks, found whole in the stored
    text), those in the longest chain that stands in the page's order, and units split by foreign
    text; a few examples of each failure."""

    kept: int = 0
    in_order: int = 0
    split: int = 0
    out_of_order: list[str] = field(default_factory=list)
    split_units: list[str] = field(default_factory=list)

    def add(self, other: Order) -> None:
        self.kept += other.kept
        self.in_order += other.in_order
        self.split += other.split
        self.out_of_order.extend(other.out_of_order)
        self.split_units.extend(other.split_units)

    def share(self) -> float | None:
        return self.in_order / self.kept if self.kept else None


def order_units(main: etree._Element) -> list[str]:
    """The normalized stretches of each unit under `main` (`elements`, with definition terms), in
    the order a reader meets them: each stretch where its text starts (a list item's own text
    after its nested paragraph comes after that paragraph), a unit's stretches together."""
    index = {node: number for number, node in enumerate(main.iter())}
    placed: list[tuple[float, str]] = []
    for node in main.iter():
        if _tag(node) not in ORDER_TAGS or _skipped(node):
            continue
        pieces = [(at, normalize(text)) for at, text in _stretches_at(node, index)]
        pieces = [(at, text) for at, text in pieces if text and excerpt_parts(text)]
        placed.extend(pieces)
    placed.sort(key=lambda item: item[0])
    return [text for _, text in placed]


def _stretches_at(element: etree._Element, index: dict[etree._Element, int]) -> list[tuple[float, str]]:
    """`stretches(element)`, each with where its text starts in document order (`index`: the
    elements in document order; a tail counts just after its element's last descendant)."""
    out: list[tuple[float, str]] = []
    current: list[str] = []
    start: list[float] = []

    def add(text: str | None, at: float) -> None:
        if text:
            if not start and text.strip():
                start.append(at)
            current.append(text)

    def flush() -> None:
        text = "".join(current)
        if text.strip() and start:
            out.append((start[0], text))
        current.clear()
        start.clear()

    def last(node: etree._Element) -> int:
        return max(index.get(descendant, 0) for descendant in node.iter())

    def walk(node: etree._Element, top: bool) -> None:
        tag = _tag(node)
        if tag is None or tag in SKIPPED:
            return
        if tag in BLOCKS and not top:
            flush()
            return
        if tag == "br":
            add(" ", index.get(node, 0))
        add(node.text, index.get(node, 0))
        for child in node:
            walk(child, False)
            add(child.tail, last(child) + 0.5)

    walk(element, True)
    flush()
    return out


def _occurrences(stored: str, part: str) -> list[int]:
    found, at = [], find_at_bounds(stored, part, 0)
    while at >= 0 and len(found) < MAX_OCCURRENCES:
        found.append(at)
        at = find_at_bounds(stored, part, at + 1)
    return found


def _word_starts(stored: str) -> dict[str, list[int]]:
    """Where each space-separated word of `stored` starts (a unit of one word, such as a table
    cell "d", is found this way where searching gives up: the letter is inside too many words)."""
    starts: dict[str, list[int]] = {}
    at = 0
    for word in stored.split(" "):
        starts.setdefault(word, []).append(at)
        at += len(word) + 1
    return starts


def longest_chain(candidates: list[list[tuple[int, int]]]) -> list[bool]:
    """Which units belong to a largest chain taking at most one (start, end) span per unit,
    each span starting at or after the end of the one before (units in page order)."""
    ends = sorted({end for spans in candidates for _, end in spans})
    rank = {end: index + 1 for index, end in enumerate(ends)}
    tree: list[tuple[int, int]] = [(0, -1)] * (len(ends) + 1)  # Fenwick tree of (chain length, node) by end
    nodes: list[tuple[int, int]] = []  # (unit, previous node)

    def best(upto: int) -> tuple[int, int]:
        result = (0, -1)
        while upto > 0:
            result = max(result, tree[upto])
            upto -= upto & -upto
        return result

    def put(at: int, value: tuple[int, int]) -> None:
        while at < len(tree):
            tree[at] = max(tree[at], value)
            at += at & -at

    for unit, spans in enumerate(candidates):
        found = []
        for start, end in spans:
            length, node = best(bisect.bisect_right(ends, start))
            found.append((rank[end], length + 1, node))
        for at, length, previous in found:  # after all lookups: one span per unit
            nodes.append((unit, previous))
            put(at, (length, len(nodes) - 1))
    chain = [False] * len(candidates)
    node = best(len(ends))[1]
    while node >= 0:
        unit, node = nodes[node]
        chain[unit] = True
    return chain


def _split_by_foreign_text(words: list[str], lines: list[list[str]]) -> bool:
    """Whether the unit's `words` stand in the stored `lines` (normalized, as words) with one
    or more foreign lines between its beginning and its end."""
    for first, line in enumerate(lines):
        for size in range(min(len(line), len(words) - 1), 0, -1):
            if line[-size:] != words[:size]:
                continue
            at, foreign = size, 0
            for later in lines[first + 1:first + 1 + MAX_SPLIT_LINES]:
                rest = words[at:]
                if later[:len(rest)] == rest:
                    if foreign:
                        return True
                    break
                if len(later) < len(rest) and later == rest[:len(later)]:
                    at += len(later)
                else:
                    foreign += 1
    return False


def page_order(main: etree._Element, stored_text: str, *, keep_examples: int = 5) -> Order:
    """Whether the units of `main` found whole in `stored_text` stand in the page's order (the
    largest chain of them, each at one of its places, that does), and how many units are split
    by foreign text (`_split_by_foreign_text`: a block put back inside a paragraph)."""
    stored = normalize(stored_text)
    lines = [normalize(line).split(" ") for line in stored_text.split("\n")]
    lines = [line for line in lines if line != [""]]
    result = Order()
    kept: list[str] = []
    candidates: list[list[tuple[int, int]]] = []
    words = _word_starts(stored)
    for part in order_units(main):
        if not found_in(part, stored):
            if len(part.split(" ")) > 1 and _split_by_foreign_text(part.split(" "), lines):
                result.split += 1
                if len(result.split_units) < keep_examples:
                    result.split_units.append(part[:160])
            continue
        spans = [(at, at + len(part)) for at in sorted(set(_occurrences(stored, part)) | set(words.get(part, ())))]
        if spans:
            kept.append(part)
            candidates.append(spans)
    chain = longest_chain(candidates)
    result.kept, result.in_order = len(kept), sum(chain)
    result.out_of_order = [text[:160] for text, fits in zip(kept, chain) if not fits][:keep_examples]
    return result
