"""An excerpt as the web points at a passage: a text fragment link and a W3C TextQuoteSelector.

Both are built from the passage as the page shows it, not from the excerpt as a model typed it:
a browser and an annotation tool look for the page's curly quotes and accents, not a retyped
straight quote. The passage is where the one excerpt matcher (evidence/matcher.py) placed the
excerpt in the stored text; `shown_words` then reads that stretch as a browser renders it
(issue 45): the stored text draws a table with pipes (`| Cold | $0.004 | 90 days |`) and a
delimiter row (`|---|---|`) and a list item, or a definition's term and description, with a
leading `- `, marks no page shows. Those are left out, and each word keeps the block it stands
in (a line of the stored text; on a table row, a cell), because a browser searches for text
block by block.

- `text_fragment(page, start, end)`: `:~:text=[prefix-,]start[,end]` (the WICG Scroll to Text
  Fragment directive, https://wicg.github.io/scroll-to-text-fragment/). No term crosses a block
  (a cell, a list item, a term and its description are blocks: Chromium finds no term that
  does): a short passage within one block goes whole, any other as a range of its first and
  last words; a prefix (words just before it, in one block) when the start words occur earlier
  in the page. Each term is percent-encoded as the spec asks: every character but the
  unreserved ASCII ones, and `-`, `,` and `&` always.
- `live_link(url, fragment)`: the page's URL with the directive after its own fragment.
- `quote_selector(page, start, end)`: {type, exact, prefix, suffix} of the Web Annotation Data
  Model (https://www.w3.org/TR/annotation-model/#text-quote-selector), the text as shown,
  whitespace normalized as the model asks; `content_quote_selector` the same taken from the page's
  textContent (what annotation tools anchor against), where the run archived the page's HTML.
"""
from __future__ import annotations

import itertools
import re
from typing import NamedTuple
from urllib.parse import quote

from .excerpts import LIST_MARKS

WHOLE_WORDS = 8  # a passage of at most this many words, in one block, goes whole into the directive
EDGE_WORDS = 4  # else its first and last this many words
PREFIX_WORDS = 3
CONTEXT_CHARS = 32  # a TextQuoteSelector's prefix and suffix

_TOKEN = re.compile(r"\S+")
_DELIMITER_ROW = re.compile(r"\s*\|?(?:\s*:?-+:?\s*\|)+\s*(?::?-+:?\s*)?")


class Word(NamedTuple):
    """A word as the page shows it: `page[start:end]`, in block number `block`."""

    start: int
    end: int
    block: int


def shown_words(page: str, low: int = 0, high: int | None = None) -> list[Word]:
    """The words of `page[low:high]` as a browser shows them: without the stored text's table
    borders, delimiter rows and list marks; a word cut by `low` or `high` is cut there too.
    Blocks are numbered from the first line of the page that the stretch touches."""
    high = len(page) if high is None else min(high, len(page))
    low = max(0, low)
    words: list[Word] = []
    if low >= high:
        return words
    line_start = page.rfind("\n", 0, low) + 1
    block = 0
    while line_start < high:
        line_end = page.find("\n", line_start)
        line_end = len(page) if line_end < 0 else line_end
        line = page[line_start:line_end]
        stripped = line.lstrip()
        if "|" in line and _DELIMITER_ROW.fullmatch(line):
            pass  # a table's delimiter row: drawn, never shown
        else:
            row = stripped.startswith("|")
            for index, token in enumerate(_TOKEN.finditer(page, line_start, line_end)):
                text = token.group(0)
                if row and text == "|":
                    block += 1  # a cell border: the next cell is a block of its own
                    continue
                if index == 0 and not row and text in LIST_MARKS:
                    continue  # a list item's mark (or a definition's): the page shows a bullet or nothing
                a, b = max(token.start(), low), min(token.end(), high)
                if a < b:
                    words.append(Word(a, b, block))
        block += 1
        line_start = line_end + 1
    return words


def shown_text(page: str, words: list[Word]) -> str:
    """`words` as one line, one space between them (a word cut in two stays joined)."""
    out: list[str] = []
    for index, word in enumerate(words):
        if index and not (words[index - 1].end == word.start and not page[word.start - 1].isspace()):
            out.append(" ")
        out.append(page[word.start:word.end])
    return "".join(out)


def encode_term(term: str) -> str:
    """A directive term, percent-encoded (UTF-8); `-` too, which would mark a prefix or suffix."""
    return quote(term, safe="").replace("-", "%2D")


def _blocks(words: list[Word]) -> list[list[Word]]:
    out: list[list[Word]] = []
    for word in words:
        if out and out[-1][-1].block == word.block:
            out[-1].append(word)
        else:
            out.append([word])
    return out


