"""The quantities a sentence states, as numbers that can be compared.

A claim that cites an excerpt must not state a figure the excerpt does not
give. Comparing text would fail on harmless differences (`1,000` and `1000`,
`$0.02/GB` and `$0.02 per GB`, `7-day` and `7 days`, `10%` and `10 percent`,
`$1.5M` and `$1.5 million`), so each figure becomes a `Quantity`: a value, a
kind (money with its currency, percent, multiplier, plain number, year,
date) and, where the text gives one, a unit and a "per" unit.

What is deliberately not a quantity: number words ("seven"), digits glued to
letters (`S3`, `p99`, `Q3`, `HTTP/2`), version strings (`1.2.3`). Years and
dates are extracted with their own kinds, because a caller treats them
differently (they often come from the question or the page's date).

Pure and standard-library only.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

KIND_MONEY = "money"
KIND_PERCENT = "percent"
KIND_MULTIPLIER = "multiplier"
KIND_NUMBER = "number"
KIND_YEAR = "year"
KIND_DATE = "date"
SOFT_KINDS = (KIND_YEAR, KIND_DATE)  # missing from an excerpt: a warning, not an error

MAX_TEXT_CHARS = 20_000  # a claim longer than this is cut: bounds the work on hostile input

# Units whose spellings are folded; two different known units never match.
_UNITS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "second"),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "minute"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "hour"),
    **dict.fromkeys(("d", "day", "days"), "day"),
    **dict.fromkeys(("wk", "wks", "week", "weeks"), "week"),
    **dict.fromkeys(("mo", "mos", "month", "months"), "month"),
    **dict.fromkeys(("yr", "yrs", "year", "years"), "year"),
    **dict.fromkeys(("b", "byte", "bytes"), "byte"),
    **dict.fromkeys(("kb", "kilobyte", "kilobytes"), "kb"),
    **dict.fromkeys(("mb", "megabyte", "megabytes"), "mb"),
    **dict.fromkeys(("gb", "gigabyte", "gigabytes"), "gb"),
    **dict.fromkeys(("tb", "terabyte", "terabytes"), "tb"),
    **dict.fromkeys(("pb", "petabyte", "petabytes"), "pb"),
    **dict.fromkeys(("kib", "mib", "gib", "tib"), None),  # kept apart below
    **dict.fromkeys(("host", "hosts"), "host"),
    **dict.fromkeys(("seat", "seats"), "seat"),
    **dict.fromkeys(("user", "users"), "user"),
    **dict.fromkeys(("event", "events"), "event"),
}
for _binary in ("kib", "mib", "gib", "tib"):
    _UNITS[_binary] = _binary

_CURRENCY_SYMBOLS = {"US$": "USD", "$": "USD", "C$": "CAD", "A$": "AUD", "\u20ac": "EUR", "\u00a3": "GBP",
                     "\u00a5": "JPY", "\u20b9": "INR"}
_CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "INR", "CNY")
_CURRENCY_WORDS = {"dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR"}
_MAGNITUDE_WORDS = {"thousand": Decimal(1000), "million": Decimal(10) ** 6, "billion": Decimal(10) ** 9,
                    "trillion": Decimal(10) ** 12}
_MAGNITUDE_LETTERS = {"k": Decimal(1000), "K": Decimal(1000), "M": Decimal(10) ** 6, "mn": Decimal(10) ** 6,
                      "B": Decimal(10) ** 9, "bn": Decimal(10) ** 9}
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")

_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_CURRENCY_BEFORE = re.compile(
    r"(?:(US\$|C\$|A\$|[$\u20ac\u00a3\u00a5\u20b9])|\b(" + "|".join(_CURRENCY_CODES) + r")\s?)$")
_MAGNITUDE_AFTER = re.compile(r"(?:(k|K|M|mn|B|bn)(?![A-Za-z])|\s?(thousand|million|billion|trillion)\b)")
_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b|per\s?cent\b|pct\b)", re.I)
_MULTIPLIER_AFTER = re.compile(r"(?:[x\u00d7](?![A-Za-z0-9])|\s?times\b)")
_CURRENCY_AFTER = re.compile(r"\s?(?:(" + "|".join(_CURRENCY_CODES) + r")\b|(dollars?|euros?)\b)")
_ORDINAL_AFTER = re.compile(r"(?:st|nd|rd|th)\b")
_UNIT_AFTER = re.compile(r"(?:-|\s)([A-Za-z]+)\b")
_PER_AFTER = re.compile(r"\s?(?:/|\bper\s+(?:a\s+|an\s+|each\s+|one\s+)?)\s?([A-Za-z]+)\b")
# Connectors that make a range or a list: "10 to 30 percent", "10-30%", "7, 30 or 90 days", "30- and 90-day".
_CONNECTOR = re.compile(r"^-?\s*(?:-|\u2013|\u2014|to|and|or|,|,\s*or|,\s*and|through|thru)\s*$", re.I)
_RANGE = re.compile(r"^\s*(?:-|\u2013|\u2014|to|through|thru)\s*$", re.I)  # "$5-10", "$5 to 10"
_BETWEEN_NUMBERS = 40

# Spans that are taken whole before numbers are looked at.
_ISO_DATE = re.compile(r"(?<![\w.])\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w])")
_TIME = re.compile(r"(?<![\w.:])\d{1,2}:\d{2}(?::\d{2})?(?![\w:])")
_MONTH_DATE = re.compile(
    r"\b(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:" + _MONTHS + r")\.?(?:,?\s+\d{4})?"
    r"|(?:" + _MONTHS + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?(?![\d,.]\d)"
    r"|(?:" + _MONTHS + r")\.?\s+\d{4})\b", re.I)
_DIGIT = re.compile(r"\d")
# Every month name starts with one of these. Looked for in the casefolded text with `in`: a
# case-insensitive regex alternation scans a claim ten times slower, and casefolding covers each
# letter the pattern's re.I would match (the long s, U+017F, folds to "s").
_MONTH_PREFIXES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){2,}(?![\w.])")


class Quantity(NamedTuple):
    """One figure. `text` is as written; `value` is the number with its
    magnitude applied; `currency` is an ISO code for money; `unit` and `per`
    are folded unit names, or None when absent or unknown."""

    text: str
    value: Decimal
    kind: str
    currency: str | None = None
    unit: str | None = None
    per: str | None = None
    start: int = 0
    end: int = 0

    def matches(self, other: "Quantity") -> bool:
        """Whether `other` (from an excerpt) states this quantity (from a claim).

        The values must be equal. Money needs money in the same currency; a
        percent, a percent; a multiplier, a multiplier; a year or date, the
        same year or date. A plain number may be matched by a figure of any
        kind. Units and per-units conflict only when both sides name a known one.
        """
        if self.kind == KIND_DATE:
            return other.kind == KIND_DATE and other.text_key() == self.text_key()
        if self.kind == KIND_YEAR:  # "2026" is also stated by "March 2026" or "2026-04-18"
            return other.value == self.value and other.kind in (KIND_YEAR, KIND_DATE, KIND_NUMBER)
        if other.value != self.value:
            return False
        if self.kind == KIND_MONEY and (other.kind != KIND_MONEY or other.currency != self.currency):
            return False
        if self.kind in (KIND_PERCENT, KIND_MULTIPLIER) and other.kind != self.kind:
            return False
        for mine, theirs in ((self.unit, other.unit), (self.per, other.per)):
            if mine and theirs and mine != theirs:
                return False
        return True

    def text_key(self) -> str:
        return " ".join(re.sub(r"[^\w]+", " ", self.text.casefold()).split())


def extract_quantities(text: str) -> list[Quantity]:
    """Every quantity in `text`, in order (see the module docstring for what counts)."""
    text = text[:MAX_TEXT_CHARS]
    if not _DIGIT.search(text):
        return []
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    patterns = [p for p, hint in ((_ISO_DATE, "-" in text), (_MONTH_DATE, _may_name_a_month(text)),
                                  (_TIME, ":" in text)) if hint]  # cheap tests first: verify stays fast
    for pattern in patterns:
        for m in pattern.finditer(text):
            if not _overlaps(taken, m.start(), m.end()):
                taken.append((m.start(), m.end()))
                found.append(_date(m.group(0), m.start(), m.end()))
    for m in _VERSION.finditer(text) if text.count(".") >= 2 else ():
        if not _overlaps(taken, m.start(), m.end()):
            taken.append((m.start(), m.end()))
    for m in _NUMBER.finditer(text):
        if _overlaps(taken, m.start(), m.end()):
            continue
        quantity = _read_number(text, m)
        if quantity is not None:
            found.append(quantity)
    found.sort(key=lambda q: q.start)
    return _share_across_ranges(text, found)


def _may_name_a_month(text: str) -> bool:
    folded = text.casefold()
    return any(prefix in folded for prefix in _MONTH_PREFIXES)


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a < end and start < b for a, b in spans)


def _date(raw: str, start: int, end: int) -> Quantity:
    year = re.search(r"\b(\d{4})\b", raw)
    value = Decimal(year.group(1)) if year else Decimal(0)
    return Quantity(raw, value, KIND_DATE, start=start, end=end)


def _read_number(text: str, m: re.Match) -> Quantity | None:
    start, end = m.start(), m.end()
    before = text[max(0, start - 8):start]
    currency_match = _CURRENCY_BEFORE.search(before)
    currency = None
    left = start
    if currency_match:
        symbol, code = currency_match.groups()
        currency = _CURRENCY_SYMBOLS.get(symbol) if symbol else code
        left = start - len(currency_match.group(0))
    else:
        previous = text[start - 1] if start else ""
        if previous and (previous.isalnum() or previous in "_."):
            return None  # S3, p99, Q3, .5 in a version: not a figure
        if previous == "/" and start >= 2 and text[start - 2].isalpha():
            return None  # HTTP/2
    if text[end:end + 2][:1] in (".",) and text[end + 1:end + 2].isdigit():
        return None  # the head of a version string
    raw_number = m.group(0)
    try:
        value = Decimal(raw_number.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the regex admits only digits
        return None
    rest = text[end:end + 60]
    position = 0
    kind = KIND_NUMBER
    magnitude = _MAGNITUDE_AFTER.match(rest)
    if magnitude:
        factor = _MAGNITUDE_LETTERS.get(magnitude.group(1) or "") or _MAGNITUDE_WORDS[magnitude.group(2).lower()]
        value *= factor
        position = magnitude.end()
    if currency is None:
        after = _CURRENCY_AFTER.match(rest, position)
        if after:
            currency = after.group(1) or _CURRENCY_WORDS[after.group(2).lower()]
            position = after.end()
    unit = per = None
    if currency is not None:
        kind = KIND_MONEY
    elif (percent := _PERCENT_AFTER.match(rest, position)):
        kind, position = KIND_PERCENT, percent.end()
    elif (times := _MULTIPLIER_AFTER.match(rest, position)):
        kind, position = KIND_MULTIPLIER, times.end()
    elif (ordinal := _ORDINAL_AFTER.match(rest, position)):
        position = ordinal.end()
    if kind in (KIND_NUMBER, KIND_MONEY):
        unit_match = _UNIT_AFTER.match(rest, position)
        if unit_match and unit_match.group(1).lower() in _UNITS:
            unit, position = _UNITS[unit_match.group(1).lower()], unit_match.end()
    per_match = _PER_AFTER.match(rest, position)
    if per_match:
        per = _UNITS.get(per_match.group(1).lower())
        if per is not None:
            position = per_match.end()
    if (kind == KIND_NUMBER and unit is None and magnitude is None and "," not in raw_number
            and "." not in raw_number and 1900 <= value <= 2100):
        kind = KIND_YEAR
    return Quantity(text[left:end + position], value, kind, currency, unit, per, left, end + position)


def _share_across_ranges(text: str, found: list[Quantity]) -> list[Quantity]:
    """In a range or list ("10 to 30 percent", "$5-10", "7-, 30- and 90-day"),
    a bare figure takes the kind, unit and magnitude written once for all:
    a leading currency carries forward, a trailing percent, unit or
    magnitude carries back."""
    out = list(found)
    for i in range(len(out) - 2, -1, -1):  # carry back from the right
        a, b = out[i], out[i + 1]
        if b.kind == KIND_MONEY and not b.text[:1].isdigit():
            continue  # "$5-10 and $20": a currency written in front belongs to its own figure
        if _linked(text, a, b) and a.kind == KIND_NUMBER and a.unit is None and b.kind not in SOFT_KINDS:
            value = a.value
            if b.value >= 1000 and a.value < 1000 and _bare(a):  # "1.5 to 2 million": the magnitude too
                factor = _trailing_magnitude(b)
                value = a.value * factor if factor else a.value
            out[i] = Quantity(a.text, value, b.kind, b.currency if b.kind == KIND_MONEY else None,
                              b.unit, b.per, a.start, a.end)
    for i in range(1, len(out)):  # carry a leading currency forward
        a, b = out[i - 1], out[i]
        if (_linked(text, a, b, _RANGE) and a.kind == KIND_MONEY and b.kind in (KIND_NUMBER, KIND_YEAR)
                and b.unit is None):
            out[i] = Quantity(b.text, b.value, KIND_MONEY, a.currency, a.unit, a.per, b.start, b.end)
    return out


def _linked(text: str, a: Quantity, b: Quantity, connector: re.Pattern = None) -> bool:
    gap = text[a.end:b.start]
    return len(gap) <= _BETWEEN_NUMBERS and bool((connector or _CONNECTOR).match(gap))


def _bare(q: Quantity) -> bool:
    return not re.search(r"[A-Za-z%$\u20ac\u00a3]", q.text)


def _trailing_magnitude(q: Quantity) -> Decimal | None:
    m = re.search(r"(thousand|million|billion|trillion)\b", q.text, re.I)
    if m:
        return _MAGNITUDE_WORDS[m.group(1).lower()]
    m = re.search(r"\d(k|K|M|mn|B|bn)\b", q.text)
    return _MAGNITUDE_LETTERS[m.group(1)] if m else None
