"""`web-research status DIR [--json]`: a table of the run for people.

One row per subtopic (status ok/empty/failed/missing, invalid when the
frontmatter cannot be read, or what keeps the file from being read at all, in the
words `fsutil.RunFileError.state` gives every command: too large, not UTF-8,
symbolic link, link loop, ...; number of source entries; number of cited claims,
counted as `web-research claims` lists them), then whether report.md exists and passes verify and the
date and summary of its latest `recheck`, then what
the run has spent: per researcher its searches and page reads against the
budget, refused calls, tokens, dollars (pricing.py) and time, and the run's totals. Spending comes
from files the hooks write: `metrics.json` (measured at each researcher's stop
and at the main agent's Stop) and `.web-research/progress.json` (updated at
every search and page read, so a run in progress shows who is running and how
much of each budget is used). A record that does not describe the folder's run (researchers the
plan has no subtopic for, fewer page reads than stored page snapshots: a record copied from
another run, as the bundled example's is) is said to be so. `--json` prints the same as one JSON
object.
"""
from __future__ import annotations

import argparse
import os
import sys
import hashlib
import json
from pathlib import Path

from ..exitcodes import EXIT_OK, EXIT_USAGE
from ..metrics.pricing import about, agent_model, agent_tokens, cost, cost_text, load_prices, metrics_costs
from .verify_cmd import RulesReading, open_run_dir
from ..checks.rules_version import RULES_VERSION, rules_line
from .. import formats
from ..checks.checklist import parse_and_check
from ..checks.claims import claims_of
from ..checks.integrity import INTEGRITY_CHECK_ID
from ..core.fsutil import RunFileError, read_run_file
from ..core.paths import data_dir
from ..core.result import passed
from ..metrics.run_metrics import read_metrics, read_run_json
from ..recheck.record import RecheckRecordError, latest_recheck
from ..run.abandonment import CHECK_ID


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        out.append("  ".join(cells).rstrip())
    return out


def spend(run_dir: Path) -> dict:
    """Per researcher and run totals, merged from metrics.json and the live progress file."""
    metrics = read_metrics(run_dir) or {}
    progress = _read_progress(run_dir)
    budget = (progress or {}).get("budget") or metrics.get("budget") or {}
    table = load_prices(os.environ, _data_dir())
    researcher_model = agent_model("researcher")
    rows: dict[str, dict] = {}
    for item in metrics.get("researchers") or []:
        if isinstance(item, dict) and isinstance(item.get("agent_id"), str):
            priced = cost(agent_tokens(item, researcher_model), table)
            rows[item["agent_id"]] = {**item, "cost": round(priced.dollars, 4), "cost_text": cost_text(priced)}
    for item in (progress or {}).get("agents") or []:
        if not (isinstance(item, dict) and isinstance(item.get("agent_id"), str)):
            continue
        if not item.get("slug") and item["agent_id"] not in rows:
            continue  # not attributed to a subtopic (yet): not a researcher of this run
        row = rows.setdefault(item["agent_id"], {"agent_id": item["agent_id"]})
        for key in ("slug", "searches", "page_reads", "denied"):
            if item.get(key) is not None:
                row[key] = item[key]
        if item.get("running"):
            row["state"] = "running"
        elif item.get("stopped_at") and row.get("state") in (None, "running"):
            row["state"] = "done"
    totals = metrics.get("totals")
    if isinstance(totals, dict):
        total = metrics_costs(metrics, table).total
        totals = {**totals, "cost": round(total.dollars, 4), "cost_text": cost_text(total)}
    return {"budget": budget, "researchers": list(rows.values()), "totals": totals,
            "metrics_updated_at": metrics.get("updated_at"), "final": metrics.get("final"),
            "progress_updated_at": (progress or {}).get("updated_at"), "prices": table.describe()}


def _data_dir() -> Path:
    return data_dir(os.environ)


