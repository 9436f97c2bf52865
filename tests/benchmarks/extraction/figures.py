"""Figure benchmark (issue 44): do the figures of real pages verify when a report states them
honestly, and fail when it states them wrong?

Each passage of a page's main content (a paragraph, list item, table cell or heading, as a
reader sees it, `quotable.stretches`) that holds a digit is an excerpt. For each, the figure
rule (`claims.grounding`, what verify runs) is asked:

- **quoted whole**: the passage as a claim citing itself; every figure must be grounded;
- **restated**: each figure of the passage rendered as a report writes it (`honest_forms`: as
  the reader read it, other separators, cents for a dollar amount below 1, "percent", "times",
  a version with or without its `v` ("version 1" for a one-part `v1`), an hour in minutes) in a
  one-sentence claim citing the passage; each must be grounded;
- **computed**: for two amounts of one currency in the passage, "A is R times B" with R rounded
  to two places; must be grounded;
- **altered** (`altered_forms`): the figure with one digit changed, a digit of another script
  or a letter (l, O) in place of an ASCII one, a vulgar fraction or a numerator form folded on
  ("3½", "3⅟2"), a count one more in words ("13 regions" as "fourteen regions"), or its unit, currency or kind
  swapped; each must be refused with a message naming it, unless the passage happens to state
  the altered figure too (then it is not counted).

    .venv/bin/python tests/benchmarks/extraction/figures.py              # the committed pages
    .venv/bin/python tests/benchmarks/extraction/figures.py --held-out   # the held-out pages

Exits 1 when an honest form is refused or a wrong one verified. `tests/unit/test_figures_benchmark.py`
holds the same properties with hypothesis on the committed pages.
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Iterator

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":
    sys.path[:0] = [str(HERE.parents[2] / "scripts"), str(HERE)]
    from debian_pages import load_held_out  # noqa: E402
    from quotable import KIND_OF, main_element, parse, stretches  # noqa: E402
else:
    from .debian_pages import load_held_out
    from .quotable import KIND_OF, main_element, parse, stretches

from web_research.checks.claims import Claim, ClaimRecord, claims_checks, grounding  # noqa: E402
from web_research.checks import number_words  # noqa: E402
from web_research.checks.number_words import in_words  # noqa: E402
from web_research.checks.quantities import (KIND_DATE, KIND_MONEY, KIND_MULTIPLIER, KIND_NUMBER,  # noqa: E402
                                            KIND_PERCENT, KIND_VERSION, KIND_YEAR, MEASURES, Figure, figures_in,
                                            names_same)

MAX_PASSAGE_CHARS = 1500
# Nouns after which a count in words is no figure (number_words.py): not altered into one.
_NOT_COUNTED = (number_words.NOT_COUNTED_AFTER | number_words.SOURCE_NOUNS | number_words.LABEL_BEFORE
                | set(number_words.number_words()))
_SYMBOLS = {"USD": "$", "EUR": "\u20ac", "GBP": "\u00a3"}
_UNIT_WORDS = {"millisecond": "ms", "second": "seconds", "minute": "minutes", "hour": "hours", "day": "days",
               "week": "weeks", "fortnight": "fortnights", "month": "months", "year": "years", "decade": "decades",
               "byte": "bytes", "kb": "KB", "mb": "MB", "gb": "GB", "tb": "TB", "pb": "PB", "kib": "KiB", "mib": "MiB",
               "gib": "GiB", "tib": "TiB",
               "host": "hosts", "seat": "seats", "user": "users", "event": "events", "request": "requests"}
_SMALLER = {"hour": ("minutes", 60), "minute": ("seconds", 60), "day": ("hours", 24), "week": ("days", 7)}
_FUNCTION_WORDS = frozenset("of in on at to for from by with per and or than as the a an is are was were be".split())
# A digit of another script for each ASCII digit: Devanagari's, which no check reads as a digit.
LOOK_ALIKE = {str(d): chr(0x0966 + d) for d in range(10)}


def page_passages(entry: dict) -> list[str]:
    """The passages of a page's main content that hold an ASCII digit, as a reader sees them."""
    body = gzip.decompress((HERE / entry["html"]).read_bytes()) if "html" in entry else Path(entry["path"]).read_bytes()
    spec = entry["main"]
    if "file" in spec:
        main = main_element(parse(gzip.decompress((HERE / spec["file"]).read_bytes()).decode("utf-8")), "/*")
    else:
        main = main_element(parse(body), spec.get("xpath"))
    out: list[str] = []
    for node in main.iter():
        if not isinstance(node.tag, str) or KIND_OF.get(node.tag.lower()) is None or node.tag.lower() == "pre":
            continue  # code blocks: a report quotes code in backticks, not as prose
        for text in stretches(node):
            text = " ".join(text.split())
            if any(c in "0123456789" for c in text) and len(text) <= MAX_PASSAGE_CHARS:
                out.append(text)
    return out


