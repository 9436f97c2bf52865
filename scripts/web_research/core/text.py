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
    """`text` as a person reads it: without its Unicode format characters and the other
    characters that show as nothing (`invisible_kind`: default-ignorable code points such as
    variation selectors, surrogates, noncharacters), and with each character that shows as a
    blank or as a glyph no font shares (a blank glyph, a private-use character) as a space, so
    that a page's words stay apart. `chars`: the set of `text`'s characters when the caller has
    it (a page is long: one pass)."""
    if text.isascii():
        return text
    table = _folding(chars if chars is not None else set(text))
    return text.translate(table) if table else text


def _folding(chars: "set[str] | frozenset[str]") -> dict[int, str | None]:
    """The translation `strip_invisible` applies to a text of these characters ({} for none)."""
    table: dict[int, str | None] = {}
    for ch in chars:
        if ch > "\x7f":
            kind = invisible_kind(ch)
            if kind is not None and kind != UNASSIGNED:
                table[ord(ch)] = " " if kind in (BLANK_GLYPH, PRIVATE_USE) else None
    return table


# C0 and C1 control characters but the tab, the line feed and a carriage return before one; and
# the line and paragraph separators. A terminal acts on them (a backspace deletes the word before
# it on screen, a lone carriage return writes over the line), and Python's `splitlines` breaks a
# line at them where a Markdown viewer does not: what `cat` or a viewer shows is not what is checked.
# The combining overlays that strike the letter before them through (tilde, stroke, solidus, vertical
# line, ring, reverse solidus overlays): "does n\u0336o\u0336t\u0336 charge" shows "not" struck out, as `~~not~~`
# does, while the checks read it; a negated relation they make ("=\u0338") is written composed ("\u2260").
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u0334-\u0338\u20d2\u20d3\u20d8-\u20da"
                       "\u20e5\u20e6\u20ea\u20eb]|\r(?!\n)")


# Where a line ends, as Markdown (markdown-it, GitHub) and an editor see it: a line feed, a carriage
# return, or the two together. Python's `str.splitlines` also ends one at each of `SPLITLINES_ONLY`:
# a program that numbers report.md's lines one way and places text by the other's numbers writes
# into the wrong line (finish wrote references over a draft's words that way: issue 43).
_LINE_END = re.compile(r"\r\n?|\n")
SPLITLINES_ONLY = {"\x0b": "LINE TABULATION", "\x0c": "FORM FEED", "\x1c": "FILE SEPARATOR",
                   "\x1d": "GROUP SEPARATOR", "\x1e": "RECORD SEPARATOR", "\x85": "NEXT LINE (NEL)",
                   "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR"}
_LINE_DISAGREEMENT = re.compile("[" + "".join(SPLITLINES_ONLY) + "]|\r(?!\n)")


def markdown_lines(text: str) -> list[str]:
    """`text`'s lines as Markdown numbers them (see `_LINE_END`), without their ends; a text that
    ends with a line end has no empty last line (as with `str.splitlines`)."""
    lines = _LINE_END.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def line_break_disagreements(text: str, limit: int = 6) -> list[tuple[int, int, str]]:
    """(line, column, `U+XXXX NAME`), both 1-based in Markdown's numbering, of each character
    where programs disagree whether a line ends: one of `SPLITLINES_ONLY`, or a carriage return
    alone (a line end to Markdown and `splitlines`, none to a split at line feeds). The first
    `limit` of them: each costs a count of the text before it."""
    out: list[tuple[int, int, str]] = []
    for m in _LINE_DISAGREEMENT.finditer(text):
        if len(out) >= limit:
            break
        before = text[:m.start()]
        line = len(_LINE_END.findall(before)) + 1
        start = max(before.rfind("\n"), before.rfind("\r")) + 1
        ch = m.group(0)
        out.append((line, m.start() - start + 1, f"U+{ord(ch):04X} {SPLITLINES_ONLY.get(ch, 'CARRIAGE RETURN')}"))
    return out


