"""`web-research finish DIR`: number the report's references, write its Sources, verify, answer.

The orchestrator cites sources by reference (`[^<subtopic-slug>:<n>]`,
report_references.py) and never writes `## Sources`. This command:

1. numbers every reference globally by first use and writes `## Sources` with
   each entry copied from its findings file, rewriting report.md atomically
   (only the markers and the Sources section change; the prose stays);
2. runs the verification checklist;
3. prints what to do next, or the exact JSON object the skill returns.

It counts the rounds of fixes in `.web-research/finish.json`: a run whose
checklist fails (other than only for claims awaiting a checker) is one round.
After `formats.MAX_VERIFY_ROUNDS` rounds of fixes, the object it prints carries
`"verified": false` and the failing check ids. It can run any number of times:
references added later and numbers already assigned come out right, and a report
written the old way (numbered footnotes and a hand-written Sources section, no
reference) is checked as written.

Exit 0 when it printed the return object (stdout holds that object alone, and
nothing goes to stderr: a model reads both as one result), 1 when the report needs
work (stdout says what, after any note such as a hand-written Sources section
replaced), 2 when the folder cannot be used. Notes are also kept in the record.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .. import formats
from ..exitcodes import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from ..run.return_object import return_object
from .verify_cmd import format_checks, open_run_dir
from ..checks.checklist import parse_and_check
from ..checks.report import gaps_text, parse_report
from ..checks.report_gaps import gap_lines, place, without
from ..checks.report_references import assemble, entries_of, sources_span
from ..checks.verdicts import PARTIALS_TOLD, partial_keys
from ..core.fsutil import RunFileError, atomic_write_text, read_run_text
from ..core.paths import data_dir
from ..view.html import write_view as write

CLAIMS_CHECKED = "report.claims.checked"
REFERENCES_CHECK = "report.references"
# Runs that only wait for a claim-checker are free, up to this many (one check, two votes,
# a re-check after a rewrite, with room to spare); beyond it they count as rounds of fixes.
FREE_CHECKER_WAITS = 6


def record_path(run_dir: Path) -> Path:
    return run_dir / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE


def load_record(run_dir: Path) -> dict:
    """What earlier runs of `finish` left: rounds, waits, numbering, the Sources they wrote.
    An unreadable or foreign record counts as none (rounds start again at 0)."""
    try:
        value = json.loads(read_run_text(record_path(run_dir), run_dir, 1024 * 1024))
    except (RunFileError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def recorded_numbering(record: dict) -> dict[int, str]:
    raw = record.get("numbering")
    if not isinstance(raw, dict):
        return {}
    return {int(k): v for k, v in raw.items() if str(k).isdigit() and isinstance(v, str) and ":" in v}


def write_view(run_dir: Path) -> None:
    """report.html (`web-research view`), so the return object's `view` exists when a caller reads
    it; the Stop hook writes it again when the session's turn ends. Best effort: a failure is a
    note, never the run's verdict."""
    try:
        write(run_dir, env=os.environ, data_dir=data_dir(os.environ))
    except Exception as exc:  # noqa: BLE001 - the page is for people; the report's state is decided
        print(f"web-research finish: note: the report view could not be written ({type(exc).__name__}: "
              f"{' '.join(str(exc).split())[:200]}); run the view command for it.", file=sys.stderr)


def assemble_report(run_dir: Path, record: dict) -> tuple[list[str], list[tuple[int, str]]]:
    """Rewrite report.md from its references. (notes, problems as (line, message));
    report.md is written only when its text changes and nothing stops the assembly."""
    report_path = run_dir / formats.REPORT_FILE
    try:
        text = read_run_text(report_path, run_dir)
    except RunFileError:
        return [], []  # nothing to assemble: the checklist says what is wrong with report.md (report.exists)
    parsed, _checks = parse_and_check(run_dir, extra=())
    findings = {}
    for slug, found in parsed.findings.items():
        try:
            findings[slug] = entries_of(slug, read_run_text(found.path, run_dir), found.citations)
        except RunFileError:
            continue
    result = assemble(text, findings, recorded_numbering(record), parse_report(text).citations,
                      record.get("sources") if isinstance(record.get("sources"), str) else None)
    if result.problems:
        return result.notes, [(p.line, p.message) for p in result.problems]
    if result.text is not None:
        new_text = with_recorded_gaps(result.text, parsed, record)
        if new_text != text:
            atomic_write_text(run_dir / formats.RUN_STATE_DIR / formats.REPORT_BEFORE_FINISH_FILE, text)
            atomic_write_text(report_path, new_text)
        lines = new_text.splitlines()
        span = sources_span(lines)
        record["numbering"] = {str(n): key for n, key in sorted(result.numbering.items())}
        record["sources"] = "\n".join(lines[span[0]:span[1] + 1]).strip() if span else None
    return result.notes, []


