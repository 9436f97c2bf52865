"""PostToolUse of the plugin's `start`, in any form the CLI accepts (the heredoc the skill
writes, parsed strictly; another spelling of the program, a pip-installed `web-research`,
arguments on the command line, recognised loosely by its output): a start that printed a run
folder opens the session's room on it.

A handler of its own (the entry picks it for a Bash call that runs our `start`,
events.handler_name): judging a resumed run's kept files loads what no other call needs.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from ...checks.resume import assess
from ...evidence import ledger
from ...run.resume import NotARun, PlanChanged, unknown_run_refusal
from ..effects.seals import ledger_entries, ledger_knows, record
from .post_briefs import run_limits
from .post_tool_use import stdout_json
from ..rules.decision import NOTHING, AddContext, Decision
from ..state import Context, new_run


def post_start(ctx: Context) -> Decision:
    return _open_run(ctx, stdout_json(ctx.event.response))


def _open_run(ctx: Context, result: Mapping[str, Any] | None) -> Decision:
    """A start printed a run folder (and no error): the session's room opens on it, and the
    ledger records a `run_open`. After `start --resume` the findings files it kept are judged
    again from the ledger (`_kept_by_the_ledger`); the orchestrator is told which others to
    research again."""
    if not result or "error" in result or not isinstance(result.get("output_dir"), str):
        return NOTHING
    if not os.path.isabs(result["output_dir"]) or not ("research_question" in result or "resume" in result):
        return NOTHING
    session = ctx.session
    if session is None:
        return NOTHING
    run = new_run(os.path.normpath(result["output_dir"]), result)
    resumed = result.get("resume")
    extra: list[str] = []
    if isinstance(resumed, dict):  # start --resume, in whatever form it ran: the pre-hook saw only the skill's
        refusal = unknown_run_refusal(run.run_dir, ledger_knows(ctx.env, run.run_dir))
        if refusal is not None:
            return AddContext((
                "web-research refused this start --resume, and no run is open: "
                f"{json.dumps(refusal, ensure_ascii=False)} Reply with that JSON unchanged and stop."))
        printed = [s for s in resumed.get("keep") or [] if isinstance(s, str)]
        run.kept, extra = _kept_by_the_ledger(ctx, run.run_dir, printed)
        run.limits = run_limits(run.run_dir)  # its plan was approved: its briefs are dispatched again
    with session.locked():
        session.open_run(run)
    record(ctx.env, run.run_dir, [ledger.entry(ledger.RUN_OPEN, resumed=isinstance(resumed, dict))])
    if extra:
        return AddContext((
            "web-research: the plugin's records do not confirm these findings files, so they are not kept "
            f"and must be researched again: {', '.join(extra)}. Dispatch their briefs (files in "
            f"{run.run_dir}/briefs/) as well, each brief's text and its 'Brief hash:' line as the prompt."))
    return NOTHING


def _kept_by_the_ledger(ctx: Context, run_dir: str, printed: list[str]) -> tuple[list[str], list[str]]:
    """(the slugs `start --resume` kept that the ledger's seals confirm, those it does not).
    `start` ran in the Bash tool, without the hooks' data directory: it judged seals from the
    folder copy, which anything in the run could have edited. The hook judges them again
    from the ledger; only a findings file sealed there, intact and `ok`, is kept."""

    try:
        found = assess(Path(run_dir), ctx.env, seals=ledger.seals(ledger_entries(ctx.env, run_dir)))
    except (NotARun, PlanChanged):
        return [], printed
    kept = [slug for slug in printed if slug in found.keep]
    return kept, [slug for slug in printed if slug not in kept]