def committed_entries() -> list[dict]:
    return json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))["pages"]


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _number(value: Decimal, grouped: bool) -> str:
    value = abs(value)
    if grouped and value >= 1000:
        whole = int(value)
        rest = _plain(value - whole)
        return f"{whole:,}" + (rest[1:] if rest != "0" else "")
    return _plain(value)


def renderable(figure: Figure) -> bool:
    """Whether a figure has a short exact form (no 1/3, no huge power)."""
    value = figure.value.normalize()
    exponent = value.as_tuple().exponent
    return isinstance(exponent, int) and -6 <= exponent and abs(value) < Decimal(10) ** 15


def render(figure: Figure, style: str = "plain") -> str | None:
    """The figure as a report writes it, in `style`: plain, grouped (thousands separators),
    minor (cents), words ("twenty-five percent", "seven days", "3 times"), prefix (a version's v),
    converted (a smaller unit)."""
    if figure.kind == KIND_DATE:
        return figure.text if style == "plain" else None
    if figure.kind == KIND_VERSION:
        parts = ".".join(str(p) for p in figure.key)
        if len(figure.key) < 2 and style == "bare":
            return f"version {parts}"  # a bare "1" is a count, which "v1" does not state
        return ("v" + parts) if style == "prefix" or len(figure.key) < 3 and style == "plain" else (
            parts if style in ("plain", "bare") else None)
    if not renderable(figure):
        return None
    sign = "-" if figure.value < 0 else ""
    number = _number(figure.value, style == "grouped")
    per = f" per {figure.per}" if figure.per else ""
    if figure.kind == KIND_MONEY:
        if style == "minor":
            if figure.currency != "USD" or abs(figure.value) >= 1:
                return None
            return f"{sign}{_plain(abs(figure.value) * 100)} cents{per}"
        symbol = _SYMBOLS.get(figure.currency or "")
        unit = f" {_UNIT_WORDS[figure.unit]}" if figure.unit else ""
        return (f"{sign}{symbol}{number}" if symbol else f"{sign}{figure.currency} {number}") + unit + per
    if style == "words" and figure.kind in (KIND_PERCENT, KIND_NUMBER) and not sign and (
            figure.kind == KIND_PERCENT or figure.unit) and figure.value == figure.value.to_integral_value():
        words = in_words(int(figure.value))  # "twenty-five percent", "seven days"
        if words is None or figure.value < 2:
            return None
        return f"{words} {'percent' if figure.kind == KIND_PERCENT else _UNIT_WORDS[figure.unit]}{per}"
    if figure.kind == KIND_PERCENT:
        return f"{sign}{number}%"
    if figure.kind == KIND_MULTIPLIER:
        return f"{sign}{number}" + (" times" if style == "words" else "x")
    if figure.kind == KIND_YEAR:
        return f"in {number}" if style == "plain" else None
    if figure.unit and style == "converted":
        if figure.unit not in _SMALLER:
            return None
        word, factor = _SMALLER[figure.unit]
        return f"{sign}{_plain(abs(figure.value) * factor)} {word}{per}"
    unit = f" {_UNIT_WORDS[figure.unit]}" if figure.unit else (
        f" {figure.noun}" if figure.noun and len(figure.noun) > 1 and figure.noun not in _FUNCTION_WORDS else "")
    return f"{sign}{number}{unit}{per}"


HONEST_STYLES = ("plain", "grouped", "minor", "words", "prefix", "bare", "converted")


def honest_forms(figure: Figure) -> list[str]:
    forms = [render(figure, style) for style in HONEST_STYLES]
    return list(dict.fromkeys(f for f in forms if f))


