"""One way to shorten a text for a message or a prompt: at a word's end, with an ellipsis.

Every message that quotes a claim, a reason or a passage has a limit. Cut at a fixed
character, "Standard plan costs $1" can be what is left of "$120 per month": a shortened
figure the reader takes for the page's. So a cut falls between words, and only when no word
ends near the limit (one very long token) does it fall inside one.
"""
from __future__ import annotations

ELLIPSIS = "\u2026"
# A cut may give back at most this share of the limit to end at a word.
_WORD_SLACK = 0.3


def clip(text: str, limit: int, collapse: bool = True) -> str:
    """`text` within `limit` characters, the ellipsis included: whitespace collapsed first
    (unless `collapse` is false), then cut after the last whole word that fits."""
    if collapse:
        text = " ".join(text.split())
    if len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS[:limit]
    room = limit - 1
    head = text[:room]
    if not text[room].isspace():
        space = head.rfind(" ")
        if space >= room * (1 - _WORD_SLACK):
            head = head[:space]
    return head.rstrip() + ELLIPSIS


def quoted(text: str, limit: int = 90) -> str:
    """`text` clipped to `limit` in double quotes: how a message quotes a sentence of a run's file."""
    return '"' + clip(text, limit) + '"'
