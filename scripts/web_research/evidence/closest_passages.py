"""The passages of a run's stored pages that come closest to a statement: the run's own search.

A report may say that the pages read do not state something (checks/gaps_prose.py). Whether
that is true is judged against every page the run stored, not against the excerpts someone
chose: this module finds, across all of them, the passages most likely to state it, and the
claim-checker is shown those (checks/absence.py). The search is `fetch --find`'s
(`page_find.find_windows`), asked for the statement's key terms, so the checker sees what a
researcher searching the same words would have seen.

`key_terms(text)`: the words that carry a statement's content, lower-cased, function words
and the absence form's own words left out, each cut to a stem ("sizes" -> "size", "related"
-> "relat") so that the search, which matches inside words, finds every inflection.

A term stands for the words a page may say it with (`alternatives`): its inflections (the
search matches inside words), the number it names in digits or in words ("two", "2"), and
the words of its class in `SYNONYMS` ("price", "cost", "charge", "fee"): a statement reworded
past a page's own words ("No page read gives what the Team tier costs" where the page says
"Team plan: $12 per seat") is still found by them. `holds(text, term)` says whether a text
holds a term in any of them (a short word or a number only where a word starts, and a number
whole).

`closest_passages(terms, pages)`: each page is scored by how many terms it holds at all; the
best `MAX_PAGES_SEARCHED` pages are searched window by window. A window holding every term
ranks first (`Passage.whole`); then windows score the weights of the distinct terms they hold
(one more when they hold the words as one phrase): a term weighs 1 plus its rarity across the
pages (0 to 1, how few of the pages' windows hold it: `maxsize` outweighs `sys`), doubled for
a name (`name_terms`: what the statement is about). The best come first, at most
`MAX_PER_PAGE` of one page, earlier pages and places breaking ties. Bounded on hostile
pages: each page's text is at most `snapshots.MAX_TEXT_CHARS`, `find_windows` looks at most
`page_find.MAX_HITS` matches per page, and at most `MAX_TERMS` terms are asked for. Pure:
texts in, passages out (`run_pages` is the thin loader).
"""
from __future__ import annotations

import math
import re
from typing import Iterable, NamedTuple, Sequence

from ..core.text import strip_invisible
from .page_find import MAX_FIND_CHARS, find_windows

PASSAGE_CHARS = 600  # one window shown to the checker
MAX_PASSAGES = 4  # windows shown per statement
MAX_PER_PAGE = 2  # so that the passages shown come from more than one page when others hold the terms
WINDOWS_PER_PAGE = 5  # windows of one page ranked against the others'
MAX_PAGES_SEARCHED = 8  # pages searched window by window, best first
MAX_TERMS = 12
_WORD = re.compile(r"[^\W_]+")
_NAME = re.compile(r"`[^`]{1,80}`|\b\w+(?:[._]\w+)+\b|\b\w+\(\)|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]*[A-Z]\w*"
                   r"|(?<=[a-z,;:] )[A-Z]\w+")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Words that carry no content a page would be found by: function words, and the words every
# statement of absence is made of ("the pages read do not state ...").
STOP_WORDS = frozenset("""
a about above after again against all also an and any are as at be because been before being below
between both but by can could did do does doing done down during each either else even ever every few
for from further had has have having he her here hers him his how however i if in into is it its itself
just least less like many may me might more most much must my neither no nor not now of off on once one
only or other others our out over own per rather same she should since so some such than that the their
theirs them then there these they this those though through thus to too under until up upon us very
was we were what whatever when where whether which while who whom whose why will with within without
would yet you your
page pages source sources read stored fetched cited consulted found run's excerpt excerpts document
documents none nothing neither
state states stated say says said show shows shown give gives given name names named list lists listed
mention mentions mentioned establish establishes established relate relates related compare compares
compared specify specifies specified explain explains explained confirm confirms confirmed cover covers
covered include includes included describe describes described document documents documented report
reports reported address addresses addressed provide provides provided define defines defined discuss
discusses discussed indicate indicates indicated quote quotes quoted detail details detailed
mention mentioned clarify clarifies clarified spell spells spelled out reveal reveals revealed publish
publishes published cite cites exact exactly explicit explicitly directly specific specifically clear
clearly whether information info data way ways thing things use uses used using make makes made get gets
happen happens happened connect connects connected link links linked tie ties tied associate associates
associated note notes noted tell tells told touch touches touched regard regards regarding concern concerns
concerning pertain pertains
""".split())
_SUFFIXES = ("ations", "ation", "ities", "ity", "ments", "ment", "ness", "ings", "ing", "ies", "ied", "ably",
             "able", "est", "ers", "er", "ed", "es", "ly", "s")