def with_recorded_gaps(text: str, parsed: Any, record: dict) -> str:
    """The report with the Gaps & Limitations bullets of every recorded failure (report_gaps.py):
    the ones the last finish wrote are taken out, the current ones put in; kept in the record."""
    previous = record.get("gaps")
    previous = [line for line in previous if isinstance(line, str)] if isinstance(previous, list) else []
    rest = without(text, previous)
    if parsed.plan is None:
        return rest
    unreadable = {path.stem: getattr(error, "reason", str(error)) for path, error in parsed.unreadable.items()
                  if path.parent.name == formats.FINDINGS_DIR}
    lines = gap_lines(parsed.plan, parsed.findings, unreadable, gaps_text(parse_report(rest)))
    record["gaps"] = lines
    return place(rest, lines)


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "finish")
    if run_dir is None:
        return EXIT_USAGE
    record = load_record(run_dir)
    try:
        notes, problems = assemble_report(run_dir, record)
        parsed, checks = parse_and_check(run_dir) if not problems else (None, [])
        partial = partial_keys(run_dir, parsed) if parsed is not None else []
    except Exception as exc:  # noqa: BLE001 - a bug must not look like a verdict on the report
        print(f"web-research finish: {args.dir}: cannot finish the run ({type(exc).__name__}: "
              f"{' '.join(str(exc).split())[:300]})", file=sys.stderr)
        return EXIT_USAGE
    if notes:  # kept with the run; shown with the next failing checks, never beside the return object
        record["notes"] = notes
    failing = sorted({c.id for c in checks if not c.ok and c.severity == "error"})
    if problems:
        failing = [REFERENCES_CHECK]
    if partial:  # shown below (an error the first time): a claim left as it is then stands as a warning
        told = record.get(PARTIALS_TOLD)
        told = [k for k in told if isinstance(k, str)] if isinstance(told, list) else []
        record[PARTIALS_TOLD] = sorted(set(told) | set(partial))
    record["runs"] = int(record.get("runs", 0) or 0) + 1
    waits = int(record.get("checker_waits", 0) or 0)
    rounds = int(record.get("fix_rounds", 0) or 0)
    if failing == [CLAIMS_CHECKED] and waits < FREE_CHECKER_WAITS:
        record["checker_waits"] = waits + 1
    elif failing:
        rounds += 1
        record["fix_rounds"] = rounds
    atomic_write_text(record_path(run_dir), json.dumps(record, ensure_ascii=False, indent=2) + "\n")

    if not failing:
        write_view(run_dir)
        print(json.dumps(return_object(run_dir), ensure_ascii=False))
        return EXIT_OK
    if rounds > formats.MAX_VERIFY_ROUNDS:
        write_view(run_dir)
        print(json.dumps(return_object(run_dir, failing), ensure_ascii=False))
        return EXIT_OK
    if failing == [CLAIMS_CHECKED] and record.get("checker_waits") == waits + 1:
        print(f"Claims of report.md need a verdict. Dispatch the claim-checker: "
              f"{formats.dispatch_call(f'{formats.DISPATCH_CHECK_LABEL} {run_dir}')}. When it returns, run finish again.")
        return EXIT_CHECK_FAILED
    for note in notes:
        print(f"Note: {note}.")
    if problems:
        report = run_dir / formats.REPORT_FILE
        for line, message in problems:
            print(f"\u2717 {REFERENCES_CHECK}: {report}{':' + str(line) if line else ''}: {message}")
    else:
        print(format_checks(checks, run_dir))
    print(f"Round {rounds} of {formats.MAX_VERIFY_ROUNDS} of fixes: fix each error above in report.md "
          "(prose and references only), then run finish again.")
    return EXIT_CHECK_FAILED