def altered_forms(figure: Figure) -> list[tuple[str, str]]:
    """(claim figure, how it was altered) for each wrong form of `figure`."""
    plain = render(figure)
    if plain is None or figure.kind == KIND_DATE:
        return []
    out: list[tuple[str, str]] = []
    digits = [i for i, c in enumerate(plain) if c.isdigit()]
    if digits:
        i = digits[-1]
        out.append((plain[:i] + str((int(plain[i]) + 1) % 10) + plain[i + 1:], "digit"))
        j = digits[0]
        out.append((plain[:j] + LOOK_ALIKE[plain[j]] + plain[j + 1:], "look-alike"))
        letters = {"1": "l", "0": "O"}
        k = next((d for d in digits if plain[d] in letters), None)
        if k is not None and len(digits) > 1:  # a digit stays: "l2", "1O" (a lone "l" is a word)
            out.append((plain[:k] + letters[plain[k]] + plain[k + 1:], "letter for digit"))
    if figure.kind in (KIND_NUMBER, KIND_MONEY) and figure.value == figure.value.to_integral_value() and digits:
        i = digits[-1]
        out.append((plain[:i + 1] + "\u00bd" + plain[i + 1:], "folded fraction"))
        out.append((plain[:i + 1] + "\u215f2" + plain[i + 1:], "numerator form"))
    counted = figure.noun if figure.noun and figure.noun.isalpha() and figure.noun not in _NOT_COUNTED else None
    if figure.kind == KIND_NUMBER and 1 < figure.value < 98 and figure.value == int(figure.value) and digits \
            and plain[:digits[-1] + 1].isdigit() and (figure.unit or counted):
        words = in_words(int(figure.value) + 1)
        out.append((f"{words}{plain[digits[-1] + 1:]}" if figure.unit else f"{words} {counted}", "count in words"))
    swapped = _swapped(figure, plain)
    if swapped:
        out.append((swapped, "unit"))
    return out


def _swapped(figure: Figure, plain: str) -> str | None:
    if figure.kind == KIND_MONEY and figure.currency in ("USD", "EUR") and not figure.unit and not figure.per:
        return plain.replace("$", "\u20ac") if figure.currency == "USD" else plain.replace("\u20ac", "$")
    if figure.kind == KIND_PERCENT:
        return plain.replace("%", "x")
    if figure.kind == KIND_MULTIPLIER:
        return plain.replace("x", "%")
    if figure.kind == KIND_NUMBER and not figure.per:
        measure = MEASURES[figure.unit][0] if figure.unit else None
        number = _number(figure.value, False)
        sign = "-" if figure.value < 0 else ""
        if measure in ("time", "calendar"):
            return f"{sign}{number} GB"
        if measure == "size" or figure.noun and figure.noun not in _FUNCTION_WORDS:
            return f"{sign}{number} years"
    return None


def claim_for(figure_text: str) -> str:
    return f"The page gives {figure_text} here."


def check(claim_text: str, excerpt: str):
    return grounding(Claim(1, claim_text, (1,)), [excerpt])


def message_for(claim_text: str, excerpt: str, result) -> str:
    record = ClaimRecord(Path("report.md"), "report", Claim(1, claim_text, (1,)), [(1, None, excerpt)], result)
    return " ".join(c.message for c in claims_checks([record]) if not c.ok)


def stated_by_passage(altered: str, passage_figures: list[Figure]) -> bool:
    """Whether the passage states the altered figure too (a coincidence, not counted)."""
    mine = figures_in(altered)
    return bool(mine) and all(any(q.matches(p) or names_same(q, p) for p in passage_figures) for q in mine)


def _with_fraction(passage: str, figure: Figure) -> tuple[str, str] | None:
    """The passage with "½" written right after a plain whole number of it ("4" -> "4½"), and
    that number; None when the figure is no such number or cannot be found as written."""
    if figure.kind not in (KIND_NUMBER, KIND_MONEY) or not figure.text[-1:].isdigit():
        return None
    digits = figure.text.lstrip("$\u20ac\u00a3")
    if not digits.isdigit() or len(digits) > 4:
        return None
    found = re.search(r"(?<![\w.,])" + re.escape(figure.text) + r"(?!\w|[.,]\d)", passage)
    if found is None:
        return None
    end = found.end()
    return passage[:end] + "\u00bd" + passage[end:], digits