def text_fragment(page: str, start: int = 0, end: int | None = None) -> str | None:
    """The text directive (`:~:text=...`) that finds the passage `page[start:end]` (the stored
    text, where the matcher placed it) on the live page; None for a passage with no words."""
    end = len(page) if end is None else end
    words = shown_words(page, start, end)
    if not words:
        return None
    blocks = _blocks(words)
    if len(blocks) == 1 and len(words) <= WHOLE_WORDS:
        terms = [shown_text(page, words)]
    else:
        terms = [shown_text(page, blocks[0][:EDGE_WORDS]), shown_text(page, blocks[-1][-EDGE_WORDS:])]
    directive = ",".join(encode_term(t) for t in terms)
    prefix = _prefix(page, start, terms[0])
    if prefix:
        directive = f"{encode_term(prefix)}-,{directive}"
    return ":~:text=" + directive


PREFIX_REACH = 2000  # characters of the stored text before a passage read for its prefix


def _prefix(page: str, start: int, first_term: str) -> str:
    """The words just before `start`, within one block (its own, or the one before), when
    `first_term` occurs earlier in the page (a browser matches without regard to case); else "".
    A term stands within one block, where the stored text has no marks, so the page before
    `start` is searched as stored, its whitespace collapsed: linear, whatever the page's length."""
    if first_term.casefold() not in " ".join(page[:start].split()).casefold():
        return ""
    before = shown_words(page, max(0, start - PREFIX_REACH), start)
    if start > 0 and start < len(page) and not page[start - 1].isspace() and not page[start].isspace():
        before = before[:-1]  # the start cuts a word: its first half is no prefix
    if not before:
        return ""
    block = before[-1].block
    same = [word for word in before[-PREFIX_WORDS:] if word.block == block]
    return shown_text(page, same)


def live_link(url: str, fragment: str | None) -> str:
    """`url` with the text directive: after its own fragment, or after a new `#`."""
    if not fragment:
        return url
    return f"{url}{fragment}" if "#" in url else f"{url}#{fragment}"


def quote_selector(page: str, start: int, end: int) -> dict[str, str]:
    """The TextQuoteSelector of the passage `page[start:end]` as the page shows it, with up to
    CONTEXT_CHARS of the text shown before and after it."""
    exact = shown_text(page, shown_words(page, start, end))
    return {"type": "TextQuoteSelector", "exact": exact,
            "prefix": _context(page, start, before=True), "suffix": _context(page, end, before=False)}


def content_quote_selector(page: str, start: int, end: int, content: str) -> dict[str, str] | None:
    """The TextQuoteSelector of the passage `page[start:end]` (the stored text) as it stands in
    `content`, the page's textContent as a browser computes it (`page_structure.text_content` of the
    archived HTML), whitespace collapsed; None when the passage's words are not found there in order.

    textContent runs adjacent cells, items, terms and descriptions together wherever the markup
    puts no whitespace between them (`<td>Cold</td><td>$0.004</td>`: "Cold$0.004"), which is what an
    annotation tool anchors `exact` against; the shown text separates them. So the words are looked
    for in `content` in order, with a space between two words of one block and an optional one
    between blocks, and `exact`, `prefix` and `suffix` are taken from `content` itself. Where the
    passage occurs more than once, the occurrence is the one whose count of earlier occurrences
    matches the stored text's."""
    words = shown_words(page, start, end)
    if not words:
        return None
    collapsed = " ".join(content.split())
    parts = [re.escape(page[words[0].start:words[0].end])]
    for before, word in zip(words, words[1:]):
        joined = before.end == word.start and not page[word.start - 1].isspace()
        parts.append("" if joined else (" " if before.block == word.block else " ?"))
        parts.append(re.escape(page[word.start:word.end]))
    pattern = re.compile("".join(parts))
    matches = list(itertools.islice(pattern.finditer(collapsed), MAX_OCCURRENCES))
    if not matches:
        return None
    earlier = len(re.findall(re.escape(shown_text(page, words)), shown_text(page, shown_words(page, 0, start))))
    found = matches[min(earlier, len(matches) - 1)]
    a, b = found.span()
    return {"type": "TextQuoteSelector", "exact": collapsed[a:b],
            "prefix": collapsed[max(0, a - CONTEXT_CHARS):a], "suffix": collapsed[b:b + CONTEXT_CHARS]}


MAX_OCCURRENCES = 1000  # occurrences of a passage in one page looked at


def _context(page: str, at: int, *, before: bool) -> str:
    """Up to CONTEXT_CHARS of the shown text before (or after) `at`, with the space that
    separates it from the passage (none where `at` cuts a word)."""
    reach = 8 * CONTEXT_CHARS
    while True:
        low, high = (max(0, at - reach), at) if before else (at, min(len(page), at + reach))
        words = shown_words(page, low, high)
        text = shown_text(page, words)
        if len(text) > CONTEXT_CHARS or (low == 0 if before else high == len(page)):
            break
        reach *= 4
    if not text:
        return ""
    cut = 0 < at < len(page) and not page[at - 1].isspace() and not page[at].isspace()
    if before:
        return (text + ("" if cut else " "))[-CONTEXT_CHARS:]
    return (("" if cut else " ") + text)[:CONTEXT_CHARS]