def control_chars(text: str) -> list[tuple[int, str]]:
    """(offset, `U+XXXX`) of each control character of `text` a person's screen would act on
    or show otherwise than the checks read it (see `_CONTROLS`)."""
    if text.isprintable() and text.isascii():
        return []
    return [(m.start(), f"U+{ord(m.group(0)):04X}") for m in _CONTROLS.finditer(text)]


# What shows as nothing, or as a blank, or as a glyph no font shares: one rule, `invisible_kind`,
# for every text a check reads (report.md and findings files are refused holding one:
# `blank_chars`; every comparison reads text without them: `strip_invisible`). A bare URL
# followed by braille blanks pushes the words after it out of a person's view while every
# check reads them; a run of variation selectors after an emoji carries bytes no one sees. The
# classes, each from Unicode's own data (UNICODE_VERSION; tests hold the tables to the `regex`
# module's and this Python's):
# - Cf, format characters (`FORMAT_CHARS`);
# - Default_Ignorable_Code_Point (DerivedCoreProperties.txt): fillers, variation selectors,
#   the combining grapheme joiner, the Khmer inherent vowels, tags, and the reserved ranges
#   Unicode keeps ignorable;
# - Co (private use: a glyph only the page's own font draws, such as an icon), Cs (surrogates,
#   which only a broken decoder leaves), noncharacters, and Cn, what this Python's Unicode
#   does not assign (a newer character than it knows is refused too: it cannot be named);
# - the blank glyphs Unicode gives a visible category (`_BLANK_GLYPHS`): the braille blank,
#   the Khitan filler, the musical null notehead.
# Spaces: one Zs space other than U+0020 between words is honest ("10\u00a0GB", "10\u2009000", an
# ideographic space in Japanese): a person sees a space and the checks (NFKC) read one. A run of
# two or more spaces with one of them in it is refused (`_SPACE_RUN`): a viewer collapses ASCII
# spaces, never those, so a run is how a blank is made wide. U+2028/U+2029 are controls
# (`control_chars`). Three characters pass in the one place honest text needs them
# (`_joined`): U+FE0E/U+FE0F once right after a visible non-ASCII character or a keycap's digit
# ("\u26a0\ufe0f", "1\ufe0f\u20e3"), U+200D between emoji, and U+200C/U+200D between two non-ASCII
# letters or marks (Persian and Indic spelling needs them). The left-to-right and right-to-left
# marks are honest too (a quote from a right-to-left page keeps them), and the other
# bidirectional controls are `bidi_controls`' to report.
UNICODE_VERSION = "15.1"
FORMAT = "format"
IGNORABLE = "default-ignorable"
PRIVATE_USE = "private-use"
SURROGATE = "surrogate"
NONCHARACTER = "noncharacter"
UNASSIGNED = "unassigned"
BLANK_GLYPH = "blank glyph"
# Default_Ignorable_Code_Point, DerivedCoreProperties.txt of Unicode 15.1 (the Cf among them are FORMAT).
_IGNORABLE_RANGES = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
_PRIVATE_RANGES = ((0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD))
_BLANK_GLYPHS = frozenset("\u2800\U00016fe4\U0001d159")
_HONEST_BIDI = frozenset("\u200e\u200f")  # the marks: see above
_JOINERS = frozenset("\u200c\u200d\ufe0e\ufe0f")  # honest in one place each: `_joined`
_KIND_CACHE: dict[str, str | None] = {}