def measure(passages: Iterator[str], examples: int = 5) -> dict:
    counts = dict.fromkeys(("passages", "figures", "whole_refused", "honest", "honest_refused", "computed",
                            "computed_refused", "altered", "altered_verified", "unnamed"), 0)
    shown: dict[str, list[str]] = {"whole_refused": [], "honest_refused": [], "computed_refused": [],
                                   "altered_verified": [], "unnamed": []}

    by_how: dict[str, int] = {}
    verified_by_how: dict[str, int] = {}

    def note(key: str, text: str) -> None:
        counts[key] += 1
        if len(shown[key]) < examples:
            shown[key].append(text)

    for passage in passages:
        counts["passages"] += 1
        whole = check(passage, passage)
        if not whole.ok:
            note("whole_refused", f"{[q.text for q in whole.missing]} {whole.reasons} in {passage[:160]!r}")
        found = figures_in(passage, bare_words=True)
        counts["figures"] += len(found)
        for figure in found:
            for form in honest_forms(figure):
                counts["honest"] += 1
                if not check(claim_for(form), passage).ok:
                    note("honest_refused", f"{form!r} of {figure.text!r} in {passage[:160]!r}")
            for form, how in altered_forms(figure):
                if how != "look-alike" and stated_by_passage(form, found):
                    continue
                counts["altered"] += 1
                result = check(claim_for(form), passage)
                by_how[how] = by_how.get(how, 0) + 1
                if result.ok:
                    note("altered_verified", f"{how}: {form!r} of {figure.text!r} in {passage[:160]!r}")
                    verified_by_how[how] = verified_by_how.get(how, 0) + 1
                    continue
                message = message_for(claim_for(form), passage, result)
                named = all(f"'{q.text}'" in message for q in result.missing)
                if not named:
                    note("unnamed", f"{how}: {form!r}: {message[:200]}")
        for figure in found:  # the page writes "4½": the claim's "4.5" is grounded, its "41" never
            fraction = _with_fraction(passage, figure)
            if fraction is None:
                continue
            page, whole = fraction
            if not any(f.value == Decimal(whole) + Decimal("0.5") for f in figures_in(page, bare_words=True)):
                continue  # the insertion made no fraction of it (a date's day, a time)
            counts["honest"] += 1
            if not check(claim_for(f"{whole}.5"), page).ok:
                note("honest_refused", f"'{whole}.5' of '{whole}\u00bd' in {page[:160]!r}")
            folded = f"{whole}1"
            if stated_by_passage(folded, figures_in(page, bare_words=True)):
                continue
            counts["altered"] += 1
            by_how["page fraction folded"] = by_how.get("page fraction folded", 0) + 1
            if check(claim_for(folded), page).ok:
                note("altered_verified", f"page fraction folded: {folded!r} of '{whole}\u00bd' in {page[:160]!r}")
                verified_by_how["page fraction folded"] = verified_by_how.get("page fraction folded", 0) + 1
        money = [f for f in found if f.kind == KIND_MONEY and f.value > 0 and renderable(f) and not f.unit]
        for a, b in zip(money, money[1:]):
            big, small = (a, b) if a.value >= b.value else (b, a)
            if big.currency != small.currency or big.per != small.per:
                continue
            ratio = (big.value / small.value).quantize(Decimal("0.01"))
            counts["computed"] += 1
            claim = f"The page's {render(big)} is {_plain(ratio)}x its {render(small)}."
            if not check(claim, passage).ok:
                note("computed_refused", f"{claim!r} in {passage[:160]!r}")
    return {"counts": counts, "examples": shown,
            "altered_by_kind": {how: (verified_by_how.get(how, 0), n) for how, n in sorted(by_how.items())}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--held-out", action="store_true", help="the held-out pages (installed Debian packages)")
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args(argv)
    if args.held_out:
        entries, notes = load_held_out()
        for line in notes:
            print("skipped:", line)
    else:
        entries = committed_entries()
    start = time.perf_counter()
    result = measure((p for entry in entries for p in page_passages(entry)), args.examples)
    seconds = time.perf_counter() - start
    counts = result["counts"]
    print(f"{len(entries)} pages, {counts['passages']} passages with a digit, {counts['figures']} figures, "
          f"{seconds:.1f} s")
    print(f"quoted whole: {counts['whole_refused']} of {counts['passages']} passages refused")
    print(f"restated honestly: {counts['honest_refused']} of {counts['honest']} forms refused")
    print(f"computed ratios: {counts['computed_refused']} of {counts['computed']} refused")
    print(f"altered: {counts['altered_verified']} of {counts['altered']} verified; "
          f"{counts['unnamed']} refused without naming the figure")
    print("  altered, verified of tried: " + ", ".join(f"{how} {v} of {n}" for how, (v, n) in
                                                      result["altered_by_kind"].items()))
    for key, lines in result["examples"].items():
        for line in lines:
            print(f"  {key}: {line}")
    bad = counts["whole_refused"] + counts["honest_refused"] + counts["computed_refused"] + \
        counts["altered_verified"] + counts["unnamed"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
