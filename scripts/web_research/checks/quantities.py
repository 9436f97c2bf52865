"""The figures a text states, read one way for every check that compares them.

A claim that cites an excerpt must not state a figure the excerpt (or the
cited page's title) does not give. Comparing text would fail on harmless
differences (`1,000` and `1000`, `$0.02/GB` and `$0.02 per GB`, `7-day` and
`7 days`, `10%` and `10 percent`, `$1.5M` and `$1.5 million`, `one million
dollars` and `$1,000,000`), so each figure becomes a `Figure`: a signed value,
a kind (money with its currency, percent, multiplier, plain number, year,
date, version) and, where the text gives one, a unit and a "per" unit.

What is read: every number written in digits, with its sign (`-15%` is not
`15%`, though "fell 15%" states what `-15%` does), its thousands and decimal separators (`1,000,000`, `1.000.000`,
`1 000 000`, `1,5` and `1.000,50` where the reading is unambiguous, and `€1.000` or
`1.500 EUR`: in a euro amount one dot followed by exactly three digits groups thousands,
the European form, while a plain `1.000` or `$1.216` stays a decimal), a
power (`10^6`, which `excerpts.normalize` writes for `10⁶`), a currency
before or after it, a magnitude (`k`, `M`, `million`), a percent, a
multiplier (`1.6x`, `3×`, `3 times`, `3-fold`) and a unit; ranges and lists
(`10 to 30 percent`, `$5-10`) share what is written once for all; versions
(`3.11`, `v1.2.3`), years and dates are figures too. A number written in
words is a figure when a magnitude, a currency, a percent, a multiplier or a
unit goes with it ("one million dollars", "five percent", "seven days"), or
it counts a thing ("two free plans"; not an idiom, a label or the run's own
sources: "one of", "group one", "two vendors", number_words.py), and "a" or
"an" before a unit is one ("a year"). A count is never a year because of its value
("2050 customers" is compared as a number, like any count).

What is not a figure: digits glued to letters (`S3`, `p99`, `Q3`, `HTTP/2`); but a quarter
with its year and a fiscal year are dates ("Q3 2026", "FY26"), and a claim that glues the
look-alike letters l, I or O to digits ("l2") is refused (`unreadable_figures`).

Issue 44 made each figure exact. Only ASCII 0-9 are digits (`unreadable_figures` names any
other script's digit a claim writes, "৪" reading like 8); a vulgar fraction is its value ("4½"
is 4.5, never 41); number words come from one table (number_words.py: "a dozen", "tenfold",
"a tenth", "zero"; "C doubles" and "one of" are none); a figure is matched only in its measure
(`MEASURES`: "1 hour" by "60 minutes", never "3 years" by "3 plans" or "1 TB" by "one of");
`v1.29` is 1.29, and a release names its series (`in_series`, `names_same`); a page's address
names versions and years (`url_identifiers`).

A held-out audit then added: a word of decrease or increase before or after a figure gives it a
direction ("a 25% cut", "$10 less", "up 25%": `direction`); "version 5" is a version; a fraction
is read only where it is one ("4⅟2", "4¹⁄₂", "1/2 the price", "3 out of 4"; "24/7" and "on 1/2"
stay apart) and a claim's "41⁄2" (41/2 or 4 1/2), Roman numerals, circled numbers and letters
for digits ("l2", "1O", a Cyrillic "З0") are refused with their names; "1 hour 30 minutes" is
one duration.

`figures_in(text)` is the reading every caller uses (it normalizes first);
`extract_quantities` reads already-normalized text. Pure, standard library only.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from ..evidence.excerpts import SCRIPT_CHARS, normalize
from . import number_words as number_words_table

KIND_MONEY = "money"
KIND_PERCENT = "percent"
KIND_MULTIPLIER = "multiplier"
KIND_NUMBER = "number"
KIND_YEAR = "year"
KIND_DATE = "date"
KIND_VERSION = "version"
KINDS = (KIND_MONEY, KIND_PERCENT, KIND_MULTIPLIER, KIND_NUMBER, KIND_YEAR, KIND_DATE, KIND_VERSION)
# Kinds whose absence from the cited excerpts is only a warning. None: a year or date is a
# figure like any other (a report's reader cannot tell which ones the check let through).
SOFT_KINDS: tuple[str, ...] = ()

MAX_TEXT_CHARS = 20_000  # a claim longer than this is cut: bounds the work on hostile input
MAX_EXPONENT = 64  # `10^6`, `2^63`: a larger power is not read as one (bounds Decimal's work)

# Units whose spellings are folded; two different known units never match.
_UNITS = {
    **dict.fromkeys(("ms", "millisecond", "milliseconds"), "millisecond"),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "second"),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "minute"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "hour"),
    **dict.fromkeys(("d", "day", "days"), "day"),
    **dict.fromkeys(("wk", "wks", "week", "weeks"), "week"),
    **dict.fromkeys(("fortnight", "fortnights"), "fortnight"),
    **dict.fromkeys(("mo", "mos", "month", "months"), "month"),
    **dict.fromkeys(("yr", "yrs", "year", "years"), "year"),
    **dict.fromkeys(("decade", "decades"), "decade"),
    **dict.fromkeys(("b", "byte", "bytes"), "byte"),
    **dict.fromkeys(("kb", "kilobyte", "kilobytes"), "kb"),
    **dict.fromkeys(("mb", "megabyte", "megabytes"), "mb"),
    **dict.fromkeys(("gb", "gigabyte", "gigabytes"), "gb"),
    **dict.fromkeys(("tb", "terabyte", "terabytes"), "tb"),
    **dict.fromkeys(("pb", "petabyte", "petabytes"), "pb"),
    **{binary: binary for binary in ("kib", "mib", "gib", "tib")},
    **dict.fromkeys(("host", "hosts"), "host"),
    **dict.fromkeys(("seat", "seats"), "seat"),
    **dict.fromkeys(("user", "users"), "user"),
    **dict.fromkeys(("event", "events"), "event"),
    **dict.fromkeys(("request", "requests"), "request"),
}
# What each unit measures, and its size in that measure's base unit: a figure is grounded by one
# of the same measure and size ("1 hour" by "60 minutes", "1 TB" by "1,000 GB"), never by a
# figure of another measure or a count of something else ("3 years" is not "3 plans").
_SECOND, _BYTE = Decimal(1), Decimal(1)
MEASURES: dict[str, tuple[str, Decimal]] = {
    "millisecond": ("time", _SECOND / 1000), "second": ("time", _SECOND), "minute": ("time", Decimal(60)),
    "hour": ("time", Decimal(3600)), "day": ("time", Decimal(86_400)), "week": ("time", Decimal(604_800)),
    "fortnight": ("time", Decimal(1_209_600)),
    "month": ("calendar", Decimal(1)), "year": ("calendar", Decimal(12)), "decade": ("calendar", Decimal(120)),
    "byte": ("size", _BYTE), "kb": ("size", Decimal(10) ** 3), "mb": ("size", Decimal(10) ** 6),
    "gb": ("size", Decimal(10) ** 9), "tb": ("size", Decimal(10) ** 12), "pb": ("size", Decimal(10) ** 15),
    "kib": ("size", Decimal(2) ** 10), "mib": ("size", Decimal(2) ** 20), "gib": ("size", Decimal(2) ** 30),
    "tib": ("size", Decimal(2) ** 40),
    **{count: (count, Decimal(1)) for count in ("host", "seat", "user", "event", "request")},
}
# Words after a number that count nothing ("30 at most", "30 here"): the number stays bare. Not
# "of": "one of the vendors" counts vendors, and grounds no "1 TB".
_NOT_NOUNS = frozenset("""in on at to for from by with per and or than as the a an each every is are was were be
been has have had it its this that which who over under about after before within into out off up down here there
most least only more less now then so too also yet still just""".split())
# Measures a count of anything else never states ("5 users" may be "5 people"; "3 years" is never "3 plans").
DIMENSIONS = frozenset({"time", "calendar", "size"})
# Words that may stand between a number and its unit ("3 more years", "30 calendar days") are any
# word but these, which start another phrase ("3 plans for years": plans are counted).
_NOT_MODIFIERS = frozenset("""of in on at to for from by with per and or than as the a an each every is are was
were be been has have had it its their this that these those which who over under about after before within
than into out off up down""".split())

_CURRENCY_SYMBOLS = {"US$": "USD", "$": "USD", "C$": "CAD", "A$": "AUD", "\u20ac": "EUR", "\u00a3": "GBP",
                     "\u00a5": "JPY", "\u20b9": "INR"}
_CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "INR", "CNY")
_DOT_GROUPED_CURRENCIES = frozenset({"EUR"})  # written `€1.000` for a thousand
_CURRENCY_WORDS = {"dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR"}
_MAGNITUDE_WORDS = number_words_table.MAGNITUDES
_MAGNITUDE_LETTERS = {"k": Decimal(1000), "K": Decimal(1000), "M": Decimal(10) ** 6, "mn": Decimal(10) ** 6,
                      "B": Decimal(10) ** 9, "bn": Decimal(10) ** 9}
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")

# A number in digits, with its separators. Alternatives are tried in order; each is
# unambiguous: `1,000` is a thousand (three digits after a comma), `1,5` and `1,50` are
# decimals, dots group thousands only twice or more (`1.000.000`) or before a decimal comma
# (`1.000,50`), spaces group only after one to three digits (`1 000 000`).
_NUMBER = re.compile(
    r"[0-9]+ [0-9]+\u2044[0-9]+(?![0-9])"          # 4 1/2 (a vulgar fraction after a whole number, "4½")
    r"|[0-9]+\u2044[0-9]+(?![0-9])"               # 1/2 ("½", or a fraction slash)
    r"|[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?(?!,?[0-9])"      # 1,000,000.50 (and "1,600, further": a comma after it)
    r"|[0-9]{1,3}(?:\.[0-9]{3}){2,}(?:,[0-9]+)?(?!\.?[0-9])"  # 1.000.000,50 (and "1.000.000." ending a sentence)
    r"|[0-9]{1,3}(?:\.[0-9]{3})+,[0-9]+(?![.,]?[0-9])"         # 1.000,50
    r"|[0-9]{1,3}(?: [0-9]{3})+(?:[.,][0-9]+)?(?![0-9.,][0-9])"  # 1 000 000
    r"|[0-9]+,[0-9]{1,2}(?![,.]?[0-9])"                   # 1,5
    r"|[0-9]+(?:\.[0-9]+)?"                            # 1000, 1.5
    r"|\.[0-9]+(?!\.?[0-9])")                            # .10 ("$.10")
# A euro amount written the European way: one dot, then exactly three digits ("€1.000").
# Not after a leading zero ("€0.015" is a price per unit).
_DOT_THOUSANDS = re.compile(r"[-+]?([1-9][0-9]{0,2}\.[0-9]{3})(?![0-9.,])")
_POWER = re.compile(r"(?:\^|\*\*)(-?[0-9]{1,3})(?![0-9])")  # 10^6, and Python's 2**63
_E_NOTATION = re.compile(r"[eE]([-+]?[0-9]{1,2})(?![\w.])")  # 1e6, 1.5E9: a power of ten
_SIGN = "-+"
_CURRENCY_BEFORE = re.compile(
    r"(?:(US\$|C\$|A\$|[$\u20ac\u00a3\u00a5\u20b9])|\b(" + "|".join(_CURRENCY_CODES) + r")\s?)$")
_MAGNITUDE_AFTER = re.compile(r"(?:(k|K|M|mn|B|bn)(?![A-Za-z])|\s?(thousand|million|billion|trillion)\b)")
_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b|per\s?cent\b|pct\b)", re.I)
_MULTIPLIER_AFTER = re.compile(r"(?:[x\u00d7](?![A-Za-z0-9])|\s?times\b|-?fold\b)")
_CURRENCY_AFTER = re.compile(r"\s?(?:(" + "|".join(_CURRENCY_CODES) + r")\b|((?i:dollars?|euros?))\b"
                             r"|([\u20ac\u00a3\u00a5\u20b9]))")
# A currency's minor unit: "10 cents" is $0.10, "50 euro cents" is EUR 0.50, "5 pence" is GBP 0.05.
_MINOR_AFTER = re.compile(r"\s?(?:(euro[\s-]?cents?|eurocents?)\b|(cents?)\b|(\u00a2)|(pence)\b)", re.I)
_MINOR_CURRENCIES = ("EUR", "USD", "USD", "GBP")  # by group of _MINOR_AFTER
_HUNDRED = Decimal(100)
_FISCAL_YEAR = re.compile(r"(?:FY|fy)[0-9]{4}")
_ORDINAL_AFTER = re.compile(r"(?:st|nd|rd|th)\b")
_UNIT_AFTER = re.compile(r"(?:-|\s)?([A-Za-z]+)\b")
_PER_AFTER = re.compile(r"\s?(?:/|\bper\s+(?:a\s+|an\s+|each\s+|one\s+)?)\s?([A-Za-z]+)\b")
# Connectors that make a range or a list: "10 to 30 percent", "10-30%", "7, 30 or 90 days", "30- and 90-day".
_CONNECTOR = re.compile(r"^-?\s*(?:-|\u2013|\u2014|to|and|or|,|,\s*or|,\s*and|through|thru)\s*$", re.I)
_RANGE = re.compile(r"^\s*(?:-|\u2013|\u2014|to|through|thru)\s*$", re.I)  # "$5-10", "$5 to 10"
_BETWEEN_NUMBERS = 40
_RANGE_FROM = re.compile(r"^\s*(?:-|\u2013|to|through|thru)\s*$", re.I)

# Spans that are taken whole before numbers are looked at.
_ISO_DATE = re.compile(r"(?<![\w.])([0-9]{4})-([0-9]{2})-([0-9]{2})"
                       r"(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?(?![\w])")
_QUARTER = re.compile(r"\b(?:Q([1-4])\s+(?:FY\s?)?([0-9]{4})|FY\s?([0-9]{4}|[0-9]{2}))\b(?![.,][0-9])")
_TIME = re.compile(r"(?<![\w.:])[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?![\w:])")
_MONTH_DATE = re.compile(
    r"\b(?:([0-9]{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(" + _MONTHS + r")\.?(?:,?\s+([0-9]{4}))?"
    r"|(" + _MONTHS + r")\.?\s+([0-9]{1,2})(?:st|nd|rd|th)?(?:,?\s+([0-9]{4}))?(?![0-9,.][0-9])"
    r"|(" + _MONTHS + r")\.?\s+([0-9]{4}))\b", re.I)
_VERSION = re.compile(r"(?:(?<![\w.])[vV][0-9]+(?:\.[0-9]+)*|(?<=[A-Z])v[0-9]+(?:\.[0-9]+)+"
                      r"|(?<![\w.])[0-9]+(?:\.[0-9]+){2,})(?![\w]|\.\w)")
_COUNT = r"(?:[0-9]{1,3}|" + "|".join(list(number_words_table.UNITS)[1:] + list(number_words_table.TENS)) + ")"
_ONE_IN = re.compile(r"(?<![\w.,$])(" + _COUNT + r") (?:in|out of) (" + _COUNT + r")\b(?![.,][0-9]|\s*(?:%|percent))",
                     re.I)
_VERSION_WORD = re.compile(r"\b(?:version|release|revision|ver\.|rev\.)\s+([vV]?[0-9]{1,4}(?:\.[0-9]{1,4}){0,3})"
                           r"(?![\w%$.,]|[.,][0-9])", re.I)
# "v1.29", "v2": a version however many parts it has; "TLSv1.3" too (not "IPv6": no dot)
_V_DIGIT = re.compile(r"(?<![\w.])[vV][0-9]|(?<=[A-Z])v[0-9]")
_DIGIT = re.compile(r"[0-9]")
# Every month name starts with one of these. Looked for in the casefolded text with `in`: a
# case-insensitive regex alternation scans a claim ten times slower, and casefolding covers each
# letter the pattern's re.I would match (the long s, U+017F, folds to "s").
_MONTH_PREFIXES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# A word of decrease or increase before a figure ("fell 15%", "slashed by $10", "up 25%"; not "up to
# 25%", a bound) or after it ("a 25% cut", "$10 less", "20% lower", "30% more"): the direction a
# change states, read the same way in a claim and a page (`Figure.falling`, `Figure.rising`).
_FALL_VERBS = (r"fell|falls?|falling|fallen|dropped|dropping|drops?|decreased?|decreasing|declined?|declining|"
               r"cuts?|cutting|reduced?|reducing|lowered|lowers?|shrank|shrunk|slashed|slash(?:es|ing)?|"
               r"discounted|trimmed|trims?|plunged|plummeted|tumbled|sank|dipped|slid|saves?|saved|saving")
_RISE_VERBS = (r"rose|rises?|rising|risen|grew|grows?|growing|grown|increased?|increasing|jumped|jumps?|climbed|"
               r"climbs?|raised|raises?|hiked?|hiking|gained|gains?|soared|surged|spiked|lifted|boosted")
_FALLING_BEFORE = re.compile(r"\b(?:(?:cheaper|less|smaller|fewer|shorter)\s+by\s+"
                             r"|(?:" + _FALL_VERBS + r"|down|reduction|markdown|lower|discount|savings?)\b(?:\s+(?:by|to|of|"
                             r"in|about|around|some|nearly|almost|over|under|more than|up to))?"
                             r"|(?:" + _FALL_VERBS + r")(?:\s+[A-Za-z']+){1,4}\s+by(?:\s+(?:about|around|some|nearly|"
                             r"almost|over|more than))?)\s*$", re.I)  # "fell 15%", "cut its price by 20%"
_RISING_BEFORE = re.compile(r"\b(?:(?:more\s+expensive|dearer|higher|larger|bigger|greater|longer)\s+by\s+"
                            r"|(?:" + _RISE_VERBS + r"|up|increase|hike|rise)\b(?:\s+(?:by|of|about|around|some|"
                            r"nearly|almost|over|more than))?"
                            r"|(?:" + _RISE_VERBS + r")(?:\s+[A-Za-z']+){1,4}\s+by(?:\s+(?:about|around|some|nearly|"
                            r"almost|over|more than))?)\s*$", re.I)  # "up 25%", "raised the fee by 25%"
# After the figure: a noun of change, maybe after one word ("a 20% price cut"), or a comparative.
_FALLING_AFTER = re.compile(r"[\s-]*(?:(?:[a-z]+[\s-])?(?:cut|cuts|drop|drops|reduction|decrease|decline|fall|discount|"
                            r"markdown|saving|savings)|off|lower|less|cheaper|down|smaller|fewer|shorter)\b", re.I)
_RISING_AFTER = re.compile(r"[\s-]*(?:(?:[a-z]+[\s-])?(?:rise|increase|jump|hike|growth|gain|markup|premium|uplift)"
                           r"|more|higher|dearer|larger|bigger|greater)\b", re.I)
_YEAR_BEFORE = re.compile(r"(?:\b(?:in|since|by|until|till|from|before|after|during|of|year|fy|early|late|mid)"
                          r"[\s-]*|[(,]\s*)$", re.I)

# Numbers in words (the table: number_words.py).
_WORD_UNITS = number_words_table.UNITS
_WORD_TENS = number_words_table.TENS
_MAGNITUDE = r"(?:hundred|thousand|million|billion|trillion)"
_GROUP = "|".join(number_words_table.GROUPS)  # "a dozen", "four score": only after "a" or a number word
_NUMBER_WORD = "|".join(number_words_table.number_words())
# "seven", "twenty-five", "one million", "a million", "half a million", "three hundred thousand", "a dozen",
# "tenfold".
_WORDS = re.compile(r"\b(?:(?:half\s+)?an?\s+(?:" + _MAGNITUDE + "|" + "|".join(number_words_table.GROUPS_AFTER_A)
                    + r")|the\s+(?:" + "|".join(number_words_table.GROUPS_AFTER_A) + r")"
                    + r"|an?\s+(?:" + "|".join(number_words_table.GROUPS_AFTER_A_OF) + r")(?=\s+of\s+(?!(?:"
                    + _NUMBER_WORD + r"|high|low|medium|moderate|critical|none)\b)[A-Za-z])"
                    + r"|(?:" + _NUMBER_WORD + r"))"
                    r"(?:[\s-]+(?:" + _NUMBER_WORD + "|" + _GROUP + r"))*(?:-?" + number_words_table.FOLD
                    + r"|[\s-]+" + number_words_table.AND_A_HALF.replace(" ", r"[\s-]+") + r"(?![\w-]))?\b", re.I)
# "a year", "an hour", "an hour and a half" (`number_words.UNITS_AFTER_A`); "a half-hour", "half a day".
_A_UNIT = re.compile(r"\b(?:(an?)\s+(" + "|".join(number_words_table.UNITS_AFTER_A) + r")(?:s(?= (?:notice|worth)\b))?(\s+"
                     + number_words_table.AND_A_HALF.replace(" ", r"\s+") + r")?"
                     r"|(?:an?\s+)?half[\s-](" + "|".join(number_words_table.UNITS_AFTER_A) + r"))(?!\w|-(?!long\b|old\b)[A-Za-z])",
                     re.I)
_SHARE_OF_BEFORE = re.compile(r"\b(?:half|" + "|".join(number_words_table.DENOMINATORS) + r")\s+(?:of\s+)?$", re.I)
_WORDS_RANGE = re.compile(r"\s*(?:-|to|or)\s*(?:" + _NUMBER_WORD + r")\b", re.I)
_JOINED_DURATION = re.compile(r"\s+(?:and\s+)?")
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s*)$")
_OF_A_UNIT = re.compile(r"\s+of\s+an?\s+(" + "|".join(number_words_table.UNITS_AFTER_A) + r")\b", re.I)
_AND_A_HALF_BEFORE = re.compile(r"\b(?:" + _NUMBER_WORD + r")[\s-]+and[\s-]+an?[\s-]+$", re.I)
_A_UNIT_HINTS = tuple(unit[:4] for unit in number_words_table.UNITS_AFTER_A)
_WORD_HINT = re.compile(r"\b(?:(?:" + _NUMBER_WORD + r")(?:\b|" + number_words_table.FOLD + ")|(?:" + _GROUP + r")\b)",
                        re.I)

# Shares and multiples in words. A share is read as the percent it is ("half" states what "50%"
# does, "a third" 100/3 %), a multiple as a multiplier ("doubled" states what "2x" does). "third"
# and "quarter" alone are ordinals or periods ("a third vendor", "each quarter"), so a singular one
# is a share only where a share reads: "a third of", "by a quarter", "a third cheaper", or
# closing its clause; "half" after "first", "second"... is a period, and a hyphenated word
# ("half-day", "double-check", "third-party") is no figure, but for one of price ("half-price",
# "half-off", "double-rate": what "50% off" or "2x the rate" states).
_DENOMINATOR = "|".join(sorted((w for w in number_words_table.DENOMINATORS if not w.startswith("hal")),
                               key=len, reverse=True))
_SHARES = re.compile(
    r"\b(?:(half|halved|halves|halving)|(" + "|".join(number_words_table.NUMERATORS) + r")[\s-]+(" + _DENOMINATOR
    + r")|(" + "|".join(sorted(number_words_table.MULTIPLES, key=len, reverse=True))
    + r"))\b(?!-(?!(?:price[ds]?|priced|off|rates?|costs?|fees?)\b)[A-Za-z])", re.I)
_SHARE_HINTS = ("half", "halv", "third", "quarter", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
                "twentieth", "hundredth", "thousandth", "doubl", "twice", "tripl", "thrice", "quadrupl")
_NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")
_PREVIOUS_WORD = re.compile(r"([A-Za-z]+)\s+$")
_AFTER_A_NUMBER = re.compile(r"[0-9](?:-bit)?\s+$")
_SHARE_AFTER = re.compile(r"\s+(?:of|more|less|fewer|lower|higher|cheaper|faster|slower|smaller|larger|bigger)\b"
                          r"|\s*(?:[.,;:)]|$)", re.I)
_PERIOD_BEFORE = re.compile(r"\b(?:first|second|other|latter|former|last|next|this|back|front|top|bottom|upper|lower)"
                            r"\s+$", re.I)
_IN_BEFORE = re.compile(r"\b(?:in|within)\s+$", re.I)  # "in a quarter": a period of time
# Every word that may stand inside a figure or between the ends of a range: a reader that only
# needs to know whether a place of a text may touch a figure looks a word up here first.
FIGURE_WORDS = frozenset((*_UNITS, *_CURRENCY_WORDS, *(c.lower() for c in _CURRENCY_CODES), *_MAGNITUDE_WORDS,
                          *_MONTH_NAMES, *_MONTHS.split("|"), *_WORD_UNITS, *_WORD_TENS,
                          *"""k m b mn bn x times fold percent pct per cent cents pence eurocent eurocents a an of
                          to through thru and or half halved halves halving third thirds quarter quarters double
                          doubled doubles doubling twice triple tripled triples tripling thrice quadruple quadrupled
                          quadruples quadrupling st nd rd th""".split(), *number_words_table.GROUPS,
                          *number_words_table.DENOMINATORS))
_HALF_A_UNIT = re.compile(r"\s+an?\s+")
_HALF_OF_MAGNITUDE = re.compile(r"\s+an?\s+(?:" + _MAGNITUDE + "|" + "|".join(number_words_table.GROUPS_AFTER_A)
                                + r")\b", re.I)


class Figure(NamedTuple):
    """One figure. `text` is as written; `value` is the signed number with its
    magnitude applied (for a date, its year; for a version, 0); `currency` is an
    ISO code for money; `unit` and `per` are folded unit names, or None when
    absent or unknown; `key` is what a date or version is compared by."""

    text: str
    value: Decimal
    kind: str
    currency: str | None = None
    unit: str | None = None
    per: str | None = None
    start: int = 0
    end: int = 0
    key: tuple = ()
    falling: bool = False  # a word of decrease stands beside it ("fell 15%", "a 15% drop", "$10 less")
    noun: str | None = None  # a plain number's next word when it is no unit ("3 plans": "plans"); None: bare
    rising: bool = False  # a word of increase stands beside it ("up 25%", "30% more")

    def matches(self, other: "Figure") -> bool:
        """Whether `other` (from an excerpt or title) states this figure (from a claim).

        The values must be equal, sign included. Money needs money in the same
        currency; a percent, a percent; a multiplier, a multiplier; a version, the
        same version; a date, a date that agrees on every part this one gives (the
        year, month and day it states). A plain number or year may be matched by a
        figure of any kind with that value, or a date in that year. Units and
        per-units conflict only when both sides name a known one.
        """
        if self.kind == KIND_VERSION:
            return other.kind == KIND_VERSION and other.key == self.key
        if self.kind == KIND_DATE:
            return other.kind == KIND_DATE and _date_agrees(self.key, other.key)
        if other.kind == KIND_VERSION:
            parts = version_parts(self)  # "1.29" is "v1.29"; a count ("5 regions") is no "v5"
            return parts is not None and len(parts) >= 2 and parts == other.key
        if other.kind == KIND_DATE:
            return self.kind in (KIND_NUMBER, KIND_YEAR) and self.unit is None and other.value == self.value \
                and bool(other.key) and other.key[0] is not None
        if self.kind == KIND_MONEY and (other.kind != KIND_MONEY or other.currency != self.currency):
            return False
        if self.kind in (KIND_PERCENT, KIND_MULTIPLIER) and other.kind != self.kind:
            return False
        if self.per and other.per and self.per != other.per:
            return False
        return self._measure_agrees(other)

    def _measure_agrees(self, other: "Figure") -> bool:
        """The same value in the same measure: a unit is matched by a unit of its measure (its
        size converted) or by a bare number ("| 30 |"), never by a count of something else."""
        mine, theirs, a, b = self.unit, other.unit, self.value, other.value
        if mine and theirs:
            (measure, size), (their_measure, their_size) = MEASURES[mine], MEASURES[theirs]
            if measure != their_measure:
                return False
            a, b = a * size, b * their_size
        elif mine and other.noun is not None and MEASURES[mine][0] in DIMENSIONS:
            return False  # "3 plans", "one of" state no duration or size
        elif theirs and self.noun is not None and MEASURES[theirs][0] in DIMENSIONS:
            return False
        if (self.falling and other.rising) or (self.rising and other.falling):
            return False  # "fell 15%" is not "rose 15%"
        return a == b or (a == -b and (self.falling or other.falling))  # "fell 15%" states "-15%"

    def text_key(self) -> str:
        return " ".join(re.sub(r"[^\w]+", " ", self.text.casefold()).split())


Quantity = Figure  # the older name, kept for callers


def figures_in(text: str, bare_words: bool = False) -> list[Figure]:
    """Every figure `text` states, in order: the one reading of a figure that the
    checks, the claim text and the prompts' figure rule share. Normalizes first
    (`excerpts.normalize`), so any text can be passed as written.

    `bare_words`: also a number in words with nothing to qualify it ("three regions"). A
    claim's "two vendors" or "one of" states no figure, but an excerpt's "three regions" gives the 3
    that a claim's "3 regions" states: what grounds a figure reads them (claims.grounding)."""
    return extract_quantities(readable(text), bare_words)


