"""Figures a claim computes from the figures its excerpts state: checked, not refused.

Synthesis compares: "$0.10 is twice Beta's $0.05", "40% of the $250" (the page: "$100 of $250"),
"half of Acme's price", "halved its price, from $0.20 to $0.10", "up 25%". No excerpt states the
computed figure, yet the arithmetic on figures the excerpts do state gives it. `derive` finds
that arithmetic: a multiplier is a ratio of two operands, a percent a share or a change, an
amount or count a difference, or an operand times a cited percent or multiplier. It holds
within the rounding the claim shows ("40%" is 39.5 to 40.5; "twice" and "half" are exact to a
hundredth), between operands of one kind (money in one currency and per-unit, or counts of one
measure; `compatible`).

The operands are figures of the cited excerpts, and at least one of them is a figure the
claim itself states: "up 25%" alone names nothing it is computed from, and among the many
figures of a table some pair gives almost any percent. A claim that states two operands of one
kind is computed from those two only ("$0.10 is twice Beta's $0.04" is 2.5x, whatever a page's
$0.02 gives with $0.04; `_paired_by_claim`). Three exceptions: for a change the claim states
with a word of direction or a multiple, the ends of a change the page states ("went from $8 to
$10") and the figures an excerpt ties to two years of which the claim names one ("up 25% in
2026", "$10 less than in 2025"; `year_of`); and for a ratio or share a claim states with no
operand, the pair its words name, each the one figure whose excerpt words the claim's words
on that side of it match best ("Beta's ingestion charge is half of Acme's hot storage price";
`_named_pair`). A percent of change may restate a cited multiplier ("60% more" for 1.6x). An
identifier (a version, a year, a number in a name) is never computed.

A change runs one way (`Operand.order`): the page's own from-to pair first, then the claim's
("a 20% cut from $50 to $40"), then the years (from the earlier); "to $40" alone marks where it
went. Its direction is the one a word beside the figure states (`Figure.falling`, `.rising`: "a
25% cut" is -25%, "up 25%" +25%; either, with none). A difference of two amounts or counts needs
such a word or an order ("$2 more", "from 3 to 5"): a bare "2" is no difference of a page's 1
and 3. What was computed, and from what, is said to the claim checker (`Derivation.text`); a
refusal says in few words what the page or the claim's own figures give instead (`why_refused`). Pure.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from itertools import permutations
from typing import NamedTuple, Sequence

from .quantities import (KIND_DATE, KIND_MONEY, KIND_MULTIPLIER, KIND_NUMBER, KIND_PERCENT, KIND_VERSION, KIND_YEAR,
                         MEASURES, Figure)

ARITHMETIC_KINDS = (KIND_MONEY, KIND_NUMBER, KIND_PERCENT)
MAX_OPERANDS = 120  # figures looked at per claim: bounds the pairs on a long, hostile excerpt
_HUNDRED = Decimal(100)
_SHOWN = re.compile(r"[0-9]+(?:[.,]([0-9]+))?")
_BASIS_POINTS = frozenset({"basis", "bps", "bp"})  # "50 basis points": a hundredth of a percentage point each
_POINTS = frozenset({"point", "points", "percentage", "pp"}) | _BASIS_POINTS  # "5 percentage points"
YEAR_GROUP = -1  # `Operand.order`'s group of the figures an excerpt ties to a year
EXCERPT_GROUPS = 1000  # `Operand.order`'s groups from here on: an excerpt's own from-to pairs
_WORD_TOLERANCE = {KIND_PERCENT: Decimal("0.5"), KIND_MULTIPLIER: Decimal("0.01")}


class Operand(NamedTuple):
    figure: Figure
    excerpt: int  # which cited excerpt states it
    stated: bool  # the claim states it too
    # (group, step): operands of one group come in this order. The claim's "from $50 to $40" puts
    # $50 before $40 (group 0, 1...); a figure an excerpt ties to a year is in the year group at
    # that year. A change or difference between two of one group runs from the earlier step.
    order: tuple[int, int] | None = None
    # Tied to a year the claim states: "later" when the claim puts the change in it ("up 25% in
    # 2026"), "earlier" when it is the base ("$10 less than in 2025", "since 2025"); else "".
    anchor: str = ""
    role: str = ""  # "from" or "to": the claim writes "from $50" or "to $40" of it alone
    # The words the excerpt says it with (from the figure before it to this one): what a claim that
    # states no operand must name it by ("half of Acme's hot storage price": `_named_pair`).
    words: frozenset[str] = frozenset()


class Derivation(NamedTuple):
    figure: Figure  # the claim's computed figure
    text: str  # "2x = $0.10 / $0.05 (a ratio)"


def tolerance(figure: Figure) -> Decimal:
    """Half a unit of the last digit the claim shows ("40%": 0.5; "1.6x": 0.05); for words
    ("twice", "half", "a third"), a hundredth of a multiple and half a percentage point."""
    shown = _SHOWN.search(figure.text)
    if shown is None:
        return _WORD_TOLERANCE.get(figure.kind, Decimal("0.005"))
    decimals = len(shown.group(1) or "")
    scale = Decimal(1) if figure.kind in (KIND_PERCENT, KIND_MULTIPLIER) else _magnitude_of(figure, shown.group(0))
    return Decimal(5).scaleb(-(decimals + 1)) * scale


def _magnitude_of(figure: Figure, digits: str) -> Decimal:
    """How far `value` is scaled from the digits as written ("$1.5M": a million)."""
    try:
        written = Decimal(digits.replace(",", "."))
    except InvalidOperation:  # pragma: no cover - the pattern admits digits only
        return Decimal(1)
    if not written:
        return Decimal(1)
    ratio = abs(figure.value) / written
    return ratio if ratio >= 1 else Decimal(1)


def compatible(a: Figure, b: Figure) -> bool:
    """Two figures arithmetic may combine: one kind; money in one currency and per-unit; counts
    of one measure (both plain, or units of one measure), never durations (see `operand`)."""
    if a.kind != b.kind or a.kind not in ARITHMETIC_KINDS or not (operand(a) and operand(b)):
        return False
    if a.kind == KIND_MONEY and (a.currency != b.currency or (a.per and b.per and a.per != b.per)):
        return False  # "$0.10 per GB (was $0.08)": a per-unit written once is both's
    if (a.unit is None) != (b.unit is None):
        return False
    return a.unit is None or MEASURES[a.unit][0] == MEASURES[b.unit][0]


def operand(figure: Figure) -> bool:
    """Whether a figure may be an operand: an amount, a percent or a count, not a duration. A
    claim listing retention periods (7, 15, 30, 90 days) holds a ratio near any small multiple,
    and "3x the 15-day rate" multiplies a rate, not the days."""
    return figure.kind in ARITHMETIC_KINDS and bool(figure.value) and (
        figure.unit is None or MEASURES[figure.unit][0] not in ("time", "calendar"))


def _base(figure: Figure) -> Decimal:
    return figure.value * MEASURES[figure.unit][1] if figure.unit else figure.value


def _close(value: Decimal, target: Decimal, within: Decimal) -> bool:
    return abs(value - target) <= within


def _fmt(value: Decimal) -> str:
    """A computed value for a message: two decimals (four below 1), trailing zeros dropped."""
    rounded = value.quantize(Decimal("0.01") if abs(value) >= 1 else Decimal("0.0001"))
    return format(rounded.normalize(), "f")


def derive(target: Figure, operands: Sequence[Operand], claim: str = "") -> Derivation | None:
    """The arithmetic on two cited operands that gives `target` (see the module docstring), or None."""
    usable = [o for o in operands[:MAX_OPERANDS] if operand(o.figure)]
    within = tolerance(target)
    want = target.value
    paired = _paired_by_claim(usable)
    named = _named_pair(target, usable, claim)
    for a, b in permutations(usable, 2):
        if a.stated != b.stated and id(a if a.stated else b) in paired:
            continue  # "$0.10 is twice Beta's $0.04": the claim names both operands; no other figure stands in
        if not (_may_pair(a, b, target) or (a, b) == named):
            continue
        x, y = a.figure, b.figure
        ordered = _same_group(a, b)
        forward = not ordered or a.order[1] > b.order[1]  # type: ignore[index]  # from y to x
        if not ordered and (a.role == "from" or b.role == "to"):
            forward = False  # "rose 25% to $40": $40 is where it went
        if target.kind in (KIND_MULTIPLIER, KIND_PERCENT) and compatible(x, y) and _base(y):
            ratio = _base(x) / _base(y)
            if target.kind == KIND_MULTIPLIER:
                if forward and ratio > 0 and _close(ratio, want, within):  # "tripled from $5 to $15", not back
                    return Derivation(target, f"{target.text} = {x.text} / {y.text} (a ratio: {_fmt(ratio)}x)")
                continue
            share = ratio * _HUNDRED
            if not (target.falling or target.rising or ordered) and want > 0 and _close(share, want, within):
                return Derivation(target, f"{target.text} = {x.text} / {y.text} (a share: {_fmt(share)}%)")
            if not forward:
                continue
            change = (ratio - 1) * _HUNDRED
            if _directed(change, target, within):  # from y to x
                return Derivation(target, f"{target.text} = the change from {y.text} to {x.text} "
                                          f"({'+' if change > 0 else ''}{_fmt(change)}%)")
            if x.kind == KIND_PERCENT and _directed(_base(x) - _base(y), target, within):
                return Derivation(target, f"{target.text} = {x.text} - {y.text} (a difference in points)")
        elif target.kind == KIND_NUMBER and target.noun in _POINTS and x.kind == KIND_PERCENT:
            scale = Decimal(100) if target.noun in _BASIS_POINTS else Decimal(1)  # "50 basis points" is 0.5
            if compatible(x, y) and forward and (ordered or x.value >= y.value) \
                    and _directed((x.value - y.value) * scale, target, within, ordered=ordered):  # "up 5 points"
                return Derivation(target, f"{target.text} = {x.text} - {y.text} (a difference in points)")
        elif target.kind in (KIND_MONEY, KIND_NUMBER) and _same_kind(target, x):
            if compatible(x, y) and forward and (ordered or _base(x) >= _base(y)) and _a_difference(target, ordered) \
                    and _directed(_base(x) - _base(y), target, within, _target_base(target), ordered):
                return Derivation(target, f"{target.text} = {x.text} - {y.text} (a difference)")
            if y.kind == KIND_PERCENT and _close(_base(x) * y.value / _HUNDRED, _target_base(target), within):
                return Derivation(target, f"{target.text} = {y.text} of {x.text}")
            if y.kind == KIND_PERCENT and (y.falling or y.rising):  # "$100 less a 10% discount is $90"
                after = _base(x) * (_HUNDRED + (-y.value if y.falling else y.value)) / _HUNDRED
                if _close(after, _target_base(target), within):
                    return Derivation(target, f"{target.text} = {x.text} {'-' if y.falling else '+'} {y.text}")
    if target.kind == KIND_PERCENT and (target.falling or target.rising):  # "60% more" for a cited 1.6x
        for o in operands[:MAX_OPERANDS]:
            if o.figure.kind == KIND_MULTIPLIER and o.figure.value > 0 \
                    and _directed((o.figure.value - 1) * _HUNDRED, target, within):
                return Derivation(target, f"{target.text} = {o.figure.text} - 1 (a multiplier as a change)")
    if target.kind in (KIND_MONEY, KIND_NUMBER):  # an operand times a cited multiplier
        for a, b in permutations([o for o in operands[:MAX_OPERANDS] if o.figure.value and (
                operand(o.figure) or o.figure.kind == KIND_MULTIPLIER)], 2):
            x, y = a.figure, b.figure
            if (a.stated or b.stated) and y.kind == KIND_MULTIPLIER \
                    and _same_kind(target, x) and _close(_base(x) * y.value, _target_base(target), within):
                return Derivation(target, f"{target.text} = {y.text} {x.text}")
    return None


_STOP_WORDS = frozenset("""the a an and or of in on at to for from by with per is are was were be its it their this
that than as costs cost charges charge price prices each every""".split())


def label_words(text: str) -> frozenset[str]:
    """The words a figure is said with, folded so that "indexed" names "indexing" (a five-letter
    stem, "'s" dropped), without function words and words every price sentence has."""
    words = (w.lower().removesuffix("'s").removesuffix("\u2019s") for w in re.findall(r"[A-Za-z][A-Za-z'\u2019]+", text))
    return frozenset(w[:5] for w in words if len(w) > 2 and w not in _STOP_WORDS)


def _paired_by_claim(usable: Sequence[Operand]) -> set[int]:
    """The stated operands the claim states another operand of the same kind beside: those pair
    only with each other ("$0.10 costs twice Beta's $0.04" is 2.5x, not $0.04 over a page's $0.02)."""
    stated = [o for o in usable if o.stated]
    return {id(o) for o in stated if any(compatible(o.figure, p.figure) and not o.figure.matches(p.figure)
                                         for p in stated)}


def _named_pair(target: Figure, usable: Sequence[Operand], claim: str) -> tuple[Operand, Operand] | None:
    """For a ratio or share whose operands the claim names only in words ("Beta's ingestion charge
    is half of Acme's hot storage price"): the operand the words before the figure name best and
    the one the words after it name best, each the only best among figures of its kind. None when
    either is unnamed or a tie, or the claim states an operand (then `_may_pair` decides)."""
    if not claim or target.kind not in (KIND_MULTIPLIER, KIND_PERCENT) or target.falling or target.rising \
            or any(o.stated for o in usable):
        return None
    start = max(0, claim.rfind(";", 0, target.start) + 1)
    end = claim.find(";", target.end)
    before, after = label_words(claim[start:target.start]), label_words(claim[target.end:end if end >= 0 else None])
    first = _best_named(before, usable)
    second = _best_named(after, [o for o in usable if first is not None and compatible(o.figure, first.figure)])
    if first is None or second is None or first.figure.matches(second.figure):
        return None
    return first, second


def _best_named(words: frozenset[str], candidates: Sequence[Operand]) -> Operand | None:
    scored = sorted(((len(words & o.words), i) for i, o in enumerate(candidates)), reverse=True)
    if not scored or scored[0][0] == 0 or (len(scored) > 1 and scored[1][0] == scored[0][0]
                                          and not candidates[scored[1][1]].figure.matches(candidates[scored[0][1]].figure)):
        return None
    return candidates[scored[0][1]]


def _a_difference(target: Figure, ordered: bool) -> bool:
    """Whether an amount or count may be a difference: a word says so ("$2 more", "10 fewer",
    "down $5") or it runs between a from-to pair or two years. A bare "2" of "on 1/2" is no
    difference of the page's 1 and 3."""
    return ordered or target.falling or target.rising or target.noun in _POINTS


def _may_pair(a: Operand, b: Operand, target: Figure) -> bool:
    """Two operands arithmetic may combine: the claim states one of them, or both are tied to
    two years of which the claim states one ("up 25% in 2026": the figures for 2025 and 2026),
    or they are the ends of a change the page states ("went from $8 to $10") and the claim
    states that change by a word of direction or a multiple ("rose 25%", "tripled")."""
    if a.stated or b.stated:
        return True
    if not (target.kind == KIND_MULTIPLIER or target.falling or target.rising):
        return False  # "In 2026 it had 2 regions" is no difference of the page's 3 and 5
    if _same_group(a, b) and a.order[0] >= EXCERPT_GROUPS:  # type: ignore[index]
        return target.kind in (KIND_MULTIPLIER, KIND_PERCENT)
    if not (_same_group(a, b) and a.order[0] == YEAR_GROUP):  # type: ignore[index]
        return False
    later, earlier = (a, b) if a.order[1] > b.order[1] else (b, a)  # type: ignore[index]
    return later.anchor == "later" or earlier.anchor == "earlier"


def _same_group(a: Operand, b: Operand) -> bool:
    return a.order is not None and b.order is not None and a.order[0] == b.order[0] and a.order[1] != b.order[1]


def _directed(value: Decimal, target: Figure, within: Decimal, size: Decimal | None = None,
              ordered: bool = True) -> bool:
    """Whether a change or difference `value` is what `target` states: down when a word of
    decrease stands beside it ("a 20% cut", "$10 less"), up for one of increase ("up 25%"),
    either way when none does; a figure written with its sign ("-20%") keeps it. A difference
    of two operands in no known order ("$12 is $2 more than Beta's $10") is by its size."""
    want = target.value if size is None else size
    if not ordered:
        return _close(abs(value), abs(want), within)
    if target.falling:
        return _close(value, -abs(want), within)
    if target.rising:
        return _close(value, abs(want), within)
    if want < 0:
        return _close(value, want, within)
    return _close(abs(value), want, within)


def _target_base(target: Figure) -> Decimal:
    return _base(target)


def _same_kind(target: Figure, figure: Figure) -> bool:
    if target.kind != figure.kind:
        return False
    if target.kind == KIND_MONEY:
        return target.currency == figure.currency and (not target.per or not figure.per or target.per == figure.per)
    if target.unit and figure.unit:
        return MEASURES[target.unit][0] == MEASURES[figure.unit][0]
    return not target.unit and not figure.unit


def what_they_give(target: Figure, stated: Sequence[Figure], pairs: Sequence[tuple[Figure, Figure]] = ()) -> str | None:
    """What the claim's own figures of one kind give, for a refusal of `target`, a multiplier or a
    percent ("$0.10 / $0.05 gives 2x"; for a from-to pair the claim states, the change it is);
    None when the claim states no two such figures."""
    if target.kind not in (KIND_MULTIPLIER, KIND_PERCENT):
        return None
    for first, second in pairs:
        if first in stated and second in stated and compatible(first, second) and target.kind == KIND_PERCENT:
            change = (_base(second) / _base(first) - 1) * _HUNDRED
            return f"from {first.text} to {second.text} is {'+' if change > 0 else ''}{_fmt(change)}%"
    for x, y in permutations([f for f in stated if operand(f)], 2):
        if not compatible(x, y) or abs(_base(x)) < abs(_base(y)):
            continue
        ratio = _base(x) / _base(y)
        if target.kind == KIND_MULTIPLIER:
            return f"{x.text} / {y.text} gives {_fmt(ratio)}x"
        return (f"{y.text} is {_fmt(100 / ratio)}% of {x.text}; from {y.text} to {x.text} is "
                f"+{_fmt((ratio - 1) * _HUNDRED)}%, from {x.text} to {y.text} {_fmt((1 / ratio - 1) * _HUNDRED)}%")
    return None


def why_refused(figure: Figure, claim: str, stated: Sequence[Figure], missing: Sequence[Figure],
                available: Sequence[Figure], operands: Sequence[Operand] = ()) -> str:
    """In few words, why no cited excerpt grounds `figure` (a figure of the claim `claim`, which
    states `stated`, of which `missing` are grounded by nothing): the same figure stated the
    other way ("fell" for "rose"), what the claim's own figures or the years it names give,
    which operand no excerpt states, or the excerpts' figures of its kind."""
    turned = next((f for f in available if f.kind == figure.kind and abs(f.value) == abs(figure.value)
                   and (f.falling, f.rising) != (figure.falling, figure.rising) and (f.falling or f.rising)), None)
    if turned is not None:
        return f"the excerpt's {turned.text} is a {'fall' if turned.falling else 'rise'}"
    if figure.kind == KIND_NUMBER and figure.noun and any(f.value == figure.value and f.unit for f in available):
        return f"'{figure.noun}' is no unit the check reads (it reads units in English)"
    if figure.kind == KIND_PERCENT:
        pages = [o for o in operands if o.order and o.order[0] >= EXCERPT_GROUPS and o.stated]
        for a, b in permutations(pages, 2):
            if a.order[0] == b.order[0] and a.order[1] > b.order[1] and compatible(a.figure, b.figure) \
                    and _base(b.figure):  # type: ignore[index]
                change = (_base(a.figure) / _base(b.figure) - 1) * _HUNDRED
                return (f"the excerpt goes from {b.figure.text} to {a.figure.text} "
                        f"({'+' if change > 0 else ''}{_fmt(change)}%)")
    grounded = [q for q in stated if q not in missing and q is not figure]
    gives = what_they_give(figure, grounded, from_to_pairs(claim, stated))
    if gives:
        return f"as arithmetic on the claim's cited figures, {gives}"
    by_year = _what_the_years_give(figure, operands)
    if by_year:
        return by_year
    if figure.kind in (KIND_MULTIPLIER, KIND_PERCENT):
        absent = [q.text for q in missing if q is not figure and q.kind in ARITHMETIC_KINDS]
        if absent:
            return f"its operand {', '.join(repr(a) for a in absent)} is in no excerpt the claim cites"
    same = list(dict.fromkeys(f.text for f in available if _comparable(figure, f)))
    if same:
        return f"the excerpts give {', '.join(same[:3])}" + (" ..." if len(same) > 3 else "")
    if figure.kind in (KIND_MULTIPLIER, KIND_PERCENT):
        return ("no two cited figures give it (state one of its operands, or name each in the excerpts' words "
                "on its side: 'X is half of Y')")
    if figure.kind == KIND_NUMBER and figure.text.lower() == "one":
        return "a count no excerpt states; if it counts nothing, write 'a' or 'a single'"
    if figure.kind == KIND_NUMBER and figure.text.isalpha():
        return "a count in words no excerpt states"
    if figure.kind == KIND_MONEY:
        return f"the excerpts state no {figure.currency} amount"
    if figure.unit:
        measure = _shown_measure(figure.unit)
        return f"the excerpts state no {'duration' if measure == 'time' else measure if measure == 'size' else 'count of ' + measure + 's'}"
    return ""


def _what_the_years_give(figure: Figure, operands: Sequence[Operand]) -> str | None:
    """For a change or difference the claim puts in a year: what the figures an excerpt ties to
    that year and another give ("from $8 (2025) to $10 (2026) is +25%")."""
    if figure.kind not in (KIND_PERCENT, KIND_MONEY, KIND_NUMBER):
        return None
    tied = [o for o in operands if o.order and o.order[0] == YEAR_GROUP]
    for a, b in permutations(tied, 2):
        if not (_may_pair(a, b, figure) and a.order[1] > b.order[1] and compatible(a.figure, b.figure)  # type: ignore[index]
                and (figure.kind == KIND_PERCENT or _same_kind(figure, a.figure)) and _base(b.figure)):
            continue
        x, y = a.figure, b.figure
        if figure.kind == KIND_PERCENT:
            change = (_base(x) / _base(y) - 1) * _HUNDRED
            gives = f"{'+' if change > 0 else ''}{_fmt(change)}%"
        else:
            difference = _base(x) - _base(y)
            gives = f"{'+' if difference > 0 else ''}{_fmt(difference)}" + (f" {x.currency}" if x.currency else "")
        return f"from {y.text} ({b.order[1]}) to {x.text} ({a.order[1]}) is {gives}"  # type: ignore[index]
    return None


def why_not_named(figure: Figure, named: Sequence[Figure]) -> str:
    """In few words, why an identifier (a version, year or date) is refused: the identifiers of
    its kind the cited excerpts, titles and addresses do name."""
    kinds = (KIND_YEAR, KIND_DATE) if figure.kind in (KIND_YEAR, KIND_DATE) else (KIND_VERSION,)
    same = list(dict.fromkeys(f.text for f in named if f.kind in kinds or (
        KIND_VERSION in kinds and f.kind == KIND_NUMBER and not f.unit and re.fullmatch(r"[0-9]+\.[0-9]+", f.text))))
    if not same:
        return ""
    return f"the cited pages name {', '.join(same[:3])}" + (" ..." if len(same) > 3 else "")


def _comparable(figure: Figure, other: Figure) -> bool:
    """Whether `other` is a figure of `figure`'s kind and measure, to show beside a refusal."""
    if other.kind != figure.kind or figure.kind not in (*ARITHMETIC_KINDS, KIND_MULTIPLIER):
        return False
    if figure.kind == KIND_MONEY:
        return other.currency == figure.currency
    if figure.unit and other.unit:
        return _shown_measure(figure.unit) == _shown_measure(other.unit)
    return figure.kind != KIND_NUMBER or (figure.unit is None) == (other.unit is None)


_FROM_BEFORE = re.compile(r"\bfrom\s+$", re.I)
_TO_BEFORE = re.compile(r"(?<!\bup )\bto\s+$", re.I)
_BASE_YEAR_BEFORE = re.compile(r"\b(?:than|since|from|compared\s+(?:with|to)|vs\.?|versus|over)\s+(?:in\s+)?$", re.I)
_TO_BETWEEN = re.compile(r"\s*(?:\bto\b|->|\u2192)\s*", re.I)
_CLAUSE_END = re.compile(r"[;\n]|\|\s*\||\.(?:\s|$)")  # a table row ends at "| |"
_YEAR_RIGHT_AFTER = re.compile(r"\s*[(,]?\s*(?:(?:in|for|during)\s+)?", re.I)
_MAX_YEAR_GAP = 60  # characters between a figure and the year it belongs to


def from_to_pairs(text: str, figures: Sequence[Figure]) -> list[tuple[Figure, Figure]]:
    """The (from, to) pairs `text` states ("from $50 to $40"), in the claim's order."""
    pairs = []
    for a, b in zip(figures, figures[1:]):
        if _FROM_BEFORE.search(text, max(0, a.start - 8), a.start) and _TO_BETWEEN.fullmatch(text, a.end, b.start):
            pairs.append((a, b))
    return pairs


def reversed_pair(claim: str, stated: Sequence[Figure],
                  excerpts: Sequence[tuple[str, Sequence[Figure]]]) -> tuple[Figure, Figure, Figure, Figure] | None:
    """A from-to pair the claim states the other way round from a cited excerpt ("raised from
    $0.10 to $0.20" where the page "cut from $0.20 to $0.10"), which no cited excerpt states
    the claim's way: (the claim's from, its to, the excerpt's from, its to), or None. Each figure
    is grounded on its own; the change they make is not."""
    claimed = from_to_pairs(claim, stated)
    if not claimed:
        return None
    pages = [pair for text, found in excerpts for pair in from_to_pairs(text, found)]
    for a, b in claimed:
        if any(a.matches(x) and b.matches(y) for x, y in pages):
            continue
        turned = next(((x, y) for x, y in pages if b.matches(x) and a.matches(y)), None)
        if turned is not None:
            return a, b, *turned
    return None


def year_of(text: str, figure: Figure, years: Sequence[Figure]) -> int | None:
    """The year `text` ties `figure` to: one written right after it ("$8 in 2025", "$8 (2025)"),
    else the nearest before it in its clause ("In 2025 it cost $8", "| 2025 | $8 |", "the 2025
    price was $8"), else the nearest after it; None when its clause names none."""
    before: tuple[int, int] | None = None
    after: tuple[int, int] | None = None
    for year in years:
        if year.end <= figure.start:
            lo, hi = year.end, figure.start
        elif year.start >= figure.end:
            lo, hi = figure.end, year.start
            if _YEAR_RIGHT_AFTER.fullmatch(text, lo, hi):
                return int(year.value)
        else:
            continue
        if hi - lo > _MAX_YEAR_GAP or _CLAUSE_END.search(text, lo, hi):
            continue
        if year.end <= figure.start and (before is None or hi - lo < before[0]):
            before = (hi - lo, int(year.value))
        elif year.start >= figure.end and (after is None or hi - lo < after[0]):
            after = (hi - lo, int(year.value))
    chosen = before or after
    return chosen[1] if chosen else None


def _a_year(figure: Figure) -> bool:
    return figure.kind == KIND_YEAR or (figure.kind == KIND_NUMBER and figure.unit is None and figure.per is None
                                        and figure.text.isdigit() and len(figure.text) == 4
                                        and 1900 <= figure.value <= 2100)


def operands_of(claim: str, stated: Sequence[Figure],
                excerpts: Sequence[tuple[str, Sequence[Figure]]]) -> list[Operand]:
    """The operands a claim's computed figures may use: each figure of each cited excerpt
    (`text`, as `quantities.readable` gives it, and its figures), with whether the claim states it
    and its order: the excerpt's own from-to pair first (the page says which way it went), then
    the claim's, then the year the excerpt ties it to."""
    steps: list[tuple[Figure, tuple[int, int]]] = []
    for group, (a, b) in enumerate(from_to_pairs(claim, stated)):
        steps += [(a, (group, 0)), (b, (group, 1))]
    roles = [(f, "from" if _FROM_BEFORE.search(claim, max(0, f.start - 8), f.start) else "to")
             for f in stated if _FROM_BEFORE.search(claim, max(0, f.start - 8), f.start)
             or _TO_BEFORE.search(claim, max(0, f.start - 8), f.start)]
    anchors = {int(f.value): "earlier" if _BASE_YEAR_BEFORE.search(claim, max(0, f.start - 24), f.start) else "later"
               for f in stated if _a_year(f) and (f.kind == KIND_YEAR or f.noun is None)}
    out = []
    for index, (text, found) in enumerate(excerpts):
        ordered = sorted(found, key=lambda f: f.start)
        labels = {id(f): label_words(text[(ordered[k - 1].end if k else 0):
                                          (f.end if k < len(ordered) - 1 else len(text))])
                  for k, f in enumerate(ordered)}
        own = {}
        for k, (a, b) in enumerate(from_to_pairs(text, found)):
            own[id(a)], own[id(b)] = (EXCERPT_GROUPS + 64 * index + k, 0), (EXCERPT_GROUPS + 64 * index + k, 1)
        years = [f for f in found if _a_year(f)] if anchors else []
        for f in found:
            order = own.get(id(f)) or next((step for s, step in steps if s.matches(f)), None)
            anchor = ""
            if order is None and years and operand(f) and not _a_year(f) and len(out) < MAX_OPERANDS:
                year = year_of(text, f, years)
                if year is not None:
                    order, anchor = (YEAR_GROUP, year), anchors.get(year, "")
            role = next((r for s, r in roles if s.matches(f)), "")
            out.append(Operand(f, index, any(s.matches(f) for s in stated), order, anchor, role, labels[id(f)]))
    return out


def _shown_measure(unit: str) -> str:
    measure = MEASURES[unit][0]
    return "time" if measure == "calendar" else measure  # "a year" is refused beside "30 days"
