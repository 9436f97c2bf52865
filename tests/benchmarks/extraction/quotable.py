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

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree
from lxml import html as lxml_html
from web_research.evidence.excerpts import excerpt_parts, match_excerpt, normalize

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
    return bool(parts) and all(part in stored and match_excerpt(part, "", normalized=stored).ok for part in parts)


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
