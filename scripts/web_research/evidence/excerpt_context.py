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
from itertools import islice
from typing import Iterator, NamedTuple, Sequence

from ..core.text import strip_invisible
from .excerpts import MatchResult, find_at_bounds, normalize
from .matcher import StoredPage, find_excerpt
from .notices import NOTICE_START, WITHDRAWN
from .structure_child import Anchor

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
    columns: str | None = None  # a table's header row, "Operation | Result"
    column: str | None = None  # the header of the excerpt's cell
    row: str | None = None  # the label of its row (the row's first cell)
    lead_in: str | None = None  # what introduces its list or table ("None of them is true:")
    notice: str | None = None  # the admonitions around it and notices above it
    paragraph: str | None = None  # the whole block it stands in, when the page's HTML gives it

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
    return _context_at(excerpt, page, match)


def _context_at(excerpt: str, page: StoredPage, match: MatchResult) -> ExcerptContext | None:
    """`find_context` once the excerpt is placed (`match`, without spans)."""
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
    before = None if before is not None and _BARE_MARK.match(before) else before
    after = _clean(text[slice(*sentences[last + 1])]) if last + 1 < len(sentences) else None
    term, heading, heading_at = _term_and_heading(text, start)
    columns, column, row = _text_table(text, start)
    return ExcerptContext(sentence, before or None, after or None, term, heading, columns, column, row,
                          _text_lead_in(text, start), _text_notices(text, start, heading_at))


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
    opens = text[next_start:next_start + 200].lstrip()[:1]
    return opens.islower() or opens == "(" or words[-1].casefold() in _RUNS_ON_WORDS


def _lines_above(text: str, line_start: int) -> Iterator[tuple[tuple[int, int], str]]:
    """The non-empty lines above the line starting at `line_start`, nearest first, each as its
    span and its stripped text (each step `_previous_line`, so within its bounds); the caller
    says how many it reads."""
    line = _previous_line(text, line_start)
    while line is not None:
        yield line, text[slice(*line)].strip()
        line = _previous_line(text, line[0])


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


def _term_and_heading(text: str, start: int) -> tuple[str | None, str | None, int]:
    """The term a definition at `start` describes, the nearest heading above it, and where that
    heading's line starts (how far up the excerpt's section reaches; 0 when there is none)."""
    line_start = text.rfind("\n", 0, start) + 1
    own_end = text.find("\n", line_start)
    own = text[line_start:len(text) if own_end < 0 else own_end]
    floor = start - MAX_LOOKBACK_CHARS
    term = heading = None
    heading_at = max(0, floor)
    previous = _previous_line(text, line_start)
    if previous is not None and _LIST_MARK.match(own.strip()):
        line = text[slice(*previous)].strip()
        if _LIST_MARK.match(line) and _is_short(_LIST_MARK.sub("", line)):
            term = _clean(_LIST_MARK.sub("", line))
            previous = _previous_line(text, previous[0])
    if term is None:
        term = _bare_item_term(text, line_start)
    while previous is not None and heading is None and previous[0] >= floor:
        line = text[slice(*previous)].strip()
        above = _previous_line(text, previous[0])
        if (not _LIST_MARK.match(line) and not line.startswith("|") and _is_short(line) and _HAS_LETTER.search(line)
                and _starts_a_block(text, above, previous[0]) and not _continued(text, previous)
                and not _opens_aside(text, previous)):
            heading = _clean(_PERMALINK.sub("", line))
            heading_at = previous[0]
        previous = above
    return term, heading or None, heading_at


_HAS_LETTER = re.compile(r"[^\W\d_]")
_PERMALINK = re.compile("\\s*[\u00b6]+$")
_BARE_MARK = re.compile(r"^[-*\u2022]$")
MAX_ITEM_LINES = 60  # how many lines a definition's text is followed up to its bare item mark


