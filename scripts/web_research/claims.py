"""Cited claims and whether their figures are grounded in the excerpts they cite.

A claim is a cited sentence of report.md or of a findings file: a sentence
(of a paragraph, list item or table row) carrying at least one `[^n]` marker.
Uncited sentences of the same block belong to the claim they lead up to, or,
after the block's last marker, to the last claim: a figure cannot escape the
check by standing one sentence away from its footnote. Headings, list
numbering, footnote markers, link targets and code are not part of a claim.

The rule (`grounding`): each quantity the claim states (see `quantities`) must
appear in at least one excerpt cited in the same claim. A year or date missing
from them is only a warning: it often comes from the question or the page's
date. Number words ("seven") never count.

`claim_hash` (sha256 of the normalized claim text, markers removed) is stable
across renumbering, so a later claim checker can key its verdicts on it.
Everything here is pure; `claims_checks` and `run_claims` adapt a parsed run.
"""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple

from .checks import Check
from .markdown_scan import FOOTNOTE_DEFINITION, FOOTNOTE_MARKER, HEADING, code_free_lines, continues_entry
from .excerpts import normalize
from .formats import BULLET_ID_PATTERN
from .quantities import SOFT_KINDS, Quantity, extract_quantities
from .records import Record

if TYPE_CHECKING:
    from .checklist import ParsedRun
    from .citation_entries import Citation

_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])[ \t]+")
# Plan bullet ids (`2.1`, coverage.py) name a point, they state no figure: a leading
# `2.1:` label and "bullet(s) 2.1[, 2.2 and 2.3]" are left out of a claim's figures.
_ID = r"\[?" + BULLET_ID_PATTERN + r"\]?"
_ID_LIST = _ID + r"(?:\s*(?:,|and|&)\s*" + _ID + r")*"
_BULLET_ID_LABEL = re.compile(r"^\s*(?:bullets?\s+)?" + _ID_LIST + r"\s*:\s+", re.IGNORECASE)
_BULLET_ID_MENTION = re.compile(r"\bbullets?\s+" + _ID_LIST, re.IGNORECASE)
_QUOTE_PREFIX = re.compile(r"^\s*(?:>\s?)+")
_TABLE_ROW = re.compile(r"^\s*\|")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_URL = re.compile(r"<?https?://[^\s>)]+>?")
_TAG = re.compile(r"</?[A-Za-z][^>\n]*>")
_EMPHASIS = re.compile(r"(\*{1,3}|(?<!\w)_{1,3}|_{1,3}(?!\w)|~~)")
# A sentence ends at . ! or ? (plus closing quotes/brackets and any footnote
# markers), before whitespace and a capital, digit, quote, bracket or currency.
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?:\[\^\d+\])*(?=\s+[A-Z0-9\"'\u201c\u2018(\[$\u20ac\u00a3*_])")
_ABBREVIATIONS = {"e.g", "i.e", "vs", "etc", "approx", "inc", "ltd", "co", "corp", "mr", "mrs", "dr", "st", "no",
                  "u.s", "cf", "al", "fig", "ca"}
_DIGIT = re.compile(r"\d")
_LAST_WORD = re.compile(r"([\w.]+)\.$")  # the word a full stop ends
_INITIAL = re.compile(r"[A-Z]")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?])")
MAX_BLOCK_CHARS = 50_000  # a longer paragraph is cut: bounds the work on hostile input


class Claim(NamedTuple):
    """A cited claim: `line` is the file line it starts on; `text` is plain
    (markdown and markers removed); `footnotes` in order of first use."""

    line: int
    text: str
    footnotes: tuple[int, ...]

    @property
    def hash(self) -> str:
        return "sha256:" + hashlib.sha256(normalize(self.text).encode("utf-8")).hexdigest()


class Grounding(NamedTuple):
    """The rule's outcome for one claim. `checked` is False when one of its
    footnotes has no entry with an excerpt (the citation rules report that)."""

    checked: bool
    quantities: tuple[Quantity, ...] = ()
    missing: tuple[Quantity, ...] = ()  # error: figures no cited excerpt states
    soft_missing: tuple[Quantity, ...] = ()  # warning: years and dates no cited excerpt states

    @property
    def ok(self) -> bool:
        return not self.missing


class ClaimRecord(Record):
    """A claim with what it cites and its grounding, as `web-research claims` lists it."""

    __slots__ = ("path", "scope", "claim", "excerpts", "grounding")

    def __init__(self, path: Path, scope: str, claim: Claim,
                 excerpts: list[tuple[int, str | None, str]] | None = None,
                 grounding: Grounding | None = None) -> None:
        self.path = path
        self.scope = scope
        self.claim = claim
        self.excerpts: list[tuple[int, str | None, str]] = [] if excerpts is None else excerpts  # (number, url, excerpt)
        self.grounding = Grounding(False) if grounding is None else grounding

    def as_dict(self, display_path: str) -> dict[str, Any]:
        g = self.grounding
        return {
            "file": display_path, "line": self.claim.line, "text": self.claim.text, "hash": self.claim.hash,
            "footnotes": list(self.claim.footnotes),
            "excerpts": [{"footnote": n, "url": url, "excerpt": text} for n, url, text in self.excerpts],
            "grounded": g.ok if g.checked else None,
            "quantities": [q.text for q in g.quantities],
            "missing": [q.text for q in g.missing],
            "dates_missing": [q.text for q in g.soft_missing],
        }


