"""Checking that a quoted excerpt really appears in a page's text.

A citation's excerpt is supposed to be verbatim, but a quote copied by a model
differs from the page in ways no reader would call a misquote: curly versus
straight quotes, an en dash typed as a hyphen, a line break where the page had
a space, a ligature. `normalize` removes exactly those differences and nothing
else (case and wording still count), so a match means "the page says this" and
a mismatch means the quote was paraphrased or invented. It keeps what changes a
figure: a superscript or subscript stays apart from the digits before it (`10⁶`
becomes `10^6`, never `106`), and invisible format characters go, the same way in
every text (`core.text.strip_invisible`).

An excerpt matches at word and number boundaries at both ends of each part: "costs
$1,000" is not in "costs $1,000,000", nor "10% surcharge" in "110% surcharge".

A table's cells are read as the page shows them (issue 45): the stored text draws a table row
with pipes (`| Cold | $0.004 | 90 days |`) and its header's delimiter row (`|---|---|`), marks
no browser shows and a person reading the row does not type. A pipe standing alone and a
delimiter row are layout, not words (`is_layout`): the excerpt and the page are compared
without them (`Reading`), so "Cold $0.004 90 days" (cells separated by spaces or tabs, as a
browser copies a row) and "Cold | $0.004 | 90 days" (as stored) both match the row. A pipe
never carries a claim, wherever it stands. A list mark that opens a line (`- `: how the stored
text writes a list item, and a definition's term and its description) is a bullet on the page,
or nothing: the page is read as stored, then as shown without those marks (`page_readings`), so
a passage over two items matches with the mark ("rules - Server-side") or without it ("rules
Server-side"); a dash inside a line is the page's and never optional. The match is still placed
in the normalized page with its pipes and marks (`MatchResult.at`), so the figure rule reads
each cell's figure on its own.

An ellipsis (`...`, `…`, `[...]`) marks an omission: the parts around it must
each appear, in order, and an omission may not turn a quote into a collage.
Each part is at least `formats.EXCERPT_MIN_PART_WORDS` words and all parts lie
in one passage of at most `formats.EXCERPT_MAX_SPAN_CHARS` characters, so
"Acme … n … e … v … e … r … billed" (letters picked from across a page) or
two half-sentences from different sections never count as a quote.
On a mismatch, `closest_passage` finds the stretch of
the page most like the failing part, so the writer can correct the quote.
Everything here is pure and standard-library only: `verify` runs it on every
citation and must stay fast.
"""
from __future__ import annotations

import bisect
import heapq
import re
import unicodedata
from array import array
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple, Sequence
from difflib import SequenceMatcher

from ..core.text import strip_invisible
from ..formats import EXCERPT_MAX_SPAN_CHARS, EXCERPT_MIN_PART_WORDS

# Quote marks, straight and curly, single and double, are dropped: a writer who
# wraps an excerpt in quotes turns the page's inner double quotes into single
# ones or leaves them out, and quote marks never carry the claim.
_QUOTES = "'\"\u2018\u2019\u201a\u201b\u2032\u2035\u02bc\u0060\u00b4\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u2039\u203a"
# Every dash and hyphen variant becomes "-".
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d"
_TRANSLATION = {
    **dict.fromkeys(map(ord, _QUOTES), None),
    **dict.fromkeys(map(ord, _DASHES), "-"),
}
# Superscripts and subscripts (digits, signs, brackets): NFKC would make `10⁶` read `106`.
_SUPERSCRIPT = re.compile("[\u00b2\u00b3\u00b9\u2070\u2074-\u207e]+")
_SUBSCRIPT = re.compile("[\u2080-\u208e]+")
SCRIPT_CHARS = frozenset("\u00b2\u00b3\u00b9\u2070" + "".join(map(chr, range(0x2074, 0x207F)))
                          + "".join(map(chr, range(0x2080, 0x208F))))
# An omission marker: "...", "…" (NFKC turns it into "..."), optionally in brackets.
_ELLIPSIS = re.compile(r"\s*(?:\[\s*\.{3,}\s*\]|\(\s*\.{3,}\s*\)|\.{3,})\s*")
# A Markdown table's delimiter row as one token: `|---|---|`, `|:--|--:|`.
_DELIMITER_ROW = re.compile(r"\|(?::?-+:?\|)+")
# A list item's mark, standing alone at the start of a line of the stored text.
LIST_MARKS = frozenset("-*+\u2022")
_LIST_LINE = re.compile(r"^\s*[-*+\u2022](?:\s|$)", re.MULTILINE)  # a line a list mark may open
_WORD = re.compile(r"\w+")
# A whole number of one to three digits ending a token: the head a figure's space-grouped digits extend.
_GROUP_HEAD = re.compile(r"(?:^|[^\d.,])\d{1,3}$")

