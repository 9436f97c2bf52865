"""PostToolUse of a Write of the run's plan.md: the orchestrator's next step, so that it runs no
command only to read what it prints (effects/next_step.py). At the review gate (auto_proceed
false) the plan's estimate, for the person; past it (auto_proceed), the briefs rendered, recorded
as `briefs` would record them (post_briefs.remember_briefs), and the Agent calls to make; an
appended second wave the same way. A plan with mistakes gets them listed.

A handler of its own (the entry picks it for a write whose path is the open run's plan.md,
state.Context.kind): rendering briefs takes the plan's parser and the brief template.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from ...report.steps import dispatch_text
from ...run.resume import read_approval
from ..effects.next_step import render, review_gate, second_wave_pending
from .post_briefs import remember_briefs
from ..rules.decision import NOTHING, AddContext, Decision
from ..state import Context


def post_plan(ctx: Context) -> Decision:
    run = ctx.run
    if run is None or ctx.event.tool != "Write" or not written(ctx.event.response):
        return NOTHING
    started = time.monotonic()
    approved = read_approval(Path(run.run_dir)) is not None
    if approved and not (run.auto_proceed and second_wave_pending(run.run_dir)):
        return NOTHING  # an approved plan changes only by its second wave, reviewed first without auto_proceed
    if not approved and not run.auto_proceed:
        return AddContext(review_gate(run.run_dir, ctx.env))
    listed, refusal = render(run.run_dir)
    if listed is None:
        return AddContext(refusal or "")
    remember_briefs(ctx, json.dumps(listed))
    took = f"{time.monotonic() - started:.1f} s"
    if not listed:
        return AddContext(f"web-research rendered the briefs (in {took}); none is left to dispatch.")
    return AddContext(f"web-research rendered the briefs from plan.md (in {took}). " + dispatch_text(listed))


def written(response: object) -> bool:
    """The Write succeeded: the client returns the written file's path (Write: {type, filePath, content})."""
    return isinstance(response, dict) and isinstance(response.get("filePath"), str)
