"""Cited claims and whether their figures are grounded in the excerpts they cite.

A claim is a cited sentence of report.md or of a findings file: a sentence
of a paragraph or list item carrying at least one `[^n]` marker, or a cited
table row, which is one claim whose cells are read with their column's
header ("Plan: Pro; Price: $5"), so the checker sees a statement rather than
cells run together. Uncited sentences of the same block belong to the claim
they lead up to, or, after the block's last marker, to the last claim: a figure
cannot escape the check by standing one sentence away from its footnote (and
in the report such a sentence is an error of its own: statements.py).
Headings, list numbering, footnote markers and link targets are not part of a
claim; a code span is (`` `$9.90` `` states a figure like $9.90 does). A lead-in
(`lead_ins`: a one-sentence paragraph, citing nothing and stating no figure, that ends
with a colon right before a list or table) is no claim of its own: it is read at the
head of each claim of the list or table it introduces, as a header names its row's
cells, so "It is a myth that:" cannot turn the cited items after it around unseen.

The rule (`grounding`): each figure the claim states (`quantities.figures_in`,
the one reading of a figure; years and dates included) must appear in at least
one excerpt cited in the same claim (where a number in words counts too: "three
regions" gives the 3 of "3 regions"). A page's sealed title grounds identifiers
only (`quantities.identifiers_in`: versions, years, dates, a number in a name such
as "Python 3.11"), and only a figure the claim states as one: never an amount,
price, percent or count, in any tier, since a title is not the passage the claim
cites and no checker reads it; so does the page's address (`/docs/15/`). A figure the claim
computes from cited figures ("twice", "40% of the $250") is grounded when the arithmetic holds
(figure_arithmetic.py), and the checker is told what was computed (`Grounding.derived`).

`claim_hash` (sha256 of the normalized claim text, markers removed) is stable
across renumbering, so a later claim checker can key its verdicts on it.
Everything here is pure; `claims_checks` and `run_claims` adapt a parsed run.
"""
from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping, NamedTuple, Sequence

from ..core.result import Check
from ..evidence.excerpts import normalize
from ..formats import BULLET_ID_PATTERN
from .figure_arithmetic import derive, operands_of, reversed_pair, why_not_named, why_refused
from .quantities import (KIND_NUMBER, KIND_VERSION, Quantity, figures_in, identifiers_in, is_identifier, names_same,
                         readable, unreadable_figures, url_identifiers)
from ..core.markdown_doc import BREAK, CELL, CODE, REF, TEXT, Block, Document, Lead, parse_markdown
from .. import formats
from ..evidence.provenance import load_folder_copy
from ..evidence.sites import host, independent_sites
from ..evidence.excerpt_context import ExcerptContext
from ..evidence.page_contexts import Excerpt, contexts as page_contexts
from ..evidence.structure_child import PageRequest
from ..evidence.matcher import StoredPage
from ..evidence.snapshots import SnapshotError, SnapshotIndex
from .parsed_run import ParsedRun
from .citation_entries import Citation
from ..core.clip import clip


# Plan bullet ids (`2.1`, coverage.py) name a point, they state no figure: a leading
# `2.1:` label and "bullet(s) 2.1[, 2.2 and 2.3]" are left out of a claim's figures. A leading
# label is left out only when the plan has each bullet it names (where the plan is known): a
# list item "4.99: the Pro plan..." states a price, not a bullet.
_ID = r"\[?" + BULLET_ID_PATTERN + r"\]?"
_ID_LIST = _ID + r"(?:\s*(?:,|and|&)\s*" + _ID + r")*"
_BULLET_ID_LABEL = re.compile(r"^\s*(?:bullets?\s+)?" + _ID_LIST + r"\s*:\s+", re.IGNORECASE)
_BULLET_ID = re.compile(BULLET_ID_PATTERN)
_BULLET_ID_MENTION = re.compile(r"\bbullets?\s+" + _ID_LIST, re.IGNORECASE)
_URL = re.compile(r"<?https?://[^\s>)]+>?")
# Something written as a footnote mark that the parser did not take for one (`[^a-slug: 1]`, `[^ 3]`):
# no words of the claim (statements.py reports it), so its digits are no figure.
FOOTNOTE_LIKE = re.compile(r"\[\^[^\]\n]{0,80}\]?")
# Where a footnote reference stood in a block's joined text (a private-use character,
# removed from the text itself first): its label is the next one of the block's references.
_MARK = "\ue000"
# Where a code span starts and ends in the joined text (private-use characters too): a claim
# keeps its code spans verbatim, so "`.1 + .1 == .2`" is never tidied into ".1 +.1 ==.2".
_CODE_OPEN, _CODE_CLOSE = "\ue001", "\ue002"
_OURS = str.maketrans(dict.fromkeys(map(ord, _MARK + _CODE_OPEN + _CODE_CLOSE)))
_CODE_PIECE = re.compile(f"({_CODE_OPEN}[^{_CODE_CLOSE}]*{_CODE_CLOSE})")
# A sentence ends at . ! or ? (plus closing quotes/brackets and any footnote
# references), before whitespace and a capital, digit, quote, bracket or currency.
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*" + _MARK + r"*(?=\s+" + _CODE_OPEN
                           + r"?[A-Z0-9\"'\u201c\u2018(\[$\u20ac\u00a3*_])")
