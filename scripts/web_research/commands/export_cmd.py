"""`web-research export DIR --format csl-json|annotations [--output FILE]`: the report's evidence
for other tools (report/export.py says what each format holds).

Prints the JSON on stdout, or writes it to FILE (atomically; an existing file is replaced only
with --output naming it). Changes nothing in the run. Exit 0 when written, 2 when DIR is not a
run or report.md cannot be read (the reason on stderr).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..checks.checklist import parse_and_check
from ..core.fsutil import atomic_write_text
from ..evidence.snapshots import SnapshotIndex
from ..exitcodes import EXIT_OK, EXIT_USAGE
from ..report.export import annotations, csl_items
from .verify_cmd import display_path, open_run_dir

FORMATS = ("csl-json", "annotations")


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "export")
    if run_dir is None:
        return EXIT_USAGE
    parsed, _checks = parse_and_check(run_dir, extra=())
    if parsed.report is None:
        problem = next((error.reason for path, error in parsed.unreadable.items() if path == parsed.report_path),
                       "no report.md")
        print(f"web-research export: {args.dir}: {problem}; there is nothing to export", file=sys.stderr)
        return EXIT_USAGE
    index = SnapshotIndex.build(run_dir)
    data = csl_items(parsed, index) if args.format == "csl-json" else annotations(parsed, index)
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if args.output:
        target = Path(args.output).expanduser()
        try:
            atomic_write_text(target, text)
        except OSError as exc:
            print(f"web-research export: {args.output}: cannot write ({exc.strerror or exc})", file=sys.stderr)
            return EXIT_USAGE
        print(f"{len(data)} {'reference(s)' if args.format == 'csl-json' else 'annotation(s)'} written to "
              f"{display_path(str(target.resolve()))}")
    else:
        sys.stdout.write(text)
    return EXIT_OK