# --------------------------------------------------------------------------
# Finding claims
# --------------------------------------------------------------------------

def find_claims(text: str, first_line: int = 1) -> list[Claim]:
    """Every cited claim of a Markdown file (or body starting at `first_line`)."""
    claims: list[Claim] = []
    for block in _blocks(text, first_line):
        claims.extend(_claims_of_block(block))
    return claims


def _blocks(text: str, first_line: int) -> Iterable[list[tuple[int, str]]]:
    """Paragraphs, list items and table rows as lists of (line, text), with
    list markers, quote marks and footnote definitions removed."""
    block: list[tuple[int, str]] = []
    previous = first_line - 1
    in_entry = False
    for number, line in code_free_lines(text, first_line):
        if number != previous + 1 and block:  # a fenced block sat in between
            yield block
            block = []
        previous = number
        if "[^" in line and FOOTNOTE_DEFINITION.match(line):
            in_entry = True
            if block:
                yield block
                block = []
            continue
        if in_entry:
            if continues_entry(line):
                continue
            in_entry = False
        if ">" in line:
            line = _QUOTE_PREFIX.sub("", line)
        # (each string test only skips a pattern that cannot match: this runs on every line)
        if not line.strip() or ("#" in line and HEADING.match(line)) or _THEMATIC_BREAK.match(line) \
                or ("---" in line and _TABLE_RULE.match(line)):
            if block:
                yield block
            block = []
            continue
        item = _LIST_ITEM.match(line)
        if item or ("|" in line and _TABLE_ROW.match(line)):
            if block:
                yield block
            block = [(number, _BULLET_ID_LABEL.sub("", line[item.end():], count=1) if item
                      else line.replace("|", " ; "))]
            if not item:
                yield block
                block = []
            continue
        block.append((number, line))
    if block:
        yield block


def _claims_of_block(block: list[tuple[int, str]]) -> list[Claim]:
    joined = ""
    starts: list[tuple[int, int]] = []  # (offset in joined, line)
    for number, line in block:
        starts.append((len(joined), number))
        joined += line.strip() + " "
        if len(joined) > MAX_BLOCK_CHARS:
            break
    joined = joined[:MAX_BLOCK_CHARS]
    sentences: list[tuple[int, str]] = []  # (offset, text)
    begin = 0
    for m in _SENTENCE_END.finditer(joined):
        head = joined[begin:m.start() + 1]
        word = _LAST_WORD.search(head)
        if word and (word.group(1).casefold() in _ABBREVIATIONS or _INITIAL.fullmatch(word.group(1))):
            continue
        sentences.append((begin, joined[begin:m.end()]))
        begin = m.end()
    if joined[begin:].strip():
        sentences.append((begin, joined[begin:]))
    groups: list[tuple[int, list[str]]] = []  # (offset, sentences), each closed by a cited sentence
    pending: list[str] = []
    pending_at: int | None = None
    for offset, sentence in sentences:
        if pending_at is None:
            pending_at = offset + len(sentence) - len(sentence.lstrip())
        pending.append(sentence)
        if FOOTNOTE_MARKER.search(sentence):
            groups.append((pending_at, pending))
            pending, pending_at = [], None
    if pending and groups:
        groups[-1][1].extend(pending)  # after the last marker: part of the last claim
    claims = []
    for offset, parts in groups:
        raw = " ".join(parts)
        footnotes = tuple(dict.fromkeys(int(n) for n in FOOTNOTE_MARKER.findall(raw)))
        line = max(number for start, number in starts if start <= offset) if starts else 0
        claims.append(Claim(line, plain_text(raw), footnotes))
    return claims


def plain_text(markdown: str) -> str:
    """A claim's words without Markdown: link text kept, targets, URLs, tags,
    emphasis marks and footnote markers dropped, whitespace collapsed."""
    # (each string test only skips a pattern that cannot match: verify runs this on every claim)
    text = FOOTNOTE_MARKER.sub("", markdown) if "[^" in markdown else markdown
    if "bullet" in text.lower():
        text = _BULLET_ID_MENTION.sub("", text)
    if "](" in text:
        text = _LINK.sub(lambda m: m.group(1), text)
    if "http" in text:
        text = _URL.sub("", text)
    if "<" in text:
        text = _TAG.sub("", text)
    if "*" in text or "_" in text or "~~" in text:
        text = _EMPHASIS.sub("", text)
    text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text)
    return " ".join(text.split())


# --------------------------------------------------------------------------
# The rule
# --------------------------------------------------------------------------