_ABBREVIATIONS = {"e.g", "i.e", "vs", "etc", "approx", "inc", "ltd", "co", "corp", "mr", "mrs", "dr", "st", "no",
                  "u.s", "cf", "al", "fig", "ca"}
_DIGIT = re.compile(r"\d")
_LAST_WORD = re.compile(r"([\w.]+)\.$")  # the word a full stop ends
_INITIAL = re.compile(r"[A-Z]")
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:!?])")
_PUNCTUATION = frozenset(".,;:!?")
MAX_BLOCK_CHARS = 50_000  # a longer paragraph is cut: bounds the work on hostile input
MAX_COMPUTED = 12  # figures of one claim looked for as arithmetic on cited ones (each tries operand pairs)


class Claim(NamedTuple):
    """A cited claim: `line` is the file line it starts on; `text` is plain
    (markdown and markers removed); `footnotes` the citation numbers in order of first
    use; `labels` every footnote label it uses (a draft's `slug:3` too), in that order."""

    line: int
    text: str
    footnotes: tuple[int, ...]
    labels: tuple[str, ...] = ()

    @property
    def hash(self) -> str:
        return "sha256:" + hashlib.sha256(normalize(self.text).encode("utf-8")).hexdigest()


class Grounding(NamedTuple):
    """The rule's outcome for one claim. `checked` is False when one of its
    footnotes has no entry with an excerpt (the citation rules report that)."""

    checked: bool
    quantities: tuple[Quantity, ...] = ()
    missing: tuple[Quantity, ...] = ()  # error: figures no cited excerpt or page title states
    reasons: tuple[str, ...] = ()  # why each missing figure is refused, when more can be said ("" if not)
    derived: tuple[str, ...] = ()  # figures computed from cited ones, and how ("2x = $0.10 / $0.05 (a ratio)")

    @property
    def ok(self) -> bool:
        return not self.missing


@dataclass(slots=True)
class ClaimRecord:
    """A claim with what it cites and its grounding, as `web-research claims` lists it."""

    path: Path
    scope: str
    claim: Claim
    excerpts: list[tuple[int, str | None, str]] = field(default_factory=list)  # (number, url, excerpt)
    grounding: Grounding = Grounding(False)
    # url -> the URL its fetch ended at (a run's snapshots), so sites are counted where the pages are
    ended_at: Callable[[str], str] | None = None

    @property
    def sites(self) -> list[str]:
        """The independent sites (registrable domains, `sites.py`) of the excerpts it cites."""
        return corroboration(self)

    def as_dict(self, display_path: str) -> dict[str, Any]:
        g = self.grounding
        sites = self.sites
        return {
            "file": display_path, "line": self.claim.line, "text": self.claim.text, "hash": self.claim.hash,
            "footnotes": list(self.claim.footnotes),
            "excerpts": [{"footnote": n, "url": url, "excerpt": text} for n, url, text in self.excerpts],
            "sites": len(sites), "site_domains": sites,
            "grounded": g.ok if g.checked else None,
            "quantities": [q.text for q in g.quantities],
            "missing": [q.text for q in g.missing],
            "computed": list(g.derived),
        }


