"""What surrounds an excerpt in its page: the context a reader of the excerpt needs.

An excerpt is verbatim, yet its page may say the opposite around it ("It is a myth that
<excerpt>", "It is no longer true that <excerpt>"), or the excerpt may say "this
parameter" where the page names the parameter on the line above (a definition list's
term). So the claim-checker judges each excerpt with its context (report/claim_checker.py),
and recheck compares the context of the live page with the stored one (recheck/judge.py).

`find_context(excerpt, page)` (or `excerpt_context(page, spans)` with the spans already
found) reads, from the page's own text around the place the one matcher finds the excerpt
(`matcher.find_excerpt`):

- `sentence`: the whole sentence(s) the excerpt stands in;
- `before`, `after`: the sentence before and the one after (a line break ends a sentence,
  so a heading or a table row is one);
- `term`: the term a definition describes, when the excerpt stands in a list item right
  after a short list item (how the stored text of a `<dt>`/`<dd>` pair reads);
- `heading`: the nearest short line above that is no list item, table row or sentence, and
  starts a block that does not run on into the next line (how the stored text of a heading
  reads; a PDF's wrapped line is none).

Each piece is bounded (`MAX_PIECE_CHARS`), with invisible and control characters removed and
whitespace collapsed: it is page text, shown to a model as data. Pure, standard library only.
"""
from __future__ import annotations

import re
from typing import NamedTuple, Sequence

from ..core.text import strip_invisible
from .excerpts import normalize
from .matcher import StoredPage, find_excerpt

MAX_PIECE_CHARS = 300  # before, after, term, heading
MAX_SENTENCE_EXTRA = 600  # the sentence may run this far beyond the excerpt itself
MAX_LOOKBACK_CHARS = 20_000  # how far above the excerpt a heading is looked for
MAX_HEADING_WORDS = 12
MAX_HEADING_CHARS = 120
MAX_WRAPPED_LINES = 12  # how many lines one wrapped sentence is followed through
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?=\s+[\"'\u201c\u2018(\[$\u20ac\u00a3]?[A-Z0-9])")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "vs", "etc", "approx", "inc", "ltd", "co", "corp", "mr", "mrs", "dr", "st",
                            "no", "u.s", "cf", "al", "fig", "ca"})
_LAST_WORD = re.compile(r"([\w.]+)$")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_RUNS_ON_WORDS = frozenset("""a an the that which who whose of to in on at by for from with and or but as than
is are was were be been has have had not no its their this these those""".split())
_LIST_MARK = re.compile(r"^(?:[-*\u2022]|\d{1,3}[.)])\s+")


class ExcerptContext(NamedTuple):
    """An excerpt's context in its page (see the module docstring); None where there is none."""

    sentence: str
    before: str | None = None
    after: str | None = None
    term: str | None = None
    heading: str | None = None

    def as_text(self) -> str:
        """One canonical line of all of it: what recheck compares."""
        return " | ".join(f"{name}: {value or ''}" for name, value in zip(self._fields, self))


def find_context(excerpt: str, page: StoredPage) -> ExcerptContext | None:
    """The context of `excerpt` in `page`, where the one matcher finds it; None when it is not there.

    The matcher's character map of a long page costs several times its normalization, so the
    excerpt is placed first in the normalized page (`find_excerpt(spans=False)`), the lines
    that hold that place are found by normalizing line by line, and only those lines (and
    one around them) are mapped to find its spans in the page's own characters."""
    match = find_excerpt(excerpt, page, spans=False)
    if not match.ok or not match.at:
        return None
    window = _lines_holding(page.text, match.at[0][0], match.at[-1][1])
    if window is not None:
        low, high = window
        local = find_excerpt(excerpt, StoredPage(page.text[low:high]))
        if local.ok and local.spans:
            return excerpt_context(page, [(a + low, b + low) for a, b in local.spans])
    return excerpt_context(page, find_excerpt(excerpt, page).spans)  # the whole page's map


