"""`web-research verify DIR [--json] [--verbose] [--deep]`: run the checklist, change nothing.

By default it prints the failing checks (errors and warnings) and a one-line
summary, which is what a person or a model needs to act on; `--verbose` adds a
heading and every passing check; `--json` gives every check and the counts the
summary line states (`passed`, `errors`, `warnings`: failing checks of each severity).
`--deep` also extracts every page again from its WARC and compares the text with the stored one
(checks/archives.py; seconds a page, and it needs the fetch extra).

A run made under older rules (checks/rules_version.py: `start` records the rules' version) is
read under the current ones, and what fails is sorted: claims that need a verdict under the
current rules (listed), checks added since the run was made, and evidence that fails; a few
lines say which, and what to do.

Exit 0 when no error-severity check fails (warnings allowed), 1 when one
does, 4 when the run was made under older rules and only the current rules' round is missing
(claims to judge, checks added since; no evidence fails), 2 when the folder cannot be checked at
all or holds no run (one line on stderr).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Sequence

from ..core.terminal import one_line
from ..exitcodes import EXIT_CHECK_FAILED, EXIT_OK, EXIT_OLDER_RULES, EXIT_USAGE
from ..checks.checklist import parse_and_check
from ..checks.rules_version import (RULES_VERSION, UNRECORDED_VERSION, Failures, change_of, rules_line,
                                    sort_failures)
from ..run.choices import read_start_record
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


MAX_PENDING_LISTED = 12


class RulesReading:
    """Which rules the run was made under and, for older rules, its failures sorted (rules_version)."""

    def __init__(self, run_dir: Path, parsed: object, checks: Sequence) -> None:
        recorded = read_start_record(run_dir).rules_version
        self.recorded = recorded is not None
        self.made_under = recorded if recorded is not None else UNRECORDED_VERSION
        self.older = self.made_under < RULES_VERSION
        self.failures: Failures | None = sort_failures(checks, self.made_under) if self.older else None
        self.pending: list = []
        if self.failures is not None and self.failures.needs_verdict:
            from ..checks.verdicts import pending_verdicts  # lazy: only an older run with claims to judge

            self.pending = pending_verdicts(run_dir, parsed)

    @property
    def needs_round(self) -> bool:
        """An older run whose only failures are the current rules': exit 4, not 1."""
        return self.failures is not None and self.failures.only_newer_rules

    def lines(self, run_dir: Path) -> list[str]:
        """What the person reads after the failing checks (nothing for a run under the current rules)."""
        if self.made_under == RULES_VERSION:
            return []
        out = [f"Rules: {rules_line(self.made_under, self.recorded)}."]
        f = self.failures
        if f is None:
            return out
        if self.pending:
            listed = [f"report.md:{p.line} ({p.kind} {p.key}) \"{_shorten(p.text)}\"" for p in self.pending]
            more = len(listed) - MAX_PENDING_LISTED
            out.append(f"  {len(self.pending)} claim(s) need a verdict under the current rules: "
                       + "; ".join(listed[:MAX_PENDING_LISTED]) + (f"; and {more} more" if more > 0 else ""))
        if f.new_rules:
            by_change: dict = {}
            for check, change in f.new_rules:
                by_change.setdefault(change, []).append(check.id)
            out.append(f"  {len(f.new_rules)} check(s) fail rules added since version {self.made_under}: "
                       + "; ".join(f"{', '.join(ids)} (version {change.version}: {change.what})"
                                   for change, ids in by_change.items()))
        if f.evidence:
            stricter: dict = {}
            for check in f.evidence:
                change = change_of(check.id, self.made_under)
                if change is not None:
                    stricter.setdefault(change, set()).add(check.id)
            out.append(f"  {len(f.evidence)} check(s) fail on the run's own evidence or report, whatever the "
                       "rules' version: " + ", ".join(sorted({c.id for c in f.evidence}))
                       + "".join(f"; the rule of {', '.join(sorted(ids))} was made stricter in version "
                                 f"{change.version} ({change.what}): its message says which part fails"
                                 for change, ids in stricter.items()))
        elif f.needs_verdict or f.new_rules:
            out.append("  No evidence fails: every other check passes under the current rules.")
        if f.needs_verdict or f.new_rules:
            out.append(f"  To bring it under the current rules, resume the run in Claude Code (/web-research "
                       f"--resume {run_dir}): the report is fixed as each check above says, and finish asks for "
                       f"the claim-checker's round on the claims listed (web-research claims {run_dir} --prompt "
                       "shows them).")
        return out

    def as_json(self) -> dict:
        f = self.failures
        return {"made_under": self.made_under, "recorded": self.recorded, "current": RULES_VERSION,
                "needs_verdict": [{"line": p.line, "kind": p.kind, "key": p.key, "text": p.text}
                                  for p in self.pending],
                "added_since": sorted({c.id for c, _ in f.new_rules}) if f else [],
                "evidence_fails": bool(f.evidence) if f else None}


def _shorten(text: str, limit: int = 90) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def format_checks(checks: Sequence, run_dir: Path, verbose: bool = False,
                  rules: RulesReading | None = None) -> str:
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
    if rules is not None:
        lines.extend(rules.lines(run_dir))
    passed, errors, warnings = counts(checks)
    verdict = "FAILED" if errors else "PASSED"
    if errors and rules is not None and rules.needs_round:
        verdict = "NEEDS THE CURRENT RULES' ROUND"
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
        parsed, checks = parse_and_check(run_dir)
        if getattr(args, "deep", False):
            missing = _deep_needs()
            if missing:
                print(f"web-research verify: --deep {missing}", file=sys.stderr)
                return EXIT_USAGE
            from ..checks.archives import archive_checks  # lazy: imports the extraction code

            checks = [*checks, *archive_checks(run_dir)]
        rules = RulesReading(run_dir, parsed, checks)
    except Exception as exc:  # noqa: BLE001 - a verifier bug must not look like a failed check (exit 1)
        print(f"web-research verify: {args.dir}: cannot check the run ({type(exc).__name__}: "
              f"{' '.join(str(exc).split())[:300]})", file=sys.stderr)
        return EXIT_USAGE
    good = passed(checks)
    code = EXIT_OK if good else EXIT_OLDER_RULES if rules.needs_round else EXIT_CHECK_FAILED
    if args.json:
        passing, errors, warnings = counts(checks)
        payload = {"output_dir": str(run_dir), "ok": good, "passed": passing, "errors": errors,
                   "warnings": warnings, "rules": rules.as_json(), "checks": [c.as_dict() for c in checks]}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(format_checks(checks, run_dir, verbose=getattr(args, "verbose", False), rules=rules))
    return code
