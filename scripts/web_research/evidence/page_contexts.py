"""Each excerpt's context in its page: the stored text's, with the page's HTML structure where there is HTML.

`excerpt_context.find_context_and_anchor` reads the stored text (standard library, always
there); where the page's HTML is at hand (the run's sealed WARC of it, or a live page's body),
`structure_child.page_structures` reads the structure around the same place in one bounded child
for all pages, and `excerpt_context.with_structure` puts it in. Without lxml in this Python, or
when the child fails, every excerpt keeps the stored text's context: the checker is never left
without one, and a check never stays open.
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple, Sequence

from .excerpt_context import ExcerptContext, find_context_and_anchor, with_structure
from .matcher import StoredPage
from .structure_child import PageRequest, page_structures


class Excerpt(NamedTuple):
    """One excerpt to place: its page's stored text, where that page's HTML is (None: nowhere),
    and the excerpt."""

    page: StoredPage
    html: PageRequest | None  # anchors left empty: filled here
    excerpt: str


def contexts(items: Sequence[Excerpt]) -> list[ExcerptContext | None]:
    """The context of each item's excerpt (None when its page does not hold it), in order."""
    found = [find_context_and_anchor(item.excerpt, item.page) for item in items]
    out = [placed[0] if placed is not None else None for placed in found]
    groups: dict[int, tuple[PageRequest, list[int]]] = {}  # by request identity: one page, one parse
    for index, (item, placed) in enumerate(zip(items, found)):
        if item.html is not None and placed is not None:
            groups.setdefault(id(item.html), (item.html, []))[1].append(index)
    if not groups:
        return out
    requests = [replace(request, anchors=tuple(found[i][1] for i in indexes if found[i] is not None))
                for request, indexes in groups.values()]
    answers = page_structures(requests)
    if answers is None:
        return out
    for (_, indexes), structures in zip(groups.values(), answers):
        for index, structure in zip(indexes, structures):
            context = out[index]
            if context is not None and structure is not None:
                out[index] = with_structure(context, structure)
    return out