def grounding(claim: Claim, excerpts: Iterable[str]) -> Grounding:
    """Check each quantity of `claim` against the quantities of `excerpts`."""
    texts = [e for e in excerpts if e and e.strip()]
    if not texts:
        return Grounding(False)
    if not _DIGIT.search(claim.text):
        return Grounding(True)  # no figure to check (number words never count)
    stated = _quantities_of(claim.text)
    if not stated:
        return Grounding(True)
    available = [q for text in texts for q in _quantities_of(text)]
    missing, soft = [], []
    for quantity in stated:
        if not any(quantity.matches(other) for other in available):
            (soft if quantity.kind in SOFT_KINDS else missing).append(quantity)
    return Grounding(True, stated, tuple(missing), tuple(soft))


@lru_cache(maxsize=4096)
def _quantities_of(text: str) -> tuple[Quantity, ...]:
    # Cached: the report repeats its findings files' claims and excerpts, and one excerpt backs many claims.
    return tuple(extract_quantities(normalize(text)))


def claim_records(path: Path, scope: str, text: str, first_line: int,
                  citations: Iterable["Citation"]) -> list[ClaimRecord]:
    """The claims of one file with their excerpts (from the file's own Sources) and grounding."""
    by_number: dict[int, "Citation"] = {}
    for c in citations:
        by_number.setdefault(c.number, c)
    records = []
    for claim in find_claims(text, first_line):
        cited = [(n, by_number[n].url, by_number[n].excerpt) for n in claim.footnotes
                 if n in by_number and by_number[n].excerpt]
        if len(cited) < len(claim.footnotes):
            # A footnote without a usable excerpt is the citation rules' defect
            # (undefined, required), and an error already: one defect, one check.
            result = Grounding(False)
        else:
            result = grounding(claim, [e for _n, _u, e in cited])
        records.append(ClaimRecord(path, scope, claim, cited, result))
    return records


def run_claims(parsed: "ParsedRun") -> list[ClaimRecord]:
    """Every cited claim of report.md and of each findings file, in that order."""
    records: list[ClaimRecord] = []
    if parsed.report is not None and parsed.report_path is not None:
        records += claim_records(parsed.report_path, "report", "\n".join(parsed.report.lines), 1,
                                 parsed.report.citations)
    for slug, found in parsed.findings.items():
        records += claim_records(found.path, f"findings.{slug}", found.body, found.body_first_line,
                                 found.citations)
    return records


def _footnote_list(numbers: Iterable[int]) -> str:
    return "".join(f"[^{n}]" for n in numbers)


def claims_checks(records: Iterable[ClaimRecord]) -> "list[Check]":
    """`<scope>.claims.grounded` (error, one failing check per ungrounded claim,
    else one passing check per file) and `<scope>.claims.dates` (warning)."""
    by_file: dict[Path, list[ClaimRecord]] = {}
    for record in records:
        by_file.setdefault(record.path, []).append(record)
    checks: list[Check] = []
    for path, items in by_file.items():
        scope = items[0].scope
        checked = [r for r in items if r.grounding.checked]
        failing = [r for r in checked if not r.grounding.ok]
        for r in failing:
            figures = ", ".join(f"'{q.text}'" for q in r.grounding.missing)
            shown = "; ".join(f"[^{n}] \"{_shorten(e)}\"" for n, _u, e in r.excerpts)
            checks.append(Check(f"{scope}.claims.grounded", False, "error", (
                f"claim at line {r.claim.line} states {figures}, which no excerpt it cites "
                f"({_footnote_list(r.claim.footnotes)}) states: {shown}. State the figure the page gives, "
                "or cite the passage that gives this one"), str(path), r.claim.line))
        if checked and not failing:
            checks.append(Check(f"{scope}.claims.grounded", True, "error",
                                f"{len(checked)} cited claim(s): every figure appears in an excerpt they cite",
                                str(path), None))
        soft = [r for r in checked if r.grounding.soft_missing]
        if soft:
            first = soft[0]
            listed = "; ".join(f"line {r.claim.line}: " + ", ".join(f"'{q.text}'" for q in r.grounding.soft_missing)
                               + f" not in {_footnote_list(r.claim.footnotes)}" for r in soft[:6])
            checks.append(Check(f"{scope}.claims.dates", False, "warning",
                                f"years or dates no cited excerpt states ({listed}); make sure they come from "
                                "the question or the page's own date", str(path), first.claim.line))
    return checks


def _shorten(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def render_text(records: Iterable[ClaimRecord], display: Mapping[Path, str]) -> str:
    """The compact, line-oriented listing of `web-research claims` (one stanza per claim)."""
    out = []
    for r in records:
        g = r.grounding
        verdict = "unchecked" if not g.checked else ("grounded" if g.ok else "UNGROUNDED")
        line = f"{display.get(r.path, str(r.path))}:{r.claim.line} {r.claim.hash} {_footnote_list(r.claim.footnotes)} {verdict}"
        if g.missing:
            line += " missing=" + "|".join(q.text for q in g.missing)
        if g.soft_missing:
            line += " dates=" + "|".join(q.text for q in g.soft_missing)
        out.append(line)
        out.append(f"  claim: {r.claim.text}")
        for n, url, excerpt in r.excerpts:
            out.append(f"  [^{n}] {url or '-'} \"{' '.join(excerpt.split())}\"")
    return "\n".join(out)