def corroboration(record: ClaimRecord) -> list[str]:
    """The distinct sites whose excerpts a claim cites, in order of first citation, each page
    counted where its fetch ended (`ended_at`): its corroboration is their number (a vendor's
    own pages are one site, and so is a page reached by a redirect from another)."""
    urls = [url for _n, url, _excerpt in record.excerpts if url]
    return independent_sites(map(record.ended_at, urls) if record.ended_at is not None else urls)


# --------------------------------------------------------------------------
# Finding claims
# --------------------------------------------------------------------------

def find_claims(text: str, first_line: int = 1) -> list[Claim]:
    """Every cited claim of a Markdown file (or body starting at `first_line`)."""
    return claims_of(parse_markdown(text, first_line))


def plan_bullet_ids(plan: Any) -> frozenset[str] | None:
    """The ids of a parsed plan's bullets (None without a plan: then any id-shaped label is one)."""
    if plan is None:
        return None
    return frozenset(i for subtopic in plan.all_subtopics for i in subtopic.bullet_ids)


def claims_of(document: Document, bullet_ids: Collection[str] | None = None) -> list[Claim]:
    """Every cited claim of a parsed Markdown file: of its paragraphs (list items and
    quotes included) and table rows; headings and footnote definitions make none.
    `bullet_ids`: the plan's bullet ids (see `_BULLET_ID_LABEL`); None when not known."""
    claims: list[Claim] = []
    headers: dict[int, list[str]] = {}  # a table's first line -> its header cells
    leads = lead_ins(document)
    for block in document.blocks:
        if block.kind == "row" and block.line == block.table:
            headers[block.table] = header_cells(block)
            continue  # a header row names columns; each cited row carries them
        if block.labels:
            found = _claims_of_sentences(sentences_of(block, headers.get(block.table), bullet_ids))
            lead = lead_for(leads, block.line)
            if lead is not None:
                found = [c._replace(text=f"{lead} {c.text}") for c in found]
            claims.extend(found)
    return claims


def lead_ins(document: Document) -> list[tuple[Lead, str]]:
    """The lead-ins of a parsed file with their words: a paragraph of one sentence that cites
    nothing, states no figure and ends with a colon, right before the list or table it
    introduces ("The limits table gives these upper limits:")."""
    leads = []
    if not document.leads:
        return leads
    by_line = {b.line: b for b in document.blocks if b.kind == "paragraph"}
    for lead in document.leads:
        block = by_line.get(lead.line)
        if block is None or block.labels:
            continue
        sentences = sentences_of(block)
        words = sentences[0].text if len(sentences) == 1 else ""
        if words.endswith(":") and not _figures_of(words):
            leads.append((lead, words))
    return leads


def lead_for(leads: list[tuple[Lead, str]], line: int) -> str | None:
    """The words of the innermost lead-in whose list or table holds `line`, if any."""
    inside = [(lead.start, words) for lead, words in leads if lead.start <= line <= lead.stop]
    return max(inside)[1] if inside else None


class Sentence(NamedTuple):
    """One sentence of a block (a table row is one), as `sentences_of` reads it: its file
    line, its joined text with each reference as `_MARK`, and its reference labels in order."""

    line: int
    raw: str
    labels: tuple[str, ...]

    @property
    def text(self) -> str:
        """The sentence's words (see `plain_text`)."""
        return plain_text(self.raw)


def _cells(block: Block) -> list[list]:
    cells: list[list] = [[]]
    for span in block.spans:
        if span.kind == CELL:
            cells.append([])
        else:
            cells[-1].append(span)
    return cells


def header_cells(block: Block) -> list[str]:
    """A table's header row as the words of each cell (references and Markdown left out)."""
    return [" ".join("".join(s.text for s in cell if s.kind in (TEXT, CODE)).split()) for cell in _cells(block)]


def _piece(span) -> str:  # noqa: ANN001 - a markdown_doc.Span
    text = span.text.translate(_OURS) if span.kind in (TEXT, CODE) and not span.text.isascii() else span.text
    if span.kind == CODE:  # a code span is part of the claim (`$9.90` states a figure), as written
        return _CODE_OPEN + text + _CODE_CLOSE
    if span.kind == TEXT:
        return text
    if span.kind == REF:
        return _MARK
    return " " if span.kind in (BREAK, CELL) else ""  # inline HTML is no part of a claim


