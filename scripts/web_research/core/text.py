"""Invisible characters: one rule for every text a check reads (claims, excerpts, titles, pages).

Unicode format characters (category Cf: bidirectional controls, zero-width spaces and
joiners, the soft hyphen, the byte-order mark, tag characters) are invisible in the text a
person reads, yet change what a program reads: `$\u202e15\u202c` displays as "$51" and would be
compared as 15. Every text a check compares is folded by `strip_invisible` (through
`evidence.excerpts.normalize`), so no figure or quote can hide behind them; and a
report or findings file that holds a bidirectional control is refused (`bidi_controls`),
because there the person's view and the check's reading of the same text differ.

Standard library only: hooks and verify call it on every text.
"""
from __future__ import annotations

import re

# Every code point of Unicode's format category (Cf), as of Unicode 15.1 (a test checks the
# running Python's table against it). Written out: deriving it at import would scan the
# whole code space on every hook call.
_FORMAT_RANGES = ((0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
                  (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
                  (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
                  (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
                  (0xE0001, 0xE0001), (0xE0020, 0xE007F))
FORMAT_CHARS = frozenset(chr(c) for low, high in _FORMAT_RANGES for c in range(low, high + 1))
_DELETE = dict.fromkeys(map(ord, FORMAT_CHARS))
# The controls that reorder what is displayed: embeddings, overrides, isolates and the
# Arabic letter mark. (The left-to-right and right-to-left marks, U+200E and U+200F, only
# attach neutral characters to a direction; RTL pages use them, and a check strips them.)
_BIDI = re.compile("[\u061c\u202a-\u202e\u2066-\u2069]")


def strip_invisible(text: str, chars: "set[str] | frozenset[str] | None" = None) -> str:
    """`text` without its Unicode format characters (see the module docstring). `chars`:
    the set of `text`'s characters when the caller has it (a page is long: one pass)."""
    if text.isascii():
        return text
    if (chars if chars is not None else set(text)).isdisjoint(FORMAT_CHARS):
        return text
    return text.translate(_DELETE)


# C0 and C1 control characters but the tab, the line feed and a carriage return before one; and
# the line and paragraph separators. A terminal acts on them (a backspace deletes the word before
# it on screen, a lone carriage return writes over the line), and Python's `splitlines` breaks a
# line at them where a Markdown viewer does not: what `cat` or a viewer shows is not what is checked.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]|\r(?!\n)")


def control_chars(text: str) -> list[tuple[int, str]]:
    """(offset, `U+XXXX`) of each control character of `text` a person's screen would act on
    or show otherwise than the checks read it (see `_CONTROLS`)."""
    if text.isprintable():
        return []
    return [(m.start(), f"U+{ord(m.group(0)):04X}") for m in _CONTROLS.finditer(text)]


# Characters a person sees as nothing, or as blank space no viewer collapses, that are no
# ordinary space: fillers (the braille blank U+2800, the Hangul fillers U+115F, U+1160, U+3164
# and U+FFA0, the invisible Khmer vowels U+17B4/U+17B5, the combining grapheme joiner U+034F)
# and every format character (`FORMAT_CHARS`: zero-width spaces and joiners, the soft hyphen,
# the byte-order mark, tag characters, ...) but the bidirectional controls, which
# `bidi_controls` reports, and the left-to-right and right-to-left marks, which a quote from a
# right-to-left page keeps. A bare URL followed by braille blanks pushes the words after it
# out of a person's view, while every check reads them.
_BLANK_LOOKING = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0") | (
    FORMAT_CHARS - frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
# A run of two or more spaces with one that is no ASCII space in it: a viewer collapses a run of
# ASCII spaces, never one of no-break, em, ideographic or other wide spaces. One such space
# alone is honest ("10\u00a0GB", "10\u2009000").
_WIDE_SPACES = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
_SPACE_RUN = re.compile(f"[ {_WIDE_SPACES}]{{2,}}")  # each run matched once: linear in the text


def blank_chars(text: str, limit: int = 50) -> tuple[list[tuple[int, str]], int]:
    """The first `limit` places (offset, `U+XXXX NAME`) of `text`'s blank-looking characters (see
    `_BLANK_LOOKING`) and of the first wide space of each run of spaces that holds one
    (`_SPACE_RUN`), in order, and how many there are in all (counted without a Python object
    each: a hostile file may hold half a million)."""
    if text.isascii():
        return [], 0
    start = 1 if text.startswith("\ufeff") else 0  # a byte-order mark that opens the file is no text
    found: list[tuple[int, str]] = []
    present = _BLANK_LOOKING.intersection(text)  # one pass in C; then a pattern of only those
    total = sum(text.count(ch) for ch in present) - start
    if total:
        for m in re.finditer("[" + "".join(map(re.escape, sorted(present))) + "]", text[start:]):
            found.append((m.start() + start, m.group(0)))
            if len(found) >= limit:
                break
    runs = 0
    for m in _SPACE_RUN.finditer(text):
        run = m.group(0)
        if not run.isascii():
            runs += 1
            if runs <= limit:
                at = next(m.start() + i for i, ch in enumerate(run) if ch != " ")
                found.append((at, text[at]))
    names = {ch: _named(ch) for ch in {ch for _offset, ch in found}}
    return [(offset, names[ch]) for offset, ch in sorted(found)[:limit]], total + runs


def _named(ch: str) -> str:
    import unicodedata  # lazy: only a text that holds one pays for it

    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}"


def bidi_controls(text: str) -> list[tuple[int, str]]:
    """(offset, `U+XXXX`) of each bidirectional control in `text` that reorders what is shown."""
    return [(m.start(), f"U+{ord(m.group(0)):04X}") for m in _BIDI.finditer(text)]
