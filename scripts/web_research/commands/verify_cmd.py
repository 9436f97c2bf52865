"""`web-research verify DIR [--json] [--verbose] [--deep]`: run the checklist, change nothing.

By default it prints the failing checks (errors and warnings) and a one-line
summary, which is what a person or a model needs to act on; `--verbose` adds a
heading and every passing check; `--json` gives every check and the counts the
summary line states (`passed`, `errors`, `warnings`: failing checks of each severity).
`--deep` also extracts every page again from its WARC and compares the text with the stored one
(checks/archives.py; seconds a page, and it needs the fetch extra).

Exit 0 when no error-severity check fails (warnings allowed), 1 when one
does, 2 when the folder cannot be checked at all or holds no run (one line on stderr).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Sequence

from ..core.terminal import one_line
from ..exitcodes import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from ..checks.checklist import run_checklist
from ..core.result import passed
from ..formats import PRIOR_RUN_MARKERS

MARKS = {"pass": "\u2713", "fail": "\u2717", "warn": "!"}
ASCII_MARKS = {"pass": "ok", "fail": "FAIL", "warn": "WARN"}


def open_run_dir(raw: str, command: str, require_run: bool = True) -> Path | None:
    """The run folder as an absolute path, or None after printing why it cannot be used.

    The one rule for a folder that is not a run, shared by every command that reads a run
    (`claims`, `claims --prompt`, `gaps`, `estimate`, `briefs`, `status`: exit 2 with this
    message, verify too): a run folder holds plan.md or report.md (`formats.PRIOR_RUN_MARKERS`,
    what `start` calls a prior run). A file of a run names the folder to pass instead."""
    path = Path(raw).expanduser()
    problem = None
    if not path.exists():
        problem = "no such folder"
    elif not path.is_dir():
        problem = f"not a folder; pass the run folder{_holding(path)}"
    else:
        try:
            next(os.scandir(path), None)
        except OSError as exc:
            problem = f"cannot read the folder ({exc.strerror or exc})"
        else:
            if require_run and not any(os.path.lexists(path / name) for name in PRIOR_RUN_MARKERS):
                problem = (f"not a run folder (it holds neither {' nor '.join(PRIOR_RUN_MARKERS)}); pass the "
                           "output_dir of a run")
    if problem:
        print(f"web-research {command}: {raw}: {problem}", file=sys.stderr)
        return None
    return path.resolve()


def _holding(path: Path) -> str:
    """`` that holds it, <folder>`` when `path` is a file of a run folder (report.md, a findings file)."""
    for folder in list(path.parents)[:3]:
        if any(os.path.lexists(folder / name) for name in PRIOR_RUN_MARKERS):
            return f" that holds it: {folder}"
    return ""


def display_path(path: str | None) -> str:
    """A path relative to the working folder when it lies below it, else absolute."""
    if path is None:
        return ""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _marks() -> dict[str, str]:
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    try:
        "".join(MARKS.values()).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return ASCII_MARKS
    return MARKS


def format_checks(checks: Sequence, run_dir: Path, verbose: bool = False) -> str:
    """The people's view: the failing checks (every check, after a heading, when
    `verbose`), then a summary line. A message quotes report and page text: its control
    and format characters are taken out (core/terminal.py), one line per check."""
    marks = _marks()
    lines = [f"Verifying {display_path(str(run_dir)) or '.'}"] if verbose else []
    for check in checks:
        if check.ok:
            if verbose:
                lines.append(f"{marks['pass']} {check.id}: {one_line(check.message)}")
            continue
        mark = marks["fail"] if check.severity == "error" else marks["warn"]
        where = display_path(check.path)
        if where and check.line:
            where = f"{where}:{check.line}"
        lines.append(f"{mark} {check.id}: {where + ': ' if where else ''}{one_line(check.message)}")
    passed, errors, warnings = counts(checks)
    verdict = "FAILED" if errors else "PASSED"
    lines.append(f"{verdict}: {passed} of {len(checks)} checks passed, {errors} error(s), {warnings} warning(s)")
    return "\n".join(lines)


def counts(checks: Sequence) -> tuple[int, int, int]:
    """(passing checks, failing errors, failing warnings): the summary line's and `--json`'s figures."""
    errors = sum(1 for c in checks if not c.ok and c.severity == "error")
    warnings = sum(1 for c in checks if not c.ok and c.severity == "warning")
    return sum(1 for c in checks if c.ok), errors, warnings


def _deep_needs() -> str | None:
    """Why this Python cannot extract pages again (the fetch extra is missing), or None."""
    import importlib.util  # lazy: only --deep asks

    missing = [name for name in ("warcio", "trafilatura", "pypdf") if importlib.util.find_spec(name) is None]
    return (f"needs the page-extraction libraries of fetch; this Python ({sys.executable}) lacks "
            f"{', '.join(missing)}") if missing else None


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "verify")
    if run_dir is None:
        return EXIT_USAGE
    try:
        checks = run_checklist(run_dir)
        if getattr(args, "deep", False):
            missing = _deep_needs()
            if missing:
                print(f"web-research verify: --deep {missing}", file=sys.stderr)
                return EXIT_USAGE
            from ..checks.archives import archive_checks  # lazy: imports the extraction code

            checks = [*checks, *archive_checks(run_dir)]
    except Exception as exc:  # noqa: BLE001 - a verifier bug must not look like a failed check (exit 1)
        print(f"web-research verify: {args.dir}: cannot check the run ({type(exc).__name__}: "
              f"{' '.join(str(exc).split())[:300]})", file=sys.stderr)
        return EXIT_USAGE
    good = passed(checks)
    if args.json:
        passing, errors, warnings = counts(checks)
        payload = {"output_dir": str(run_dir), "ok": good, "passed": passing, "errors": errors,
                   "warnings": warnings, "checks": [c.as_dict() for c in checks]}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(format_checks(checks, run_dir, verbose=getattr(args, "verbose", False)))
    return EXIT_OK if good else EXIT_CHECK_FAILED