def readable(text: str) -> str:
    """`text` as the figure reader reads it: normalized, an em dash set apart (an em dash is
    punctuation, never a minus sign). Figure positions are positions in this text."""
    if "\u2014" in text or "\u2015" in text:
        text = text.replace("\u2014", " \u2014 ").replace("\u2015", " \u2015 ")
    if not text.isascii():
        if _VULGAR_AFTER_DIGIT.search(text):
            text = _VULGAR_AFTER_DIGIT.sub(r"\1 \2", text)  # "4½", "4⅟2": 4 1⁄2, never 41⁄2 (NFKC joins them)
        if "\u2044" in text:
            text = _SCRIPT_FRACTION.sub(_script_fraction, text)  # "4¹⁄₂" is 4 1⁄2, not 4 to the power 1
    text = normalize(text)
    if "/" in text:
        text = _ASCII_FRACTION.sub(_ascii_fraction, text)
    return text


_VULGAR_AFTER_DIGIT = re.compile("([0-9])([\u00bc-\u00be\u2150-\u215f\u2189])")
_SCRIPT_FRACTION = re.compile("([0-9]?)([\u00b9\u00b2\u00b3\u2070\u2074-\u2079]+)\u2044([\u2080-\u2089]+)")
# "1/2", "3/4 of users", "9/10": a fraction where it reads as one (a one-digit numerator below a
# usual denominator, standing alone); "24/7", "50/50", "1/2/2026", "10/100 Mbps" and "on 1/2" (a
# date) stay two numbers.
_ASCII_FRACTION = re.compile(r"(?<![\w/.,^$\u20ac\u00a3-])([1-9])/(16|12|10|[2-8])(?![\w/]|[.,:][0-9])")
_DATE_WORD_BEFORE = re.compile(r"\b(?:on|by|since|until|till|from|before|after|due|dated?)\s+$", re.I)


