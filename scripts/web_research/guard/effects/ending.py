"""The end of a run, for the person: write report.html and say what came out.

When the Stop gate lets a run end (verified, or released unverified), the hook
writes the report view (view/html.py) and shows the user, through the Stop
hook's `systemMessage`, the TL;DR, the verification result, the cost and the
paths of report.md and report.html. The model's final message stays the one
JSON object callers parse; this message goes to the person only.

Writing the view is best effort: a run folder that breaks it costs the person
the page, never the gate's decision (the failure is logged, and the message
says the page could not be written).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from ... import formats
from ...core.fsutil import atomic_write_text
from ...core.paths import data_dir
from ...core.terminal import one_line, printable
from ...metrics.pricing import about
from ...view.data import gather
from ...view.html import render_page
from ..adapter import log_failure
from ..rules.stop_gate import release_message

VERIFIED_LINE = "web-research: the run ended, verified: report.md passes every check."


def result_lines(failures: Sequence[str], warnings: int | None, run_dir: str, program: str) -> list[str]:
    """Whether the report holds, in words that never overstate it: "passes every check" only
    when no check failed at all; warnings are counted (None: they could not be counted)."""
    see = f'run "{program}" verify "{run_dir}" to list them'
    if failures:
        lines = [release_message(run_dir, failures)]
        if warnings:
            lines.append(f"It also has {warnings} warning(s); {see}.")
        return lines
    if warnings == 0:
        return [VERIFIED_LINE]
    counted = f"{warnings} warning(s)" if warnings is not None else "warnings not counted"
    return [f"web-research: the run ended, verified: report.md passes every required check, with {counted}; "
            f"{see}."]


def summary(view: Mapping[str, Any] | None, run_dir: str, view_path: Path | None,
            failures: Sequence[str], program: str) -> str:
    """The message: whether the report holds, what the question was, what the report says, what
    it cost, where it is. Control and format characters are taken out (core/terminal.py): the
    TL;DR and the failures quote report text, which must not move the cursor or repaint a line."""
    verification = (view or {}).get("verification") or {}
    warnings = verification.get("warnings")
    lines = result_lines([one_line(f) for f in failures], warnings if isinstance(warnings, int) else None,
                         run_dir, program)
    if view is not None:
        if view.get("question"):
            lines.append(f"Question: {one_line(view['question'])}")
        if view.get("tldr"):
            lines.append("TL;DR:")
            lines += [f"  - {one_line(item)}" for item in view["tldr"]]
        totals = (view.get("figures") or {}).get("totals")
        if totals:
            lines.append(f"Spent: {totals.get('searches')} searches, {totals.get('page_reads')} page reads, "
                         f"{about(str(totals.get('cost_text')))}")
        archive = view.get("archive") or {}
        if archive.get("archived"):
            lines.append(f"Pages: {one_line(archive.get('text'))}")
    lines.append(f"Report: {Path(run_dir) / formats.REPORT_FILE}")
    if view_path is not None:
        lines.append(f"View:   {view_path} (open it in a browser: each footnote shows its source)")
    else:
        lines.append(f'View:   could not be written; try "{program}" view "{run_dir}" --open')
    return printable("\n".join(lines))


def end_of_run(env: Mapping[str, str], run_dir: str, seal_source: Any, failures: Sequence[str],
               program: str) -> str:
    """Write the view (best effort) and return the message for the user."""
    view = view_path = None
    try:
        view = gather(Path(run_dir), seal_source, env, data_dir(env))
        path = Path(run_dir) / formats.REPORT_VIEW_FILE
        atomic_write_text(path, render_page(view))
        view_path = path
    except Exception:  # noqa: BLE001 - the page is a courtesy; the gate has decided already
        log_failure(f"writing the report view of {run_dir}", env)
    return summary(view, run_dir, view_path, failures, program)
