"""What `finish` does to a run, apart from printing: report.md assembled, the checklist run, the round counted.

1. `assemble_report`: report.md's references numbered and its Sources written
   (assembly.py), with the Gaps & Limitations lines of every recorded failure
   (gaps.py); report.md is rewritten atomically, only when its text changes, and
   the text it had is kept in `<run>/.web-research/`;
2. `check_report`: the verification checklist;
3. `count_round`: a run whose checklist fails is one round of fixes, except runs
   that only wait for a claim-checker, which are free up to `FREE_CHECKER_WAITS`, and a run on
   a report.md nobody wrote since the round the hook counted after report.md's Write (one fix
   finished twice: by the hook, then by hand);
4. `finish_run`: the three in order, the record written back, and the outcome: the return
   object, a claim-checker to dispatch, or the checks to fix (report/steps.py words each).

Everything is kept in finish's record (run/finish_record.py); commands/finish_cmd.py
reads it, calls these in order, writes it back and says what to do next.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from .. import formats
from ..checks.checklist import parse_and_check
from ..checks.parsed_run import ParsedRun
from ..checks.report import gaps_text, parse_report
from ..core.fsutil import RunFileError, atomic_write_text, read_run_text
from ..core.result import Check
from ..core.text import line_break_disagreements, markdown_lines
from ..run.finish_record import FinishRecord, read_record, write_record
from ..run.return_object import return_object
from .assembly import Problem, assemble, entries_of, sources_span
from .gaps import gap_lines, own_lines, place, without

CLAIMS_CHECKED = "report.claims.checked"
REFERENCES_CHECK = "report.references"
CONTROLS_CHECK = "report.text.controls"
# Runs that only wait for a claim-checker are free, up to this many (one check, two votes,
# a re-check after a rewrite, with room to spare); beyond it they count as rounds of fixes.
FREE_CHECKER_WAITS = 6


def recorded_numbering(record: FinishRecord) -> dict[int, str]:
    return {int(k): v for k, v in record.get("numbering", {}).items()}


def assemble_report(run_dir: Path, record: FinishRecord) -> tuple[list[str], list[Problem]]:
    """Rewrite report.md from its references. (notes, problems, each with its report line);
    report.md is written only when its text changes and nothing stops the assembly."""
    report_path = run_dir / formats.REPORT_FILE
    try:
        text = read_run_text(report_path, run_dir)
    except RunFileError:
        return [], []  # nothing to assemble: the checklist says what is wrong with report.md (report.exists)
    breaks = line_break_disagreements(text)
    if breaks:
        return [], [line_break_problem(line, column, name) for line, column, name in breaks]
    parsed, _checks = parse_and_check(run_dir, extra=())
    findings = {}
    for slug, found in parsed.findings.items():
        try:
            findings[slug] = entries_of(slug, read_run_text(found.path, run_dir), found.citations)
        except RunFileError:
            continue
    rest = without_own_gaps(text, parsed, record)
    result = assemble(rest, findings, recorded_numbering(record), parse_report(text).citations,
                      record.get("sources"))
    if result.problems:
        return result.notes, result.problems
    if result.text is not None:
        new_text = with_recorded_gaps(result.text, parsed, record)
        if new_text != text:
            atomic_write_text(run_dir / formats.RUN_STATE_DIR / formats.REPORT_BEFORE_FINISH_FILE, text)
            atomic_write_text(report_path, new_text)
        lines = markdown_lines(new_text)
        span = sources_span(lines)
        record["numbering"] = {str(n): key for n, key in sorted(result.numbering.items())}
        record["sources"] = "\n".join(lines[span[0]:span[1] + 1]).strip() if span else None
    return result.notes, []


def line_break_problem(line: int, column: int, name: str) -> Problem:
    """A character some programs end a line at and Markdown does not (core/text.py): finish writes
    nothing into such a draft, since a reference placed by one numbering lands in another's line."""
    return Problem(line, f"column {column}: {name}, a line break to some programs (Python's str.splitlines) "
                         "and none to Markdown, so the lines a person sees and those the checks read differ; "
                         "finish wrote nothing: delete it, or write a line break or a space in its place",
                   CONTROLS_CHECK)


def _unreadable(parsed: ParsedRun) -> dict[str, str]:
    return {path.stem: getattr(error, "reason", str(error)) for path, error in parsed.unreadable.items()
            if path.parent.name == formats.FINDINGS_DIR}


