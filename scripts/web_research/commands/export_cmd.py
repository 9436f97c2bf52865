"""`web-research export DIR --format csl-json|annotations [--output FILE] [--unverified]`: the
report's evidence for other tools (report/export.py says what each format holds).

The run is verified first, as `verify` does: a run that does not pass is exported only with
`--unverified`, and the export then says so (the annotations' collection label, a `note` on each
CSL item); without it nothing is written and the failing checks are named on stderr. Prints the
JSON on stdout, or writes it to FILE (atomically; an existing file is replaced only with
--output naming it). Changes nothing in the run. Exit 0 when written, 1 when the run is
unverified and --unverified was not given, 2 when DIR is not a run or report.md cannot be read.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..checks.checklist import parse_and_check
from ..core.clock import utc_stamp
from ..core.fsutil import atomic_write_text
from ..evidence.snapshots import SnapshotIndex
from ..exitcodes import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from ..report.export import annotation_page, csl_items, run_outcome
from .verify_cmd import display_path, open_run_dir

FORMATS = ("csl-json", "annotations")


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "export")
    if run_dir is None:
        return EXIT_USAGE
    parsed, checks = parse_and_check(run_dir)
    if parsed.report is None:
        problem = next((error.reason for path, error in parsed.unreadable.items() if path == parsed.report_path),
                       "no report.md")
        print(f"web-research export: {args.dir}: {problem}; there is nothing to export", file=sys.stderr)
        return EXIT_USAGE
    outcome = run_outcome(checks)
    if not outcome.verified and not getattr(args, "unverified", False):
        print(f"web-research export: {args.dir}: {outcome.label().split(';')[0]}; nothing was exported. "
              f"`web-research verify {args.dir}` names what fails; --unverified exports it anyway, marked as "
              "unverified", file=sys.stderr)
        return EXIT_CHECK_FAILED
    index = SnapshotIndex.build(run_dir)
    if args.format == "csl-json":
        data: object = csl_items(parsed, index, outcome)
        count = f"{len(data)} reference(s)"  # type: ignore[arg-type]
    else:
        data = annotation_page(parsed, index, outcome, utc_stamp())
        count = f"{len(data['items'])} annotation(s)"  # type: ignore[index]
    if not outcome.verified:
        print(f"web-research export: {args.dir}: {outcome.label()}", file=sys.stderr)
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if args.output:
        target = Path(args.output).expanduser()
        try:
            atomic_write_text(target, text)
        except OSError as exc:
            print(f"web-research export: {args.output}: cannot write ({exc.strerror or exc})", file=sys.stderr)
            return EXIT_USAGE
        print(f"{count} written to {display_path(str(target.resolve()))}"
              f" (run {'verified' if outcome.verified else 'UNVERIFIED'})")
    else:
        sys.stdout.write(text)
    return EXIT_OK
