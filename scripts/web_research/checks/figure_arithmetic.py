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
figures of a table some pair gives almost any percent. An identifier (a version, a year, a
number in a name) is never computed. What was computed, and from what, is said to the claim checker (`Derivation.text`);
a refusal says what the claim's own figures give instead (`what_they_give`). Which of two
operands came first (a rise or a fall) is the checker's to judge, told the computation. Pure.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from itertools import permutations
from typing import NamedTuple, Sequence

from .quantities import KIND_MONEY, KIND_MULTIPLIER, KIND_NUMBER, KIND_PERCENT, MEASURES, Figure

ARITHMETIC_KINDS = (KIND_MONEY, KIND_NUMBER, KIND_PERCENT)
MAX_OPERANDS = 120  # figures looked at per claim: bounds the pairs on a long, hostile excerpt
_HUNDRED = Decimal(100)
_SHOWN = re.compile(r"[0-9]+(?:[.,]([0-9]+))?")
_POINTS = frozenset({"point", "points", "percentage", "pp"})  # "5 percentage points": a difference of percents
_WORD_TOLERANCE = {KIND_PERCENT: Decimal("0.5"), KIND_MULTIPLIER: Decimal("0.01")}


class Operand(NamedTuple):
    figure: Figure
    excerpt: int  # which cited excerpt states it
    stated: bool  # the claim states it too


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
    if a.kind == KIND_MONEY and (a.currency != b.currency or a.per != b.per):
        return False
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


def derive(target: Figure, operands: Sequence[Operand]) -> Derivation | None:
    """The arithmetic on two cited operands that gives `target` (see the module docstring), or None."""
    usable = [o for o in operands[:MAX_OPERANDS] if operand(o.figure)]
    within = tolerance(target)
    want = target.value
    for a, b in permutations(usable, 2):
        if not (a.stated or b.stated):
            continue
        x, y = a.figure, b.figure
        if target.kind in (KIND_MULTIPLIER, KIND_PERCENT) and compatible(x, y) and _base(y):
            ratio = _base(x) / _base(y)
            if target.kind == KIND_MULTIPLIER:
                if ratio > 0 and _close(ratio, want, within):
                    return Derivation(target, f"{target.text} = {x.text} / {y.text} (a ratio: {_fmt(ratio)}x)")
                continue
            share = ratio * _HUNDRED
            if not target.falling and want > 0 and _close(share, want, within):
                return Derivation(target, f"{target.text} = {x.text} / {y.text} (a share: {_fmt(share)}%)")
            change = (ratio - 1) * _HUNDRED
            expected = -abs(want) if target.falling else want
            if _close(change, expected, within):  # from y to x
                return Derivation(target, f"{target.text} = the change from {y.text} to {x.text} "
                                          f"({'+' if change > 0 else ''}{_fmt(change)}%)")
            if x.kind == KIND_PERCENT and _close(_base(x) - _base(y), expected, within):
                return Derivation(target, f"{target.text} = {x.text} - {y.text} (a difference in points)")
        elif target.kind == KIND_NUMBER and target.noun in _POINTS and x.kind == KIND_PERCENT:
            if compatible(x, y) and x.value >= y.value and _close(x.value - y.value, abs(want), within):  # "up 5 points"
                return Derivation(target, f"{target.text} = {x.text} - {y.text} (a difference in points)")
        elif target.kind in (KIND_MONEY, KIND_NUMBER) and _same_kind(target, x):
            if compatible(x, y) and _base(x) >= _base(y) and _close(_base(x) - _base(y), abs(_target_base(target)),
                                                                   within):
                return Derivation(target, f"{target.text} = {x.text} - {y.text} (a difference)")
            if y.kind == KIND_PERCENT and _close(_base(x) * y.value / _HUNDRED, _target_base(target), within):
                return Derivation(target, f"{target.text} = {y.text} of {x.text}")
    if target.kind in (KIND_MONEY, KIND_NUMBER):  # an operand times a cited multiplier
        for a, b in permutations([o for o in operands[:MAX_OPERANDS] if o.figure.value and (
                operand(o.figure) or o.figure.kind == KIND_MULTIPLIER)], 2):
            x, y = a.figure, b.figure
            if (a.stated or b.stated) and y.kind == KIND_MULTIPLIER \
                    and _same_kind(target, x) and _close(_base(x) * y.value, _target_base(target), within):
                return Derivation(target, f"{target.text} = {y.text} {x.text}")
    return None


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


def what_they_give(target: Figure, stated: Sequence[Figure]) -> str | None:
    """What the claim's own figures of one kind give, for a refusal of `target`, a multiplier or a
    percent ("$0.10 / $0.05 gives 2x"); None when the claim states no two such figures."""
    if target.kind not in (KIND_MULTIPLIER, KIND_PERCENT):
        return None
    for x, y in permutations([f for f in stated if operand(f)], 2):
        if not compatible(x, y) or abs(_base(x)) < abs(_base(y)):
            continue
        ratio = _base(x) / _base(y)
        if target.kind == KIND_MULTIPLIER:
            return f"{x.text} / {y.text} gives {_fmt(ratio)}x"
        return (f"{y.text} is {_fmt(100 / ratio)}% of {x.text}; from {y.text} to {x.text} is "
                f"+{_fmt((ratio - 1) * _HUNDRED)}%, from {x.text} to {y.text} {_fmt((1 / ratio - 1) * _HUNDRED)}%")
    return None