def _in(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(low <= code <= high for low, high in ranges)


def invisible_kind(ch: str) -> str | None:
    """Which of the classes above `ch` belongs to (FORMAT first), or None for a character that
    shows. Cached: a text has few distinct characters."""
    kind = _KIND_CACHE.get(ch, "")
    if kind != "":
        return kind
    code = ord(ch)
    if code < 0xA0:
        kind = None
    elif ch in FORMAT_CHARS:
        kind = FORMAT
    elif _in(code, _IGNORABLE_RANGES):
        kind = IGNORABLE
    elif ch in _BLANK_GLYPHS:
        kind = BLANK_GLYPH
    elif _in(code, _PRIVATE_RANGES):
        kind = PRIVATE_USE
    elif 0xD800 <= code <= 0xDFFF:
        kind = SURROGATE
    elif 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
        kind = NONCHARACTER
    else:
        import unicodedata  # lazy: only a text with a character above U+00A0 pays for it

        kind = UNASSIGNED if unicodedata.category(ch) == "Cn" else None
    if len(_KIND_CACHE) < 100_000:
        _KIND_CACHE[ch] = kind
    return kind


def _refused(ch: str) -> bool:
    """Whether `ch` is a blank-looking character `blank_chars` reports (wherever it stands but
    the joiners' places, which `_joined` reads)."""
    return ch not in _HONEST_BIDI and not _BIDI.match(ch) and invisible_kind(ch) is not None


def _joined(text: str, at: int) -> bool:
    """Whether the joiner or presentation selector at `at` stands where honest text has it (see above)."""
    ch, before = text[at], text[at - 1] if at else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    if not before:
        return False
    if ch in "\ufe0e\ufe0f":
        if before in "#*0123456789":
            return after == "\u20e3"  # a keycap: 1\ufe0f\u20e3
        return before > "\x7f" and not before.isspace() and invisible_kind(before) is None \
            and (not after or after not in _JOINERS or after == "\u200d")
    if not after:
        return False
    if ch == "\u200d":
        emoji = text[at - 2] if before == "\ufe0f" and at > 1 else before
        if _emoji(emoji) and _emoji(after):
            return True
    return _letter(before) and _letter(after)


def _emoji(ch: str) -> bool:
    import unicodedata  # lazy: only a text with a joiner or selector in it pays for it

    return len(ch) == 1 and ch > "\x7f" and unicodedata.category(ch) in ("So", "Sk")


def _letter(ch: str) -> bool:
    import unicodedata  # lazy: only a text with a joiner or selector in it pays for it

    return ch > "\x7f" and invisible_kind(ch) is None and unicodedata.category(ch)[0] in "LM"


# A run of two or more spaces with one that is no ASCII space in it: a viewer collapses a run of
# ASCII spaces, never one of no-break, em, ideographic or other wide spaces (every Zs but U+0020).
_WIDE_SPACES = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
_SPACE_RUN = re.compile(f"[ {_WIDE_SPACES}]{{2,}}")  # each run matched once: linear in the text


def blank_chars(text: str, limit: int = 50) -> tuple[list[tuple[int, str]], int]:
    """The first `limit` places (offset, `U+XXXX NAME`) of `text`'s blank-looking characters (see
    `invisible_kind`; a joiner or selector where honest text has it passes) and of the first
    wide space of each run of spaces that holds one (`_SPACE_RUN`), in order, and how many there
    are in all (counted without a Python object each: a hostile file may hold half a million)."""
    if text.isascii():
        return [], 0
    start = 1 if text.startswith("\ufeff") else 0  # a byte-order mark that opens the file is no text
    found: list[tuple[int, str]] = []
    present = {ch for ch in set(text) if ch > "\x7f" and _refused(ch)}
    total = sum(text.count(ch) for ch in present) - start
    if total:
        pattern = re.compile("[" + "".join(map(re.escape, sorted(present))) + "]")
        for m in pattern.finditer(text, start):
            if m.group(0) in _JOINERS and _joined(text, m.start()):
                total -= 1
                continue
            if len(found) < limit:
                found.append((m.start(), m.group(0)))
            elif not present & _JOINERS:
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

    kind = invisible_kind(ch)
    return f"U+{ord(ch):04X} {unicodedata.name(ch, kind or 'unnamed')}"


def bidi_controls(text: str) -> list[tuple[int, str]]:
    """(offset, `U+XXXX`) of each bidirectional control in `text` that reorders what is shown."""
    return [(m.start(), f"U+{ord(m.group(0)):04X}") for m in _BIDI.finditer(text)]