def _joined(block: Block, bullet_ids: Collection[str] | None = None) -> tuple[str, list[tuple[int, int]], list[str]]:
    """The block's prose as one line (markers as `_MARK`), with (offset, line) where each
    source line starts, and the labels of its references in order. HTML is left out."""
    parts: list[str] = []
    starts: list[tuple[int, int]] = [(0, block.line)]
    labels: list[str] = []
    size = 0
    for span in block.spans:
        piece = _piece(span)
        if span.kind == REF:
            labels.append(span.text)
        elif span.kind == BREAK:
            starts.append((size + 1, span.line))
        parts.append(piece)
        size += len(piece)
        if size > MAX_BLOCK_CHARS:
            break
    joined = "".join(parts)[:MAX_BLOCK_CHARS]
    if block.item:
        label = _BULLET_ID_LABEL.match(joined)
        if label and bullet_ids is not None and not set(_BULLET_ID.findall(label.group(0))) <= set(bullet_ids):
            label = None  # "4.99:" where the plan has no bullet 4.99: a figure
        if label:
            joined = joined[label.end():]
            starts = [(max(0, offset - label.end()), line) for offset, line in starts]
    return joined, starts, labels


def _row(block: Block, header: list[str] | None) -> Sentence:
    """A table row as one sentence: "<header>: <cell>; ..." (cells without a header as they are)."""
    parts: list[str] = []
    labels: list[str] = []
    for index, cell in enumerate(_cells(block)):
        words = "".join(_piece(span) for span in cell)[:MAX_BLOCK_CHARS]
        labels += [span.text for span in cell if span.kind == REF]
        if not words.replace(_MARK, "").strip() and _MARK not in words:
            continue
        # A cell of references alone is read with its header too ("Source: [^1]"): every header
        # cell is read with the claims below it (an empty column's is refused: markdown_form.py).
        name = header[index] if header is not None and index < len(header) else ""
        parts.append(f"{name}: {words.strip()}" if name else words.strip())
    return Sentence(block.line, "; ".join(parts), tuple(labels))


def sentences_of(block: Block, header: list[str] | None = None,
                 bullet_ids: Collection[str] | None = None) -> list[Sentence]:
    """The block's sentences in order, cited or not (a table row is one sentence, its cells
    read with `header`, the table's header cells; `bullet_ids` as for `claims_of`)."""
    if block.kind == "row":
        return [_row(block, header)]
    joined, starts, labels = _joined(block, bullet_ids)
    spans: list[tuple[int, str]] = []  # (offset, text)
    begin = 0
    for m in _SENTENCE_END.finditer(joined):
        head = joined[begin:m.start() + 1]
        word = _LAST_WORD.search(head)
        if word and (word.group(1).casefold() in _ABBREVIATIONS or _INITIAL.fullmatch(word.group(1))):
            continue
        spans.append((begin, joined[begin:m.end()]))
        begin = m.end()
    if joined[begin:].strip():
        spans.append((begin, joined[begin:]))
    out = []
    used = 0
    for offset, raw in spans:
        at = offset + len(raw) - len(raw.lstrip())
        count = raw.count(_MARK)
        out.append(Sentence(max(number for start, number in starts if start <= at), raw,
                            tuple(labels[used:used + count])))
        used += count
    return out


def _claims_of_sentences(sentences: list[Sentence]) -> list[Claim]:
    """Cited sentences as claims; an uncited sentence joins the claim it leads up to, or,
    after the last cited one, the last claim."""
    groups: list[list[Sentence]] = []  # each closed by a cited sentence
    pending: list[Sentence] = []
    for sentence in sentences:
        pending.append(sentence)
        if sentence.labels:
            groups.append(pending)
            pending = []
    if pending and groups:
        groups[-1].extend(pending)  # after the last marker: part of the last claim
    claims = []
    for group in groups:
        mine = tuple(dict.fromkeys(label for sentence in group for label in sentence.labels))
        footnotes = tuple(dict.fromkeys(int(label) for label in mine if label.isascii() and label.isdigit()))
        claims.append(Claim(group[0].line, plain_text(" ".join(s.raw for s in group)), footnotes, mine))
    return claims


