"""`web-research status DIR`: a table of the run for people.

One row per subtopic (status ok/empty/failed/missing, or invalid when the
frontmatter cannot be read; number of source entries; number of claims, i.e.
footnote markers), then whether report.md exists and passes verify.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..exitcodes import EXIT_OK, EXIT_USAGE
from .verify_cmd import open_run_dir


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        out.append("  ".join(cells).rstrip())
    return out


def status_lines(run_dir: Path) -> list[str]:
    from .. import formats  # lazy: start-up
    from ..checklist import parse_and_check  # lazy: start-up
    from ..checks import passed  # lazy: start-up

    parsed, checks = parse_and_check(run_dir)
    lines = [f"Run: {run_dir}"]
    if parsed.plan is not None:
        lines.append(f"Question: {' '.join(parsed.plan.question.split())}")
        expected = [(s.name, s.slug) for s in parsed.plan.subtopics]
    else:
        problem = next((c for c in checks if c.id in ("plan.exists", "plan.parses") and not c.ok), None)
        lines.append(f"Plan: unusable ({problem.message if problem else 'unknown problem'}); "
                     "listing the files in findings/")
        expected = [(slug, slug) for slug in sorted(parsed.findings)]
    rows = [["SUBTOPIC", "SLUG", "STATUS", "SOURCES", "CLAIMS"]]
    for name, slug in expected:
        found = parsed.findings.get(slug)
        if found is None:
            rows.append([name, slug, "missing", "-", "-"])
            continue
        status = found.status or "invalid"
        rows.append([name, slug, status, str(len(found.citations)), str(len(found.markers))])
    lines.append("")
    lines.extend(_table(rows, right={3, 4}))
    lines.append("")
    errors = [c for c in checks if not c.ok and c.severity == "error"]
    warnings = [c for c in checks if not c.ok and c.severity == "warning"]
    if parsed.report is None:
        lines.append(f"Report: {formats.REPORT_FILE} missing")
    else:
        lines.append(f"Report: {formats.REPORT_FILE} present, {len(parsed.report.citations)} sources, "
                     f"{len(parsed.report.markers)} claims")
    from ..integrity import INTEGRITY_CHECK_ID  # lazy: start-up

    lines.extend(c.message for c in checks if c.id == INTEGRITY_CHECK_ID)
    verdict = "passes" if passed(checks) else "fails"
    detail = f"{len(errors)} error(s), {len(warnings)} warning(s)"
    lines.append(f"Verify: {verdict} ({detail}); run 'web-research verify' for details")
    return lines


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "status")
    if run_dir is None:
        return EXIT_USAGE
    try:
        lines = status_lines(run_dir)
    except OSError as exc:
        print(f"web-research status: {args.dir}: cannot read the run ({exc})", file=sys.stderr)
        return EXIT_USAGE
    print("\n".join(lines))
    return EXIT_OK
