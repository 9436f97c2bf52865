"""Where some words stand in a stored page: the windows of text around their matches, best first.

`fetch URL --find "words"` prints these instead of one window at an offset, so a researcher
looks inside a long page where its words are rather than paging through it at guessed
offsets. Pure: text in, windows out (offsets into the stored text, so `--offset N` reads on
from any of them and every quote is still taken from the snapshot `verify` checks).

A window is scored by how many of the distinct words it holds (the whole phrase, once, counts
as one more), then by how early it stands; windows never overlap; at most `max_windows`,
within `max_chars` in all. Matching ignores case; a word is a run of letters or digits, and
words of one character are ignored unless they are all there is.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from typing import NamedTuple

MAX_WINDOWS = 5
WINDOW_CHARS = 1500
MAX_FIND_CHARS = 200  # the words asked for: a search, not a text to compare
MAX_HITS = 2000  # matches looked at (a word on every line of a 2 MB page stays quick)
_WORD = re.compile(r"\w+")


class Window(NamedTuple):
    start: int
    end: int
    words: tuple[str, ...]  # the words asked for that it holds, in the order asked
    phrase: bool  # it holds the words as written, in one piece


def find_words(query: str) -> list[str]:
    """The distinct words of `query`, in order, lower-cased."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query[:MAX_FIND_CHARS])))
    longer = [w for w in words if len(w) > 1]
    return longer or words


def find_windows(text: str, query: str, max_windows: int = MAX_WINDOWS, window_chars: int = WINDOW_CHARS,
                 max_chars: int | None = None) -> list[Window]:
    """The windows of `text` around the matches of `query`'s words, best first (see the module's
    docstring); [] when no word matches."""
    words = find_words(query)
    if not words or not text:
        return []
    budget = max_chars if max_chars is not None else max_windows * window_chars
    window_chars = max(1, min(window_chars, budget))
    pattern = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)), re.IGNORECASE)
    hits = []
    for match in pattern.finditer(text):
        hits.append((match.start(), match.group(0).lower()))
        if len(hits) >= MAX_HITS:
            break
    positions = [at for at, _word in hits]
    phrase = re.compile(r"\W+".join(re.escape(w) for w in words), re.IGNORECASE) if len(words) > 1 else None
    candidates = []
    for at, _word in hits:
        start, end = _around(text, at, window_chars)
        inside = {word for _at, word in hits[bisect_left(positions, start):bisect_left(positions, end)]}
        held = tuple(w for w in words if w in inside)
        whole = bool(phrase and len(held) == len(words) and phrase.search(text, start, end))
        candidates.append(Window(start, end, held, whole))
    candidates.sort(key=lambda w: (-(len(w.words) + w.phrase), w.start))
    chosen: list[Window] = []
    used = 0
    for window in candidates:
        if len(chosen) >= max_windows or used >= budget:
            break
        if any(window.start < other.end and other.start < window.end for other in chosen):
            continue
        if used + (window.end - window.start) > budget:
            window = window._replace(end=window.start + budget - used)
        chosen.append(window)
        used += window.end - window.start
    return chosen


def _around(text: str, at: int, size: int) -> tuple[int, int]:
    """A window of about `size` characters with `at` in its first third, its edges moved to the
    nearest line break or space within a tenth of the size (so a window rarely cuts a word)."""
    start = max(0, at - size // 3)
    end = min(len(text), start + size)
    start = max(0, end - size)
    slack = max(1, size // 10)
    if start > 0:
        cut = max(text.rfind("\n", start, start + slack), text.rfind(" ", start, start + slack))
        if cut >= 0 and cut < at:
            start = cut + 1
    if end < len(text):
        cut = max(text.rfind("\n", end - slack, end), text.rfind(" ", end - slack, end))
        if cut > at:
            end = cut
    return start, end