def _script_fraction(m: re.Match) -> str:
    whole, numerator, denominator = m.groups()
    fraction = unicodedata.normalize("NFKC", numerator) + "\u2044" + unicodedata.normalize("NFKC", denominator)
    return f"{whole} {fraction}" if whole else fraction


def _ascii_fraction(m: re.Match) -> str:
    numerator, denominator = int(m.group(1)), int(m.group(2))
    if numerator >= denominator or _DATE_WORD_BEFORE.search(m.string, max(0, m.start() - 8), m.start()):
        return m.group(0)
    return f"{numerator}\u2044{denominator}"


# Words that stand before a count, not a name: "Top 10", "Over 500", "Save 20".
_NOT_NAMES = frozenset("""top best worst over under only about around nearly almost up to from for with at by of in on
and or the a an all first last next every per save get just more than less fewer now since until after before within
plus""".split())
_NAME_BEFORE = re.compile(r"(?<![\w'\u2019.$\u20ac\u00a3])([A-Za-z][\w+#]*(?:\.[A-Za-z][\w+#]*)*)\s$")  # Node.js 20
_PLAIN_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_WORD_AFTER = re.compile(r"\s+[A-Za-z]")


def identifiers_in(text: str) -> list[Figure]:
    """The figures of `text` that name rather than measure: versions, years and dates, a
    plain number written right after a name with a capital ("Python 3.11", "Windows 11",
    "Pricing 2026"; not "Top 10"), and a year standing alone ("Acme pricing 2026 | Acme").
    Never an amount, a percent, a multiplier or a count ("500 hosts", "$15/host")."""
    text = readable(text)
    return [f for f in extract_quantities(text) if is_identifier(text, f, standalone_year=True)]