CLOSEST_MAX_CHARS = 240
# Placements tried when looking for one within a passage (each is the
# tightest window ending where its forward placement ends): bounds the work a
# hostile page full of repeats can cause.
MAX_PLACEMENTS = 500

# Why a match failed (`MatchResult.rule`).
RULE_NOT_FOUND = "not_found"  # a part is not in the page (in order)
RULE_SHORT_PART = "short_part"  # a part between omission marks has too few words
RULE_SPREAD = "spread"  # the parts are in the page, but not within one passage


def normalize(text: str) -> str:
    """Fold the differences that do not change what a text says.

    Invisible format characters removed, superscripts and subscripts marked (`10^6`,
    `H_2O`), Unicode NFKC (ligatures, full-width forms, non-breaking spaces, `…`), quote
    marks removed, every dash to `-`, runs of whitespace to one space, ends trimmed.
    Case and wording still count. `fold` is all of it but the whitespace: `matcher.PageText`
    folds a page piece by piece with it to know where each normalized character came from.
    """
    # Splitting on str.isspace() whitespace is exactly `\s+` collapsed and trimmed, several times faster.
    return " ".join(fold(text).split())


def fold(text: str) -> str:
    """`normalize` without collapsing whitespace: format characters removed, scripts
    marked, NFKC, quote marks removed, dashes to `-`."""
    if not text.isascii():
        chars = set(text)
        text = strip_invisible(text, chars)
        if not chars.isdisjoint(SCRIPT_CHARS):
            text = _SUPERSCRIPT.sub(lambda m: "^" + unicodedata.normalize("NFKC", m.group(0)), text)
            text = _SUBSCRIPT.sub(lambda m: "_" + unicodedata.normalize("NFKC", m.group(0)), text)
        text = unicodedata.normalize("NFKC", text)
    return text.translate(_TRANSLATION)


def is_layout(token: str) -> bool:
    """Whether a whitespace-separated token of a normalized text only draws a table: a pipe
    standing alone (a cell border) or a delimiter row (`|---|---|`)."""
    return token == "|" or (token[:2] in ("|-", "|:") and _DELIMITER_ROW.fullmatch(token) is not None)


def without_layout(normalized: str) -> str:
    """A normalized text without its layout tokens (`is_layout`)."""
    if "|" not in normalized:
        return normalized
    return " ".join(token for token in normalized.split(" ") if not is_layout(token))


# A layout token standing alone in a normalized text (`is_layout`): a pipe, or a delimiter row.
_LAYOUT = re.compile(r"(?<!\S)\|(?:(?::?-+:?\|)+)?(?!\S)")


@dataclass(frozen=True, slots=True)
class Reading:
    """A normalized page as it is read: without some of its tokens (`text`), with the way back to
    the normalized page (`to_normalized`). Built once per page (`Reading.of`), in time linear in
    the page and a step per token left out; free for a page without any. `gaps`: where in `text`
    each stretch was left out, in order; `shifts`: how many characters were left out up to and
    including each (None: nothing was)."""

    text: str
    gaps: array | None = None
    shifts: array | None = None

    @classmethod
    def of(cls, normalized: str, marks: Sequence[int] = ()) -> "Reading":
        """`normalized` without its layout tokens and the one-character tokens at `marks`
        (positions in it), each with the space after it (before it, at the end)."""
        drop = sorted({*(m.start() for m in _LAYOUT.finditer(normalized)), *marks}) if "|" in normalized \
            else sorted(marks)
        if not drop:
            return cls(normalized)
        stretches: list[list[int]] = []
        for at in drop:
            end = normalized.find(" ", at)
            end = len(normalized) if end < 0 else end
            cut = [at, end + 1] if end < len(normalized) else [max(0, at - 1), end]
            if stretches and cut[0] <= stretches[-1][1]:
                stretches[-1][1] = max(stretches[-1][1], cut[1])
            else:
                stretches.append(cut)
        last = stretches[-1]
        if last[1] == len(normalized) and last[0] > 0 and normalized[last[0] - 1] == " ":
            last[0] -= 1  # a run of tokens left out at the end: the space before it goes too
        pieces: list[str] = []
        gaps, shifts = array("q"), array("q")
        kept = removed = 0
        for a, b in stretches:
            pieces.append(normalized[kept:a])
            removed += b - a
            gaps.append(a - (removed - (b - a)))
            shifts.append(removed)
            kept = b
        pieces.append(normalized[kept:])
        return cls("".join(pieces), gaps, shifts)

    def _back(self, position: int) -> int:
        assert self.gaps is not None and self.shifts is not None
        before = bisect.bisect_right(self.gaps, position)
        return position + (self.shifts[before - 1] if before else 0)

    def to_normalized(self, start: int, end: int) -> tuple[int, int]:
        """Where `text[start:end]` (non-empty, not starting or ending with a space) stands in the
        normalized page."""
        if self.gaps is None:
            return start, end
        return self._back(start), self._back(end - 1) + 1