# Words a statement may use for what a page says in others: each class is read as one term (the
# first word names it). Stems, as `stem` cuts them, matched where a word starts.
CURRENCY = "<an amount of money>"  # "$12", "12 EUR": how a page states a price without the word
_CURRENCY = r"[$\u00a3\u20ac\u00a5]\s?\d|\d\s?(?:usd|eur|gbp|dollars?|euros?|cents?)\b"
SYNONYMS = (
    ("price", "pric", "cost", "charg", "fee", "fees", "pay", "paid", "bill", "rate", "spend", "expens", CURRENCY),
    ("cheap", "inexpensive", "lower", "less", "reduc", "discount", "saving"),
    ("free", "no charge", "no cost", "no-cost", "$0", "complimentary", "gratis"),
    ("limit", "cap", "caps", "capped", "maxim", "max", "quota", "ceiling", "up to", "at most"),
    ("minim", "min", "at least", "floor"),
    ("larg", "big", "bigg", "great", "huge", "higher", "exceed", "beyond", "past", "above", "more than"),
    ("small", "little", "tiny"),
    ("size", "length", "len", "count", "amount"),
    ("recommend", "prefer", "advis", "suggest", "encourag"),
    ("compar", "versus", "vs", "contrast", "differ"),
    ("support", "offer", "provid", "includ", "availab", "allow", "permit", "enabl", "come with"),
    ("deprecat", "remov", "withdraw", "withdrawn", "discontinu", "obsolet", "retir", "sunset", "end of life",
     "no longer"),
    ("requir", "need", "mandatory", "necessar"),
    ("error", "exception", "rais", "fail", "throw"),
    ("plan", "tier", "edition", "package", "subscription"),
    ("stor", "retain", "retention", "keep", "kept", "persist"),
    ("year", "annual", "yearly"),
    ("month", "monthly"),
    ("week", "weekly"),
    ("day", "daily"),
    ("hour", "hourly"),
    ("percent", "%", "per cent", "pct"),
    ("user", "seat", "member", "account"),
    ("host", "node", "server", "machine", "instance"),
    ("cancel", "terminat", "abort", "stop"),
    ("speed", "fast", "quick", "latency", "perform", "throughput"),
)
NUMBER_WORDS = {"zero": "0", "none": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
                "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100",
                "thousand": "1000", "million": "1000000", "twice": "2", "double": "2", "half": "50%",
                "single": "1", "once": "1", "dozen": "12"}
_CLASS_OF = {word: row for row in SYNONYMS for word in row}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


class Passage(NamedTuple):
    """A window of one stored page: where it stands and the page's words in it."""

    url: str
    title: str
    start: int
    end: int
    text: str  # the page's characters, invisible and control characters removed, whitespace collapsed
    terms: tuple[str, ...]  # the key terms it holds, in the order asked
    phrase: bool  # it holds the terms as one phrase


class Page(NamedTuple):
    url: str
    title: str
    text: str


def stem(word: str) -> str:
    """A word cut to its stem, for a search that matches inside words ("sizes" -> "size",
    "larger" -> "larg", "policies" -> "polic"); at least four letters are kept (three for "-er":
    "lower" -> "low")."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= (3 if suffix in ("er", "ers", "s") else 4) \
                and not (suffix in ("ed", "er", "es") and word[-len(suffix) - 1] == "e"):  # "exceed", "agree"
            word = word[: -len(suffix)]
            break
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiousl":
        word = word[:-1]  # "bigg" -> "big", "committ" -> "commit"
    return word


def key_terms(text: str) -> list[str]:
    """The statement's content words, stemmed, distinct, in order (at most MAX_TERMS); a number in
    digits or in words is a term (its digits); a dotted or joined name (`sys.maxsize`, `work_mem`)
    counts as its parts, as `find_windows` reads words."""
    terms: list[str] = []
    lowered = text[:4 * MAX_FIND_CHARS].lower()
    for word in _WORD.findall(lowered):
        if word in NUMBER_WORDS:
            term = NUMBER_WORDS[word]
        elif word.isdigit():
            term = word
        elif len(word) < 3 or word in STOP_WORDS:
            continue
        else:
            term = stem(word) if word.isalpha() else word
        if term not in terms:
            terms.append(term)
    return terms[:MAX_TERMS]


def alternatives(term: str) -> tuple[str, ...]:
    """The words a page may state `term` with: itself, the words of its SYNONYMS class, and a
    number's other spelling."""
    row = _CLASS_OF.get(term) or next((r for r in SYNONYMS if any(
        len(w) >= 4 and term.startswith(w) and len(term) - len(w) <= 3 for w in r)), ())
    words = [term, *(w for w in row if w != term)]
    words += [w for w, digits in NUMBER_WORDS.items() if digits == term and w not in ("none", "single", "once")]
    return tuple(dict.fromkeys(words))


def _pattern(word: str, name: bool = False) -> str:
    if word == CURRENCY:
        return _CURRENCY
    if name and len(word) >= 4 and word.isalnum():
        return re.escape(word)  # a name's part inside another's spelling: "Bright Path", "Brightpath"
    if word[:1].isdigit() or word.startswith("$"):
        return r"(?<![\w.,$])" + re.escape(word) + r"(?![\d]|[.,]\d)"  # a number whole
    if len(word) <= 3:
        return r"(?<![^\W\d_])" + re.escape(word) + r"s?(?![^\W\d_])"  # a word whole: "int" is not "into"
    if len(word) <= 4 or " " in word:
        return r"(?<![^\W\d_])" + re.escape(word)  # where a word starts
    return re.escape(word)  # inside words: "group" in "TaskGroup"


