"""The model check of report.md's claims: check keys, verdict files and the verify rule.

Figures are checked mechanically (claims.py); what numbers cannot settle (a
claim that overstates, generalises or reverses its excerpt) is judged by a
`claim-checker` agent. The flow (the checker's prompt and answer live in
report/claim_checker.py, what the verdicts add up to here):

    `claims DIR --prompt`  renders the next checker's prompt (`render_prompt`):
                           the report's claims that still need a verdict, each
                           with its check key and its excerpts, and the one
                           verdicts file the checker writes
    the checker            answers in its reply, one numbered line per claim and in
                           no other form (claim_checker.parse_answer); the plugin
                           writes that answer as checks/verdicts-<n>.json
                           (schemas/verdicts.schema.json) and seals it when the
                           checker stops (guard/rules/checker_gate.py); the
                           checker writes no file
    `verify`               `verdict_checks`: every cited claim of report.md, and
                           every statement of absence in Gaps & Limitations
                           (absence.py), has a current verdict; an unsupported
                           or partial one is an error, in Gaps & Limitations too

A `partial` verdict says the claim goes further than its passage. It fails the
check, with the checker's reason and the passage, until the claim is narrowed
or cited to another passage (either changes its check key, so only that claim
is checked again, and it passes once judged supported), or dropped, and what the
pages do not state said under Gaps & Limitations as a statement of absence, without
the reference (moved there with its reference it is still a claim, judged as
before). A claim left as it is fails every round, and a run that ends
with it ends unverified: a claim the checker doubts is not one the person may
read as verified. (It once became a warning after `finish` had shown it.)

A verdict names its claim by a *check key*: the first 16 hex digits of SHA-256
over the claim's hash (its normalized text, claims.Claim.hash) and the excerpts
it cites, in order. Editing a claim, or pointing it at other evidence, leaves it
without a verdict; renumbering footnotes does not.

Voting (the plan's tier has `voting`): a claim the first checker found
partial or unsupported is judged by VOTERS - 1 more checkers, one at a time,
and the majority of the VOTERS verdicts decides (a three-way split is
partial). Claims found supported are never voted on.

Cited claims are judged only in runs whose plan's effective budget has `claim_check`;
statements of absence are judged in every run (a plan with no `Tier:` line, which has no claim
check, included): they are the one kind of sentence in report.md that no excerpt backs,
so without a judge nothing would read them (issue 43). Everything here but the loaders is pure.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

from .. import formats
from ..run.budget import VOTERS, effective_budget
from ..evidence.excerpts import normalize
from ..core.fsutil import RunFileError, read_run_file
from ..core.result import Check, fail, ok
from ..core.schema_validation import schema_validator
from . import absence
from .claims import ClaimRecord, claim_records, plan_bullet_ids
from .parsed_run import ParsedRun
from ..core.clip import clip

SCHEMA = "verdicts.schema.json"
KEY_CHARS = 16
MAX_VERDICT_FILES = 60  # more checker dispatches than any run needs: the rest is not read
MAX_VERDICT_FILE_BYTES = 1024 * 1024
MAX_LISTED = 12
_FILE_NAME = re.compile(r"^" + re.escape(formats.VERDICTS_FILE_PREFIX) + r"([1-9][0-9]{0,3})\.json$")


# --------------------------------------------------------------------------
# Keys and verdicts
# --------------------------------------------------------------------------

def check_key(record: ClaimRecord) -> str:
    """The key a verdict names its claim by: claim text and cited excerpts, hashed."""
    digest = hashlib.sha256(record.claim.hash.encode("utf-8"))
    for _number, _url, excerpt in record.excerpts:
        digest.update(b"\n" + normalize(excerpt).encode("utf-8"))
    return digest.hexdigest()[:KEY_CHARS]


class Verdict(NamedTuple):
    claim: str  # check key
    verdict: str
    reason: str
    file: str  # checks/verdicts-<n>.json


class VerdictFile(NamedTuple):
    number: int
    rel: str  # checks/verdicts-<n>.json
    verdicts: tuple[Verdict, ...]
    problems: tuple[str, ...]  # why the file (or part of it) cannot be used


def parse_verdicts(raw: bytes, rel: str) -> tuple[tuple[Verdict, ...], tuple[str, ...]]:
    """(verdicts, problems) of one verdicts file's bytes, validated against the schema."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return (), (f"is not JSON ({exc}); expected {{\"verdicts\": [...]}} as in {SCHEMA}",)
    errors = sorted(schema_validator(SCHEMA).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        shown = [f"{'/'.join(str(p) for p in e.path) or '(top level)'}: {e.message[:200]}" for e in errors[:5]]
        return (), tuple(shown)
    return tuple(Verdict(v["claim"], v["verdict"], " ".join(v["reason"].split()), rel)
                 for v in data["verdicts"]), ()


def verdict_files(run_dir: Path) -> list[VerdictFile]:
    """Every `checks/verdicts-<n>.json`, in dispatch order, read as hostile input."""
    folder = Path(run_dir) / formats.CHECKS_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    numbered = sorted((int(m.group(1)), p) for p in folder.iterdir() if (m := _FILE_NAME.match(p.name)))
    out = []
    for number, path in numbered[:MAX_VERDICT_FILES]:
        rel = f"{formats.CHECKS_DIR}/{path.name}"
        try:
            raw = read_run_file(path, Path(run_dir), MAX_VERDICT_FILE_BYTES)
        except RunFileError as exc:
            out.append(VerdictFile(number, rel, (), (exc.reason,)))
            continue
        verdicts, problems = parse_verdicts(raw, rel)
        out.append(VerdictFile(number, rel, verdicts, problems))
    return out


def next_file_number(files: Sequence[VerdictFile], run_dir: Path) -> int:
    """The number of the next verdicts file: one past every name in checks/ that looks numbered."""
    folder = Path(run_dir) / formats.CHECKS_DIR
    taken = [f.number for f in files]
    if folder.is_dir():
        taken += [int(m.group(1)) for p in folder.iterdir() if (m := _FILE_NAME.match(p.name))]
    return max(taken, default=0) + 1


def verdicts_by_claim(files: Iterable[VerdictFile]) -> dict[str, list[Verdict]]:
    """Each check key's verdicts in dispatch order (one per file: a file's first wins)."""
    out: dict[str, list[Verdict]] = {}
    for f in files:
        seen: set[str] = set()
        for v in f.verdicts:
            if v.claim not in seen:
                seen.add(v.claim)
                out.setdefault(v.claim, []).append(v)
    return out


class Decision(NamedTuple):
    """What the verdicts of one claim add up to. `verdict` None: not decided yet
    (`votes_needed` more checkers must judge it, or it was never checked)."""

    verdict: str | None
    votes_needed: int = 0
    reason: str = ""


def decide(verdicts: Sequence[Verdict], voting: bool) -> Decision:
    """The first verdict decides, unless voting and it is not `supported`: then the majority
    of the first VOTERS verdicts (a three-way split counts as partial)."""
    if not verdicts:
        return Decision(None)
    first = verdicts[0]
    if first.verdict == formats.VERDICT_SUPPORTED or not voting:
        return Decision(first.verdict, 0, first.reason)
    if len(verdicts) < VOTERS:
        return Decision(None, VOTERS - len(verdicts))
    ballot = verdicts[:VOTERS]
    winner, count = Counter(v.verdict for v in ballot).most_common(1)[0]
    if count * 2 <= VOTERS:
        winner = formats.VERDICT_PARTIAL
    reason = next(v.reason for v in ballot if v.verdict == winner) if any(v.verdict == winner for v in ballot) \
        else first.reason
    return Decision(winner, 0, reason)


# --------------------------------------------------------------------------
# The claims a checker judges
# --------------------------------------------------------------------------

def report_records(parsed: ParsedRun) -> list[ClaimRecord]:
    """report.md's cited claims whose footnotes all carry an excerpt (the rest fail the
    citation rules already: one defect, one check)."""
    if parsed.report is None or parsed.report_path is None:
        return []
    records = claim_records(parsed.report_path, "report", parsed.report.doc, parsed.report.citations,
                            bullet_ids=plan_bullet_ids(parsed.plan))
    return [r for r in records if r.grounding.checked and r.excerpts]


def unique_by_key(records: Iterable[ClaimRecord]) -> list[tuple[str, ClaimRecord]]:
    """(key, first record) per check key: a TL;DR bullet repeating a finding is judged once."""
    out: dict[str, ClaimRecord] = {}
    for r in records:
        out.setdefault(check_key(r), r)
    return list(out.items())


# --------------------------------------------------------------------------
# The verify rule
# --------------------------------------------------------------------------

def _passages(record: ClaimRecord) -> str:
    return "; ".join(f"[^{n}] \"{_shorten(' '.join(excerpt.split()), 300)}\"" for n, _url, excerpt in record.excerpts)


def _gaps_lines(parsed: ParsedRun) -> range:
    section = parsed.report.section(formats.REPORT_SECTIONS[2]) if parsed.report is not None else None
    return range(section.line, section.end + 1) if section is not None else range(0)


class Pending(NamedTuple):
    """A claim or statement of absence with no decided verdict yet."""

    key: str
    line: int
    kind: str  # "claim" | "statement of absence"
    text: str
    votes_needed: int  # 0: never judged under its current key


def pending_verdicts(run_dir: Path, parsed: ParsedRun) -> list[Pending]:
    """report.md's claims and statements of absence that still need a verdict (none when the plan's
    tier has no claim check), in the report's order; what `report.claims.checked` counts."""
    if parsed.plan is None or parsed.report is None or parsed.report_path is None:
        return []
    budget = effective_budget(parsed.plan)
    return _pending(judged_records(parsed), absence.run_items(parsed)[0],
                    verdicts_by_claim(verdict_files(run_dir)), budget.voting)


def judged_records(parsed: ParsedRun) -> list[ClaimRecord]:
    """The cited claims the claim-checker judges: every one in a run with a claim check, none
    in a run without one (its statements of absence are judged all the same)."""
    if parsed.plan is None or not effective_budget(parsed.plan).claim_check:
        return []
    return report_records(parsed)


def _pending(records: Sequence[ClaimRecord], absences: Sequence[absence.AbsenceItem],
             known: dict[str, list[Verdict]], voting: bool) -> list[Pending]:
    keyed = [(check_key(r), r.claim.line, "claim", r.claim.text) for r in records] + \
        [(item.key, item.line, "statement of absence", item.text) for item in absences]
    out = []
    for key, line, kind, text in keyed:
        decision = decide(known.get(key, []), voting)
        if decision.verdict is None:
            out.append(Pending(key, line, kind, text, decision.votes_needed))
    return out


def verdict_checks(run_dir: Path, parsed: ParsedRun) -> list[Check]:
    """`checks.verdicts` (warning: a verdicts file that cannot be used), `report.claims.checked` (claims
    and statements of absence without a decided verdict), `report.claims.verdict` (error: a claim judged
    unsupported, or partial; in Gaps & Limitations too, where a cited sentence is a claim like any other)
    and `report.gaps.absence` (absence.py). Without a claim check, statements of absence only."""
    if parsed.plan is None or parsed.report is None or parsed.report_path is None:
        return []
    budget = effective_budget(parsed.plan)
    report = parsed.report_path
    absences, unsearched = absence.run_items(parsed)
    records = judged_records(parsed)
    if not budget.claim_check and not absences:
        return []
    files = verdict_files(run_dir)
    checks: list[Check] = []
    for f in files:
        if f.problems:
            # A warning: its claims simply have no verdict (report.claims.checked), and the file,
            # sealed as its checker left it, can be neither fixed nor removed.
            checks.append(fail("checks.verdicts", f"{f.rel}: " + "; ".join(f.problems)
                               + ". Its claims count as unchecked: dispatch a claim-checker again with "
                               + formats.dispatch_call(f"{formats.DISPATCH_CHECK_LABEL} {run_dir}"), Path(run_dir) / f.rel,
                               severity="warning"))
    known = verdicts_by_claim(files)
    gaps = _gaps_lines(parsed)
    unchecked: list[str] = []
    awaiting: list[str] = []
    for item in _pending(records, absences, known, budget.voting):
        where = f"line {item.line} ({item.kind} {item.key})"
        (awaiting if item.votes_needed else unchecked).append(
            where + (f", {item.votes_needed} more vote(s)" if item.votes_needed else ""))
    for r in records:
        key = check_key(r)
        decision = decide(known.get(key, []), budget.voting)
        in_gaps = r.claim.line in gaps
        if decision.verdict == formats.VERDICT_UNSUPPORTED:
            checks.append(fail("report.claims.verdict", (
                f"claim {key} is unsupported by the excerpts it cites: \"{_shorten(r.claim.text)}\" "
                f"(checker: {decision.reason}). " + (GAPS_CLAIM if in_gaps else
                "Rewrite it to say only what its excerpts say, or remove it, or say under Gaps & Limitations, "
                "without a reference, that the pages read do not state it") + "; then run finish again"),
                report, r.claim.line))
        elif decision.verdict == formats.VERDICT_PARTIAL:
            checks.append(fail("report.claims.verdict", (
                f"claim {key} goes further than the passage it cites: \"{_shorten(r.claim.text)}\" "
                f"(checker: {decision.reason}). Its passage: {_passages(r)}. " + (GAPS_CLAIM if in_gaps else
                "Narrow the claim to what the passage says, or cite another passage that states all of it")
                + "; then run finish again (only changed claims are checked again)"), report, r.claim.line))
    checks += absence.judged_failures(report, absences, lambda key: decide(known.get(key, []), budget.voting))
    for label, items in (("have no current verdict", unchecked), ("await votes", awaiting)):
        if items:
            listed = "; ".join(items[:MAX_LISTED]) + (f"; and {len(items) - MAX_LISTED} more"
                                                      if len(items) > MAX_LISTED else "")
            checks.append(fail("report.claims.checked", (
                f"{len(items)} cited claim(s) or statement(s) of absence {label} ({listed}). Dispatch the "
                f"claim-checker with {formats.dispatch_call(f'{formats.DISPATCH_CHECK_LABEL} {run_dir}')}, then run "
                "finish again; repeat while this check fails"), report, None))
    if (records or absences) and not unchecked and not awaiting:
        statements = f" and {len(absences)} statement(s) of absence" if absences else ""
        judged = (f"{len(unique_by_key(records))} distinct cited claim(s){statements} have a current verdict"
                  if budget.claim_check else
                  f"{len(absences)} statement(s) of absence have a current verdict (this run's plan judges no cited claim)")
        checks.insert(0, ok("report.claims.checked", judged, report))
    checks += absence.summary(report, absences, unsearched)
    return checks


def absence_states(run_dir: Path, parsed: ParsedRun, shown: str = formats.REPORT_FILE) -> list[dict]:
    """Each statement of absence of report.md with its state, as `claims --json` lists it beside the
    claims: its line, words, key, key terms, the passages shown against it, and `state`: the
    decided verdict (`supported`: it stands; `partial`, `unsupported`: a stored page states it),
    `unchecked` or `awaiting votes`, in every tier."""
    if parsed.plan is None or parsed.report is None:
        return []
    items, _why = absence.run_items(parsed)
    budget = effective_budget(parsed.plan)
    known = verdicts_by_claim(verdict_files(run_dir))
    decided = {}
    for item in items:
        decision = decide(known.get(item.key, []), budget.voting)
        decided[item.key] = (decision.verdict or ("awaiting votes" if decision.votes_needed else "unchecked"),
                             decision.reason)
    return [{"file": shown, "line": item.line, "text": item.text, "check": item.key, "terms": list(item.terms),
             "state": decided[item.key][0], "reason": decided[item.key][1],
             "passages": [{"url": p.url, "title": p.title, "text": p.text} for p in item.passages]}
            for item in items]


# A cited sentence in Gaps & Limitations is a claim: it is judged, and must be supported there too
# (a claim judged partial and moved there word for word, footnote and all, would reach the person).
GAPS_CLAIM = ("A cited sentence in Gaps & Limitations is a claim like any other: narrow it to what its passage "
              "says, or write, without the reference, that the pages read do not state what it adds")


def _shorten(text: str, limit: int = 140) -> str:
    return clip(text, limit)
