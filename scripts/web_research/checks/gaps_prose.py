"""What Gaps & Limitations may say: a closed set of sentence forms, each read by a check.

Everything else in report.md is a cited claim the checker judges; Gaps & Limitations is where a
report says what it could not establish, and so where an unchecked statement about the world
("Acme's Standard plan is being withdrawn after a data breach") would otherwise reach the
person. Each sentence of the section, read as `claims.sentences_of` reads it (a list item under
a lead-in read with the lead-in's words, as claims are), is one of:

- **recorded**: a line `finish` writes (report/gaps.is_own): fixed words and the plan;
- **claim**: a sentence carrying a reference: a claim like any in Findings, judged by the
  checker, and it must be supported there too (checks/verdicts.py): a claim judged partial
  moved into Gaps with its footnote does not pass;
- **absence**: a statement that the pages read do not establish something, in the form
  `ABSENCE_FORM` ("The pages read do not state …", "No page read gives …"): judged against
  every page the run stored (checks/absence.py);
- **fixed**: one of `FIXED_SENTENCES`, limits of the method in the plugin's words;
- **unconfirmed**: `Unconfirmed evidence: <what>.`, where <what> names only plan subtopics,
  run files and check ids (how a report records evidence it cannot use, failure-modes.md).

Any other sentence fails `report.gaps.form` at its line, with the form to use. Pure.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, NamedTuple, Sequence

from .. import formats
from ..core.result import Check, fail, ok
from .claims import Sentence, header_cells, lead_for, lead_ins, sentences_of
from .report import Report
from .report_references import valid_label
from ..core.clip import quoted

GAPS = formats.REPORT_SECTIONS[2]
RECORDED, CLAIM, ABSENCE, FIXED, UNCONFIRMED, OTHER = "recorded", "claim", "absence", "fixed", "unconfirmed", "other"
ABSENCE_FORM = '"The pages read do not <state | give | show | compare | ...> <what>." or "No page read <states | ...> <what>."'
FIXED_SENTENCES = (
    "Only the pages listed under Sources were read.",
    "The pages may have changed since the retrieval dates shown under Sources.",
)
UNCONFIRMED_LABEL = "Unconfirmed evidence:"
MAX_LISTED = 6
# The verbs an absence statement may use: saying, showing, giving.
ABSENCE_VERBS = frozenset("""state say show give name list mention establish relate compare specify explain confirm
cover include describe document report address provide define discuss indicate quote detail publish answer
distinguish identify clarify tie link connect break contain hold offer measure""".split())
_PAGES = r"(?:pages?|sources?|documents?)"
_BY = r"(?:\s+(?:(?:this|the)\s+run\s+)?(?:read|stored|fetched|cited|consulted|found))?"
_SUBJECT = rf"(?:(?:the|these|its)\s+)?(?:(?:stored|cited|fetched)\s+)?{_PAGES}{_BY}"
_NEGATION = r"(?:(?:do|does|did)\s+not|don['\u2019]t|doesn['\u2019]t|didn['\u2019]t|never)"
_ABSENCE = re.compile(
    rf"^(?:(?:none\s+of\s+{_SUBJECT}|no\s+(?:(?:stored|cited|fetched)\s+)?{_PAGES}{_BY}|nothing\s+in\s+{_SUBJECT})"
    rf"\s+(?P<verb1>[a-z]+)|{_SUBJECT}\s+{_NEGATION}\s+(?P<verb2>[a-z]+))[:,]?\s+(?P<what>\S.*)$",
    re.IGNORECASE | re.DOTALL)
_SEPARATORS = re.compile(r"[\s,;:()\"'\u201c\u201d\u2018\u2019`*.]+|\b(?:and|subtopic|subtopics|file|files|the|of)\b",
                         re.IGNORECASE)
# What the unconfirmed form may name besides the plan's subtopics: the run's files by the names the
# plugin gives them (a subtopic's findings or brief by its slug, a snapshot by its id, a verdicts file)
# and check ids made of the words check ids use (`CHECK_ID_WORDS`, a subtopic's slug, a bullet's id).
# Any other "file" or "id" is words: "findings/acme-was-fined-for-hidden-fees.md", "acme.was-fined".
# A file's name ends where no name character follows, nor a dot that goes on with one (a sentence's
# full stop may follow it: "Unconfirmed evidence: findings/pricing.md.").
_SNAPSHOT_FILE = re.compile(r"\bsources/[0-9a-f]{16}(?:\.txt|\.json|\.warc\.gz)(?![\w-]|\.[\w-])")
_VERDICTS_FILE = re.compile(r"\bchecks/verdicts-[1-9][0-9]{0,3}\.json(?![\w-]|\.[\w-])")
_CHECK_ID = re.compile(r"\b[a-z]+(?:\.[a-z0-9_<>*-]+)+(?![\w<>*-])")
CHECK_ID_WORDS = frozenset("""
plan run report findings provenance citations sources checks exists readable parses names brief_hash none claims
grounded frontmatter extra layout length markdown memory reason status subtopic text bidi blank controls uncited
unexpected links sealed coverage figures gaps form nonempty headings label references sections duplicate missing
order title tldr bullets sites abandoned checked verdict verdicts absence integrity records required optional
verbatim snapshot final_url retrieved site_root repeated_url undefined orphan numbering first_use placement
<slug> <id> <rule> *
""".split())


class GapsSentence(NamedTuple):
    """One sentence of Gaps & Limitations and the form it takes (see the module docstring)."""

    line: int
    text: str  # its words, the lead-in's first for a listed item
    form: str
    what: str = ""  # an absence statement: what it says the pages lack


# A second clause that asserts something besides what the pages lack ("..., which was withdrawn
# after a breach", "... because Acme hides them", "... since Acme withdrew it": a 'since' before
# anything but a date gives a reason or an event); a question that presupposes its answer's fact
# ("why Acme hid its fees" says Acme hid them): no absence statement.
# So is a second sentence ("... logs. | Why | Acme hides it |", a table run on into the line) and a
# table's pipes.
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
_ASIDE = re.compile(r"[|\u2014\u2013]|[,(]\s*(?:which|who|whose|but|yet|so)\b|\s-\s"
                    r"|\b(?:because|although|though|whereas|despite|even\s+though|given\s+that|now\s+that|why"
                    rf"|how\s+come)\b|\bsince\s+(?!\d|{_MONTHS}\b|(?:the\s+)?(?:start|beginning|end)\b)"
                    r"|(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\betc)(?<!\bno)(?<!\.)[.!?]\s+\S", re.IGNORECASE)
# A bare clause: what the pages lack said as a statement ("The pages read do not state: Acme was
# fined for hidden fees", which a person reads, listed, as a fact). A finite verb of be, have, do or
# a modal is only read inside a question or a that-clause (whether, how, why, that, ...).
# "... otherwise than that Acme was fined", "... the opposite": a denial said as an absence.
_DENIAL = re.compile(r"^(?:anything\s+)?(?:otherwise|else\s+than|other\s+than|the\s+(?:opposite|contrary|reverse))\b",
                     re.IGNORECASE)
_PARENTHESES = re.compile(r"\([^()]*\)|\[(?!\^)[^\[\]]*\]")  # "(...)" and "[...]", a footnote mark aside
# A question whose named subject did something in the past presupposes it did ("how Acme hid its
# fees", "when Acme withdrew the plan"): the fact is the report's word, and no tier's check reads
# it as one. Present tense ("how Acme prices ...") and "whether" ask without asserting.
_PAST = (r"(?:hid|withdrew|made|took|gave|got|kept|sold|bought|paid|left|lost|began|broke|chose|knew|led|"
         r"met|ran|said|sent|spent|stole|told|went|won|wrote|hidden|[a-z]{2,}ed)")
_PRESUPPOSED = re.compile(r"\b(?:how|when|where|who|which|what)\s+(?:the\s+)?(?:[A-Z][\w.-]*\s+){1,3}" + _PAST + r"\b")
_DETERMINED = re.compile(r"\s*(?:the|a|an|its|their|his|her|this|these|those|our|one|each|every)\s", re.IGNORECASE)
_LISTED = re.compile(r"\b(?:and|or|nor|etc)\b|\.\.\.|\u2026", re.IGNORECASE)
_FINITE = re.compile(r"\b(?:is|are|was|were|has|have|had|does|do|did|will|would|can|could|may|might|must|"
                     r"should|shall|isn['\u2019]t|aren['\u2019]t|wasn['\u2019]t|weren['\u2019]t|hasn['\u2019]t|"
                     r"hadn['\u2019]t|doesn['\u2019]t|didn['\u2019]t|won['\u2019]t|can['\u2019]t)\b", re.IGNORECASE)
_OPENS_CLAUSE = re.compile(r"\b(?:whether|if|how|why|when|where|which|what|who|whom|whose|that|once|until|unless|"
                           r"while|whenever|wherever)\b", re.IGNORECASE)


# What a parenthesis in an absence statement may hold: examples or names, each part of at most three
# words ("(postmaster, sighup or user)", "(e.g. Lumen)", "(published committed-volume discounts)"); longer, or with a finite
# verb, it is an aside that states something ("(withdrawn after a data breach)").
_EXAMPLES_LEAD = re.compile(r"^\s*(?:e\.g\.|i\.e\.|such\s+as|say|like)\s*", re.IGNORECASE)
_PARTS = re.compile(r",|;|\b(?:and|or|nor|versus|vs\.?)\b", re.IGNORECASE)


def _parenthetical_aside(what: str) -> bool:
    """Whether a parenthesis of `what` holds more than names or examples (see `_PARTS`)."""
    for inside in re.findall(r"\(([^()]*)\)|\[(?!\^)([^\[\]]*)\]", what):
        inside = "".join(inside)
        parts = _PARTS.split(_EXAMPLES_LEAD.sub("", inside))
        if _FINITE.search(inside) or any(len(part.split()) > 3 for part in parts):
            return True
    return False


def _appended(what: str) -> bool:
    """Whether `what` ends with a noun phrase set off by a comma that lists nothing ("a price for
    rehydration, the feature Acme withdrew"): an appositive, which says something of what it
    follows, not one more thing the pages lack (a list's last part says and, or, nor; a phrase
    put in between, ", in months, for Acme's tier", goes on without a determiner)."""
    parts = _PARENTHESES.sub(" ", what).split(",")
    return len(parts) > 1 and _LISTED.search(parts[-1]) is None and _DETERMINED.match(parts[-1]) is not None


def absence_what(text: str) -> str | None:
    """What an absence statement says the pages lack, or None when `text` is not one (nor is one
    that asserts something besides, `_ASIDE`)."""
    match = _ABSENCE.match(" ".join(text.split()))
    if match is None:
        return None
    verb = (match.group("verb1") or match.group("verb2")).lower()
    stems = {verb, verb[:-1], verb[:-2], verb[:-3], verb[:-3] + "y"} if len(verb) > 4 else {verb, verb[:-1]}
    if not stems & ABSENCE_VERBS:
        return None
    what = match.group("what").strip()
    if not re.search(r"\w", what) or _ASIDE.search(what) or _DENIAL.search(what) or _appended(what) \
            or _parenthetical_aside(what) or _PRESUPPOSED.search(what):
        return None
    for part in what.split(";"):  # things listed with semicolons: each a thing or a question
        finite = _FINITE.search(part)
        if finite is not None and not _OPENS_CLAUSE.search(part, 0, finite.start()):
            return None
    return what


def _fixed(text: str) -> bool:
    said = " ".join(text.split()).rstrip(".").casefold()
    return any(said == s.rstrip(".").casefold() for s in FIXED_SENTENCES)


def _unconfirmed(text: str, names: Sequence[str]) -> bool:
    said = " ".join(text.split())
    if not said.casefold().startswith(UNCONFIRMED_LABEL.casefold()):
        return False
    slugs = {n for n in names if re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", n)}
    rest = said[len(UNCONFIRMED_LABEL):]
    if slugs:
        rest = re.sub(r"\b(?:findings|briefs)/(?:" + "|".join(map(re.escape, sorted(slugs, key=len, reverse=True)))
                      + r")\.md(?![\w-]|\.[\w-])", " ", rest)
    rest = _VERDICTS_FILE.sub(" ", _SNAPSHOT_FILE.sub(" ", rest))
    rest = _CHECK_ID.sub(lambda m: " " if is_check_id(m.group(0), slugs) else m.group(0), rest).casefold()
    for name in sorted((" ".join(n.split()).casefold() for n in names if n.strip()), key=len, reverse=True):
        rest = rest.replace(name, " ")
    return bool(said[len(UNCONFIRMED_LABEL):].strip()) and not _SEPARATORS.sub("", rest)


def is_check_id(text: str, slugs: set[str] | frozenset[str] = frozenset()) -> bool:
    """Whether `text` is made as check ids are: its dot-separated parts words of CHECK_ID_WORDS,
    a subtopic's slug (`slugs`) or a bullet's id (digits: `report.coverage.1.2`)."""
    parts = text.split(".")
    return parts[0] in ("plan", "run", "report", "findings", "provenance", "citations", "sources", "checks") and all(
        p in CHECK_ID_WORDS or p in slugs or p.isdigit() for p in parts[1:])


def _cited(sentence: Sentence) -> bool:
    return any(valid_label(label) for label in sentence.labels)


def gaps_sentences(report: Report, own: Callable[[str], bool], names: Sequence[str] = ()) -> list[GapsSentence]:
    """Every sentence of Gaps & Limitations with its form. `own(line)`: whether a report line is one
    `finish` writes (report/gaps.is_own); `names`: the plan's subtopic names and slugs (for the
    unconfirmed form)."""
    section = report.section(GAPS)
    if section is None:
        return []
    leads = lead_ins(report.doc)
    lead_lines = {lead.line for lead, _words in leads}
    headers: dict[int, list[str]] = {}
    out: list[GapsSentence] = []
    for block in report.doc.blocks:
        if block.kind == "row" and block.line == block.table:
            headers[block.table] = header_cells(block)
            continue
        if not section.line < block.line <= section.end or block.line in lead_lines:
            continue  # a lead-in is read with each item it introduces
        source = report.lines[block.line - 1] if block.line <= len(report.lines) else ""
        if own(source):
            out.append(GapsSentence(block.line, " ".join(source.split()), RECORDED))
            continue
        lead = lead_for(leads, block.line)
        for sentence in sentences_of(block, headers.get(block.table)):
            words = sentence.text.strip()
            if not re.search(r"\w", words):
                continue
            text = f"{lead} {words}" if lead else words
            if _cited(sentence):
                out.append(GapsSentence(sentence.line, text, CLAIM))
            elif (what := absence_what(text)) is not None:
                out.append(GapsSentence(sentence.line, text, ABSENCE, what))
            elif _fixed(text):
                out.append(GapsSentence(sentence.line, text, FIXED))
            elif _unconfirmed(text, names):
                out.append(GapsSentence(sentence.line, text, UNCONFIRMED))
            else:
                out.append(GapsSentence(sentence.line, text, OTHER))
    return out


def gaps_form_check(path: Path, sentences: Sequence[GapsSentence]) -> Check:
    """`report.gaps.form`: every sentence of Gaps & Limitations takes one of the forms above."""
    problems = [(s.line, quoted(s.text)) for s in sentences if s.form == OTHER]
    if not problems:
        return ok("report.gaps.form", "every sentence of Gaps & Limitations takes an allowed form", path)
    shown = "; ".join(f"line {line}: {what}" for line, what in problems[:MAX_LISTED])
    more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    return fail("report.gaps.form", (
        f"{len(problems)} sentence(s) no check reads ({shown}{more}). Gaps & Limitations says only what the pages "
        f"do not establish, as {ABSENCE_FORM} (judged against every page the run stored; <what> is one clause, a "
        "thing or a question ('whether Acme throttles overages'), never a statement ('Acme throttles overages'), "
        "with no aside such as ', which ...', ' \u2014 ...', 'because ...', 'since ...', '(...)' around more than "
        "names, a 'why' that presupposes its answer, or a second sentence); or cites the "
        "passage "
        f"that states it, as a claim; or is one of: {' '.join(FIXED_SENTENCES)} Evidence the run cannot use is "
        f"named as \"{UNCONFIRMED_LABEL} <subtopic names, run files, check ids>.\" Rewrite each so, or drop it"),
        path, problems[0][0])
