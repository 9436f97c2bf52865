"""The page's own conditions around an excerpt that a claim leaves out.

The partial claims of the real runs all dropped a condition the page states in the same or the
next sentence: "fails with an exception other than asyncio.CancelledError"; "If any task fails
with KeyboardInterrupt or SystemExit ... re-raised instead of ExceptionGroup"; "However, for
historical reasons, OverflowError is sometimes raised for integers"; and the checker, reading
the excerpt alone, judged them supported. So the checker is told which condition words stand
around the excerpt (its sentence and paragraph, the blocks beside it, its list's lead-in, the
notices around it) and are not in the claim, with the page's words around each, and asked
whether the claim still holds without them.

A condition counts as kept when the claim says it or a word of the same kind ("except" for
"other than", "usually" for "generally"): the claim that carries its condition is not flagged.
Pure, standard library only.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from .excerpt_context import ExcerptContext
from .excerpts import normalize
from ..core.clip import clip

# Kinds of condition, each a list of phrases; the first of each kind is how the kind is named.
KINDS: dict[str, tuple[str, ...]] = {
    "exception": ("other than", "except", "excluding", "apart from", "aside from", "with the exception of",
                  "unless", "but not", "not including"),
    "limit": ("only", "solely", "exclusively", "at most", "at least", "up to", "no more than", "provided that",
              "as long as", "if and only if", "on condition that"),
    "contrast": ("however", "although", "whereas", "nevertheless", "instead of", "rather than"),
    "frequency": ("sometimes", "generally", "usually", "typically", "often", "occasionally", "in some cases",
                  "in most cases", "in general", "not always"),
    "otherwise": ("in all other cases", "otherwise", "by default"),
    "history": ("for historical reasons", "historically", "for backward compatibility", "for compatibility",
                "deprecated", "no longer", "until"),
    "special": ("treated specially", "special case", "specially", "re-raised", "depending on", "depends on"),
    "scaling": ("multiplied by", "multiplying", "divided by", "proportional to", "scaled by"),
}
MAX_CONDITIONS = 4
CLAUSE_WORDS = 9  # page words shown on each side of a condition word


class Condition(NamedTuple):
    """A condition phrase of the page the claim leaves out, and the page's words around it."""

    phrases: tuple[str, ...]  # as the page writes them
    kinds: tuple[str, ...]
    clause: str


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + r"\s+".join(map(re.escape, phrase.split())) + r"(?![\w-])", re.IGNORECASE)


_PATTERNS = [(kind, phrase, _phrase_pattern(phrase)) for kind, phrases in KINDS.items() for phrase in phrases]


def _says(text: str, kind: str) -> bool:
    return any(pattern.search(text) for k, _, pattern in _PATTERNS if k == kind)


def page_text_around(context: ExcerptContext) -> list[str]:
    """The pieces of the page a condition is looked for in, nearest the excerpt first: its sentence,
    the next sentences of its paragraph, the text after it, its list's lead-in and its notices (not
    what stands before it: a condition there is the page's earlier point, not this one's)."""
    following = ""
    if context.paragraph:
        head = context.sentence[:60]
        at = context.paragraph.find(head) if head else -1
        rest = context.paragraph[at + len(context.sentence):] if at >= 0 else context.paragraph
        following = " ".join(_SENTENCES.split(rest.strip())[:FOLLOWING_SENTENCES])
    after = " ".join(_SENTENCES.split(context.after or "")[:FOLLOWING_SENTENCES])
    return [piece for piece in (context.sentence, following, after, context.lead_in, context.notice) if piece]


FOLLOWING_SENTENCES = 3
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[\"'\u201c(\[]?[A-Z0-9])")


def dropped_conditions(claim: str, excerpt: str, context: ExcerptContext | None) -> list[Condition]:
    """The page's condition phrases around `excerpt` (in its context) of kinds the claim says none
    of; phrases of one sentence make one condition ("However" / "for historical reasons" / "sometimes")."""
    if context is None:
        return []
    said = normalize(claim)
    out: list[Condition] = []
    sentences: dict[tuple[int, int], int] = {}  # (piece, sentence start) -> its condition in `out`
    seen: set[str] = set()
    for number, piece in enumerate(page_text_around(context)):
        for kind, _phrase, pattern in _PATTERNS:
            if kind in seen or _says(said, kind):
                continue
            match = pattern.search(piece)
            if match is None:
                continue
            seen.add(kind)
            key = (number, _sentence_start(piece, match.start()))
            if key in sentences:
                known = out[sentences[key]]
                clause = known.clause if len(known.clause) >= MAX_CLAUSE_CHARS else _clause(
                    piece, min(match.start(), _find(piece, known)), max(match.end(), _find(piece, known)))
                out[sentences[key]] = Condition((*known.phrases, match.group(0)), (*known.kinds, kind), _cut(clause))
            elif len(out) < MAX_CONDITIONS:
                sentences[key] = len(out)
                out.append(Condition((match.group(0),), (kind,), _cut(_clause(piece, match.start(), match.end()))))
    return out


MAX_CLAUSE_CHARS = 300


def _find(piece: str, condition: Condition) -> int:
    """Where a condition's first phrase stands in `piece` (0 when not found)."""
    at = piece.find(condition.phrases[0])
    return max(at, 0)


def _sentence_start(text: str, position: int) -> int:
    return max((m.end() for m in re.finditer(r"[.!?]\s+", text[:position])), default=0)


def _cut(text: str) -> str:
    return clip(text, MAX_CLAUSE_CHARS, collapse=False)


def _clause(text: str, start: int, end: int) -> str:
    """The page's words around text[start:end], as written: up to CLAUSE_WORDS on each side,
    within its sentence."""
    floor = max((m.end() for m in re.finditer(r"[.!?:;]\s+", text[:start])), default=0)
    ceiling = next((m.start() + 1 for m in re.finditer(r"[.!?;](?:\s|$)", text[end:])), len(text) - end) + end
    words = list(re.finditer(r"\S+", text[floor:ceiling]))
    first = next((i for i, w in enumerate(words) if floor + w.end() > start), 0)
    last = next((i for i, w in enumerate(words) if floor + w.end() >= end), len(words) - 1)
    low, high = max(0, first - CLAUSE_WORDS), min(len(words) - 1, last + CLAUSE_WORDS)
    shown = text[floor + words[low].start():floor + words[high].end()] if words else text[start:end]
    return ("\u2026" if low > 0 else "") + " ".join(shown.split()) + ("\u2026" if high < len(words) - 1 else "")