def list_marks_at(text: str, folded: str) -> list[int]:
    """Where, in `normalize(text)`, stand the list marks that open a line of `text` (its first
    whitespace-separated token is one of `LIST_MARKS`), from `folded` = `fold(text)`, which keeps
    the text's lines (`normalize` is its tokens joined by single spaces)."""
    raw_lines, folded_lines = text.split("\n"), folded.split("\n")
    if len(raw_lines) != len(folded_lines):
        return []
    marks: list[int] = []
    offset = -1  # where the next line's first token starts, less the space before it
    for raw, line in zip(raw_lines, folded_lines):
        tokens = line.split()
        if not tokens:
            continue
        offset += 1
        if tokens[0] in LIST_MARKS:
            opening = raw.lstrip()
            if opening[:1] == tokens[0] and (len(opening) == 1 or opening[1].isspace()):
                marks.append(offset)
        offset += sum(map(len, tokens)) + len(tokens) - 1
    return marks


def page_readings(text: str, normalized: str, folded: str | None = None) -> tuple[Reading, ...]:
    """The ways a page is read for an excerpt, in the order they are tried: as stored (without its
    table layout), then as shown (without its list marks too), when it has any. `normalized` is
    `normalize(text)`, `folded` (when at hand) `fold(text)`."""
    stored = Reading.of(normalized)
    if not _LIST_LINE.search(text):
        return (stored,)
    marks = list_marks_at(text, fold(text) if folded is None else folded)
    if not marks or max(marks) >= len(normalized) or any(normalized[m] not in LIST_MARKS for m in marks):
        return (stored,)
    return (stored, Reading.of(normalized, marks))


def excerpt_parts(excerpt: str) -> list[str]:
    """Normalize an excerpt, drop its layout tokens (`is_layout`), and split it at its
    omission markers.

    Empty parts (an excerpt that starts or ends with an ellipsis) are dropped.
    """
    text = without_layout(normalize(excerpt))
    return [part for part in (without_layout(p.strip()) for p in _ELLIPSIS.split(text)) if part]


def part_words(part: str) -> int:
    """Words in an excerpt part: whitespace-separated tokens with a letter or digit."""
    return sum(1 for token in part.split() if _WORD.search(token))


class MatchResult(NamedTuple):
    """Outcome of looking for an excerpt in a page.

    `ok` is True when every part was found in order, within one passage.
    Otherwise `rule` says which rule failed (`RULE_*`), `failed_part` is the
    part concerned (normalized; the first part for `spread`), and for
    `not_found` `closest` is the page passage most similar to it, with
    `similarity` in [0, 1]. `span` is the shortest stretch of the page, in
    normalized characters, that holds every part (None when not all were found).
    When `ok`, `at` is where each part stands in the normalized page, in order (the
    placement `span` measures, in the `Reading` of the page that holds it), and `spans` the
    same places in the page's own characters when the match was made by
    `matcher.find_excerpt` (empty from `match_excerpt`).
    """

    ok: bool
    parts_total: int
    parts_found: int
    failed_part: str | None = None
    closest: str | None = None
    similarity: float = 0.0
    rule: str | None = None
    span: int | None = None
    at: tuple[tuple[int, int], ...] = ()
    spans: tuple[tuple[int, int], ...] = ()