def _read_progress(run_dir: Path) -> dict | None:
    return read_run_json(run_dir / formats.RUN_STATE_DIR / formats.PROGRESS_FILE, run_dir, 1024 * 1024)


def _of(value: object, limit: object) -> str:
    if value is None:
        return "-"
    return f"{value}/{limit}" if limit is not None else str(value)


def _k(value: object) -> str:
    return f"{round(value / 1000)}k" if isinstance(value, int) and value >= 1000 else ("-" if value is None else str(value))


def record_mismatch(plan_slugs: "set[str] | None", data: dict, snapshots: int) -> str | None:
    """Why the spending record does not describe this folder's run, or None: researchers named by
    slugs the plan has no subtopic for, or fewer page reads than the page snapshots the folder
    stores (every snapshot is one page read by a researcher's fetch). Pure."""
    parts = []
    if plan_slugs is not None:
        foreign = sorted({r["slug"] for r in data["researchers"]
                          if isinstance(r.get("slug"), str) and r["slug"] not in plan_slugs})
        if foreign:
            parts.append(f"its researchers {', '.join(foreign)} are not this plan's subtopics")
    totals = data.get("totals") if isinstance(data.get("totals"), dict) else {}
    reads = totals.get("page_reads")
    if isinstance(reads, int) and not isinstance(reads, bool) and snapshots > reads:
        parts.append(f"it counts {reads} page read(s) where this folder stores {snapshots} page snapshot(s)")
    if not parts:
        return None
    return ("This record does not describe this folder's run: " + "; ".join(parts)
            + ". It was copied from another run, or pages were read outside the hooks.")


def _record_mismatch(run_dir: Path, parsed, data: dict) -> str | None:
    slugs = {s.slug for s in parsed.plan.all_subtopics} if parsed.plan is not None else None
    sources = run_dir / formats.SOURCES_DIR
    snapshots = sum(1 for _ in sources.glob("*.json")) if sources.is_dir() and not sources.is_symlink() else 0
    return record_mismatch(slugs, data, snapshots)


def spend_lines(data: dict) -> list[str]:
    if not data["researchers"] and not data["totals"]:
        return ["Spending: none recorded (the hooks record it while a run is active)"]
    budget = data["budget"] or {}
    rows = [["RESEARCHER", "STATE", "SEARCHES", "PAGE READS", "DENIED", "TOOL CALLS", "TOKENS IN/OUT", "COST",
             "SECONDS"]]
    for r in data["researchers"]:
        tokens = "-" if r.get("input_tokens") is None else f"{_k(r.get('input_tokens'))}/{_k(r.get('output_tokens'))}"
        rows.append([str(r.get("slug") or r["agent_id"]), str(r.get("state") or "-"),
                     _of(r.get("searches"), budget.get("searches_per_researcher")),
                     _of(r.get("page_reads"), budget.get("page_reads_per_researcher")),
                     str(r.get("denied", "-")), str(r.get("tool_calls", "-")), tokens,
                     "-" if r.get("input_tokens") is None else str(r.get("cost_text", "-")),
                     "-" if r.get("wall_seconds") is None else str(round(r["wall_seconds"]))])
    lines = ["Spending (measured by the hooks):", *([data["mismatch"]] if data.get("mismatch") else []),
             *_table(rows, right={2, 3, 4, 5, 6, 7, 8})]
    totals = data["totals"]
    if isinstance(totals, dict):
        lines.append(f"Run totals: {totals.get('researchers', 0)} researchers ({totals.get('dispatches', 0)} "
                     f"dispatches), {totals.get('searches', 0)} searches, {totals.get('page_reads', 0)} page reads, "
                     f"{totals.get('denied', 0)} denied calls, {totals.get('tool_calls', 0)} tool calls, tokens "
                     f"{_k(totals.get('input_tokens'))} in / {_k(totals.get('output_tokens'))} out (orchestrator "
                     f"and checkers included), {round(totals.get('wall_seconds') or 0)} s, "
                     f"{about(totals.get('cost_text', '-'))}" + ("" if data.get("final") else " so far"))
        lines.append(f"Cost at {data.get('prices')}.")
    return lines


