"""Text from a run, made safe to show a person in a terminal.

Report text, titles and check messages that quote them are hostile input: an escape
sequence (`ESC [2K`, a carriage return, a C1 `CSI`) in a TL;DR bullet could erase a line
and paint a fake "verified" over a failing result, and a bidirectional override can make
`$51` read as `$15`. `printable` keeps the line breaks a message is built from and drops
every other control character (Unicode category Cc) and every format character (Cf:
bidi controls, zero-width characters); line and paragraph separators become spaces.
"""
from __future__ import annotations

import unicodedata

_SEPARATORS = ("Zl", "Zp")


def printable(text: str) -> str:
    """`text` without control or format characters (newlines kept, tabs and separators as spaces)."""
    if text.isprintable():
        return text  # the common case, at C speed (newlines are not printable: they take the loop)
    out = []
    for char in text:
        if char == "\n" or char.isprintable():
            out.append(char)
            continue
        category = unicodedata.category(char)
        if char == "\t" or category in _SEPARATORS or category == "Zs":
            out.append(" ")
        # Cc, Cf, Co, Cs, Cn: dropped
    return "".join(out)