def match_excerpt(excerpt: str, page_text: str, *, normalized: str | None = None,
                  readings: tuple[Reading, ...] | None = None) -> MatchResult:
    """Look for `excerpt` in `page_text` after normalizing both, in each of the page's readings
    (`page_readings`: as stored, then as shown) until one holds it.

    Pass `normalized=normalize(page_text)` and `readings=page_readings(page_text, normalized)`
    when checking many excerpts against one page, so the page is read once.
    """
    if normalized is None:
        normalized = normalize(page_text)
    if readings is None:
        readings = page_readings(page_text, normalized)
    failures: list[MatchResult] = []
    for number, reading in enumerate(readings):
        result = _match_reading(excerpt, page_text, reading.text, closest=number == len(readings) - 1)
        if result.ok:
            if result.at:
                result = result._replace(at=tuple(reading.to_normalized(a, b) for a, b in result.at))
            if reading.gaps is None or _keeps_figures_apart(excerpt, normalized, result.at):
                return result
            # Two numbers the page keeps apart, quoted as one: not this quote; the page's passage shown.
            part, passage = excerpt_parts(excerpt)[0], normalized[result.at[0][0]:result.at[-1][1]]
            result = MatchResult(ok=False, parts_total=result.parts_total, parts_found=0, failed_part=part,
                                 closest=passage, similarity=round(SequenceMatcher(None, part, passage).ratio(), 3),
                                 rule=RULE_NOT_FOUND)
        failures.append(result)
    # Why it fails: found but spread (or a part too short) in any reading says more than "not found".
    return next((f for f in failures if f.rule != RULE_NOT_FOUND), failures[-1])


def joins_figures(before: str, after: str) -> bool:
    """Whether the words `before` and `after`, one space apart, read as one figure whose digits are
    grouped by a space ("2 500" is 2,500): a cell border or list mark between them must be quoted."""
    return _GROUP_HEAD.search(before) is not None and len(after) >= 3 and after[:3].isdigit()


def _keeps_figures_apart(excerpt: str, normalized: str, at: tuple[tuple[int, int], ...]) -> bool:
    """Whether the excerpt, placed at `at` in the normalized page, writes every cell border or list
    mark the page has where a number ends and three digits follow ("2 | 500 MB"): without it,
    "2 500 MB" reads as one figure, 2,500 MB, that the page does not state (a figure's digits
    grouped by spaces, as checks/quantities.py reads them; test_matcher holds the two to agree).
    Other borders and marks may be left out ("Cold $0.004 90 days")."""
    mine_parts = [part for part in (p.strip() for p in _ELLIPSIS.split(normalize(excerpt))) if without_layout(part)]
    if len(mine_parts) != len(at):
        return True  # cannot be told apart part by part: the matcher's verdict stands
    for part, (start, end) in zip(mine_parts, at):
        page, mine = normalized[start:end].split(" "), part.split(" ")
        i = j = 0
        while i < len(page):
            if j < len(mine) and page[i] == mine[j]:
                i, j = i + 1, j + 1
            elif is_layout(page[i]) or page[i] in LIST_MARKS:  # left out of the excerpt
                before = next((t for t in reversed(page[:i]) if not is_layout(t) and t not in LIST_MARKS), "")
                after = next((t for t in page[i + 1:] if not is_layout(t) and t not in LIST_MARKS), "")
                if joins_figures(before, after):
                    return False
                i += 1
            elif j < len(mine) and is_layout(mine[j]):
                j += 1
            else:
                return True  # not aligned token by token: the matcher's verdict stands
    return True


