"""The model check of report.md's claims: checker prompts, verdict files and the verify rule.

Figures are checked mechanically (claims.py); what numbers cannot settle (a
claim that overstates, generalises or reverses its excerpt) is judged by a
`claim-checker` agent. The flow, all of it driven from here:

    `claims DIR --prompt`  renders the next checker's prompt (`render_prompt`):
                           the report's claims that still need a verdict, each
                           with its check key and its excerpts, and the one
                           verdicts file the checker writes
    the checker            writes checks/verdicts-<n>.json (schemas/verdicts.schema.json);
                           the hooks let it write only that file and seal it
                           when it stops (guard/rules/checker_gate.py)
    `verify`               `verdict_checks`: every cited claim of report.md has
                           a current verdict; an unsupported one is an error
                           unless it stands under Gaps & Limitations; a partial
                           one is an error once (below)

A `partial` verdict says the claim goes further than its passage. It fails the
check once, with the checker's reason and the passage, so the orchestrator
narrows the claim or cites another passage: either changes the claim's check
key, so only that claim is checked again. `finish` records the keys of the
partial claims it has shown (`partials_told` in its record, which no model
may write); a claim left as it was is then a warning, so a claim that cannot
be narrowed further costs one round, not every round.

A verdict names its claim by a *check key*: the first 16 hex digits of SHA-256
over the claim's hash (its normalized text, claims.Claim.hash) and the excerpts
it cites, in order. Editing a claim, or pointing it at other evidence, leaves it
without a verdict; renumbering footnotes does not.

Voting (the plan's tier has `voting`): a claim the first checker found
partial or unsupported is judged by VOTERS - 1 more checkers, one at a time,
and the majority of the VOTERS verdicts decides (a three-way split is
partial). Claims found supported are never voted on.

Only runs whose plan's effective budget has `claim_check` are checked; a plan
with no `Tier:` line verifies as before. Everything here but the loaders is pure.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, NamedTuple, Sequence

from .. import formats
from ..run.budget import VOTERS, effective_budget
from ..evidence.excerpts import normalize
from ..core.fsutil import RunFileError, read_run_file, read_run_text
from ..core.result import fail, ok
from ..core.schema_validation import schema_validator
from .claims import claim_records

if TYPE_CHECKING:
    from .parsed_run import ParsedRun
    from ..core.result import Check
    from .claims import ClaimRecord

SCHEMA = "verdicts.schema.json"
KEY_CHARS = 16
MAX_VERDICT_FILES = 60  # more checker dispatches than any run needs: the rest is not read
MAX_VERDICT_FILE_BYTES = 1024 * 1024
MAX_LISTED = 12
_FILE_NAME = re.compile(r"^" + re.escape(formats.VERDICTS_FILE_PREFIX) + r"([1-9][0-9]{0,3})\.json$")
ROUND_CHECK = "check"
ROUND_VOTE = "vote"
VERDICTS_LINE = "Recorded by the plugin in: "  # the checker answers in its reply; the hook writes this file
PROMPT_HEAD = "Check each claim below against the excerpts it cites, as your instructions say."


# --------------------------------------------------------------------------
# Keys and verdicts
# --------------------------------------------------------------------------

def check_key(record: "ClaimRecord") -> str:
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
# The checker's prompt
# --------------------------------------------------------------------------

def report_records(parsed: "ParsedRun") -> list["ClaimRecord"]:
    """report.md's cited claims whose footnotes all carry an excerpt (the rest fail the
    citation rules already: one defect, one check)."""
    if parsed.report is None or parsed.report_path is None:
        return []
    records = claim_records(parsed.report_path, "report", parsed.report.doc, parsed.report.citations)
    return [r for r in records if r.grounding.checked and r.excerpts]


def unique_by_key(records: Iterable["ClaimRecord"]) -> list[tuple[str, "ClaimRecord"]]:
    """(key, first record) per check key: a TL;DR bullet repeating a finding is judged once."""
    out: dict[str, "ClaimRecord"] = {}
    for r in records:
        out.setdefault(check_key(r), r)
    return list(out.items())


class CheckerPrompt(NamedTuple):
    round: str  # ROUND_CHECK | ROUND_VOTE
    verdicts_path: str  # absolute
    keys: tuple[str, ...]
    text: str

    @property
    def hash(self) -> str:
        return "sha256:" + hashlib.sha256(self.text.strip().encode("utf-8")).hexdigest()


def pending(records: Sequence["ClaimRecord"], files: Sequence[VerdictFile],
            voting: bool) -> tuple[str, list[tuple[str, "ClaimRecord"]]]:
    """(round, claims) the next checker judges: claims with no verdict yet; else, when
    voting, those still short of votes; else none."""
    known = verdicts_by_claim(files)
    unique = unique_by_key(records)
    unchecked = [(k, r) for k, r in unique if k not in known]
    if unchecked:
        return ROUND_CHECK, unchecked
    short = [(k, r) for k, r in unique if decide(known[k], voting).votes_needed]
    return ROUND_VOTE, short


def render_prompt(run_dir: Path, records: Sequence["ClaimRecord"], files: Sequence[VerdictFile],
                  voting: bool) -> CheckerPrompt | None:
    """The exact prompt of the next claim-checker, or None when every claim is decided.

    The claims are numbered 1..n and the checker answers by number (`parse_answer`); the
    numbers map to `keys` in order, which the dispatch record keeps, so no model copies a key."""
    round_, claims = pending(records, files, voting)
    if not claims:
        return None
    run_dir = Path(run_dir)
    target = run_dir / formats.CHECKS_DIR / f"{formats.VERDICTS_FILE_PREFIX}{next_file_number(files, run_dir)}.json"
    lines = [PROMPT_HEAD, "",
             f"Report: {run_dir / formats.REPORT_FILE}",
             f"{VERDICTS_LINE}{target}",
             f"Round: {round_}" + (" (other checkers found these claims partial or unsupported; judge them afresh)"
                                   if round_ == ROUND_VOTE else ""),
             f"Claims: {len(claims)}", ""]
    for number, (_key, r) in enumerate(claims, start=1):
        lines.append(f"## Claim {number} (report.md line {r.claim.line})")
        lines.append(f"Claim: {r.claim.text}")
        for footnote, url, excerpt in r.excerpts:
            lines.append(f"Excerpt [^{footnote}] ({url or 'no URL'}): \"{' '.join(excerpt.split())}\"")
        lines.append("")
    lines.append(answer_instruction(len(claims)))
    return CheckerPrompt(round_, str(target), tuple(k for k, _ in claims), "\n".join(lines))


def answer_instruction(count: int) -> str:
    """The prompt's last lines: the answer format, one line per claim number."""
    shown = "\n".join(f"{n} {formats.VERDICT_SUPPORTED}: <one-line reason>" for n in range(1, min(count, 2) + 1))
    return (f"Reply with one line per claim, 1 to {count}: its number, its verdict "
            f"({' | '.join(formats.VERDICTS)}), a colon and a one-line reason. Nothing else, for example:\n{shown}")