def status_data(run_dir: Path) -> dict:
    parsed, checks = parse_and_check(run_dir)
    expected = ([(s.name, s.slug) for s in parsed.plan.subtopics] if parsed.plan is not None
                else [(slug, slug) for slug in sorted(parsed.findings)])
    subtopics = []
    for name, slug in expected:
        found = parsed.findings.get(slug)
        row = {"subtopic": name, "slug": slug,
               "status": _missing_state(parsed, slug) if found is None else (found.status or "invalid"),
               "sources": None if found is None else len(found.citations),
               "claims": None if found is None else len(claims_of(found.doc))}
        problem = parsed.unreadable.get(_findings_path(parsed, slug))
        if problem is not None:
            row["problem"] = problem.reason
        subtopics.append(row)
    report_problem = parsed.unreadable.get(parsed.report_path)
    errors = [c for c in checks if not c.ok and c.severity == "error"]
    warnings = [c for c in checks if not c.ok and c.severity == "warning"]
    return {"run_dir": str(run_dir),
            "question": " ".join(parsed.plan.question.split()) if parsed.plan is not None else None,
            "subtopics": subtopics,
            "report": (None if parsed.report is None and report_problem is None
                       else {"file": formats.REPORT_FILE, "state": report_problem.state, "problem": report_problem.reason,
                             "sources": None, "claims": None} if parsed.report is None
                       else {"file": formats.REPORT_FILE, "sources": len(parsed.report.citations),
                             "claims": len(claims_of(parsed.report.doc))}),
            "verify": {"passes": passed(checks), "errors": len(errors), "warnings": len(warnings),
                       "rules": RulesReading(run_dir, parsed, checks).as_json()},
            "abandoned": _abandoned(checks),
            "recheck": recheck_status(run_dir),
            **_spend_of(run_dir, parsed)}


def _spend_of(run_dir: Path, parsed) -> dict:
    """What the run spent (`spend`), with `mismatch`: why the record is not this run's, or None."""
    data = spend(run_dir)
    return {**data, "mismatch": _record_mismatch(run_dir, parsed, data)}


def _findings_path(parsed, slug: str) -> Path:
    return parsed.run_dir / formats.FINDINGS_DIR / f"{slug}.md"


def _missing_state(parsed, slug: str) -> str:
    """What a subtopic without parsed findings has: `missing`, or why its file could not be read."""
    problem = parsed.unreadable.get(_findings_path(parsed, slug))
    return "missing" if problem is None else problem.state


def _abandoned(checks: list) -> str | None:
    """What the failing `run.abandoned` check says (abandonment.py), or None."""
    return next((c.message for c in checks if c.id == CHECK_ID and not c.ok), None)


def recheck_status(run_dir: Path) -> dict | None:
    """The latest recheck (`web-research recheck`) as status shows it, or None when there was none."""
    try:
        record = latest_recheck(run_dir)
    except RecheckRecordError as exc:
        return {"problem": str(exc)}
    if record is None:
        return None
    try:
        report = read_run_file(run_dir / formats.REPORT_FILE, run_dir, formats.MAX_MARKDOWN_BYTES)
        same_report = "sha256:" + hashlib.sha256(report).hexdigest() == record.report_sha256
    except RunFileError:
        same_report = False
    return {"at": record.started_at, "summary": record.summary(), "only": list(record.only or []) or None,
            "record": f"{formats.CHECKS_DIR}/{record.path.name}" if record.path else None,
            "report_changed_since": not same_report, "line": record.summary_line()}