def _opens_aside(text: str, line: tuple[int, int]) -> bool:
    """Whether the line after `line` opens with a parenthesis or ends with a comma: `line` is a
    wrapped sentence's part ("While waiting, new tasks may be added" / "(for example, ...")."""
    following = _next_line(text, line[1])
    own = text[slice(*line)].rstrip()
    return own.endswith(",") or (following is not None and text[following[0]:following[1]].lstrip()[:1] == "(")


def _bare_item_term(text: str, line_start: int) -> str | None:
    """The term of a definition whose stored text puts its description a line below a bare item
    mark ("- work_mem (integer)" / "-" / "Sets the base maximum ..."): the lines above the
    excerpt are followed up to that mark (none of them an item), and the item above it is the term."""
    for line, content in islice(_lines_above(text, line_start), MAX_ITEM_LINES):
        if _BARE_MARK.match(content):
            above = _previous_line(text, line[0])
            item = text[slice(*above)].strip() if above is not None else ""
            if _LIST_MARK.match(item) and _is_short(_LIST_MARK.sub("", item)):
                return _clean(_PERMALINK.sub("", _LIST_MARK.sub("", item)))
            return None
        if _LIST_MARK.match(content) or content.startswith("|"):
            return None
    return None


_ROW_SEPARATOR = re.compile(r"^\|[\s:|-]+\|?$")
MAX_TABLE_LINES = 2000


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [" ".join(cell.split()) for cell in inner.split("|")]


def _text_table(text: str, start: int) -> tuple[str | None, str | None, str | None]:
    """(header row, the excerpt cell's column header, its row's label) when the excerpt stands in a
    row of a table as the stored text writes it ("| a | b |", the header above a "|---|" line)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    own = text[line_start:len(text) if line_end < 0 else line_end]
    if not own.lstrip().startswith("|"):
        return None, None, None
    top = (line_start, line_start + len(own))
    rows = 0
    while rows < MAX_TABLE_LINES:
        above = _previous_line(text, top[0])
        if above is None or above[0] != text.rfind("\n", 0, top[0] - 1) + 1 or not text[slice(*above)].lstrip().startswith("|"):
            break
        top, rows = above, rows + 1
    following = _next_line(text, top[1])
    if top[0] == line_start or following is None or not _ROW_SEPARATOR.match(text[slice(*following)].strip()):
        return None, None, None  # the excerpt is in the header row, or the table has none
    if _ROW_SEPARATOR.match(own.strip()):
        return None, None, None
    header = _cells(text[slice(*top)])
    cells = _cells(own)
    index = own[:start - line_start].count("|") - (1 if own.lstrip().startswith("|") else 0)
    column = header[index] if 0 <= index < len(header) else None
    label = cells[0] if cells and index > 0 else None
    return (_clean(" | ".join(header)) or None, _clean(column or "") or None, _clean(label or "") or None)


MAX_LEAD_IN_LINES = 40


def _text_lead_in(text: str, start: int) -> str | None:
    """The line that introduces the list (or table) the excerpt stands in: the first line above
    that is no item and ends with a colon, with only items and their lines between."""
    line_start = text.rfind("\n", 0, start) + 1
    own_end = text.find("\n", start)
    own = text[line_start:len(text) if own_end < 0 else own_end].strip()
    if not (_LIST_MARK.match(own) or own.startswith("|")):
        return None  # the excerpt's line is no item or row
    for _line, content in islice(_lines_above(text, line_start), MAX_LEAD_IN_LINES):
        if _LIST_MARK.match(content) or content.startswith("|"):
            continue
        if content.endswith(":"):
            return _clean(content)
        return None  # a line between the list and what stands above it: no lead-in
    return None


MAX_NOTICES = 3
MAX_NOTICE_LINE_CHARS = 300


def _text_notices(text: str, start: int, floor: int) -> str | None:
    """Notices in the excerpt's section above it ("Note: ...", "This plan was withdrawn."): short
    lines between its heading (`floor`) and its own line that open like a notice or say the thing
    is withdrawn, nearest first."""
    found: list[str] = []
    for line, content in _lines_above(text, text.rfind("\n", 0, start) + 1):
        if len(found) >= MAX_NOTICES or line[0] < floor:
            break
        if len(content) <= MAX_NOTICE_LINE_CHARS and (NOTICE_START.match(content) or WITHDRAWN.search(content)):
            found.append(_clean(content))
    return NOTICE_SEPARATOR.join(found) or None


NOTICE_SEPARATOR = " / "
PATH_SEPARATOR = " \u203a "
MAX_PARAGRAPH_CHARS = 1200
MAX_NEIGHBOUR_CHARS = 400


def anchor_of(page: StoredPage, at: tuple[int, int]) -> Anchor:
    """Where an excerpt found at normalized offsets `at` stands: the normalized text there and
    which of its places in the page it is, so the page's HTML can be read at the same place."""
    key = page.normalized[at[0]:at[1]]
    nth = count = 0
    position = find_at_bounds(page.normalized, key, 0)
    while position >= 0 and count < MAX_ANCHOR_PLACES:
        nth += position < at[0]
        count += 1
        position = find_at_bounds(page.normalized, key, position + 1)
    before = page.normalized[max(0, at[0] - ANCHOR_BEFORE_CHARS):at[0]]
    return Anchor(key, nth, max(count, 1), before.split(" ", 1)[-1] if at[0] > ANCHOR_BEFORE_CHARS else before)