# One answer line: `3 partial: reason`, `Claim 3: **unsupported** - reason`, `| 3 | supported | reason |`.
_ANSWER_LINE = re.compile(
    r"^[\s>*_|#-]*(?:claim\s*)?#?\s*(\d{1,4})\s*[).:\-\u2013\u2014|]*\s*[*_`]*\s*(" + "|".join(formats.VERDICTS)
    + r")\b[*_`]*\s*[:\-\u2013\u2014|,.]*\s*(.*?)[\s|]*$", re.IGNORECASE)
NO_REASON = "no reason given"


def parse_answer(text: str, keys: Sequence[str]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """A checker's reply -> ([(key, verdict, reason)] in claim order, problems).

    One line per claim, `<number> <verdict>: <reason>`, read leniently (bullets, bold, a
    `Claim` word, a table row, any text around the lines); a reply that is a JSON object
    `{"verdicts": [{"claim": <number or key>, "verdict": ..., "reason": ...}]}` is read too.
    Quotes inside a reason are just characters. Problems: claims without a verdict, numbers
    the prompt does not have, a claim judged twice two different ways."""
    count = len(keys)
    found: dict[int, tuple[str, str]] = {}
    problems: list[str] = []
    for number, verdict, reason in _answer_items(text, keys):
        if not 1 <= number <= count:
            problems.append(f"there is no claim {number}; the claims are numbered 1 to {count}")
            continue
        if number in found and found[number][0] != verdict:
            problems.append(f"claim {number} is judged twice, {found[number][0]} and {verdict}; give it one verdict")
            continue
        found.setdefault(number, (verdict, _one_line(reason)))
    missing = [str(n) for n in range(1, count + 1) if n not in found]
    if missing:
        problems.insert(0, f"no verdict for claim(s) {', '.join(missing)}")
    return [(keys[n - 1], v, r) for n, (v, r) in sorted(found.items())], problems


def _one_line(reason: str) -> str:
    text = " ".join(str(reason).split()) or NO_REASON
    limit = formats.MAX_VERDICT_REASON_CHARS
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _answer_items(text: str, keys: Sequence[str]) -> list[tuple[int, str, str]]:
    items = _json_items(text, keys)
    if items is not None:
        return items
    out = []
    for line in str(text).splitlines()[:2000]:
        match = _ANSWER_LINE.match(line)
        if match:
            out.append((int(match.group(1)), match.group(2).lower(), match.group(3)))
    return out


def _json_items(text: str, keys: Sequence[str]) -> list[tuple[int, str, str]] | None:
    """The items of a JSON reply, or None when the reply holds no such object."""
    start = str(text).find("{")
    if start < 0:
        return None
    try:
        data, _end = json.JSONDecoder().raw_decode(str(text)[start:start + MAX_VERDICT_FILE_BYTES])
    except ValueError:
        return None
    entries = data.get("verdicts") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    out = []
    for entry in entries[:2000]:
        if not isinstance(entry, dict) or str(entry.get("verdict", "")).lower() not in formats.VERDICTS:
            continue
        claim = str(entry.get("claim", "")).strip().lstrip("#")
        number = int(claim) if claim.isdigit() and len(claim) <= 4 else (keys.index(claim) + 1 if claim in keys else 0)
        out.append((number, str(entry["verdict"]).lower(), str(entry.get("reason") or "")))
    return out


def verdicts_json(verdicts: Sequence[tuple[str, str, str]]) -> str:
    """The verdicts file the plugin writes from a checker's answer (schemas/verdicts.schema.json)."""
    return json.dumps({"verdicts": [{"claim": k, "verdict": v, "reason": r} for k, v, r in verdicts]},
                      ensure_ascii=False, indent=1) + "\n"


def verdicts_path_of(prompt: str) -> str | None:
    """The verdicts file a rendered prompt names."""
    for line in prompt.splitlines()[:8]:
        if line.startswith(VERDICTS_LINE):
            return line[len(VERDICTS_LINE):].strip()
    return None


def prompt_for_run(run_dir: Path, parsed: "ParsedRun") -> tuple[CheckerPrompt | None, str]:
    """(the next checker's prompt, or None and why none) for a run folder, given the run as
    `checklist.parse_and_check(run_dir, extra=())` read it: the caller parses, so that this
    module, a check group the checklist registers, does not import the checklist back."""
    if parsed.plan is None:
        problem = parsed.unreadable.get(Path(run_dir) / formats.PLAN_FILE)
        return None, (f"{formats.PLAN_FILE} {problem.reason}" if problem is not None
                      else f"{formats.PLAN_FILE} is missing or does not parse; run verify")
    budget = effective_budget(parsed.plan)
    if not budget.claim_check:
        tier = f"tier {budget.tier}" if budget.tier else "no Tier: line"
        return None, f"this run's plan ({tier}) has no claim check"
    if parsed.report is None:
        problem = parsed.unreadable.get(Path(run_dir) / formats.REPORT_FILE)
        return None, (f"{formats.REPORT_FILE} {problem.reason}" if problem is not None
                      else f"{formats.REPORT_FILE} is missing; write it first")
    prompt = render_prompt(Path(run_dir), report_records(parsed), verdict_files(Path(run_dir)), budget.voting)
    if prompt is None:
        return None, "every cited claim of report.md has a current verdict"
    return prompt, ""


# --------------------------------------------------------------------------
# The verify rule
# --------------------------------------------------------------------------

PARTIALS_TOLD = "partials_told"  # finish's record: check keys of partial claims it has shown


def partials_told(run_dir: Path) -> set[str]:
    """The check keys of the partial claims `finish` has already shown (its record, read as hostile)."""
    path = Path(run_dir) / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE
    try:
        record = json.loads(read_run_text(path, Path(run_dir), 1024 * 1024))
    except (RunFileError, ValueError):
        return set()
    keys = record.get(PARTIALS_TOLD) if isinstance(record, dict) else None
    return {k for k in keys if isinstance(k, str)} if isinstance(keys, list) else set()


def partial_keys(run_dir: Path, parsed: "ParsedRun") -> list[str]:
    """The check keys of report.md's claims decided `partial` outside Gaps & Limitations."""
    if parsed.plan is None or parsed.report is None or not effective_budget(parsed.plan).claim_check:
        return []
    voting = effective_budget(parsed.plan).voting
    known = verdicts_by_claim(verdict_files(run_dir))
    gaps = _gaps_lines(parsed)
    return [key for key, r in unique_by_key(report_records(parsed))
            if r.claim.line not in gaps and decide(known.get(key, []), voting).verdict == formats.VERDICT_PARTIAL]


def _passages(record: "ClaimRecord") -> str:
    return "; ".join(f"[^{n}] \"{_shorten(' '.join(excerpt.split()), 300)}\"" for n, _url, excerpt in record.excerpts)


def _gaps_lines(parsed: "ParsedRun") -> range:
    section = parsed.report.section(formats.REPORT_SECTIONS[2]) if parsed.report is not None else None
    return range(section.line, section.end + 1) if section is not None else range(0)


def verdict_checks(run_dir: Path, parsed: "ParsedRun") -> "list[Check]":
    """`checks.verdicts` (warning: a verdicts file that cannot be used), `report.claims.checked` (claims
    without a decided verdict) and `report.claims.verdict` (error: unsupported outside Gaps &
    Limitations, or partial there and not yet shown by finish; warning: a partial one finish
    showed). Nothing when the plan's budget has no claim check."""
    if parsed.plan is None or parsed.report is None or parsed.report_path is None:
        return []
    budget = effective_budget(parsed.plan)
    if not budget.claim_check:
        return []
    report = parsed.report_path
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
    records = report_records(parsed)
    known = verdicts_by_claim(files)
    gaps = _gaps_lines(parsed)
    told = partials_told(run_dir)
    unchecked: list[str] = []
    awaiting: list[str] = []
    for r in records:
        key = check_key(r)
        decision = decide(known.get(key, []), budget.voting)
        where = f"line {r.claim.line} (claim {key})"
        if decision.verdict is None:
            (awaiting if decision.votes_needed else unchecked).append(
                where + (f", {decision.votes_needed} more vote(s)" if decision.votes_needed else ""))
            continue
        if decision.verdict == formats.VERDICT_UNSUPPORTED and r.claim.line not in gaps:
            checks.append(fail("report.claims.verdict", (
                f"claim {key} is unsupported by the excerpts it cites: \"{_shorten(r.claim.text)}\" "
                f"(checker: {decision.reason}). Rewrite it to say only what its excerpts say, or remove it, "
                "or move it under Gaps & Limitations as not established; then run finish again"), report, r.claim.line))
        elif decision.verdict == formats.VERDICT_PARTIAL and r.claim.line not in gaps and key in told:
            checks.append(fail("report.claims.verdict", (
                f"claim {key} is only partly supported: \"{_shorten(r.claim.text)}\" (checker: {decision.reason}); "
                "it was shown once and left as it is"), report, r.claim.line, "warning"))
        elif decision.verdict == formats.VERDICT_PARTIAL and r.claim.line not in gaps:
            checks.append(fail("report.claims.verdict", (
                f"claim {key} goes further than the passage it cites: \"{_shorten(r.claim.text)}\" "
                f"(checker: {decision.reason}). Its passage: {_passages(r)}. Narrow the claim to what the passage "
                "says, or cite another passage that states all of it; then run finish again (only changed claims "
                "are checked again)"), report, r.claim.line))
    for label, items in (("have no current verdict", unchecked), ("await votes", awaiting)):
        if items:
            listed = "; ".join(items[:MAX_LISTED]) + (f"; and {len(items) - MAX_LISTED} more"
                                                      if len(items) > MAX_LISTED else "")
            checks.append(fail("report.claims.checked", (
                f"{len(items)} cited claim(s) {label} ({listed}). Dispatch the claim-checker with "
                f"{formats.dispatch_call(f'{formats.DISPATCH_CHECK_LABEL} {run_dir}')}, then run finish again; "
                "repeat while this check fails"), report, None))
    if records and not unchecked and not awaiting:
        checks.insert(0, ok("report.claims.checked",
                            f"{len(unique_by_key(records))} distinct cited claim(s) have a current verdict",
                            report))
    return checks


def _shorten(text: str, limit: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"
