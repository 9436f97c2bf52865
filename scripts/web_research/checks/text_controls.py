"""`<scope>.text.bidi`, `<scope>.text.controls` and `<scope>.text.blank`: a report or findings
file holds no bidirectional control, no C0 or C1 control character (but tab, line feed, CRLF),
and no blank-looking character.

An embedding, override or isolate control (`core.text.bidi_controls`) makes a person's
screen show a text other than the one the checks read: `$\u202e15\u202c` displays as "$51"
while every check, through `normalize`, reads 15. Claims, excerpts and titles all live in
these two kinds of file, so one check over the whole text refuses the trick wherever it is.
A control character does the same in a terminal: backspaces after "not" make `cat report.md`
show "does charge" where every check reads "does not charge". A blank-looking character (a
braille blank, a Hangul filler, a zero-width space, a variation selector, a private-use
character, a run of wide spaces: `core.text.invisible_kind` and `blank_chars`) does it in any
viewer: a bare URL followed by a hundred braille blanks pushes "and charges $250,000 per year"
out of sight. One no-break or thin space between two
words ("10\u00a0GB") is honest and passes.
"""
from __future__ import annotations

from pathlib import Path

from ..core.result import Check, fail, ok
from ..core.text import bidi_controls, blank_chars, control_chars

MAX_LISTED = 6


def bidi_check(scope: str, path: Path, text: str, first_line: int = 1) -> Check:
    """One check per file: the lines and code points of its bidirectional controls, if any
    (`first_line`: the file line `text` starts on, for a body without its frontmatter)."""
    return _characters_check(
        f"{scope}.text.bidi", "no bidirectional control characters", *_all(bidi_controls(text)), path, text,
        first_line,
        "holds bidirectional control characters ({places}), which make the text display other than the checks "
        "read it; delete them (a figure or quote copied from a right-to-left page keeps its words without them)")


def control_check(scope: str, path: Path, text: str, first_line: int = 1) -> Check:
    """One check per file: the lines and code points of its control characters, if any."""
    return _characters_check(
        f"{scope}.text.controls", "no control characters", *_all(control_chars(text)), path, text, first_line,
        "holds control characters ({places}), which a terminal or viewer shows otherwise than the checks read "
        "them (a backspace erases the word before it on screen); delete them: the text is plain words, tabs "
        "and line breaks")


def blank_check(scope: str, path: Path, text: str, first_line: int = 1) -> Check:
    """One check per file: the lines and names of its blank-looking characters, if any."""
    return _characters_check(
        f"{scope}.text.blank", "no blank-looking characters", *blank_chars(text, MAX_LISTED), path, text, first_line,
        "holds blank-looking characters ({places}), which show as nothing or as blank space while every check "
        "reads the words around them (a run of them hides the words after it); delete them, and write one "
        "ordinary space between words (a page's quote matches without them)")


def _all(found: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], int]:
    return found, len(found)


def _characters_check(check_id: str, clean: str, found: list[tuple[int, str]], total: int, path: Path, text: str,
                      first_line: int, message: str) -> Check:
    """The check's verdict: `clean` when nothing was found, else `message` naming the first
    MAX_LISTED places (line and code point) and how many more (of `total`), at the first one's line."""
    if not found:
        return ok(check_id, clean, path)
    places = [f"line {text.count(chr(10), 0, offset) + first_line}: {code}" for offset, code in found[:MAX_LISTED]]
    more = f" and {total - MAX_LISTED} more" if total > MAX_LISTED else ""
    line = text.count("\n", 0, found[0][0]) + first_line
    return fail(check_id, message.format(places="; ".join(places) + more), path, line)
