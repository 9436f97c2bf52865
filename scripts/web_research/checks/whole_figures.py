"""An excerpt keeps the page's figures whole: it neither starts nor ends inside one.

`excerpts.match_excerpt` finds an excerpt at word and number boundaries, so `$1,000`
is not in `$1,000,000`. Those boundaries are characters; a figure is more: `$9.` ends
inside `$9.99`, `$5` inside `$5 million`, `$1` inside `$1 000 000`, `$10` takes one end
of the range `$10-15`, `$5` drops the sign of `-$5`. Each is a verbatim quote that states
another figure than the page does, and the checker, shown the excerpt, cannot tell.

The rule (`cut_figures`): at each end of each part of a matched excerpt (split at its
omission marks), the page's figures are read around that place (`quantities`, the one
reading of a figure). A part may not start inside a page figure with a piece of it (its
sign, currency or leading digits would be lost: "5 million" of "$5 million", "% off" of
"10% off"; a word that keeps no figure, "GB ingested" of "5 GB ingested", passes). It may
end inside one only when its own last figure starts where the page's does and states the
same (`Figure.matches`: same value and sign, kind and currency), so only what follows a
figure's value is left out: a unit or "per" ("costs $0.10" of "costs $0.10 per GB"), a
date's year ("March 12" of "March 12, 2024"). And a part may not start or end at one end
of a range whose other end lies outside it (`$10` of `$10-15`, `10%` of `10% to 30%`).

Positions are in the normalized page (`excerpts.normalize`), where the matcher placed
the parts (`MatchResult.at`). Pure; an end whose word can be no piece of a figure is not
looked at (verify stays fast), and each other end reads a window of `WINDOW` characters
either side, so the work is bounded whatever the page.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from .quantities import (FIGURE_WORDS, KIND_MONEY, KIND_MULTIPLIER, KIND_NUMBER, KIND_PERCENT, Figure,
                         extract_quantities, linked_as_range)

WINDOW = 48  # characters read either side of an end: longer than any figure and any range's gap
_RANGE_KINDS = (KIND_NUMBER, KIND_MONEY, KIND_PERCENT, KIND_MULTIPLIER)
_TRAILING = ".,;:!?)]\"'"

START, END = "start", "end"


class CutFigure(NamedTuple):
    """A page figure an excerpt part cuts: at its `edge` (START or END), the page writes
    `page` and the part states `quoted` (None: no figure there)."""

    edge: str
    page: str
    quoted: str | None


def cut_figures(page: str, at: Sequence[tuple[int, int]]) -> list[CutFigure]:
    """The figures of normalized `page` that the excerpt parts placed at `at` cut (see the
    module docstring), in order; empty when every figure is quoted whole."""
    cuts: list[CutFigure] = []
    for start, end in at:
        tokens = page[start:end].split()
        if not tokens:
            continue
        if _may_touch_figure(tokens[0]):
            cuts += _cuts_at(page, start, start, end, START)
        if _may_touch_figure(tokens[-1]):
            cuts += _cuts_at(page, end, start, end, END)
    return cuts


def _may_touch_figure(token: str) -> bool:
    """Whether a part's first or last word may be a piece of a figure or of a range's gap: a
    cheap test that spares reading the page around the many ends that are plain words."""
    word = token.rstrip(_TRAILING).casefold()
    return not word.isalpha() or word in FIGURE_WORDS


def _cuts_at(page: str, edge: int, start: int, end: int, which: str) -> list[CutFigure]:
    """The cuts at one end (`edge`, START or END) of the part page[start:end]."""
    low = max(0, edge - WINDOW)
    window = page[low:min(len(page), edge + WINDOW)]
    found = extract_quantities(window)
    cuts = []
    for index, figure in enumerate(found):
        a, b = low + figure.start, low + figure.end
        if a < edge < b:  # the part starts or ends inside this figure
            mine = _own_figure(page, start, end, which)
            if which == START:  # a cut unless no figure is kept ("GB ingested" of "5 GB ingested")
                kept = page[start].isalpha() and (mine is None or mine.start > 1) and not (
                    index + 1 < len(found) and _range(window, figure, found[index + 1]))  # "% to 11%"
            else:  # only a unit, a "per" or a date's year may be left after the end
                kept = mine is not None and start + mine.start == a and mine.matches(figure)
            if not kept:
                cuts.append(CutFigure(which, figure.text, mine.text if mine is not None else None))
            continue
        if which == END and a >= start and b <= edge and index + 1 < len(found) \
                and low + found[index + 1].start >= edge:
            pair = (figure, found[index + 1])  # the part ends with one end of a range?
        elif which == START and a >= edge and a < end and index and low + found[index - 1].end <= edge:
            pair = (found[index - 1], figure)  # the part starts with one end of a range?
        else:
            continue
        if _range(window, *pair):
            cuts.append(CutFigure(which, window[pair[0].start:pair[1].end], figure.text))
    return cuts


def _range(window: str, a: Figure, b: Figure) -> bool:
    """Whether figures `a` and `b` of `window` are the two ends of one range."""
    return a.kind == b.kind and a.kind in _RANGE_KINDS and linked_as_range(window, a, b)


def _own_figure(page: str, start: int, end: int, which: str) -> Figure | None:
    """The part's own first (START) or last (END) figure, read from the part alone."""
    mine = extract_quantities(page[start:end])
    return (mine[0] if which == START else mine[-1]) if mine else None


def describe(cut: CutFigure) -> str:
    """One cut for a message: what the page writes and what the excerpt keeps of it."""
    kept = f"'{cut.quoted}'" if cut.quoted else "no figure"
    return f"it {'starts' if cut.edge == START else 'ends'} inside the page's '{cut.page}', keeping {kept}"