def plain_text(text: str) -> str:
    """A claim's words from its joined prose: reference marks (and marks written like one),
    bullet-id mentions and bare URLs dropped, whitespace collapsed; code spans kept verbatim,
    with the spaces around them. (The parser already dropped emphasis, link targets and HTML.)"""
    if _CODE_OPEN not in text:
        return _plain_prose(text)
    pieces = _CODE_PIECE.split(text)
    out = []
    for index, piece in enumerate(pieces):
        if index % 2:  # a code span, as written
            out.append(piece[1:-1])
            continue
        words = _plain_prose(piece.translate(_OURS))
        lead = " " if index and piece[:1].isspace() and words[:1] not in _PUNCTUATION else ""
        tail = " " if index < len(pieces) - 1 and piece[-1:].isspace() else ""
        out.append(lead + words + tail if words else (" " if lead or tail else ""))
    return "".join(out).strip()


def _plain_prose(text: str) -> str:
    """`plain_text` of prose without code spans."""
    # (each string test only skips a pattern that cannot match: verify runs this on every claim)
    if _MARK in text:
        text = text.replace(_MARK, "")
    if "bullet" in text.lower():
        text = _BULLET_ID_MENTION.sub("", text)
    if "http" in text:
        text = _URL.sub("", text)
    if "[^" in text:
        text = FOOTNOTE_LIKE.sub("", text)
    text = _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text)
    return " ".join(text.split())


# --------------------------------------------------------------------------
# The rule
# --------------------------------------------------------------------------

def grounding(claim: Claim, excerpts: Iterable[str], titles: Iterable[str] = (),
              urls: Iterable[str] = ()) -> Grounding:
    """Check each figure of `claim` against the figures of `excerpts`, and each identifier it
    states against the identifiers of `titles` and `urls` (the sealed titles and the addresses
    of the pages it cites: "3.11" in "Python 3.11 adds..." is grounded by a page titled "What's
    New In Python 3.11", "PostgreSQL 15" by a page under `/docs/15/`; a price or a count never
    is). A release series is grounded by a release of it (3.11 by 3.11.2). A multiplier,
    percent, difference or product the claim computes from cited figures is grounded when the
    arithmetic holds (figure_arithmetic.py); a figure written so no check can read it (a digit
    of another script, "two-fifty") is refused with why."""
    texts = [e for e in excerpts if e and e.strip()]
    if not texts:
        return Grounding(False)
    stated = _figures_of(claim.text)
    unreadable = _unreadable_of(claim.text)
    if not stated and not unreadable:
        return Grounding(True)
    per_excerpt = [_excerpt_figures(text) for text in texts]
    available = [q for found in per_excerpt for q in found]
    names: list[Quantity] | None = None
    claim_text = readable(claim.text)
    missing: list[Quantity] = []
    reasons: list[str] = []
    derived: list[str] = []
    pending: list[Quantity] = []
    for q in stated:
        identifier = q.kind == KIND_VERSION or is_identifier(claim_text, q)
        if identifier:
            if any(names_same(q, other) for other in available):
                continue  # "Python 3.11" by "v3.11" or "3.11.2", never by "3.1" or "3.110"
            if names is None:
                names = [n for text in titles if text for n in _identifiers_of(text)] + \
                    [n for url in urls if url for n in url_identifiers(url)]
            if any(names_same(q, other) for other in names):
                continue
            missing.append(q)
            reasons.append(why_not_named(q, [*available, *names]))
            continue
        if not any(q.matches(other) for other in available):
            pending.append(q)
    if pending:
        operands = operands_of(claim_text, stated, [(readable(t), found) for t, found in zip(texts, per_excerpt)])
        refused = []
        for index, q in enumerate(pending):
            if index >= MAX_COMPUTED:
                missing.append(q)
                reasons.append(f"the check computes at most {MAX_COMPUTED} figures of one claim: split the claim")
                continue
            derivation = derive(q, operands, claim_text)
            if derivation is not None:
                derived.append(derivation.text)
            else:
                refused.append(q)
        absent = missing + refused
        for q in refused:
            missing.append(q)
            reasons.append(why_refused(q, claim_text, stated, absent, available, operands))
    turned = reversed_pair(claim_text, stated, [(readable(t), found) for t, found in zip(texts, per_excerpt)]) \
        if len(stated) > 1 else None
    if turned is not None and turned[0] not in missing and turned[1] not in missing:
        missing.append(turned[0]._replace(text=f"from {turned[0].text} to {turned[1].text}"))
        reasons.append(f"the excerpt goes the other way, from {turned[2].text} to {turned[3].text}")
    for text, why in unreadable:
        missing.append(Quantity(text, Decimal(0), KIND_NUMBER))
        reasons.append(why)
    order = sorted(range(len(missing)), key=lambda i: missing[i].start)
    return Grounding(True, stated, tuple(missing[i] for i in order), tuple(reasons[i] for i in order),
                     tuple(derived))


