"""`web-research claims DIR [--json]`: list every cited claim and its grounding.

One stanza per claim of report.md and of each findings file: file:line, the
claim hash, its footnotes and the verdict of the figures rule, then the claim
text and each cited excerpt with its URL. Mechanical on purpose: it is the
input of a later claim checker. Exit 0 once listed (use `verify` to gate), 2
when the folder cannot be read.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..exitcodes import EXIT_OK, EXIT_USAGE
from .verify_cmd import display_path, open_run_dir


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "claims")
    if run_dir is None:
        return EXIT_USAGE
    from ..checklist import parse_and_check  # lazy: start-up
    from ..claims import render_text, run_claims  # lazy: start-up

    try:
        parsed, _checks = parse_and_check(run_dir, extra=())
        records = run_claims(parsed)
    except OSError as exc:
        print(f"web-research claims: {args.dir}: cannot read the run ({exc})", file=sys.stderr)
        return EXIT_USAGE
    shown = {r.path: display_path(str(r.path)) for r in records}
    if args.json:
        payload = {"output_dir": str(run_dir), "claims": [r.as_dict(shown[r.path]) for r in records]}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    elif records:
        print(render_text(records, shown))
    return EXIT_OK