def _match_reading(excerpt: str, page_text: str, page: str, *, closest: bool = True) -> MatchResult:
    """`match_excerpt` on one reading text of the page, `page`, its placement in that text;
    without the closest passage to a part not found when not `closest`."""
    parts = excerpt_parts(excerpt)
    if not parts:
        return MatchResult(ok=False, parts_total=0, parts_found=0, failed_part="", rule=RULE_NOT_FOUND)
    total = len(parts)
    if total > 1:
        for index, part in enumerate(parts):
            if part_words(part) < EXCERPT_MIN_PART_WORDS:
                return MatchResult(ok=False, parts_total=total, parts_found=index, failed_part=part,
                                   rule=RULE_SHORT_PART)
    start = find_at_bounds(page, parts[0], 0)
    best: int | None = None
    tries = 0
    while start >= 0 and tries < MAX_PLACEMENTS:
        tries += 1
        placed, missing = _place_from(parts, page, start)
        if placed is None or missing is not None:
            missing = missing or 0
            if best is not None:
                break  # later starts only find fewer parts; an earlier placement exists
            near, score = closest_passage(parts[missing], page_text, normalized=page) if closest else (None, 0.0)
            return MatchResult(ok=False, parts_total=total, parts_found=missing, failed_part=parts[missing],
                               closest=near, similarity=score, rule=RULE_NOT_FOUND)
        placed = _place_back(parts, page, placed)  # the tightest placement ending there
        start, end = placed[0][0], placed[-1][1]
        span = end - start
        best = span if best is None else min(best, span)
        if total == 1 or best <= EXCERPT_MAX_SPAN_CHARS:
            return MatchResult(ok=True, parts_total=total, parts_found=total, span=best, at=placed)
        start = find_at_bounds(page, parts[0], start + 1)
    if best is None:
        near, score = closest_passage(parts[0], page_text, normalized=page) if closest else (None, 0.0)
        return MatchResult(ok=False, parts_total=total, parts_found=0, failed_part=parts[0],
                           closest=near, similarity=score, rule=RULE_NOT_FOUND)
    return MatchResult(ok=False, parts_total=total, parts_found=total, failed_part=parts[0],
                       rule=RULE_SPREAD, span=best)


def _at_bounds(page: str, part: str, at: int) -> bool:
    """Whether `part`, found at `page[at:]`, stands at word and number boundaries: a part
    that starts (ends) with a letter or digit is not glued to one before (after) it, and a
    number is not the tail of a longer one (`1,000` in `11,000`, `000` in `1,000`, `10%` in
    `-10%`) or the head of one (`$1,000` in `$1,000,000`, `10` in `10.5` or `10%`).
    Plain character tests, not a pattern: `str.find` finds the candidates fast."""
    first, last = part[0], part[-1]
    if at and (first.isalnum() or first == "_"):
        before = page[at - 1]
        if before.isalnum() or before == "_":
            return False
        if first.isdigit() and at >= 2 and (
                (before in ".," and page[at - 2].isdigit())
                or (before in "-+" and (page[at - 2].isspace() or page[at - 2] in "(["))):
            return False
    end = at + len(part)
    if end < len(page) and (last.isalnum() or last == "_"):
        after = page[end]
        if after.isalnum() or after == "_":
            return False
        if last.isdigit() and ((after in ".," and page[end + 1:end + 2].isdigit()) or after == "%"
                               or (after.isspace() and page[end + 1:end + 2] == "%")):
            return False
    return True


def find_at_bounds(page: str, part: str, position: int) -> int:
    """Where `part` first stands in `page` from `position`, at its boundaries; -1 if nowhere
    (or not within MAX_PLACEMENTS tries: a page of repeats)."""
    found = page.find(part, position)
    for _ in range(MAX_PLACEMENTS):
        if found < 0 or _at_bounds(page, part, found):
            return found
        found = page.find(part, found + 1)
    return -1


def _rfind(page: str, part: str, end: int) -> int:
    """Where `part` last stands in `page`, at its boundaries, ending by `end`; -1 if nowhere
    (or not within MAX_PLACEMENTS tries)."""
    found = page.rfind(part, 0, end)
    for _ in range(MAX_PLACEMENTS):
        if found < 0 or _at_bounds(page, part, found):
            return found
        found = page.rfind(part, 0, found + len(part) - 1)
    return -1


