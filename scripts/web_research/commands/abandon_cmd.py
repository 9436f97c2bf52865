"""`web-research abandon DIR --reason "..."`: give up on a run, on the person's word.

The way out of the sealed room (hooks/README.md): the orchestrator runs it when the
person asks to stop. It records when and why in `<run>/.web-research/abandoned.json`
(atomically; a run abandoned before keeps its first record), prints one JSON object,
and the hooks then close the session's run so the Stop gate lets the session go.
`verify` and `status` fail an abandoned run from then on: it is never verified.
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys

from .. import formats
from ..run.abandonment import clean_reason, read_record, record_path
from ..exitcodes import EXIT_OK, EXIT_USAGE
from .verify_cmd import open_run_dir
from ..core.fsutil import atomic_write_text


def run(args: argparse.Namespace) -> int:
    # not open_run_dir's plan-or-report rule: a run is abandoned before its plan is written too
    run_dir = open_run_dir(args.dir, "abandon", require_run=False)
    if run_dir is None:
        return EXIT_USAGE
    if not any((run_dir / name).exists() for name in (formats.PLAN_FILE, formats.FINDINGS_DIR, formats.RUN_STATE_DIR)):
        print(f"web-research abandon: {args.dir}: holds no run (no {formats.PLAN_FILE}, {formats.FINDINGS_DIR}/ "
              f"or {formats.RUN_STATE_DIR}/); expected a folder that start opened", file=sys.stderr)
        return EXIT_USAGE
    try:
        reason = clean_reason(args.reason)
    except ValueError as exc:
        print(f"web-research abandon: {exc}", file=sys.stderr)
        return EXIT_USAGE
    record = read_record(run_dir)
    if record is None:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        record = {"version": 1, "abandoned_at": now, "reason": reason}
        atomic_write_text(record_path(run_dir), json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(json.dumps({"abandoned": True, "run_dir": str(run_dir), "abandoned_at": record.get("abandoned_at"),
                      "reason": record.get("reason"), formats.RETURN_VERIFIED_KEY: False}, ensure_ascii=False))
    return EXIT_OK