def is_identifier(text: str, figure: Figure, standalone_year: bool = False) -> bool:
    """Whether `figure` (read from `text`, as `readable` gives it) names rather than measures
    (see `identifiers_in`). A bare four-digit number from 1900 to 2100 is a year when
    `standalone_year` says so only where no word follows it ("2050 customers" is a count)."""
    if figure.kind in (KIND_VERSION, KIND_DATE, KIND_YEAR):
        return True
    if figure.kind != KIND_NUMBER or figure.unit or figure.per or not _PLAIN_NUMBER.fullmatch(figure.text):
        return False
    if len(figure.text) == 4 and figure.text.isdigit() and 1900 <= figure.value <= 2100:
        if not standalone_year or not _WORD_AFTER.match(text, figure.end):
            return True
    name = _NAME_BEFORE.search(text, max(0, figure.start - 40), figure.start)
    return bool(name) and any(c.isupper() for c in name.group(1)) and name.group(1).casefold() not in _NOT_NAMES


# What makes a figure unreadable: a digit of another script, and number words that read two ways.
_COMPOUND = re.compile(r"\b(?:" + "|".join(w for w, v in _WORD_UNITS.items() if 0 < v < 10) + r")-(?:"
                       + "|".join(_WORD_TENS) + r")\b", re.I)


_ROMAN = re.compile(r"(?<![\w.'\u2019-])(?=[IVX]{2})(X{0,3})(IX|IV|V?I{0,3})(?![\w.'\u2019-])")
_ROMAN_COUNTED = re.compile(r"\s+([a-z]+)\b")
_LOOK_ALIKE = re.compile(r"(?<![\w.,'\u2019])[-+]?[$\u20ac\u00a3]?[vV]?([0-9lIO][0-9lIO.,]*)(?<![.,])"
                         r"(?:x|k|K|M|B|bn|mn|ms|s|h|d|[KMGTP]i?B)?(?![\w'\u2019-])")  # "l0x", "1OGB"
# A letter of a script with Latin look-alikes glued to a digit ("З0" with a Cyrillic Ze for 3).
_LETTER_BY_DIGIT = re.compile(r"[^\W\d_](?=[0-9])|(?<=[0-9])[^\W\d_]")
_LOOK_ALIKE_SCRIPTS = ("CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "LATIN SMALL LETTER DOTLESS",
                       "LATIN CAPITAL LETTER SMALL", "LATIN LETTER SMALL", "MODIFIER LETTER")
_GLUED_FRACTION = re.compile("(?<![0-9])([0-9]{2,})\u2044([0-9]+)")  # "41⁄2": 41/2 or 4 1/2
_NUMBER_FORMS_READ = frozenset("\u00bc\u00bd\u00be\u2189" + "".join(map(chr, range(0x2150, 0x2160))))


def unreadable_figures(text: str) -> list[tuple[str, str]]:
    """(what, why) for each figure of `text`, as written, that no check can read as it means:
    a digit of another script or form (only ASCII 0-9 are digits: "৪" is BENGALI DIGIT FOUR,
    which looks like 8; a full-width "１" is refused as well), and number words that read two
    ways ("two-fifty": 2.50 or 250). A claim stating one is refused with this reason."""
    text = text[:MAX_TEXT_CHARS]
    found: list[tuple[str, str]] = []
    if not text.isascii():
        for char in dict.fromkeys(c for c in text if not c.isascii() and _number_character(c)):
            name = unicodedata.name(char, f"U+{ord(char):04X}")
            found.append((char, f"'{char}' is {name}, not a digit the check reads: write the figure in ASCII digits 0-9"))
        if "\u2215" in text:
            found.append(("\u2215", "'\u2215' is DIVISION SLASH: write a fraction as a decimal or with '/'"))
    if "I" in text or "V" in text or "X" in text:
        for m in _ROMAN.finditer(text):
            counted = _ROMAN_COUNTED.match(text, m.end())
            before = text[max(0, m.start() - 2):m.start()]
            if m.group(0) not in ("", "XXX") and counted and _counted_word(counted.group(1)) \
                    and not re.search(r"[A-Z]\w*\s$", text[max(0, m.start() - 24):m.start()]) and "/" not in before:
                found.append((m.group(0), f"'{m.group(0)}' is a Roman numeral: write the figure in digits 0-9"))
    if not text.isascii():
        for m in _LETTER_BY_DIGIT.finditer(text):
            letter = m.group(0)
            if letter.isalpha() and unicodedata.name(letter, "").startswith(_LOOK_ALIKE_SCRIPTS):
                found.append((letter, f"'{letter}' is {unicodedata.name(letter)}, beside a digit: write the figure "
                                      "in digits 0-9"))
    for m in _LOOK_ALIKE.finditer(text):
        token = m.group(1)
        if _look_alike(token, text, m.end()):
            letters = "".join(dict.fromkeys(c for c in token if c in "lIO"))
            how = "mixes the letter(s) {} with digits".format(letters) if any(c.isdigit() for c in token) else \
                "writes letters that look like digits"
            found.append((m.group(0), f"'{m.group(0)}' {how}: write the figure in digits 0-9"))
    if "\u2044" in text:
        for m in _GLUED_FRACTION.finditer(text):
            found.append((m.group(0), f"'{m.group(0)}' may read as {m.group(1)}/{m.group(2)} or as {m.group(1)[:-1]} "
                                      f"{m.group(1)[-1]}/{m.group(2)}: write a decimal"))
    if "-" in text:
        for m in _COMPOUND.finditer(text):
            found.append((m.group(0), f"'{m.group(0)}' reads as 2.50 or as 250: write the figure in digits"))
    return found