_PATTERNS: dict[tuple[str, bool], re.Pattern[str]] = {}


def _compiled(term: str, name: bool = False) -> re.Pattern[str]:
    pattern = _PATTERNS.get((term, name))
    if pattern is None:
        pattern = re.compile("|".join(_pattern(w, name) for w in alternatives(term)), re.IGNORECASE)
        if len(_PATTERNS) < 4096:
            _PATTERNS[(term, name)] = pattern
    return pattern


def holds(text: str, term: str, names: frozenset[str] = frozenset()) -> bool:
    """Whether `text` holds `term` in one of its `alternatives` (see the module docstring); a
    name's (`names`) anywhere inside a word."""
    return _compiled(term, term in names).search(text) is not None


MAX_PLACES = 200  # places of one term looked at in a passage


def span(text: str, terms: Sequence[str], names: frozenset[str] = frozenset()) -> int | None:
    """The fewest characters of `text` that hold every one of `terms` (each in one of its
    `alternatives`; `names` as `holds` reads them), or None when one is missing: how close
    together a passage says them."""
    places = sorted((m.start(), m.end(), i) for i, term in enumerate(terms)
                    for m in _bounded(_compiled(term, term in names).finditer(text)))
    need, seen, best, low = len(terms), {}, None, 0
    for high in range(len(places)):
        seen[places[high][2]] = seen.get(places[high][2], 0) + 1
        while len(seen) == need:
            width = places[high][1] - places[low][0]
            best = width if best is None else min(best, width)
            term = places[low][2]
            seen[term] -= 1
            if not seen[term]:
                del seen[term]
            low += 1
    return best


def _bounded(matches):  # noqa: ANN001, ANN202 - an iterator of matches, cut at MAX_PLACES
    for n, match in enumerate(matches):
        if n >= MAX_PLACES:
            return
        yield match


def name_terms(text: str) -> frozenset[str]:
    """The key terms that are names in `text`: written with a capital inside the word or after
    its first word (TaskGroup, Northwind), as code (`gather()`, `sys.maxsize`, `work_mem`,
    in backticks). What a statement is about: they weigh double in the ranking."""
    names: set[str] = set()
    for match in _NAME.finditer(text[:4 * MAX_FIND_CHARS]):
        names.update(key_terms(match.group(0)))
    return frozenset(names)


def closest_passages(terms: Sequence[str], pages: Iterable[Page], limit: int = MAX_PASSAGES,
                     window_chars: int = PASSAGE_CHARS, names: frozenset[str] = frozenset()) -> list[Passage]:
    """The `limit` windows of `pages` that come closest to `terms` (see the module docstring);
    [] when no page holds any. `names`: the terms that are names (`name_terms`)."""
    if not terms:
        return []
    # Windows start where the statement's own terms stand; `holds` reads each window for every word a
    # term may be said with (searching for those too made the search three times slower).
    query = " ".join(terms)[:MAX_FIND_CHARS]
    scored: list[tuple[int, int, Page]] = []
    counts = dict.fromkeys(terms, 0)
    chars = 0
    for order, page in enumerate(pages):
        lowered = page.text.lower()
        chars += len(lowered)
        held = 0
        for term in terms:
            found = sum(lowered.count(w) for w in alternatives(term) if w != CURRENCY)
            counts[term] += found
            held += found > 0  # (inside words: which pages to search first, not what a passage holds)
        if held:
            scored.append((-held, order, page))
    scored.sort(key=lambda item: item[:2])
    windows = max(1.0, chars / window_chars)
    weight = {term: (2 if term in names else 1) * (1 + math.log2(1 + windows / (1 + count)) / math.log2(1 + windows))
              for term, count in counts.items()}
    ranked: list[tuple[bool, float, int, int, Passage]] = []
    for _held, order, page in scored[:MAX_PAGES_SEARCHED]:
        for window in find_windows(page.text, query, max_windows=WINDOWS_PER_PAGE, window_chars=window_chars):
            piece = page.text[window.start:window.end]
            held_terms = tuple(t for t in terms if holds(piece, t, names))
            score = sum(weight[t] for t in held_terms) + window.phrase
            ranked.append((len(held_terms) < len(terms), -score, order, window.start,
                           Passage(page.url, page.title, window.start, window.end, _clean(piece), held_terms,
                                   window.phrase)))
    ranked.sort(key=lambda item: item[:4])
    chosen: list[Passage] = []
    per_page: dict[int, int] = {}
    for _partial, _score, order, _start, passage in ranked:
        if per_page.get(order, 0) < MAX_PER_PAGE and len(chosen) < limit:
            chosen.append(passage)
            per_page[order] = per_page.get(order, 0) + 1
    return chosen


def _clean(text: str) -> str:
    return " ".join(_CONTROLS.sub(" ", strip_invisible(text)).split())
