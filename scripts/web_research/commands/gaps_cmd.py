"""`web-research gaps DIR [--json]`: every bullet of the plan and whether the findings cover it.

The orchestrator runs it after the first wave to see which bullets are still
uncovered (and so what a second wave would aim at), and before the report to
know which bullets need a cited claim or a Gaps entry. States: coverage.py.
Exit 0 when it could list the bullets (whatever their state), 2 when the
folder or its plan cannot be used.
"""
from __future__ import annotations

import argparse
import json
import sys

from ..exitcodes import EXIT_OK, EXIT_USAGE
from .verify_cmd import open_run_dir
from ..checks.coverage import STATE_COVERED, bullet_states, read_findings_files
from ..run.choices import load_run_plan
from ..run.plan import PlanError


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "gaps")
    if run_dir is None:
        return EXIT_USAGE
    try:
        plan = load_run_plan(run_dir)
    except PlanError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    states = bullet_states(plan, *read_findings_files(run_dir, plan))
    if args.json:
        payload = {"bullets": [s.to_json(run_dir) for s in states]}
        text = json.dumps(payload, ensure_ascii=False, indent=2)
    else:
        lines = []
        for s in states:
            data = s.to_json(run_dir)
            cited = ", ".join(f"{f['findings']} " + " ".join(f"[^{n}]" for n in f["footnotes"])
                              for f in data.get("footnotes", []))
            detail = cited if s.state == STATE_COVERED else "; ".join(
                part for part in ("established only in part" if s.partly else "", data.get("reason") or "",
                                  f"cited: {cited}" if cited else "") if part)
            lines.append(f"{s.bullet.id}  {s.state:<15}  {s.bullet.text}" + (f"\n      {detail}" if detail else ""))
        uncovered = [s.bullet.id for s in states if s.state != STATE_COVERED]
        lines.append(f"uncovered: {', '.join(uncovered) if uncovered else 'none'}")
        text = "\n".join(lines)
    sys.stdout.buffer.write((text + "\n").encode("utf-8"))
    return EXIT_OK