def _counted_word(word: str) -> bool:
    """Whether a word after a Roman numeral is what it counts: a unit or a plural noun ("XII
    regions"), not a word that merely ends in s ("XXX this", "IV is")."""
    return word in _UNITS or (len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))
                              and word not in _NOT_NOUNS)


def _number_character(char: str) -> bool:
    """A character that writes a number but is no ASCII digit and no form the reader reads (a
    vulgar fraction, a superscript): another script's digit, a Roman numeral (U+216B), a circled
    or parenthesized number."""
    category = unicodedata.category(char)
    if category in ("Nd", "Nl"):
        return True
    return category == "No" and char not in _NUMBER_FORMS_READ and char not in SCRIPT_CHARS


def _look_alike(token: str, text: str, end: int) -> bool:
    """Whether a token of digits and the letters l, I or O reads as a figure written with a
    letter for a digit ("l2 regions", "1O hosts", "$l0"): a lower-case l anywhere, any of them
    after a digit, a leading O before a decimal point ("O.5"), and a leading I before a
    lower-case word ("I2 regions"; "O2", "I2C" name things)."""
    if not any(c.isdigit() for c in token):  # "lO regions", "lOO hosts": letters standing for 10, 100
        return token[0] == "l" and "O" in token and bool(re.match(r"\s+[a-z]", text[end:end + 3]))
    if not any(c in "lIO" for c in token):
        return False
    if "l" in token or token[0].isdigit() or token[:2] in ("O.", "O,"):
        return True
    return token[0] == "I" and bool(re.match(r"\s+[a-z]", text[end:end + 3]))


_URL_PART = re.compile(r"(?:[vV])?[0-9]{1,4}(?:\.[0-9]{1,4}){0,3}")
_URL_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def url_identifiers(url: str) -> list[Figure]:
    """The versions and years a page's URL path names, one per path segment that is only one
    (`/docs/15/`, `/3.11/library/`, `/v1.29/`, `/2024/05/`): a page's address names what it
    documents as its title does. Identifiers only: a claim's amount or count is never grounded
    by them (claims.grounding uses them as titles)."""
    path = url.split("://", 1)[-1].partition("/")[2].split("?", 1)[0].split("#", 1)[0]
    out: list[Figure] = []
    for segment in path.split("/")[:12]:
        date = _URL_DATE.fullmatch(segment)
        if date:  # "/2024-01-01/": an API version written as a date
            out.append(Figure(segment, Decimal(date.group(1)), KIND_DATE,
                              key=(int(date.group(1)), int(date.group(2)), int(date.group(3)))))
            continue
        if not _URL_PART.fullmatch(segment):
            continue
        parts = tuple(int(p) for p in segment.lstrip("vV").split("."))
        if len(parts) >= 3 or segment[:1] in "vV":
            out.append(Figure(segment, Decimal(0), KIND_VERSION, key=parts))
        elif len(parts) == 1 and len(segment) == 4 and 1900 <= parts[0] <= 2100:
            out.append(Figure(segment, Decimal(segment), KIND_YEAR))
        else:
            out.append(Figure(segment, Decimal(segment), KIND_NUMBER))
    return out


def states_a_figure(text: str) -> bool:
    """Whether `text` states at least one figure (see `figures_in`)."""
    return bool(figures_in(text))


def extract_quantities(text: str, bare_words: bool = False) -> list[Figure]:
    """Every figure in already-normalized `text`, in order (see the module docstring and
    `figures_in` for `bare_words`)."""
    text = text[:MAX_TEXT_CHARS]
    has_digit = bool(_DIGIT.search(text))
    folded = text.casefold()
    has_share = any(hint in folded for hint in _SHARE_HINTS)
    if not has_digit and not has_share and not _WORD_HINT.search(text) and not _A_UNIT.search(text):
        return []
    found: list[Figure] = []
    taken: list[tuple[int, int]] = []
    if " in " in text or " out of " in text:
        _read_one_in(text, found, taken)
    if has_digit:
        _read_dates(text, found, taken)
        for m in _VERSION.finditer(text) if text.count(".") >= 2 or _V_DIGIT.search(text) else ():
            if not _overlaps(taken, m.start(), m.end()) and not _is_dotted_thousands(m.group(0)):
                taken.append((m.start(), m.end()))
                found.append(Figure(m.group(0), Decimal(0), KIND_VERSION, start=m.start(), end=m.end(),
                                    key=tuple(int(p) for p in m.group(0).lstrip("vV").split("."))))
        if "ver" in folded or "rel" in folded or "rev" in folded:
            _read_named_versions(text, found, taken)
        for m in _NUMBER.finditer(text):
            if _overlaps(taken, m.start(), m.end()):
                continue
            figure = _read_number(text, m.start(), m.end(), _number_value(m.group(0)))
            if figure is not None:
                found.append(figure)
                taken.append((figure.start, figure.end))
    if any(hint in folded for hint in _A_UNIT_HINTS) and ("a" in folded or "half" in folded):
        _read_units_of_one(text, found, taken)
    if has_share:
        _read_shares(text, found, taken)
    for m in _WORDS.finditer(text):
        if not _overlaps(taken, m.start(), m.end()):
            figure = _read_words(text, m, bare_words)
            if figure is not None:
                found.append(figure)
    found.sort(key=lambda q: q.start)
    return _joined_durations(text, _share_across_ranges(text, found))


def _joined_durations(text: str, found: list[Figure]) -> list[Figure]:
    """"1 hour 30 minutes", "2 years and 6 months": one duration in the smaller unit (90 minutes),
    as a reader takes it; a list of one unit ("7, 30 or 90 days") stays a list."""
    out: list[Figure] = []
    for figure in found:
        last = out[-1] if out else None
        if (last is not None and last.kind == figure.kind == KIND_NUMBER and last.unit and figure.unit
                and MEASURES[last.unit][0] == MEASURES[figure.unit][0]
                and MEASURES[last.unit][1] > MEASURES[figure.unit][1] and last.per is None and figure.per is None
                and _JOINED_DURATION.fullmatch(text, last.end, figure.start)):
            size = MEASURES[figure.unit][1]
            total = (last.value * MEASURES[last.unit][1] + figure.value * size) / size
            out[-1] = Figure(text[last.start:figure.end], total, KIND_NUMBER, unit=figure.unit, start=last.start,
                             end=figure.end, falling=last.falling, rising=last.rising)
        else:
            out.append(figure)
    return out


def _read_one_in(text: str, found: list[Figure], taken: list[tuple[int, int]]) -> None:
    """"1 in 4", "one in four", "3 out of 4": the share it is (25%, 75%), read the same way in a
    claim and a page; only a smaller count in a larger one up to 100."""
    for m in _ONE_IN.finditer(text):
        numerator, denominator = (_count_value(g) for g in m.groups())
        if numerator is None or denominator is None or not 0 < numerator < denominator <= 100 \
                or _overlaps(taken, m.start(), m.end()) or text[m.start() - 1:m.start()] in ("$", ".") \
                or _duration_follows(text, m.end()):
            continue  # "5 in 10 minutes" counts no share
        taken.append((m.start(), m.end()))
        found.append(Figure(m.group(0), Decimal(100 * numerator) / denominator, KIND_PERCENT, start=m.start(),
                            end=m.end()))