def _lines_holding(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The stretch of `text` from the line before the one holding normalized offset `start` to
    the line after the one holding `end` (offsets into `normalize(text)`); None if not found.
    Normalizing line by line gives the page's normalized text line by line: lines joined by
    one space, empty ones left out."""
    position = 0  # normalized offset of the next line's first character
    line_start = 0
    low = high = None
    previous = 0
    while line_start <= len(text):
        stop = text.find("\n", line_start)
        stop = len(text) if stop < 0 else stop
        size = len(normalize(text[line_start:stop]))
        if size:
            if low is None and position + size >= start:
                low = previous
            if position + size >= end:
                following = text.find("\n", stop + 1)
                high = len(text) if following < 0 else following
                break
            position += size + 1
            previous = line_start
        line_start = stop + 1
    return (low, high) if low is not None and high is not None else None


def excerpt_context(page: StoredPage, spans: Sequence[tuple[int, int]]) -> ExcerptContext | None:
    """The context of an excerpt found in `page` at `spans` (`find_excerpt(...).spans`, in the
    page's own characters); None when there are no spans (the excerpt was not found)."""
    if not spans:
        return None
    text = page.text
    start, end = spans[0][0], spans[-1][1]
    lines = _lines_around(text, start, end)
    sentences = [s for line_start, line_end in lines for s in _sentences(text, line_start, line_end)]
    first = next((i for i, (a, b) in enumerate(sentences) if a <= start < b), 0)
    last = next((i for i, (a, b) in enumerate(sentences) if a < end <= b), len(sentences) - 1)
    if not sentences or last < first:
        return ExcerptContext(_clean(text[start:end], end - start + MAX_SENTENCE_EXTRA))
    sentence = _clean(text[sentences[first][0]:sentences[last][1]], end - start + MAX_SENTENCE_EXTRA)
    before = _clean(text[slice(*sentences[first - 1])]) if first > 0 else None
    after = _clean(text[slice(*sentences[last + 1])]) if last + 1 < len(sentences) else None
    term, heading = _term_and_heading(text, start)
    return ExcerptContext(sentence, before or None, after or None, term, heading)


def _lines_around(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of the blocks from the one before the excerpt's to the one after it: each
    a non-empty line, or lines a wrapped sentence runs on through (a PDF's text), within bounds."""
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    last = len(text) if last < 0 else last
    for _ in range(MAX_WRAPPED_LINES):  # the lines the excerpt's first sentence runs on from
        above = _previous_line(text, first)
        if above is None or not _runs_on(text, above, first):
            break
        first = above[0]
    for _ in range(MAX_WRAPPED_LINES):  # and the lines its last one runs on into
        below = _next_line(text, last)
        if below is None or not _runs_on(text, (first, last), below[0]):
            break
        last = below[1]
    out = []
    previous = _previous_line(text, first)
    if previous is not None:
        out.append(previous)
    block = None
    position = first
    while position <= last:
        stop = text.find("\n", position)
        stop = len(text) if stop < 0 or stop > last else stop
        if text[position:stop].strip():
            if block is not None and _runs_on(text, block, position):
                block = (block[0], stop)
            else:
                if block is not None:
                    out.append(block)
                block = (position, stop)
        position = stop + 1
    if block is not None:
        out.append(block)
    following = _next_line(text, last)
    if following is not None:
        out.append(following)
    return out


def _runs_on(text: str, line: tuple[int, int], next_start: int) -> bool:
    """Whether a sentence runs on from `line` into the line starting at `next_start`: the line
    ends with no sentence's end, and the next one starts in lower case or the line ends with a
    word no sentence ends with ("that", "the", "of")."""
    words = text[slice(*line)].split()
    if not words or words[-1][-1:] in ".!?:":
        return False
    return text[next_start:next_start + 200].lstrip()[:1].islower() or words[-1].casefold() in _RUNS_ON_WORDS


def _previous_line(text: str, line_start: int) -> tuple[int, int] | None:
    """The non-empty line before the line starting at `line_start`, if any (within bounds)."""
    stop = line_start - 1
    floor = max(0, line_start - MAX_LOOKBACK_CHARS)
    while stop > floor:
        begin = text.rfind("\n", 0, stop) + 1
        if text[begin:stop].strip():
            return begin, stop
        stop = begin - 1
    return None


def _next_line(text: str, line_end: int) -> tuple[int, int] | None:
    """The non-empty line after the line ending at `line_end`, if any (within bounds)."""
    begin = line_end + 1
    ceiling = min(len(text), line_end + MAX_LOOKBACK_CHARS)
    while begin < ceiling:
        stop = text.find("\n", begin)
        stop = len(text) if stop < 0 else stop
        if text[begin:stop].strip():
            return begin, stop
        begin = stop + 1
    return None


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences of the line text[start:end], as (start, end) offsets into `text`."""
    out = []
    begin = start
    line = text[start:end]
    for m in _SENTENCE_END.finditer(line):
        word = _LAST_WORD.search(line, 0, m.start())
        if word and (word.group(1).casefold() in _ABBREVIATIONS or len(word.group(1)) == 1):
            continue
        out.append((begin, start + m.end()))
        begin = start + m.end()
    if text[begin:end].strip():
        out.append((begin, end))
    return [(a + len(text[a:b]) - len(text[a:b].lstrip()), b) for a, b in out]


def _term_and_heading(text: str, start: int) -> tuple[str | None, str | None]:
    """The term a definition at `start` describes, and the nearest heading above it."""
    line_start = text.rfind("\n", 0, start) + 1
    own_end = text.find("\n", line_start)
    own = text[line_start:len(text) if own_end < 0 else own_end]
    floor = start - MAX_LOOKBACK_CHARS
    term = heading = None
    previous = _previous_line(text, line_start)
    if previous is not None and _LIST_MARK.match(own.strip()):
        line = text[slice(*previous)].strip()
        if _LIST_MARK.match(line) and _is_short(_LIST_MARK.sub("", line)):
            term = _clean(_LIST_MARK.sub("", line))
            previous = _previous_line(text, previous[0])
    while previous is not None and heading is None and previous[0] >= floor:
        line = text[slice(*previous)].strip()
        above = _previous_line(text, previous[0])
        if not _LIST_MARK.match(line) and not line.startswith("|") and _is_short(line) and _starts_a_block(
                text, above, previous[0]) and not _continued(text, previous):
            heading = _clean(line)
        previous = above
    return term, heading


def _continued(text: str, line: tuple[int, int]) -> bool:
    """Whether a sentence runs on from `line` into the next line (`_runs_on`)."""
    following = _next_line(text, line[1])
    return following is not None and _runs_on(text, line, following[0])


def _starts_a_block(text: str, above: tuple[int, int] | None, start: int) -> bool:
    """Whether a line starting at `start` begins a block rather than continuing a wrapped one (a
    PDF's text breaks its sentences into short lines): nothing above it, a blank line before it,
    or a line above that ends a sentence or is short itself (a heading under a title)."""
    if above is None or "\n\n" in text[above[1]:start + 1]:
        return True
    line = text[slice(*above)].strip()
    return line[-1:] in ".!?:" or _is_short(line)


def _is_short(line: str) -> bool:
    """Whether a line reads as a heading or a term: short, and not ended like a sentence."""
    line = line.strip()
    return (0 < len(line) <= MAX_HEADING_CHARS and len(line.split()) <= MAX_HEADING_WORDS
            and line[-1] not in ".!?,;")


def _clean(text: str, limit: int = MAX_PIECE_CHARS) -> str:
    """Page text as shown: controls and invisible characters out, whitespace collapsed, bounded."""
    text = " ".join(_CONTROLS.sub(" ", strip_invisible(text)).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"
