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

`closest_passages(terms, pages)`: each page is scored by how many terms it holds at all (a
substring test, one pass per term); the best `MAX_PAGES_SEARCHED` pages are searched window
by window. A window scores the weights of the distinct terms it holds (one more when it
holds them as one phrase): a term weighs 1 plus its rarity across the pages (0 to 1, how
few of the pages' windows hold it: `maxsize` outweighs `sys`), doubled for a name
(`name_terms`: what the statement is about). The best come first, at most `MAX_PER_PAGE` of
one page, earlier pages and places breaking ties. Bounded on hostile
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
""".split())
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "ly", "s")


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
    """A word cut to its stem, for a search that matches inside words ("sizes" -> "size")."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def key_terms(text: str) -> list[str]:
    """The statement's content words, stemmed, distinct, in order (at most MAX_TERMS); a dotted
    or joined name (`sys.maxsize`, `work_mem`) counts as its parts, as `find_windows` reads words."""
    terms: list[str] = []
    for word in _WORD.findall(text[:4 * MAX_FIND_CHARS].lower()):
        if len(word) < 3 or word in STOP_WORDS or word.isdigit():
            continue
        term = stem(word) if word.isalpha() else word
        if term not in terms:
            terms.append(term)
    return terms[:MAX_TERMS]


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
    """The `limit` windows of `pages` that hold the most of `terms` (see the module docstring);
    [] when no page holds any. `names`: the terms that are names (`name_terms`)."""
    if not terms:
        return []
    query = " ".join(terms)[:MAX_FIND_CHARS]
    scored: list[tuple[int, int, Page]] = []
    counts = dict.fromkeys(terms, 0)
    chars = 0
    for order, page in enumerate(pages):
        lowered = page.text.lower()
        chars += len(lowered)
        held = 0
        for term in terms:
            found = lowered.count(term)
            counts[term] += found
            held += found > 0
        if held:
            scored.append((-held, order, page))
    scored.sort(key=lambda item: item[:2])
    windows = max(1.0, chars / window_chars)
    weight = {term: (2 if term in names else 1) * (1 + math.log2(1 + windows / (1 + count)) / math.log2(1 + windows))
              for term, count in counts.items()}
    ranked: list[tuple[float, int, int, Passage]] = []
    for _held, order, page in scored[:MAX_PAGES_SEARCHED]:
        for window in find_windows(page.text, query, max_windows=WINDOWS_PER_PAGE, window_chars=window_chars):
            score = sum(weight[t] for t in window.words if t in weight) + window.phrase
            shown = _clean(page.text[window.start:window.end])
            ranked.append((-score, order, window.start,
                           Passage(page.url, page.title, window.start, window.end, shown, window.words, window.phrase)))
    ranked.sort(key=lambda item: item[:3])
    chosen: list[Passage] = []
    per_page: dict[int, int] = {}
    for _score, order, _start, passage in ranked:
        if per_page.get(order, 0) < MAX_PER_PAGE and len(chosen) < limit:
            chosen.append(passage)
            per_page[order] = per_page.get(order, 0) + 1
    return chosen


def _clean(text: str) -> str:
    return " ".join(_CONTROLS.sub(" ", strip_invisible(text)).split())