# Cached: the report repeats its findings files' claims and excerpts, and one excerpt backs many claims.
@lru_cache(maxsize=4096)
def _figures_of(text: str) -> tuple[Quantity, ...]:
    return tuple(figures_in(text))


@lru_cache(maxsize=4096)
def _excerpt_figures(text: str) -> tuple[Quantity, ...]:
    return tuple(figures_in(text, bare_words=True))


@lru_cache(maxsize=4096)
def _unreadable_of(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(unreadable_figures(text))


@lru_cache(maxsize=1024)
def _identifiers_of(text: str) -> tuple[Quantity, ...]:
    return tuple(identifiers_in(text))


def claim_records(path: Path, scope: str, document: Document, citations: Iterable[Citation],
                  page_titles: Callable[[str], Iterable[str]] | None = None,
                  bullet_ids: Collection[str] | None = None) -> list[ClaimRecord]:
    """The claims of one parsed file with their excerpts (from the file's own Sources) and grounding.
    `page_titles(url)`: the sealed titles of the page snapshot of `url` (none without it);
    `bullet_ids`: the plan's (`plan_bullet_ids`)."""
    by_number: dict[int, Citation] = {}
    for c in citations:
        by_number.setdefault(c.number, c)
    records = []
    for claim in claims_of(document, bullet_ids):
        cited = [(n, by_number[n].url, by_number[n].excerpt) for n in claim.footnotes
                 if n in by_number and by_number[n].excerpt]
        if len(cited) < len(claim.footnotes):
            # A footnote without a usable excerpt is the citation rules' defect
            # (undefined, required), and an error already: one defect, one check.
            result = Grounding(False)
        else:
            urls = [url for _n, url, _e in cited if url]
            result = grounding(claim, [e for _n, _u, e in cited], urls=urls)
            if result.missing and page_titles is not None:  # titles are read only when needed
                titles = [t for url in urls for t in page_titles(url)]
                result = grounding(claim, [e for _n, _u, e in cited], titles, urls)
        records.append(ClaimRecord(path, scope, claim, cited, result))
    return records


def sealed_page_titles(run_dir: Path, sealed: Mapping[str, Any] | None) -> Callable[[str], tuple[str, ...]]:
    """`url -> the titles of its page snapshot`, for `claim_records`. With `sealed` (the run's
    seals, when the hooks managed it) only a snapshot whose record a fetch sealed gives its
    titles: a title is evidence like the page's text. The snapshots are read on first use."""
    index: list[Any] = []

    def titles(url: str) -> tuple[str, ...]:
        if not index:
            index.append(SnapshotIndex.build(run_dir))
        snap = index[0].find(url)
        if snap is None or (sealed is not None and f"{formats.SOURCES_DIR}/{snap.meta_path.name}" not in sealed):
            return ()
        return snap.titles

    return titles


def _run_seals(parsed: ParsedRun) -> Mapping[str, Any] | None:
    """The run's seals when it has a record of them (a run the hooks managed), else None."""
    if parsed.seal_source is None:
        parsed.seal_source = load_folder_copy(parsed.run_dir)
    source = parsed.seal_source
    return (source.seals or {}) if (source.required or source.seals is not None) else None


def run_page_titles(parsed: ParsedRun) -> Callable[[str], tuple[str, ...]]:
    """`sealed_page_titles` for a parsed run: sealed ones only when the run has seals (a run
    the hooks managed), any snapshot's in a folder with no record of seals."""
    return sealed_page_titles(parsed.run_dir, _run_seals(parsed))


def run_excerpt_contexts(parsed: ParsedRun) -> Callable[[Sequence[tuple[str, str]]], list[ExcerptContext | None]]:
    """`[(url, excerpt)] -> each excerpt's context in the page snapshot of url` (evidence/page_contexts.py:
    the stored text's, with the structure of the page's archived HTML where the run sealed its WARC),
    None where the run keeps no intact snapshot of the page (a sealed one, in a run with seals) or
    the excerpt is not in it. Each snapshot is read once."""
    sealed = _run_seals(parsed)
    index: list[SnapshotIndex] = []
    pages: dict[Path, tuple[StoredPage, PageRequest | None] | None] = {}

    def page_of(url: str) -> tuple[StoredPage, PageRequest | None] | None:
        if not index:
            index.append(SnapshotIndex.build(parsed.run_dir))
        snap = index[0].find(url)
        if snap is None or (sealed is not None and f"{formats.SOURCES_DIR}/{snap.text_path.name}" not in sealed):
            return None
        if snap.text_path not in pages:
            try:
                text = snap.text()
            except SnapshotError:
                text = None
            html = None
            archive = snap.archive_path
            if snap.archive is not None and archive is not None and (
                    sealed is None or f"{formats.SOURCES_DIR}/{archive.name}" in sealed):
                html = PageRequest((), warc=archive, run_dir=parsed.run_dir, body_sha256=snap.archive.body_sha256)
            pages[snap.text_path] = ((StoredPage(text), html) if text is not None and snap.text_is_intact(text)
                                     else None)
        return pages[snap.text_path]

    def contexts(pairs: Sequence[tuple[str, str]]) -> list[ExcerptContext | None]:
        wanted = [(page_of(url) if url else None, excerpt) for url, excerpt in pairs]
        items = [Excerpt(page[0], page[1], excerpt) for page, excerpt in wanted if page is not None]
        found = iter(page_contexts(items))
        return [next(found) if page is not None else None for page, _ in wanted]

    return contexts


def run_claims(parsed: ParsedRun) -> list[ClaimRecord]:
    """Every cited claim of report.md and of each findings file, in that order."""
    titles = run_page_titles(parsed)
    ids = plan_bullet_ids(parsed.plan)
    records: list[ClaimRecord] = []
    if parsed.report is not None and parsed.report_path is not None:
        records += claim_records(parsed.report_path, "report", parsed.report.doc, parsed.report.citations, titles,
                                 ids)
    for slug, found in parsed.findings.items():
        records += claim_records(found.path, f"findings.{slug}", found.doc, found.citations, titles, ids)
    ended_at = _ended_at(parsed.run_dir)  # the snapshots are read only when a record's sites are asked for
    for record in records:
        record.ended_at = ended_at
    return records


def footnote_list(numbers: Iterable[int]) -> str:
    return "".join(f"[^{n}]" for n in numbers)


def claims_checks(records: Iterable[ClaimRecord]) -> list[Check]:
    """`<scope>.claims.grounded` (error, one failing check per ungrounded claim,
    else one passing check per file)."""
    by_file: dict[Path, list[ClaimRecord]] = {}
    for record in records:
        by_file.setdefault(record.path, []).append(record)
    checks: list[Check] = []
    for path, items in by_file.items():
        scope = items[0].scope
        checked = [r for r in items if r.grounding.checked]
        failing = [r for r in checked if not r.grounding.ok]
        for r in failing:
            figures = ", ".join(f"'{q.text}'" + (f" ({why})" if why else "")
                                for q, why in zip(r.grounding.missing, _padded(r.grounding.reasons)))
            shown = "; ".join(f"[^{n}] \"{_shorten(e)}\"" for n, _u, e in r.excerpts)
            eaten = markdown_ate(_source_lines(path, r.claim.line))
            cause = (f"The Markdown emphasis in '{eaten}' ate characters of the figure: put the expression in "
                     "backticks. ") if eaten else ""
            checks.append(Check(f"{scope}.claims.grounded", False, "error", cause + (
                f"claim at line {r.claim.line} states {figures}, which no excerpt it cites "
                f"({footnote_list(r.claim.footnotes)}) states: {shown} (a page's title counts only for a version, "
                "year, date or a number in a name such as Python 3.11). State the figure as the page gives it "
                "(in digits or words, \"10 cents\" for $0.10, \"half\" for 50%), or cite the passage that gives this one"),
                str(path), r.claim.line))
        if checked and not failing:
            checks.append(Check(f"{scope}.claims.grounded", True, "error",
                                f"{len(checked)} cited claim(s): every figure appears in an excerpt they cite "
                                "(an identifier, or in a cited page's title)",
                                str(path), None))
    return checks


def tldr_sites_check(parsed: ParsedRun, records: Iterable[ClaimRecord]) -> Check | None:
    """`report.tldr.sites` (warning): a TL;DR bullet whose cited excerpts all come from one
    site, in a run whose sources span two sites or more. The TL;DR is what a reader keeps; a
    point there should not rest on one vendor's word about itself, or on one page, when the
    run has a second source to offer. (When every source of the run is on one site, no bullet
    can do better: the check passes and says so; the view shows each claim's count anyway.)"""
    report = parsed.report
    section = report.section(formats.REPORT_SECTIONS[0]) if report is not None else None
    if section is None:
        return None
    mine = [r for r in records if r.scope == "report" and section.line < r.claim.line <= section.end and r.excerpts]
    single: list[tuple[int, str]] = []
    bullets = 0
    ended_at = _ended_at(parsed.run_dir)
    for item in report.doc.items:
        if item.depth or not section.line < item.line <= section.end:
            continue
        cited = [r for r in mine if item.line <= r.claim.line <= item.end]
        if not cited:
            continue  # an uncited bullet is another check's business
        bullets += 1
        urls = [url for r in cited for _n, url, _e in r.excerpts if url]
        hosts = {host(url) for url in urls} - {None}
        if len(hosts) == 1:  # one host is one site: no need to load the suffix list
            single.append((item.line, hosts.pop()))
        elif len(sites := independent_sites(map(ended_at, urls))) == 1:
            single.append((item.line, sites[0]))
    path = str(parsed.report_path)
    if not single:
        return Check("report.tldr.sites", True, "warning",
                     f"each of {bullets} cited TL;DR bullet(s) cites two or more independent sites", path, None)
    run_urls = [cited.citation.url for cited in parsed.cited if cited.citation.url]
    if len({host(url) for url in run_urls} - {None}) <= 1 or len(independent_sites(map(ended_at, run_urls))) <= 1:
        return Check("report.tldr.sites", True, "warning",
                     "every source the run cites is on one site: no TL;DR bullet has a second site to cite", path, None)
    listed = "; ".join(f"line {line}: {site}" for line, site in single[:6])
    return Check("report.tldr.sites", False, "warning",
                 f"{len(single)} TL;DR bullet(s) rest on a single site ({listed}); where the findings give a second, "
                 "independent source for the point, cite it too", path, single[0][0])


def _ended_at(run_dir: Path) -> Callable[[str], str]:
    """`url -> the URL its fetch ended at` (the snapshot's final URL; the URL itself without
    one): a site is counted where the page is, so a page reached by a redirect from another
    site is one site, not two. The snapshots are read on first use (one host needs none)."""
    index: list[SnapshotIndex] = []

    def final(url: str) -> str:
        if not index:
            index.append(SnapshotIndex.build(run_dir))
        snap = index[0].find(url)
        return snap.final_url if snap is not None else url

    return final


def _padded(reasons: Sequence[str]) -> Iterable[str]:
    yield from reasons
    while True:
        yield ""


# Digits joined by emphasis marks: `2**31 - 1` renders "2" and a bold "31 - 1", read as 231.
_EATEN = re.compile(r"[0-9.]*[0-9](?:\*\*?|__?|~~)[0-9][^\s*_~]*")
_CODE_SPAN = re.compile(r"`+[^`]*`+")


def markdown_ate(source: str) -> str | None:
    """The first expression of a claim's Markdown source whose digits emphasis marks join
    (`2**31`, `10*3*2`), outside code spans: the figure read is not the one written."""
    if "*" not in source and "_" not in source and "~" not in source:
        return None
    m = _EATEN.search(_CODE_SPAN.sub(" ", source))
    return m.group(0) if m else None


def _source_lines(path: Path, line: int, count: int = 6) -> str:
    """Up to `count` lines of a claim's file from `line` (its paragraph), for a message; empty
    when the file cannot be read (a refusal's message is all that depends on it)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [text for _n, text in zip(range(line - 1 + count), handle)][line - 1:]
    except OSError:
        return ""
    out = []
    for text in lines:
        if not text.strip():
            break
        out.append(text[:2000])
    return "".join(out)


def _shorten(text: str, limit: int = 160) -> str:
    return clip(text, limit)
