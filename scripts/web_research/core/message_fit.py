"""Messages that fit what the client shows the model whole (issue 42).

The pinned client cuts a hook's output past 10,000 characters (tests/e2e/test_e2e_client_limits.py);
guard/adapter.serialize keeps the JSON line within MAX_OUTPUT once escaped by cutting the longest
text from its end, which is where the next step was lost (the claim-checker's dispatch line).
So a message is shaped before it gets there: every item listed, each shortened to an equal
share of the room when they do not all fit: in its middle (a claim keeps its start and what to
do, the passages between are shortened), never dropped. Sizes are counted JSON-escaped, as
the hook prints them (a non-ASCII character is six).
"""
from __future__ import annotations

import json
from typing import Sequence

CLIENT_LIMIT = 9_500  # a hook's whole output, JSON-escaped, that the client shows whole (guard/adapter.MAX_OUTPUT)
MIN_KEPT_WITH_QUOTES = 160  # characters an item's message keeps before its quote is shortened
MIN_MESSAGE = 70  # characters an item's message keeps however many items there are
MIN_QUOTE = 80  # ... and the line it quotes, before the quotes go


def escaped_len(text: str) -> int:
    """Characters of `text` once JSON-escaped, as a hook prints it (a non-ASCII character is six)."""
    return len(json.dumps(text)) - 2


def short(line: str, limit: int) -> str:
    """`line` within `limit` escaped characters, cut at its end."""
    if escaped_len(line) <= limit:
        return line
    keep = len(line)
    while keep > 0:
        cut = line[:keep].rstrip() + "\u2026"
        over = escaped_len(cut) - limit
        if over <= 0:
            return cut
        keep -= max(1, over)
    return "\u2026"


def middle_cut(text: str, limit: int) -> str:
    """`text` within `limit` escaped characters, cut in its middle: a failure's message keeps its
    claim (its start) and what to do (its end); the passages between are shortened."""
    if escaped_len(text) <= limit:
        return text
    keep = len(text)
    while keep > 10:
        head = keep * 3 // 5
        cut = text[:head].rstrip() + " \u2026 " + text[len(text) - (keep - head):].lstrip()
        over = escaped_len(cut) - limit
        if over <= 0:
            return cut
        keep -= max(1, over)
    return short(text, limit)


def fit(items: Sequence[tuple[str, str, str]], room: int, last_resort: Sequence[str] = ()) -> list[str]:
    """(head, message, quote) items as `- <head><message>` lines, each with its quote (another
    line, or "") after it, within `room` escaped characters: each whole when all fit; else the
    messages shortened to an equal share (in their middle; a head, such as a check id and its
    line, is never cut) while the quotes stay whole, then the quotes shortened too (at their
    end), then the messages alone; `last_resort` when even those do not fit."""
    def render(message_cap: int | None, quote_cap: int | None) -> list[str]:
        out = []
        for head, message, quote in items:
            shown = f"- {head}{message if message_cap is None else middle_cut(message, message_cap)}"
            if quote and quote_cap != 0:
                shown += "\n" + (quote if quote_cap is None else short(quote, quote_cap))
            out.append(shown)
        return out

    def size(rendered: list[str]) -> int:
        return sum(escaped_len(r) + 2 for r in rendered)

    whole = render(None, None)
    if size(whole) <= room:
        return whole
    longest = max(escaped_len(m) for _h, m, _q in items)
    stages = ((None, MIN_KEPT_WITH_QUOTES), (max(MIN_QUOTE, room // (3 * len(items))), MIN_MESSAGE), (0, MIN_MESSAGE))
    for quote_cap, floor in stages:
        low, high = min(floor, longest), longest
        if size(render(low, quote_cap)) > room:
            continue
        while low < high:  # the largest share of the room every message may keep
            middle = (low + high + 1) // 2
            low, high = (middle, high) if size(render(middle, quote_cap)) <= room else (low, middle - 1)
        return render(low, quote_cap)
    return list(last_resort)
