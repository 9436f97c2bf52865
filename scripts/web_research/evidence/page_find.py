"""Where some words stand in a stored page: the windows of text from their matches on, best first.

`fetch URL --find "words"` prints these instead of one window at an offset, so a researcher
looks inside a long page where its words are rather than paging through it at guessed
offsets. Pure: text in, windows out (offsets into the stored text, so `--offset N` reads on
from any of them and every quote is still taken from the snapshot `verify` checks).

A window starts at the line of its match (a heading, the paragraph holding the words; a little
before the match when that line is long) and shows the text after it: a heading's section, not
the text leading up to the heading. It is scored by how many of the distinct words it holds
(the whole phrase, once, counts as one more), then by whether its match stands in a heading,
then by how close together the words stand around its match (so a window that merely reaches
down to them loses to the one that starts there), then by how early it stands. Windows never
overlap; at most `max_windows`, within `max_chars` in all. Matching ignores case; a word is a
run of letters or digits, and words of one character are ignored unless they are all there is.
"""
from __future__ import annotations

import re
from bisect import bisect_left
from typing import NamedTuple

MAX_WINDOWS = 5
WINDOW_CHARS = 1500
MAX_FIND_CHARS = 200  # the words asked for: a search, not a text to compare
HEADING_CHARS = 120  # a line this short, not ended as a sentence, is read as a heading
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
    """The windows of `text` from the matches of `query`'s words on, best first (see the module's
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
    scored = []
    for at, _word in hits:
        start, end = _from(text, at, window_chars)
        first: dict[str, int] = {}
        for hit_at, word in hits[bisect_left(positions, at):bisect_left(positions, end)]:
            first.setdefault(word, hit_at)
        for hit_at, word in hits[bisect_left(positions, start):bisect_left(positions, at)]:
            first.setdefault(word, hit_at)  # before the match, still in the window: counts, but far
        held = tuple(w for w in words if w in first)
        whole = bool(phrase and len(held) == len(words) and phrase.search(text, start, end))
        spread = max(abs(hit_at - at) for hit_at in first.values())
        scored.append(((-(len(held) + whole), not _heading(text, at), spread, start),
                       Window(start, end, held, whole)))
    scored.sort(key=lambda pair: pair[0])
    candidates = [window for _key, window in scored]
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


def _heading(text: str, at: int) -> bool:
    """Does `at` stand in a line that reads as a heading (short, not ended as a sentence is)?"""
    start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
    line = text[start:end if end >= 0 else len(text)].strip()
    return 0 < len(line) <= HEADING_CHARS and not line.endswith((".", "!", "?", ",", ";", ":"))


def _from(text: str, at: int, size: int) -> tuple[int, int]:
    """A window of about `size` characters that starts at the line holding `at` (or, when that
    line starts more than a fifth of the size before `at`, at a space about that far before it)
    and runs on after it, its end moved back to a line break or space within a tenth of the size
    (so a window rarely cuts a word)."""
    lead = max(1, size // 5)
    start = text.rfind("\n", 0, at) + 1
    if at - start > lead:
        space = text.find(" ", at - lead, at)
        start = space + 1 if space >= 0 else at
    end = min(len(text), start + size)
    slack = max(1, size // 10)
    if end < len(text):
        cut = max(text.rfind("\n", end - slack, end), text.rfind(" ", end - slack, end))
        if cut > at:
            end = cut
    return start, end
