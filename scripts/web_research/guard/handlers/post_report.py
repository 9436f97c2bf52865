"""PostToolUse of a Write of the run's report.md: `finish` runs, and the orchestrator is told
what it said (the claim-checker to dispatch, what to fix, or its final message), so that no turn
is spent running it (effects/next_step.finished). An Edit runs nothing: several Edits of one fix
come in one message, and finish judges the report once they are all made (the orchestrator runs it
after them, in the same message).

A handler of its own (the entry picks it for a write whose path is the open run's report.md,
state.Context.kind): finish loads the checks and the report's assembly.
"""
from __future__ import annotations

from ..effects.next_step import finished
from .post_plan import written
from ..rules.decision import NOTHING, Decision
from ..state import Context


def post_report(ctx: Context) -> Decision:
    run = ctx.run
    if run is None or ctx.event.tool != "Write" or not written(ctx.event.response):
        return NOTHING
    return finished(run, ctx.program, ctx.env)
