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


def one_line(text: object) -> str:
    """`text` as one printable line: `printable`, with every run of whitespace a single space."""
    return " ".join(printable(str(text)).split())


def escaped_json(text: str) -> str:
    """JSON text (`json.dumps` with `ensure_ascii=False`) with each character `printable` would
    drop written as its `\\uXXXX` escape: the same data for a program, nothing that moves a
    terminal's cursor or reorders its line. Such characters lie only inside JSON strings (the
    structure is ASCII, its line breaks and indent printable), where an escape means the same."""
    if text.isascii() and text.isprintable():
        return text
    out = []
    for char in text:
        if char == "\n" or char.isprintable():
            out.append(char)
        elif ord(char) > 0xFFFF:  # outside the basic plane: a surrogate pair, as JSON spells it
            code = ord(char) - 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{ord(char):04x}")
    return "".join(out)
