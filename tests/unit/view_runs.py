"""Run folders the report view is tested on: the bundled example and the ways real runs differ
from it (old format, failed subtopics, failing verification, hostile pages, an unfinished report)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from example_run import BILLING, COMMITMENTS, copy_example, findings_path, replace_once

from web_research import formats

LUMEN_PAGE = "0c0427753cf3ee41.txt"  # sources/ text of [^2] (https://lumenlogs.example/pricing)
# Everything a page, a title or a report could carry to script the view; each sets window.pwned.
HOSTILE = ('<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
           '</script><script>window.pwned = 3</script><a href="javascript:window.pwned = 4">x</a>')


def example(tmp_path: Path) -> Path:
    return copy_example(tmp_path, "example")


def with_metrics(run: Path) -> Path:
    """A metrics.json as the hooks write it (one researcher with a per-model breakdown, one without)."""
    split = {"claude-sonnet-4-5": {"input_tokens": 4_000, "cache_read_input_tokens": 180_000,
                                   "cache_creation_input_tokens": 20_000, "output_tokens": 9_000}}
    researchers = [
        {"agent_id": "a1", "slug": BILLING, "state": "done", "searches": 4, "page_reads": 6, "denied": 0,
         "tool_calls": 14, "model_calls": 15, "input_tokens": 204_000, "output_tokens": 9_000, "wall_seconds": 181.5,
         "partial": False, "models": split},
        {"agent_id": "a2", "slug": COMMITMENTS, "state": "done", "searches": 5, "page_reads": 8, "denied": 1,
         "tool_calls": 16, "model_calls": 17, "input_tokens": 250_000, "output_tokens": 11_000, "wall_seconds": 203.0,
         "partial": False},
    ]
    orchestrator = {"searches": 0, "page_reads": 0, "denied": 0, "tool_calls": 12, "model_calls": 12,
                    "input_tokens": 300_000, "output_tokens": 10_000, "wall_seconds": 120.0, "partial": False,
                    "models": {"claude-opus-4-5": {"input_tokens": 2_000, "cache_read_input_tokens": 270_000,
                                                   "cache_creation_input_tokens": 28_000, "output_tokens": 10_000}}}
    metrics = {"version": 1, "run_dir": str(run), "updated_at": "2026-04-18T09:30:00Z", "final": True,
               "budget": {"searches_per_researcher": 5, "page_reads_per_researcher": 8},
               "researchers": researchers, "other_agents": [], "orchestrator": orchestrator,
               "totals": {"researchers": 2, "dispatches": 2, "other_agents": 0, "searches": 9, "page_reads": 14,
                          "denied": 1, "tool_calls": 42, "model_calls": 44, "input_tokens": 754_000,
                          "output_tokens": 30_000, "wall_seconds": 540.0, "partial": False}}
    (run / formats.METRICS_FILE).write_text(json.dumps(metrics), encoding="utf-8")
    return run


def old_format(tmp_path: Path) -> Path:
    """A run made before bullet ids, seals and metrics: numbered footnotes, a hand-written Sources
    section, no briefs."""
    run = copy_example(tmp_path, "old-format")
    shutil.rmtree(run / formats.BRIEFS_DIR)
    return run


def failed_subtopics(tmp_path: Path) -> Path:
    """One subtopic failed (as in the example) and another left no findings file at all."""
    run = copy_example(tmp_path, "failed-subtopics")
    findings_path(run, COMMITMENTS).unlink()
    return run


def failing_verification(tmp_path: Path) -> Path:
    """report.md's [^4] quotes a sentence its page does not hold."""
    run = copy_example(tmp_path, "failing")
    replace_once(run / formats.REPORT_FILE, "Indexed retention defaults to 15 days.",
                 "Indexed retention defaults to 45 days.")
    return run


def hostile(tmp_path: Path) -> Path:
    """A page, an excerpt, a title and the report's prose that try to run script in the view."""
    run = copy_example(tmp_path, "hostile")
    page = run / formats.SOURCES_DIR / LUMEN_PAGE
    page.write_text(page.read_text(encoding="utf-8") + "\n" + HOSTILE + " Overage is billed quarterly.\n",
                    encoding="utf-8")
    report = run / formats.REPORT_FILE
    replace_once(report, "**Title**: Pricing - Lumen Logs", f"**Title**: Pricing - Lumen Logs {HOSTILE}")
    replace_once(report, "## Gaps & Limitations\n",
                 f"## Gaps & Limitations\n\n{HOSTILE} [click](javascript:window.pwned=5)\n")
    return run


def unfinished(tmp_path: Path) -> Path:
    """A report still citing by reference (`[^slug:n]`), its Sources not yet written."""
    run = copy_example(tmp_path, "unfinished")
    report = run / formats.REPORT_FILE
    text = report.read_text(encoding="utf-8")
    head = text.split("## Sources")[0].replace("[^1]", f"[^{BILLING}:1]")
    report.write_text(head + "## Sources\n", encoding="utf-8")
    return run


def no_report(tmp_path: Path) -> Path:
    """A run stopped before its report (and with a plan that no longer parses)."""
    run = copy_example(tmp_path, "no-report")
    (run / formats.REPORT_FILE).unlink()
    (run / formats.PLAN_FILE).write_text("not a plan\n", encoding="utf-8")
    return run


def changed_excerpt(tmp_path: Path) -> Path:
    """report.md's [^4] quotes its page with one figure changed: 1.6x written as 1.5x."""
    run = copy_example(tmp_path, "changed")
    replace_once(run / formats.REPORT_FILE, "options are billed at 1.6x and 3x the 15-day rate",
                 "options are billed at 1.5x and 3x the 15-day rate")
    return run


def rechecked(tmp_path: Path) -> Path:
    """The example after a `web-research recheck`: [^4]'s page now says 1.7x, [^9]'s is gone,
    the rest unchanged (the record as recheck writes it, through its own writer)."""
    from web_research.recheck.record import (CHANGED, GONE, UNCHANGED, Change, CitationRecheck, RecheckRecord,
                                             write_record)

    run = copy_example(tmp_path, "rechecked")
    states = {4: CHANGED, 9: GONE}
    citations = tuple(
        CitationRecheck(number=n, url=f"https://example.test/{n}", state=states.get(n, UNCHANGED),
                        status=404 if states.get(n) == GONE else 200, checked_at="2026-05-02T10:15:01Z",
                        note=f"footnote {n}: {states.get(n, UNCHANGED)}", excerpt_found=n not in states,
                        closest=RECHECK_CLOSEST if n == 4 else None, similarity=0.97 if n == 4 else None,
                        differences=(Change("1.6x", "1.7x"),) if n == 4 else (),
                        figures=(Change("1.6x", "1.7x"),) if n == 4 else ())
        for n in range(1, 10))
    name = "20260502T101500Z"
    record = RecheckRecord(plugin_version="0.1.0", started_at="2026-05-02T10:15:00Z",
                           finished_at="2026-05-02T10:15:02Z", report_sha256="sha256:" + "a" * 64,
                           live_dir=f"{formats.RECHECKS_DIR}/{name}", only=None, pages=(), citations=citations)
    write_record(run, record, name)
    return run


RECHECK_CLOSEST = "The 30-day and 90-day options are billed at 1.7x and 3x the 15-day rate."