def _count_value(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return _WORD_UNITS.get(word.lower(), _WORD_TENS.get(word.lower()))


def _read_named_versions(text: str, found: list[Figure], taken: list[tuple[int, int]]) -> None:
    """"version 5", "release 3.2", "rev. 4": the number a version word names is a version
    (`/v5/` in a page's address names it), not a count; not before a unit ("version 2 days")."""
    for m in _VERSION_WORD.finditer(text):
        if _overlaps(taken, m.start(1), m.end(1)):
            continue
        unit = _UNIT_AFTER.match(text, m.end())
        if unit and _unit_word(unit.group(1)):
            continue
        number = m.group(1).lstrip("vV")
        taken.append((m.start(1), m.end(1)))
        found.append(Figure(m.group(1), Decimal(0), KIND_VERSION, start=m.start(1), end=m.end(1),
                            key=tuple(int(p) for p in number.split("."))))


def _is_dotted_thousands(raw: str) -> bool:
    return bool(re.fullmatch(r"[0-9]{1,3}(?:\.[0-9]{3}){2,}", raw))


def _read_dates(text: str, found: list[Figure], taken: list[tuple[int, int]]) -> None:
    if "Q" in text or "FY" in text:  # "Q3 2026", "FY26": a quarter or a fiscal year is a date
        for m in _QUARTER.finditer(text):
            quarter, year = m.group(1), m.group(2) or m.group(3)
            year_value = int(year) + (2000 if len(year) == 2 else 0)
            taken.append((m.start(), m.end()))
            found.append(Figure(m.group(0), Decimal(year_value), KIND_DATE, start=m.start(), end=m.end(),
                                key=(year_value, None, None, int(quarter) if quarter else None)))
    if "-" in text:  # cheap tests first: verify stays fast
        for m in _ISO_DATE.finditer(text):
            taken.append((m.start(), m.end()))
            found.append(Figure(m.group(0), Decimal(m.group(1)), KIND_DATE, start=m.start(), end=m.end(),
                                key=(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    if _may_name_a_month(text):
        for m in _MONTH_DATE.finditer(text):
            if _overlaps(taken, m.start(), m.end()):
                continue
            g = m.groups()
            day, month, year = (g[0], g[1], g[2]) if g[1] else (g[4], g[3], g[5]) if g[3] else (None, g[6], g[7])
            key = (int(year) if year else None, _month_number(month), int(day) if day else None)
            taken.append((m.start(), m.end()))
            found.append(Figure(m.group(0), Decimal(year or 0), KIND_DATE, start=m.start(), end=m.end(), key=key))
    if ":" in text:
        for m in _TIME.finditer(text):
            if not _overlaps(taken, m.start(), m.end()):
                taken.append((m.start(), m.end()))
                found.append(Figure(m.group(0), Decimal(0), KIND_DATE, start=m.start(), end=m.end(),
                                    key=("time", m.group(0))))


def version_parts(figure: Figure) -> tuple[int, ...] | None:
    """The parts of a version a figure names: a version's own, or those of a plain number written
    `1.29` or `15` with nothing around it (a claim's "Kubernetes 1.29" is the page's "v1.29")."""
    if figure.kind == KIND_VERSION:
        return figure.key
    if figure.kind in (KIND_NUMBER, KIND_YEAR) and not figure.unit and _PLAIN_NUMBER.fullmatch(figure.text):
        return tuple(int(part) for part in figure.text.split("."))
    return None


def names_same(figure: Figure, other: Figure) -> bool:
    """Whether `other` names what identifier `figure` names: a dotted version or number by its
    parts (3.10 is not 3.1, though equal in value; 3.11 is v3.11 and is named by its release
    3.11.2), anything else as `Figure.matches` says."""
    mine = version_parts(figure)
    if mine is None or (len(mine) < 2 and figure.kind != KIND_VERSION):  # "Windows 11", a year: by value
        return figure.matches(other) or (mine is not None and other.kind == KIND_VERSION and (
            other.key == mine or in_series(figure, other)))  # "Node.js 20" by v20.1.0
    return version_parts(other) == mine or in_series(figure, other)


def in_series(figure: Figure, release: Figure) -> bool:
    """Whether `release` (a version) is a release of the series `figure` names: 3.11.2 of 3.11,
    never 3.11 of 3.11.2."""
    parts = version_parts(figure)
    theirs = release.key if release.kind == KIND_VERSION else version_parts(release)  # "16.2" as "v16.2"
    if release.kind != KIND_VERSION and (release.kind != KIND_NUMBER or not figure.kind == KIND_VERSION):
        theirs = None  # a plain "16.2" names a release only of a series a version word names ("version 16")
    return theirs is not None and parts is not None and len(parts) < len(theirs) and theirs[:len(parts)] == parts


def _month_number(name: str) -> int:
    folded = name.casefold()[:3]
    return next(i for i, month in enumerate(_MONTH_NAMES, 1) if month.startswith(folded))


def _date_agrees(mine: tuple, theirs: tuple) -> bool:
    """A claim's date (year, month, day; any may be None) agrees with an excerpt's when
    every part the claim gives is the excerpt's; times compare whole."""
    if not mine or not theirs or (mine[0] == "time") != (theirs[0] == "time"):
        return False
    if mine[0] == "time":
        return mine == theirs
    return all(a is None or a == b for a, b in zip(mine, theirs))


def _may_name_a_month(text: str) -> bool:
    folded = text.casefold()
    return any(prefix in folded for prefix in _MONTH_PREFIXES)


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a < end and start < b for a, b in spans)


def _number_value(raw: str) -> Decimal | None:
    """The value of a number as `_NUMBER` matched it, its separators read."""
    if "\u2044" in raw:  # a fraction, after a whole number or alone
        whole, _, fraction = raw.rpartition(" ")
        numerator, _, denominator = fraction.partition("\u2044")
        if int(denominator) == 0:
            return None
        return Decimal(whole or 0) + Decimal(numerator) / Decimal(denominator)
    digits = raw.replace(" ", "")
    if "," in digits and "." in digits:
        if digits.rfind(",") > digits.rfind("."):  # 1.000,50
            digits = digits.replace(".", "").replace(",", ".")
        else:  # 1,000.50
            digits = digits.replace(",", "")
    elif "," in digits:
        head, _, tail = digits.rpartition(",")
        digits = digits.replace(",", "") if len(tail) == 3 else head.replace(",", "") + "." + tail
    elif digits.count(".") >= 2:  # 1.000.000
        digits = digits.replace(".", "")
    try:
        return Decimal(digits)
    except InvalidOperation:  # pragma: no cover - the pattern admits only digits and separators
        return None


def _read_number(text: str, start: int, end: int, value: Decimal | None) -> Figure | None:
    if value is None:
        return None
    currency = None
    left = start
    currency_match = _CURRENCY_BEFORE.search(text[max(0, start - 8):start])
    if currency_match:
        symbol, code = currency_match.groups()
        currency = _CURRENCY_SYMBOLS.get(symbol) if symbol else code
        left = start - len(currency_match.group(0))
    else:
        previous = text[start - 1] if start else ""
        if start >= 2 and _FISCAL_YEAR.fullmatch(text, start - 2, end) and not text[start - 3:start - 2].isalnum():
            return Figure(text[start:end], value, KIND_YEAR, start=start, end=end)  # "FY2026" names 2026
        if previous and (previous.isalnum() or previous in "_.^"):
            return None  # S3, p99, Q3, .5 in a version, the exponent of 10^6: not a figure of its own
        if previous == "/" and start >= 2 and text[start - 2].isalpha():
            return None  # HTTP/2
    if left and text[left - 1] in _SIGN and _is_sign(text, left - 1):
        left -= 1  # -15%, -$15, +3
        if text[left] == "-":
            value = -value
    if text[end:end + 1] == "." and text[end + 1:end + 2].isdigit():
        return None  # the head of a version string the version pattern left
    if text[start] == "." and start and (text[start - 1].isalnum() or text[start - 1] == "."):
        return None  # ".5" after a word or number: not a figure of its own
    raw_number = text[start:end]
    rest = text[end:end + 60]
    position = 0
    power = _POWER.match(rest)
    if power and abs(int(power.group(1))) <= MAX_EXPONENT:
        value, position = value ** int(power.group(1)), power.end()
    elif (power := _E_NOTATION.match(rest)) is not None:
        value, position = value.scaleb(int(power.group(1))), power.end()
    magnitude = _MAGNITUDE_AFTER.match(rest, position)
    if magnitude:
        factor = _MAGNITUDE_LETTERS.get(magnitude.group(1) or "") or _MAGNITUDE_WORDS[magnitude.group(2).lower()]
        value *= factor
        position = magnitude.end()
    if currency is None:
        currency, position, value = _currency_following(rest, position, value)
    if currency is not None:
        value = _amount(raw_number, value, currency)
    return _qualify(text, raw_number, value, currency, left, end, rest, position,
                    magnitude is not None or power is not None)


def _amount(number_text: str, value: Decimal, currency: str | None) -> Decimal:
    """The value of a number read as a currency amount: in euros `1.000` is a thousand (`€1.000`,
    `1.000 EUR`), unless a magnitude or power already scaled it (`€1.500 million`: a decimal).
    Only euros: of the currencies read here, only they are commonly written with a dot between
    thousands, and a dollar or pound price per unit such as `$1.216` per hour is a decimal.
    `number_text` starts with the number as written; `value` is what it was read as."""
    if currency not in _DOT_GROUPED_CURRENCIES:
        return value
    m = _DOT_THOUSANDS.match(number_text)
    return value * 1000 if m and abs(value) == Decimal(m.group(1)) else value


def _currency_following(rest: str, position: int, value: Decimal) -> tuple[str | None, int, Decimal]:
    """(currency, position after it, value in its major unit) of a currency written after a number
    at rest[position:]: a code, a word or a symbol, or a minor unit ("10 cents" is 0.10 dollars)."""
    minor = _MINOR_AFTER.match(rest, position)
    if minor:
        group = next(i for i, g in enumerate(minor.groups()) if g)
        return _MINOR_CURRENCIES[group], minor.end(), value / _HUNDRED
    after = _CURRENCY_AFTER.match(rest, position)
    if after:
        return _currency_after(after), after.end(), value
    return None, position, value


def _currency_after(m: re.Match) -> str:
    code, word, symbol = m.groups()
    return code or (_CURRENCY_WORDS[word.lower()] if word else _CURRENCY_SYMBOLS[symbol])


def _is_sign(text: str, at: int) -> bool:
    """A `-` or `+` at `at` is a sign when it opens a token: at the start, or after a
    space or an opening bracket, and not as the second half of a range ("10 - 15")."""
    if at == 0:
        return True
    previous = text[at - 1]
    if previous in "([{":
        return True
    if not previous.isspace():
        return False
    head = text[max(0, at - 3):at].rstrip()
    return not (head[-1:].isdigit() or head[-1:] in "%")  # "10 -15": a range written loosely


def _qualify(text: str, raw_number: str, value: Decimal, currency: str | None, left: int, end: int,
             rest: str, position: int, scaled: object) -> Figure:
    """The kind, unit and per-unit that follow a number read at text[left:end]."""
    unit = per = None
    kind = KIND_NUMBER
    if currency is not None:
        kind = KIND_MONEY
    elif (percent := _PERCENT_AFTER.match(rest, position)):
        kind, position = KIND_PERCENT, percent.end()
    elif (times := _MULTIPLIER_AFTER.match(rest, position)):
        kind, position = KIND_MULTIPLIER, times.end()
    elif (ordinal := _ORDINAL_AFTER.match(rest, position)):
        position = ordinal.end()
    noun = None
    if kind == KIND_NUMBER and "\u2044" in raw_number and " " not in raw_number and not _unit_follows(rest, position):
        kind, value = KIND_PERCENT, value * _HUNDRED  # "½ of users", "4/5 stars": a share, as "half" and "4 in 5" are
    if kind in (KIND_NUMBER, KIND_MONEY):
        unit_match = _UNIT_AFTER.match(rest, position)
        if unit_match and _unit_word(unit_match.group(1)):
            unit, position = _UNITS[unit_match.group(1).lower()], unit_match.end()
        elif unit_match and kind == KIND_NUMBER and unit_match.group(1).lower() not in _NOT_NOUNS:
            noun = unit_match.group(1).lower()
            second = _UNIT_AFTER.match(rest, unit_match.end())  # "3 more years", "30 calendar days"
            if (second and noun not in _NOT_MODIFIERS and rest[unit_match.end():unit_match.end() + 1] == " "
                    and _unit_word(second.group(1))):
                unit, noun, position = _UNITS[second.group(1).lower()], None, second.end()
    per_match = _PER_AFTER.match(rest, position)
    if per_match:
        per = _UNITS.get(per_match.group(1).lower())
        if per is not None:
            position = per_match.end()
    if (kind == KIND_NUMBER and unit is None and not scaled and raw_number.isdigit() and len(raw_number) == 4
            and _YEAR_BEFORE.search(text[max(0, left - 12):left])):
        kind = KIND_YEAR  # "in 2026", "(2026)": named for the reader; compared like a number
    falling, rising = direction(text, left, end + position) if value > 0 else (False, False)
    return Figure(text[left:end + position], value, kind, currency, unit, per, left, end + position,
                  falling=falling, noun=noun if kind in (KIND_NUMBER, KIND_YEAR) else None, rising=rising)


def direction(text: str, start: int, end: int) -> tuple[bool, bool]:
    """(falling, rising): whether a word of decrease or of increase stands beside the figure at
    text[start:end] (see `_FALLING_BEFORE`)."""
    before = max(0, start - 48)  # "cut its hot storage price by 50%"
    falling = bool(_FALLING_BEFORE.search(text, before, start) or _FALLING_AFTER.match(text, end))
    rising = not falling and bool(_RISING_BEFORE.search(text, before, start) or _RISING_AFTER.match(text, end))
    return falling, rising


def _duration_follows(text: str, end: int) -> bool:
    unit = _UNIT_AFTER.match(text, end)
    return bool(unit and _unit_word(unit.group(1)) and MEASURES[_UNITS[unit.group(1).lower()]][0] in DIMENSIONS)


def _unit_follows(rest: str, position: int) -> bool:
    unit = _UNIT_AFTER.match(rest, position)
    return bool(unit and _unit_word(unit.group(1))) or bool(_PER_AFTER.match(rest, position))


def _unit_word(word: str) -> bool:
    """Whether a word after a number is a unit: a one-letter unit only in lower case ("30d",
    "5 s"), since "2D", "3D" and "4K" name no days, seconds or bytes."""
    return word.lower() in _UNITS and (len(word) > 1 or word.islower())


def _read_words(text: str, m: re.Match, bare: bool = False) -> Figure | None:
    """A number in words, when a magnitude, currency, percent, multiplier or unit goes with it
    (or, with `bare`, any number in words)."""
    words = re.split(r"[\s-]+", m.group(0).lower())
    if number_words_table.ambiguous_compound(words):
        return None  # "two-fifty": 2.50 or 250 (a claim that writes it is refused: `unreadable_figures`)
    start, end = m.start(), m.end()
    rest = text[end:end + 60]
    if words[-1].endswith(number_words_table.FOLD):  # "tenfold", "ten-fold": a multiplier
        head = words[-1][:-len(number_words_table.FOLD)]
        value = _words_value(words[:-1] + [head] if head else words[:-1])
        return Figure(m.group(0), value, KIND_MULTIPLIER, start=start, end=end) if value else None
    half = words[-3:] == number_words_table.AND_A_HALF.split()
    value = _words_value(words[:-3] if half else words) + (Decimal("0.5") if half else 0)
    has_magnitude = words[-1] in _MAGNITUDE_WORDS or words[-1] in number_words_table.GROUPS
    currency, position, value = _currency_following(rest, 0, value)
    figure = _qualify(text, "", value, currency, start, end, rest, position, True)
    following = re.match(r"[\s-]+([A-Za-z]+)", rest)
    if words == ["zero"] and following and following.group(1).lower() in number_words_table.ZERO_COMPOUNDS:
        return None  # "zero trust", "zero-day": a kind of thing
    if figure.unit == "day" and value == 1 and _one_day_is_a_time(text, start, figure.end):
        return None  # "One day, ...": a time
    qualified = figure.kind != KIND_NUMBER or figure.unit is not None
    zero = words == ["zero"] and not re.match(r"-[A-Za-z]", rest)
    if not (has_magnitude or qualified or zero or bare or _counts(text, start, words, rest)):
        return None  # "one of them", "the cheaper one", "two-factor", "zero-day": no figure
    return figure


def _counts(text: str, start: int, words: list[str], rest: str) -> bool:
    """Whether count words stand before what they count ("two free plans", "Three vendors"), not
    in an idiom (`number_words.NOT_COUNTED_AFTER`, `PRONOUN_ONE_AFTER`)."""
    if _WORDS_RANGE.match(rest):
        return True  # "two to three days", "one or two regions": the first end of a range
    following = re.match(r" ([A-Za-z]+)\b(?!-)(?: ([A-Za-z]+))?", rest)
    if following is None or following.group(1).lower() in number_words_table.NOT_COUNTED_AFTER:
        return False
    if {w.lower() for w in following.groups() if w} & number_words_table.SOURCE_NOUNS:
        return False
    previous = _PREVIOUS_WORD.search(text, max(0, start - 16), start)
    before = previous.group(1).lower() if previous else ""
    if before in number_words_table.LABEL_BEFORE or (previous and (
            text[start].isupper() or previous.group(1)[0].isupper() and not _SENTENCE_START.search(text[:previous.start()]))):
        return False  # "group one", "Formula One", "Group Two": a label
    if words == ["one"] and before in number_words_table.BEING_BEFORE:
        return bool(re.search(r"\bthere\s+\w+\s+$", text[max(0, start - 24):start], re.I))  # "there is one plan"
    if words == ["one"]:
        return bool(before) and before not in number_words_table.PRONOUN_ONE_AFTER | number_words_table.IDIOM_ONE_AFTER \
            and not re.search(r"[.!?:;]\s*$", text[:previous.start() + len(previous.group(1))] if previous else "")
    return before not in number_words_table.SET_BEFORE


def _one_day_is_a_time(text: str, start: int, end: int) -> bool:
    """"One day, ...", "one day the price rose": a time, not a duration of one day."""
    after = re.match(r"\s*(,|[A-Za-z]+)", text[end:end + 16])
    return bool(after) and (after.group(1) == "," or after.group(1).lower() in number_words_table.ONE_DAY_TIME_BEFORE)


def _read_units_of_one(text: str, found: list[Figure], taken: list[tuple[int, int]]) -> None:
    """"a year", "an hour and a half", "a half-hour" (`_A_UNIT`); not a rate ("$10 a month",
    "twice a year": `number_words.RATE_BEFORE`)."""
    for m in _A_UNIT.finditer(text):
        if _overlaps(taken, m.start(), m.end()):
            continue
        article, unit, and_half, half_unit = m.groups()
        if article:
            if _SHARE_OF_BEFORE.search(text, max(0, m.start() - 24), m.start()):
                continue  # "half a day", "three quarters of an hour": a share of a unit (`_read_shares`)
            previous = re.search(r"(\S+)\s+$", text[max(0, m.start() - 24):m.start()])
            word = previous.group(1).lower().strip(".,;:") if previous else ""
            if word in number_words_table.RATE_BEFORE or word in _UNITS or word in _CURRENCY_WORDS \
                    or any(c.isdigit() for c in word):
                continue
            clause = re.split(r"[.;:!?]\s", text[max(0, m.start() - 60):m.start()])[-1]
            if word not in number_words_table.DURATION_BEFORE and re.search(r"[0-9%]|\b(?:" + _NUMBER_WORD + r")\b",
                                                                            clause, re.I):
                continue  # "5 GB of logs a day": a rate of what the clause counts
            value = Decimal("1.5") if and_half else Decimal(1)
        else:
            unit, value = half_unit, Decimal("0.5")
        found.append(Figure(m.group(0), value, KIND_NUMBER, unit=_UNITS[unit.lower()], start=m.start(), end=m.end()))
        taken.append((m.start(), m.end()))


def _read_shares(text: str, found: list[Figure], taken: list[tuple[int, int]]) -> None:
    """Shares ("half", "a third", "three quarters") and multiples ("doubled", "twice", "triple")
    in words; see `_SHARES`."""
    for m in _SHARES.finditer(text):
        start, end = m.start(), m.end()
        if _overlaps(taken, start, end) or _PERIOD_BEFORE.search(text, max(0, start - 12), start):
            continue
        half, numerator, denominator, multiple = m.groups()
        rest = text[end:end + 60]
        falling, rising = direction(text, start, end)
        if half:
            if _AND_A_HALF_BEFORE.search(text, max(0, start - 32), start):
                continue  # "one and a half": a number in words
            if _HALF_OF_MAGNITUDE.match(rest):
                continue  # "half a million": a number in words
            a_unit = _HALF_A_UNIT.match(rest)
            unit = _UNIT_AFTER.match(rest, a_unit.end() - 1) if a_unit else None
            if unit and unit.group(1).lower() in _UNITS:  # "half a day"
                figure = Figure(text[start:end + unit.end()], Decimal("0.5"), KIND_NUMBER,
                                unit=_UNITS[unit.group(1).lower()], start=start, end=end + unit.end())
            else:
                figure = Figure(m.group(0), Decimal(50), KIND_PERCENT, start=start, end=end,
                                falling=falling or half.lower() != "half")  # "halved" says the decrease
        elif denominator:
            count = number_words_table.NUMERATORS[numerator.lower()]
            plural = denominator.lower().endswith("s")
            if plural == (count == 1):
                continue  # "a thirds", "two third-": no fraction
            if not plural and not (_SHARE_AFTER.match(rest) or re.search(r"\bby\s+$", text[max(0, start - 4):start])):
                continue  # "a third vendor", "a quarter later", "a tenth release": an ordinal or a period
            if denominator.lower().startswith("quarter") and _IN_BEFORE.search(text, max(0, start - 8), start):
                continue
            value = Decimal(100 * count) / number_words_table.DENOMINATORS[denominator.lower()]  # "two thirds": 200/3 %
            of_unit = _OF_A_UNIT.match(rest)
            if of_unit:  # "three quarters of an hour": 0.75 hours
                figure = Figure(text[start:end + of_unit.end()], value / _HUNDRED, KIND_NUMBER,
                                unit=_UNITS[of_unit.group(1).lower()], start=start, end=end + of_unit.end())
            else:
                figure = Figure(m.group(0), value, KIND_PERCENT, start=start, end=end, falling=falling, rising=rising)
        else:
            word = multiple.lower()
            following = _NEXT_WORD.match(rest)
            after = following.group(1).lower() if following else None
            if word in number_words_table.PLURAL_MULTIPLES and after not in number_words_table.MULTIPLIED_AFTER:
                continue  # "C doubles": a type, no multiple
            if word in number_words_table.SINGULAR_MULTIPLES and (
                    after in number_words_table.NOT_MULTIPLIED_BEFORE
                    or (after is None and _PREVIOUS_WORD.search(text, max(0, start - 12), start)
                        and _PREVIOUS_WORD.search(text, max(0, start - 12), start).group(1).lower()
                        in number_words_table.TYPE_CONTEXT)):
                continue  # "a double is 8 bytes", "a C double.": a type or a noun
            if word in number_words_table.SINGULAR_MULTIPLES and _AFTER_A_NUMBER.search(text, max(0, start - 8), start):
                continue  # "IEEE 754 double", "64-bit double", "2 double rooms": what is counted or named
            value = Decimal(number_words_table.MULTIPLES[word])
            figure = Figure(m.group(0), value, KIND_MULTIPLIER, start=start, end=end)
        found.append(figure)
        taken.append((figure.start, figure.end))


def _words_value(words: list[str]) -> Decimal:
    """The value of number words as `_WORDS` matched them ("one million", "twenty-five",
    "a hundred", "half a million")."""
    total = current = Decimal(0)
    for word in words:
        if word == "half":
            current = Decimal("0.5")
        elif word in ("a", "an"):
            current = current or Decimal(1)
        elif word in _WORD_UNITS:
            current += _WORD_UNITS[word]
        elif word in _WORD_TENS:
            current += _WORD_TENS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in number_words_table.GROUPS:
            current = (current or 1) * number_words_table.GROUPS[word]
        elif word in _MAGNITUDE_WORDS:
            total += (current or 1) * _MAGNITUDE_WORDS[word]
            current = Decimal(0)
    return total + current


def _share_across_ranges(text: str, found: list[Figure]) -> list[Figure]:
    """In a range or list ("10 to 30 percent", "$5-10", "7-, 30- and 90-day"),
    a bare figure takes the kind, unit and magnitude written once for all:
    a leading currency carries forward, a trailing percent, unit or
    magnitude carries back."""
    out = list(found)
    for i in range(len(out) - 2, -1, -1):  # carry back from the right
        a, b = out[i], out[i + 1]
        if b.kind == KIND_MONEY and not b.text[:1].isdigit():
            continue  # "$5-10 and $20": a currency written in front belongs to its own figure
        if (_linked(text, a, b) and a.kind in (KIND_NUMBER, KIND_YEAR) and a.unit is None
                and b.kind not in (KIND_DATE, KIND_VERSION, KIND_YEAR)):
            value = a.value
            if abs(b.value) >= 1000 and abs(a.value) < 1000 and _bare(a):  # "1.5 to 2 million": the magnitude too
                factor = _trailing_magnitude(b)
                value = a.value * factor if factor else a.value
            if b.kind == KIND_MONEY:
                value = _amount(a.text, value, b.currency)
            out[i] = Figure(a.text, value, b.kind, b.currency if b.kind == KIND_MONEY else None,
                            b.unit, b.per, a.start, a.end, falling=a.falling, rising=a.rising,
                            noun=b.noun if b.kind in (KIND_NUMBER, KIND_YEAR) else None)  # "3, 5 and 7 plans"
    for i in range(len(out) - 2, -1, -1):  # "from $0.08 to $0.10 per GB": the per-unit is both ends'
        a, b = out[i], out[i + 1]
        if (a.kind == KIND_MONEY and b.kind == KIND_MONEY and a.currency == b.currency and a.per is None
                and b.per is not None and _linked(text, a, b)):
            out[i] = a._replace(per=b.per)
    for i in range(1, len(out)):  # "from $0.08 per GB to $0.10": the per-unit is both ends'
        a, b = out[i - 1], out[i]
        if (a.kind == KIND_MONEY and b.kind == KIND_MONEY and a.currency == b.currency and b.per is None
                and a.per is not None and _linked(text, a, b, _RANGE_FROM)):
            out[i] = b._replace(per=a.per)
    for i in range(1, len(out)):  # carry a leading currency forward
        a, b = out[i - 1], out[i]
        if (_linked(text, a, b, _RANGE) and a.kind == KIND_MONEY and b.kind in (KIND_NUMBER, KIND_YEAR)
                and b.unit is None):
            out[i] = Figure(b.text, _amount(b.text, b.value, a.currency), KIND_MONEY, a.currency, a.unit, a.per, b.start, b.end,
                            falling=b.falling, rising=b.rising)
    return out


def linked_as_range(text: str, a: Figure, b: Figure) -> bool:
    """Whether figures `a` and `b`, read from `text` in that order, are the two ends of a
    range ("$10-15", "10% to 30%")."""
    return _linked(text, a, b, _RANGE)


def _linked(text: str, a: Figure, b: Figure, connector: re.Pattern | None = None) -> bool:
    gap = text[a.end:b.start]
    return len(gap) <= _BETWEEN_NUMBERS and bool((connector or _CONNECTOR).match(gap))


def _bare(q: Figure) -> bool:
    return not re.search(r"[A-Za-z%$\u20ac\u00a3]", q.text)


def _trailing_magnitude(q: Figure) -> Decimal | None:
    m = re.search(r"(thousand|million|billion|trillion)\b", q.text, re.I)
    if m:
        return _MAGNITUDE_WORDS[m.group(1).lower()]
    m = re.search(r"[0-9](k|K|M|mn|B|bn)\b", q.text)
    return _MAGNITUDE_LETTERS[m.group(1)] if m else None