def recheck_line(data: dict | None) -> str | None:
    """`Recheck: <when> UTC: <summary> (<record>)`; None when the run was never rechecked (a run
    in progress says nothing of a command that is no step of it)."""
    if data is None:
        return None
    if "problem" in data:
        return f"Recheck: the latest record cannot be read: {data['problem']}"
    when = data["at"].replace("T", " ").removesuffix("Z")[:16]
    only = f" (footnotes {', '.join(map(str, data['only']))} only)" if data["only"] else ""
    changed = "; report.md has changed since" if data["report_changed_since"] else ""
    return f"Recheck: {when} UTC{only}: {data['line']} ({data['record']}{changed})"


def status_lines(run_dir: Path) -> list[str]:
    parsed, checks = parse_and_check(run_dir)
    lines = [f"Run: {run_dir}"]
    if parsed.plan is not None:
        lines.append(f"Question: {' '.join(parsed.plan.question.split())}")
        expected = [(s.name, s.slug) for s in parsed.plan.all_subtopics]
    else:
        problem = next((c for c in checks if c.id in ("plan.exists", "plan.readable", "plan.parses") and not c.ok),
                       None)
        lines.append(f"Plan: unusable ({problem.message if problem else 'unknown problem'}); "
                     "listing the files in findings/")
        expected = [(slug, slug) for slug in sorted(parsed.findings)]
    rows = [["SUBTOPIC", "SLUG", "STATUS", "SOURCES", "CLAIMS"]]
    for name, slug in expected:
        found = parsed.findings.get(slug)
        if found is None:
            rows.append([name, slug, _missing_state(parsed, slug), "-", "-"])
            continue
        status = found.status or "invalid"
        rows.append([name, slug, status, str(len(found.citations)), str(len(claims_of(found.doc)))])
    lines.append("")
    lines.extend(_table(rows, right={3, 4}))
    lines.extend(f"  {path.relative_to(run_dir)}: {error.reason}" for path, error in parsed.unreadable.items()
                 if path.parent.name == formats.FINDINGS_DIR)
    lines.append("")
    errors = [c for c in checks if not c.ok and c.severity == "error"]
    warnings = [c for c in checks if not c.ok and c.severity == "warning"]
    report_problem = parsed.unreadable.get(parsed.report_path)
    if report_problem is not None:
        lines.append(f"Report: {formats.REPORT_FILE} {report_problem.reason}")
    elif parsed.report is None:
        lines.append(f"Report: {formats.REPORT_FILE} missing")
    else:
        lines.append(f"Report: {formats.REPORT_FILE} present, {len(parsed.report.citations)} sources, "
                     f"{len(claims_of(parsed.report.doc))} claims")
    lines.extend(c.message for c in checks if c.id == INTEGRITY_CHECK_ID)
    rules = RulesReading(run_dir, parsed, checks)
    verdict = "passes" if passed(checks) else "needs the current rules' round" if rules.needs_round else "fails"
    detail = f"{len(errors)} error(s), {len(warnings)} warning(s)"
    abandoned = _abandoned(checks)
    if abandoned is not None:
        lines.append(f"Abandoned: {abandoned}")
    lines.append(f"Verify: {verdict} ({detail}); run 'web-research verify' for details")
    if rules.made_under != RULES_VERSION:
        lines.append(f"Rules: {rules_line(rules.made_under, rules.recorded)}"
                     + (f"; {len(rules.pending)} claim(s) need a verdict under them" if rules.pending else ""))
    rechecked = recheck_line(recheck_status(run_dir))
    if rechecked is not None:
        lines.append(rechecked)
    lines.append("")
    lines.extend(spend_lines(_spend_of(run_dir, parsed)))
    return lines


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "status")
    if run_dir is None:
        return EXIT_USAGE
    try:
        if getattr(args, "json", False):
            text = json.dumps(status_data(run_dir), indent=1, sort_keys=True)
        else:
            text = "\n".join(status_lines(run_dir))
    except OSError as exc:
        print(f"web-research status: {args.dir}: cannot read the run ({exc})", file=sys.stderr)
        return EXIT_USAGE
    print(text)  # outside the try: a closed pipe is cli.main's to handle, not a read error
    return EXIT_OK
