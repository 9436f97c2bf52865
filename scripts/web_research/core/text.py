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
_FORMAT = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]")
# The controls that reorder what is displayed: embeddings, overrides, isolates and the
# Arabic letter mark. (The left-to-right and right-to-left marks, U+200E and U+200F, only
# attach neutral characters to a direction; RTL pages use them, and a check strips them.)
_BIDI = re.compile("[\u061c\u202a-\u202e\u2066-\u2069]")


def strip_invisible(text: str) -> str:
    """`text` without its Unicode format characters (see the module docstring)."""
    return _FORMAT.sub("", text) if _FORMAT.search(text) else text


def bidi_controls(text: str) -> list[tuple[int, str]]:
    """(offset, `U+XXXX`) of each bidirectional control in `text` that reorders what is shown."""
    return [(m.start(), f"U+{ord(m.group(0)):04X}") for m in _BIDI.finditer(text)]