def without_own_gaps(text: str, parsed: ParsedRun, record: FinishRecord) -> str:
    """The report without finish's own Gaps lines: those the last finish wrote and any it could
    write now, also where a model added references to one (they cite nothing: the line is
    finish's, and a reference would make it a claim), so the assembly numbers only the model's."""
    own = own_lines(parsed.plan, parsed.findings, _unreadable(parsed)) if parsed.plan is not None else set()
    return without(text, record.get("gaps", []), own)


def with_recorded_gaps(text: str, parsed: ParsedRun, record: FinishRecord) -> str:
    """The report (without finish's own lines: `without_own_gaps`) with the Gaps & Limitations
    bullets of every recorded failure (gaps.py) put in; kept in the record."""
    rest = without(text, record.get("gaps", []))
    if parsed.plan is None:
        return rest
    lines = gap_lines(parsed.plan, parsed.findings, _unreadable(parsed), gaps_text(parse_report(rest)))
    record["gaps"] = lines
    return place(rest, lines)


class Checked(NamedTuple):
    """The checklist's verdict on the report as finish left it: its checks, and the ids of
    those that fail (`report.references` alone when the assembly stopped)."""

    checks: list[Check]
    failing: list[str]


def check_report(run_dir: Path, problems: list[Problem]) -> Checked:
    """Run the checklist, unless the assembly stopped. (A partial claim fails every round until it
    is narrowed, moved or dropped: verdicts.py.)"""
    if problems:
        return Checked([], sorted({p.check_id for p in problems}))
    _parsed, checks = parse_and_check(run_dir)
    return Checked(checks, sorted({c.id for c in checks if not c.ok and c.severity == "error"}))


class Round(NamedTuple):
    rounds: int  # rounds of fixes spent so far
    first_wait: bool  # this run only waits for a claim-checker, and is free


def count_round(record: FinishRecord, failing: list[str], untouched: bool = False) -> Round:
    """Count this run in the record: one more run, and a free wait for a checker or a round of fixes.
    `untouched`: report.md was not written since a round the hook counted after report.md's
    Write; failing again, it counts no new round (the same fix, finished twice: by the hook, then
    by hand in the same message)."""
    record["runs"] = record.get("runs", 0) + 1
    waits = record.get("checker_waits", 0)
    rounds = record.get("fix_rounds", 0)
    if failing == [CLAIMS_CHECKED] and waits < FREE_CHECKER_WAITS:
        record["checker_waits"] = waits + 1
        return Round(rounds, True)
    if failing and not untouched:
        rounds += 1
        record["fix_rounds"] = rounds
    return Round(rounds, False)


# What a finish run came to (Outcome.kind).
DONE = "done"  # the return object: verified, or unverified once the rounds of fixes are spent
CHECK = "check"  # claims wait for a verdict: dispatch the claim-checker
FIX = "fix"  # checks fail: fix report.md


class Outcome(NamedTuple):
    kind: str
    answer: dict | None  # the return object (kind DONE)
    checks: list[Check]
    failing: list[str]
    problems: list[Problem]
    notes: list[str]
    rounds: int


def report_stamp(run_dir: Path) -> str | None:
    """report.md's identity as written last (inode, size, modification time): a Write of the same
    text changes it; only finish's own runs leave it as the last one left it."""
    try:
        st = os.stat(Path(run_dir) / formats.REPORT_FILE)
    except OSError:
        return None
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def finish_run(run_dir: Path, by_hook: bool = False) -> Outcome:
    """One run of `finish` on `run_dir`: assemble, check, count, record; what came of it.
    Raises what the assembly or the checks raise on a folder they cannot read (the caller
    says it could not finish: a bug must not look like a verdict on the report)."""
    record = read_record(run_dir)
    before = report_stamp(run_dir)
    notes, problems = assemble_report(run_dir, record)
    checks, failing = check_report(run_dir, problems)
    if notes:  # kept with the run; shown with the next failing checks, never beside the return object
        record["notes"] = notes
    # Only the run right after a hook's counts as the same fix; finish run again and again by hand
    # on a report nobody changes still spends its rounds.
    untouched = before is not None and before == record.get("round_stamp") and record.get("round_by_hook") is True
    rounds, first_wait = count_round(record, failing, untouched)
    if failing and not first_wait:
        record["round_stamp"] = report_stamp(run_dir) or ""
        record["round_by_hook"] = by_hook and not untouched
    write_record(run_dir, record)
    if not failing:
        return Outcome(DONE, return_object(run_dir), checks, failing, problems, notes, rounds)
    if rounds > formats.MAX_VERIFY_ROUNDS:
        return Outcome(DONE, return_object(run_dir, failing), checks, failing, problems, notes, rounds)
    return Outcome(CHECK if first_wait else FIX, None, checks, failing, problems, notes, rounds)
