"""Where an excerpt stands in a page, in the page's own characters: the one matcher.

`verify` decides whether an excerpt is in its page with `excerpts.match_excerpt`, on the
normalized page (quotes dropped, dashes, spaces, ligatures and scripts folded: see
`excerpts.normalize`). Every other reader that needs to know where the excerpt is (the
report view marking it, recheck, a rule about what surrounds it) must agree with that
verdict and point at the page's own text, not at the normalized copy. `StoredPage` folds a
page piece by piece with the very `excerpts.fold` that `normalize` uses, remembering where
each normalized character came from, so `find_excerpt` runs `match_excerpt` unchanged
and maps its placement back: it accepts exactly what verify accepts, and its spans are
offsets into the stored text.

A span runs from the first to the last page character the matched normalized text came
from: quote marks or invisible characters just outside it are not part of it, and a
ligature, a superscript run or a combining sequence is taken whole. The map is built once
per page, only when a span is asked for (verify itself does not pay for it). Standard
library only.
"""
from __future__ import annotations

import re
import unicodedata
from array import array

from ..core.text import strip_invisible
from .excerpts import SCRIPT_CHARS, MatchResult, Reading, fold, match_excerpt, page_readings

# Characters `fold` changes or that may combine with the one before: non-ASCII runs (with
# the ASCII character before them, which a combining mark may join) and ASCII quote marks.
_SPECIAL = re.compile("[\x00-\x7f]?[^\x00-\x7f]+|['\"`]")
_TOKEN = re.compile(r"\S+")


class StoredPage:
    """A page's stored text with its normalized form and, on demand, the map back.

    `text` is the page as stored; `normalized` is `excerpts.normalize(text)`, exactly;
    `span_of(a, b)` is the stretch of `text` that `normalized[a:b]` came from."""

    def __init__(self, text: str, normalized: str | None = None) -> None:
        self.text = text
        self._normalized = normalized
        self._starts: array | None = None
        self._ends: array | None = None
        self._readings: tuple[Reading, ...] | None = None
        self._folded: str | None = None

    @property
    def normalized(self) -> str:
        if self._normalized is None:
            self._folded = fold(self.text)  # kept for `readings`, which needs the text's lines
            self._normalized = " ".join(self._folded.split())  # = normalize(text), exactly
        return self._normalized

    @property
    def readings(self) -> tuple[Reading, ...]:
        """The normalized page as the matcher reads it: as stored, then as shown (`excerpts.page_readings`)."""
        if self._readings is None:
            normalized = self.normalized
            self._readings = page_readings(self.text, normalized, self._folded)
            self._folded = None  # a copy of the page: not kept longer than needed
        return self._readings

    def span_of(self, start: int, end: int) -> tuple[int, int]:
        """The stretch of `text` that `normalized[start:end]` (non-empty) came from."""
        if self._starts is None:
            self._build()
        assert self._starts is not None and self._ends is not None
        return self._starts[start], self._ends[end - 1]

    def _build(self) -> None:
        folded, starts, ends = _fold_mapped(self.text)
        out_starts, out_ends = array("i"), array("i")
        pieces: list[str] = []
        previous = -1
        for token in _TOKEN.finditer(folded):
            a, b = token.span()
            if previous >= 0:  # the one space that stands for the whitespace between tokens
                pieces.append(" ")  # (within one piece folded whole, the two ends cross)
                gap = (ends[previous - 1], starts[a])
                out_starts.append(min(gap))
                out_ends.append(max(gap))
            pieces.append(token.group(0))
            out_starts.extend(starts[a:b])
            out_ends.extend(ends[a:b])
            previous = b
        mapped = "".join(pieces)
        if self._normalized is None:
            self._normalized = mapped
        elif mapped != self._normalized:  # a `normalized` passed in that is not this text's
            raise ValueError("StoredPage: the normalized text given is not normalize(text)")
        self._starts, self._ends = out_starts, out_ends


def _fold_mapped(text: str) -> tuple[str, array, array]:
    """`excerpts.fold(text)`, and for each of its characters the span of `text` it came from."""
    pieces: list[str] = []
    starts, ends = array("i"), array("i")
    cursor = 0
    for special in _SPECIAL.finditer(text):
        a, b = special.span()
        if a > cursor:  # plain ASCII other than quote marks: fold leaves it as it is
            pieces.append(text[cursor:a])
            starts.extend(range(cursor, a))
            ends.extend(range(cursor + 1, a + 1))
        for piece, (x, y) in _fold_segment(text, a, b):
            pieces.append(piece)
            starts.extend([x] * len(piece))
            ends.extend([y] * len(piece))
        cursor = b
    if cursor < len(text):
        pieces.append(text[cursor:])
        starts.extend(range(cursor, len(text)))
        ends.extend(range(cursor + 1, len(text) + 1))
    return "".join(pieces), starts, ends


def _fold_segment(text: str, a: int, b: int) -> list[tuple[str, tuple[int, int]]]:
    """`fold(text[a:b])` as (piece, its source span) pairs, one per cluster (a character
    with the combining marks after it, or a run of superscripts or subscripts) when
    folding cluster by cluster gives the same text; else the whole segment as one piece."""
    segment = text[a:b]
    whole = fold(segment)
    clusters: list[tuple[int, int]] = []
    shown = -1  # the index of the last cluster holding a character that shows, and its script run
    shown_script = ""
    for offset, char in enumerate(segment):
        hidden = not strip_invisible(char)
        if clusters and unicodedata.combining(char):
            clusters[-1] = (clusters[-1][0], offset + 1)
        elif shown >= 0 and char in SCRIPT_CHARS and _script(char) == shown_script:
            # a superscript run goes on across characters that show as nothing ("⁶\u00ad⁶" is "^66")
            clusters[shown:] = [(clusters[shown][0], offset + 1)]
        else:
            clusters.append((offset, offset + 1))
        if not hidden:
            shown, shown_script = len(clusters) - 1, _script(char)
    pieces = [(fold(segment[x:y]), (a + x, a + y)) for x, y in clusters]
    if "".join(piece for piece, _ in pieces) != whole:
        return [(whole, (a, b))]
    return [(piece, span) for piece, span in pieces if piece]


def _script(char: str) -> str:
    """Which run of `excerpts.normalize` marks `char` in: "^" (superscript), "_" (subscript) or ""."""
    if char not in SCRIPT_CHARS:
        return ""
    return "_" if "\u2080" <= char <= "\u208e" else "^"


def find_excerpt(excerpt: str, page: StoredPage, *, spans: bool = True) -> MatchResult:
    """`excerpts.match_excerpt(excerpt, page)`, verify's verdict, with `spans`: where each
    part of the excerpt (split at its omission marks) stands in `page.text`, in order, when
    it is found (`ok`); empty otherwise. `spans=False`: the verdict only, without building
    the page's character map (verify, which needs no place)."""
    result = match_excerpt(excerpt, page.text, normalized=page.normalized, readings=page.readings)
    if not spans or not result.ok or not result.at:
        return result
    return result._replace(spans=tuple(page.span_of(a, b) for a, b in result.at))
