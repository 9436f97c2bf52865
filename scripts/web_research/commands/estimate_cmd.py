"""`web-research estimate DIR [--json]`: what the run's plan allows it to spend.

Run at the review gate, before any brief is rendered: the upper bounds of the
plan's budget and a token and wall-clock range (see estimate.py). A plan
mistake is reported like `briefs` reports it (file:line: message, exit 2).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from ..exitcodes import EXIT_OK, EXIT_USAGE
from .verify_cmd import open_run_dir
from ..core.paths import data_dir
from ..formats import PLAN_FILE
from ..metrics.pricing import load_prices
from ..run.budget import effective_budget
from ..run.choices import load_run_plan
from ..run.estimate import estimate, estimate_text, load_averages
from ..run.plan import PlanError


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "estimate")
    if run_dir is None:
        return EXIT_USAGE
    try:
        plan = load_run_plan(run_dir)
    except PlanError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        print(f"error: {run_dir / PLAN_FILE}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        data = data_dir(os.environ)
        averages, skipped = load_averages(data)
        result = estimate(effective_budget(plan), averages, load_prices(os.environ, data))
        payload = {"run_dir": str(run_dir), **result.to_json(), "metrics_files_skipped": skipped}
        text = json.dumps(payload, ensure_ascii=False, indent=2)
    else:
        text = estimate_text(run_dir, plan, os.environ)
    sys.stdout.buffer.write((text + "\n").encode("utf-8"))
    return EXIT_OK