def _place_back(parts: list[str], page: str,
                placed: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """Place the parts in order, the last ending where it does in `placed` (a forward
    placement), each as late as possible: the tightest placement ending there. `placed` is
    kept when that one cannot be found within bounds."""
    position = placed[-1][1]
    out: list[tuple[int, int]] = []
    for part in reversed(parts):
        position = _rfind(page, part, position)
        if position < 0:
            return placed
        out.append((position, position + len(part)))
    return tuple(reversed(out)) if out[-1][0] >= placed[0][0] else placed


def _place_from(parts: list[str], page: str,
                start: int) -> tuple[tuple[tuple[int, int], ...] | None, int | None]:
    """Place the parts in order, the first at `start`, each as early as possible
    (which gives the shortest span for that start). Returns (where each part stands,
    None), or (None, index of the first part not found)."""
    out = [(start, start + len(parts[0]))]
    for index in range(1, len(parts)):
        found = find_at_bounds(page, parts[index], out[-1][1])
        if found < 0:
            return None, index
        out.append((found, found + len(parts[index])))
    return tuple(out), None


def closest_passage(needle: str, page_text: str, *, normalized: str | None = None) -> tuple[str | None, float]:
    """Return the passage of `page_text` most similar to `needle`, and its similarity.

    The search runs on normalized text; the passage is then shown in the
    page's own characters (its quote marks and dashes, whitespace collapsed),
    so a writer who copies it quotes the page exactly. Two stages keep this
    fast on long pages: a linear sliding window over the page's words ranks
    every window of the needle's length by how many words it shares with the
    needle; only the best few are then scored precisely with difflib. The
    passage is trimmed to `CLOSEST_MAX_CHARS`.
    """
    page = normalized if normalized is not None else without_layout(normalize(page_text))
    target = without_layout(normalize(needle))
    if not page or not target:
        return None, 0.0
    wanted = Counter(w.casefold() for w in _WORD.findall(target))
    words = [(m.start(), m.end()) for m in _WORD.finditer(page)]
    if not words or not wanted:
        head = page[: len(target)]
        return _trim(head), round(SequenceMatcher(None, target, head).ratio(), 3)
    width = max(1, min(len(words), sum(wanted.values())))
    tokens = [w if w in wanted else None for w in (page[a:b].casefold() for a, b in words)]
    starts = _best_window_starts(tokens, wanted, width, keep=5)
    best_text, best_score = "", -1.0
    tried: set[tuple[int, int]] = set()
    for start in starts:
        # Nudge each window's ends by a few words: the quote may have dropped or added some.
        for shift in (-2, -1, 0, 1, 2):
            for extra in (-1, 0, 1, 2, 3):
                first = min(max(0, start + shift), len(words) - 1)
                last = min(len(words), first + max(1, width + extra)) - 1
                if (first, last) in tried:
                    continue
                tried.add((first, last))
                a, b = _widen(page, words[first][0], words[last][1])
                candidate = page[a:b]
                score = SequenceMatcher(None, target, candidate, autojunk=False).ratio()
                if score > best_score:
                    best_text, best_score = candidate, score
    return _trim(_as_written(best_text, page_text)), round(best_score, 3)


def _as_written(passage: str, page_text: str) -> str:
    """`passage` (normalized) as the page writes it: the same words, with the
    page's own characters between them; the normalized form when the words
    themselves were changed by normalization (a ligature, a full-width form)."""
    words = _WORD.findall(passage)
    if not words:
        return passage
    found = re.search(r"\W*".join(map(re.escape, words)), page_text)
    if found is None:
        return passage
    start, end = _widen(page_text, found.start(), found.end())
    return " ".join(page_text[start:end].split())


def _best_window_starts(tokens: list[str | None], wanted: Counter, width: int, keep: int) -> list[int]:
    """Indices of the `keep` windows of `width` tokens sharing the most words with `wanted`.

    `tokens` holds each page word, or None for words the needle does not
    contain (they can never add to a window's score, so they cost nothing).
    """
    have: dict[str, int] = {}
    shared = 0

    def enter(word: str | None) -> int:
        if word is None:
            return 0
        count = have.get(word, 0)
        have[word] = count + 1
        return 1 if count < wanted[word] else 0

    def leave(word: str | None) -> int:
        if word is None:
            return 0
        count = have[word]
        have[word] = count - 1
        return -1 if count <= wanted[word] else 0

    for word in tokens[:width]:
        shared += enter(word)
    best = [(shared, 0)]
    for start in range(1, len(tokens) - width + 1):
        delta = leave(tokens[start - 1]) + enter(tokens[start + width - 1])
        if delta or shared:
            shared += delta
            best.append((shared, start))
    return [start for _, start in heapq.nsmallest(keep, best, key=lambda item: (-item[0], item[1]))]


def _widen(page: str, start: int, end: int) -> tuple[int, int]:
    """The span `start`-`end` of `page`, widened to whole whitespace-separated tokens."""
    while start > 0 and not page[start - 1].isspace():
        start -= 1
    while end < len(page) and not page[end].isspace():
        end += 1
    return start, end


def _trim(text: str) -> str:
    if len(text) <= CLOSEST_MAX_CHARS:
        return text
    return text[: CLOSEST_MAX_CHARS - 1].rstrip() + "\u2026"
