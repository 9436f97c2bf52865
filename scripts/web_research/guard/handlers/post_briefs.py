"""PostToolUse of the plugin's `briefs`: the run record keeps the briefs it rendered (with the
subtopic and findings path it printed) and the limits of the plan they were rendered from, and
each brief file is sealed as rendered.

A handler of its own (the entry picks it for a Bash call of our `briefs`, state.Context.kind):
reading the plan's limits takes the Markdown parser, which no other call loads.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Mapping

from ... import formats
from ...core.fsutil import RunFileError, is_within, read_run_file, read_run_text
from ...run.budget import budget_for, effective_budget
from ...run.choices import parse_run_plan, read_start_record
from ...run.plan import second_wave_subtopics
from ..briefs_match import Brief, load_briefs
from ..commandline import same_path
from ..effects.seals import seal_briefs
from .post_tool_use import unguarded_notice
from ..rules.budgets import RunLimits, max_dispatches
from ..rules.decision import NOTHING, Decision
from ..state import Context, RenderedBrief


def post_briefs(ctx: Context) -> Decision:
    parsed, _why = ctx.command
    snapshot = ctx.run
    if parsed is None:
        return NOTHING
    if snapshot is None:
        return unguarded_notice(ctx, parsed.subcommand)
    response = ctx.event.response
    if not same_path(parsed.run_dir, snapshot.run_dir):
        return NOTHING
    stdout = response.get("stdout", "") if isinstance(response, dict) else str(response or "")
    run_dir = snapshot.run_dir
    briefs = load_briefs(run_dir)
    approved = _approved_hashes(run_dir)  # the plan's briefs, written by this `briefs` run
    printed = [b for b in briefs if b.brief_hash in approved or b.brief_hash in stdout]
    shown = _printed_briefs(stdout, run_dir)
    limits = run_limits(run_dir)  # fixed now, from the plan the briefs were rendered from
    with ctx.locked_run() as run:
        if run is None:
            return NOTHING
        run.briefs = [RenderedBrief(b.slug, b.brief_path, b.brief_hash, _shown(shown, b).get("subtopic"),
                                    _shown(shown, b).get("findings_path", b.findings_path))
                      for b in (printed or briefs)]
        run.limits = limits
    seal_briefs(ctx.env, run.run_dir, [(b.brief_path, b.slug) for b in run.briefs])
    return NOTHING


def run_limits(run_dir: str) -> RunLimits:
    """The limits of the run's plan.md; an unreadable plan gets the untiered defaults (the run
    could not have rendered briefs from it anyway) and no run-wide dispatch cap."""
    path = Path(run_dir) / formats.PLAN_FILE
    try:
        text = read_run_text(path, Path(run_dir))  # bounded, a regular file inside the run
        plan = parse_run_plan(text, path, read_start_record(Path(run_dir)))  # the person's tier, or none
    except (RunFileError, OSError, ValueError):  # PlanError is a ValueError
        fallback = budget_for(None, 0)
        return RunLimits(fallback.searches_per_researcher, fallback.page_reads_per_researcher, None)
    budget = effective_budget(plan)
    wave = len(second_wave_subtopics(plan)) if budget.second_wave else 0  # plan.py parses the section
    return RunLimits(budget.searches_per_researcher, budget.page_reads_per_researcher,
                     max_dispatches(len(plan.subtopics), wave))


def _approved_hashes(run_dir: str) -> set[str]:
    """The brief hashes `briefs` recorded as approved (.web-research/approval.json): every brief
    of the current plan, the ones it no longer lists (done) included; none when unreadable."""
    path = os.path.join(run_dir, formats.RUN_STATE_DIR, formats.APPROVAL_FILE)
    try:
        data = json.loads(read_run_file(path, run_dir, 1024 * 1024).decode("utf-8"))
    except (RunFileError, UnicodeDecodeError, ValueError):
        return set()
    briefs = data.get("briefs") if isinstance(data, dict) else None
    return {h for h in briefs.values() if isinstance(h, str)} if isinstance(briefs, dict) else set()


def _shown(shown: Mapping[str, Mapping[str, str]], brief: Brief) -> Mapping[str, str]:
    return shown.get(brief.brief_hash) or shown.get(brief.brief_path) or {}


def _printed_briefs(stdout: str, run_dir: str) -> dict[str, dict[str, str]]:
    """brief_hash or brief_path -> {"subtopic", "findings_path"} from the JSON list `briefs`
    prints (its findings path wins over the guard's own `findings/<slug>.md`; only paths
    inside the run folder are taken)."""
    try:
        items = json.loads(stdout)
    except (ValueError, RecursionError):
        return NOTHING
    shown: dict[str, dict[str, str]] = {}
    for item in items if isinstance(items, list) else []:
        key = item.get("brief_hash") or item.get("brief_path") if isinstance(item, dict) else None
        if not isinstance(key, str):
            continue
        entry = {name: item[name] for name in ("subtopic", "findings_path") if isinstance(item.get(name), str)}
        if "findings_path" in entry and not (os.path.isabs(entry["findings_path"])
                                             and is_within(entry["findings_path"], run_dir)):
            del entry["findings_path"]
        shown[key] = entry
    return shown
