"""The slug rule: how a question or a subtopic name becomes a folder or file name.

One implementation serves the run folder (`<date>-<slug>`) and the subtopic
files (`findings/<slug>.md`, `briefs/<slug>.md`), so the same question on the
same day always lands in the same folder and a refreshed run finds the same
subtopic files. The result only ever holds letters, marks, digits and single
inner hyphens, so it can never name a path outside its parent folder.
"""
from __future__ import annotations

import datetime
import unicodedata

from ..formats import SLUG_FALLBACK, SLUG_MAX_LEN

_KEPT_CATEGORIES = ("L", "M", "N")  # letters, marks, digits (Unicode major classes)


def _is_separator(char: str) -> bool:
    return char == "-" or char.isspace()


def _keep(char: str) -> bool:
    return _is_separator(char) or unicodedata.category(char)[0] in _KEPT_CATEGORIES


def _collapse_separators(text: str) -> str:
    """Turn every run of whitespace and/or hyphens into one `-`; strip it from both ends."""
    out: list[str] = []
    pending_separator = False
    for char in text:
        if _is_separator(char):
            pending_separator = True
            continue
        if pending_separator and out:
            out.append("-")
        pending_separator = False
        out.append(char)
    return "".join(out)


def _truncate(slug: str, limit: int = SLUG_MAX_LEN) -> str:
    """Cut on a word boundary: the hyphen at the limit, else the last one before it."""
    if len(slug) <= limit:
        return slug
    if slug[limit] == "-":
        cut = slug[:limit]
    else:
        last_hyphen = slug.rfind("-", 0, limit)
        cut = slug[:last_hyphen] if last_hyphen != -1 else slug[:limit]
    return cut.rstrip("-")


def slugify(text: str) -> str:
    """Apply the slug rule (see module docstring and the skill's docs) to `text`."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    # Recompose after dropping: a mark that followed a dropped character now follows
    # a letter, and must become the same code point a second pass would make of it.
    kept = unicodedata.normalize("NFC", "".join(char for char in lowered if _keep(char)))
    return _truncate(_collapse_separators(kept)) or SLUG_FALLBACK


def dated_slug(text: str, date: datetime.date) -> str:
    """The run-folder name: `<YYYY-MM-DD>-<slug>`."""
    return f"{date.isoformat()}-{slugify(text)}"