ANCHOR_BEFORE_CHARS = 120


MAX_ANCHOR_PLACES = 200


def find_context_and_anchor(excerpt: str, page: StoredPage) -> tuple[ExcerptContext, Anchor] | None:
    """`find_context` and the anchor of the excerpt's first part (`anchor_of`), or None."""
    match = find_excerpt(excerpt, page, spans=False)
    if not match.ok or not match.at:
        return None
    context = _context_at(excerpt, page, match)
    return (context, anchor_of(page, match.at[0])) if context is not None else None


def _strings(value: object, limit: int = 10) -> list[str]:
    if isinstance(value, str):
        value = [value]
    return [item for item in value[:limit] if isinstance(item, str) and item.strip()] if isinstance(value, list) else []


def with_structure(context: ExcerptContext, structure: object) -> ExcerptContext:
    """`context` with what the page's HTML says around the excerpt (page_structure.Structure, as
    the child answered it: checked here, it is page text) in place of what the stored text
    guessed: the headings' path, the terms, the table's header and row, the lead-in, the
    notices, the whole paragraph and the blocks beside it."""
    if not isinstance(structure, dict):
        return context

    def one(name: str, limit: int = MAX_PIECE_CHARS, separator: str = PATH_SEPARATOR) -> str | None:
        return _clean(separator.join(_strings(structure.get(name))), limit) or None

    paragraph = one("paragraph", MAX_PARAGRAPH_CHARS)
    return context._replace(
        heading=one("path", MAX_PIECE_CHARS * 2) or context.heading, term=one("term"),
        columns=_clean(" | ".join(_strings(structure.get("columns"), 40))) or None, column=one("column"),
        row=one("row"), lead_in=one("lead_in"), notice=one("notice", MAX_PIECE_CHARS * 3, NOTICE_SEPARATOR),
        paragraph=paragraph if paragraph != context.sentence else None,
        before=one("before", MAX_NEIGHBOUR_CHARS), after=one("after", MAX_NEIGHBOUR_CHARS))


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
    bare = line.rstrip(")]\"'\u201d\u2019")
    return (0 < len(line) <= MAX_HEADING_CHARS and len(line.split()) <= MAX_HEADING_WORDS
            and bare[-1:] not in (".", "!", "?", ",", ";", ":", ""))


def _clean(text: str, limit: int = MAX_PIECE_CHARS) -> str:
    """Page text as shown: controls and invisible characters out, whitespace collapsed, bounded."""
    text = " ".join(_CONTROLS.sub(" ", strip_invisible(text)).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "\u2026"
