"""`web-research start`: validate the input and open the run folder, or refuse.

Prints one JSON object on stdout either way, so the skill and the hooks read
the outcome mechanically: success (exit 0), `invalid-input` (exit 2) or
`prior-run-present` (exit 3, nothing written).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from ..exitcodes import EXIT_OK, EXIT_PRIOR_RUN, EXIT_USAGE
from ..formats import (
    ERROR_INVALID_INPUT,
    ERROR_PRIOR_RUN_PRESENT,
    FINDINGS_DIR,
    PLAN_FILE,
    REPORT_FILE,
    REPORT_VIEW_FILE,
    ERROR_NOT_A_RUN,
    ERROR_PLAN_CHANGED,
)
from ..run.inputs import InputError, StartInput, from_flags, from_raw
from ..core.fsutil import atomic_write_text
from ..run.budget import budget_for
from ..run.plan import start_record_path
from ..checks.resume import assess
from ..checks.rules_version import RULES_VERSION
from ..run.resume import NotARun, PlanChanged
from ..run.runfolder import archive_prior_run, checked_run_dir, entries_to_archive, evidence_present

STDIN_MARK = "-"


def _emit(payload: dict[str, Any]) -> None:
    # UTF-8 whatever the locale: the question may hold any character.
    sys.stdout.buffer.write((json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8"))
    sys.stdout.flush()


def _fail(code: str, detail: str, exit_code: int) -> int:
    _emit({"error": code, "detail": detail})
    return exit_code


def _raw_text(args: argparse.Namespace) -> str | None:
    if args.raw_args is not None and args.args_file is not None:
        raise InputError("arguments: both --args and --args-file given; expected only one")
    if args.raw_args is not None:
        return args.raw_args
    if args.args_file is None:
        return None
    try:
        data = sys.stdin.buffer.read() if args.args_file == STDIN_MARK else Path(args.args_file).read_bytes()
    except OSError as error:
        raise InputError(f"--args-file: cannot read {args.args_file}: {error.strerror or error}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"--args-file: {args.args_file} is not UTF-8 text") from None


def read_input(args: argparse.Namespace) -> StartInput:
    raw = _raw_text(args)
    if raw is None:
        return from_flags(args.question, args.output_dir, args.auto_proceed, args.refresh, args.tier,
                          getattr(args, "resume", False), deepen=getattr(args, "deepen", False))
    if args.question is not None or args.output_dir is not None or args.auto_proceed or args.refresh \
            or args.tier is not None or getattr(args, "resume", False) or getattr(args, "deepen", False):
        raise InputError(
            "arguments: --args/--args-file cannot be combined with --question, --output-dir, "
            "--auto-proceed, --refresh, --tier, --deepen or --resume; expected one way of giving the input"
        )
    return from_raw(raw)


def prior_run_detail(run_dir: Path, found: Sequence[str]) -> str:
    """The `detail` of a `prior-run-present` refusal (companion-contract.md shows it for /abs/run
    holding plan.md and findings/): a new run starts in a folder without evidence."""
    return (f"{run_dir} already holds {', '.join(found)}, from a prior run or put there by hand; a new run "
            "starts in a folder without evidence. Pass refresh: true to archive them and start over, or choose "
            "a different output_dir.")


def run(args: argparse.Namespace) -> int:
    try:
        request = read_input(args)
    except InputError as error:
        return _fail(ERROR_INVALID_INPUT, str(error), EXIT_USAGE)

    try:
        cwd = Path(os.getcwd())
    except OSError as error:
        return _fail(ERROR_INVALID_INPUT, f"current directory is not readable: {error}", EXIT_USAGE)
    try:
        run_dir = checked_run_dir(request, cwd, datetime.date.today(), os.environ)
    except InputError as error:
        return _fail(ERROR_INVALID_INPUT, str(error), EXIT_USAGE)

    if request.resume:
        return _resume(request, run_dir)

    found = evidence_present(run_dir)
    if found and not request.refresh:
        return _fail(ERROR_PRIOR_RUN_PRESENT, prior_run_detail(run_dir, found), EXIT_PRIOR_RUN)

    archived: Path | None = None
    try:
        if request.refresh and entries_to_archive(run_dir):
            archived = archive_prior_run(run_dir, datetime.datetime.now(datetime.timezone.utc))
        (run_dir / FINDINGS_DIR).mkdir(parents=True, exist_ok=True)
        _write_record(run_dir, request)
    except OSError as error:
        return _fail(ERROR_INVALID_INPUT, f"output_dir: cannot prepare {run_dir}: {error.strerror or error}", EXIT_USAGE)

    _emit({
        **_run_paths(run_dir),
        "auto_proceed": request.auto_proceed,
        "research_question": request.question,
        "tier": request.tier,
        "deepen": request.deepen,
        "archived_to": str(archived) if archived else None,
        "clarify": request.may_clarify,
        "caller": _caller(request),
        "budget": _budget(request.tier, request.deepen),
    })
    return EXIT_OK


def _caller(request: StartInput) -> str:
    """Who reads the run's last message: another skill (the companion contract's mapping: it
    parses the return object) or a person (a short summary)."""
    return "skill" if request.from_contract else "person"


def _budget(tier: str | None, deepen: bool) -> dict[str, Any]:
    """What the tier allows, so that the plan is written without reading budget-tiers.md."""
    budget = budget_for(tier, 0, deepen=deepen)
    return {"max_subtopics": budget.max_subtopics, "searches_per_researcher": budget.searches_per_researcher,
            "page_reads_per_researcher": budget.page_reads_per_researcher, "claim_check": budget.claim_check,
            "second_wave": budget.second_wave}


def _write_record(run_dir: Path, request: StartInput) -> None:
    """The record of start's inputs that the plan is completed from and held to (run/choices.py),
    and the rules the run is made under (checks/rules_version.py: verify reads a run by them).
    plan.md is the model's to create, so its first Write overwrites nothing (the client's Write
    tool tells the model an unread file cannot be overwritten: it would Read first, a turn)."""
    record = {"research_question": request.question, "tier": request.tier, "deepen": request.deepen,
              "rules_version": RULES_VERSION}
    atomic_write_text(start_record_path(run_dir), json.dumps(record, ensure_ascii=False, indent=1) + "\n")


def _run_paths(run_dir: Path) -> dict[str, str]:
    """The absolute paths every successful start prints (a new run and a resumed one alike)."""
    return {"output_dir": str(run_dir), "plan": str(run_dir / PLAN_FILE),
            "findings_dir": f"{run_dir / FINDINGS_DIR}{os.sep}", "report": str(run_dir / REPORT_FILE),
            "view": str(run_dir / REPORT_VIEW_FILE)}


def _resume(request: StartInput, run_dir: Path) -> int:
    """`start --resume`: reopen `run_dir` as it is (nothing is written), say what is kept and
    what is dispatched again, or refuse a folder that is no run or a plan changed after approval."""
    try:
        found = assess(run_dir, os.environ)
    except NotARun as error:
        return _fail(ERROR_NOT_A_RUN, str(error), EXIT_USAGE)
    except PlanChanged as error:
        return _fail(ERROR_PLAN_CHANGED, str(error), EXIT_USAGE)
    _emit({
        **_run_paths(run_dir),
        "auto_proceed": request.auto_proceed,
        "research_question": found.question,
        "tier": found.tier,
        "archived_to": None,
        "clarify": False,
        "caller": _caller(request),
        "budget": _budget(found.tier, False),
        "resume": found.to_json(),
        # As `briefs` lists them: each is dispatched with the prompt `Brief: <brief_path>`.
        "briefs": [{key: b[key] for key in ("subtopic", "brief_path", "findings_path")}
                   for b in found.briefs if b["slug"] in found.dispatch],
    })
    return EXIT_OK
