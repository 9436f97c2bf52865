"""SubagentStart: a researcher of the active run is told the real UTC time."""
from __future__ import annotations


from ...core.clock import utc_stamp
from ..adapter import log_failure
from ..budgets import limits_of, record
from ..events import RESEARCHER
from ..rules.decision import NOTHING, AddContext, Decision
from ..state import Context

# The line a researcher reads its start time from (agents/researcher.md names it).
CLOCK_LABEL = "web-research clock: the current UTC time is "


def subagent_start(ctx: Context) -> Decision:
    """Give a researcher of the active run a real clock.

    A model has no clock, yet its findings file needs `started_at`; without
    this it could only guess. The time comes from this machine, at the moment
    the subagent starts. The start is also noted in the run record, so that a researcher
    whose transcript cannot be read yet can still be told apart by elimination.
    """
    snapshot = ctx.run if ctx.event.agent_type == RESEARCHER else None
    if snapshot is None:
        return NOTHING
    try:
        agent_id = ctx.event.agent_id
        slug = None
        if isinstance(agent_id, str):
            with ctx.locked_run() as run:
                slug = run.note_started(agent_id) if run is not None else None
        record(ctx.env, snapshot.run_dir, "agent_start", agent_id, slug, limits_of(snapshot))
    except Exception:  # bookkeeping only: the clock line matters more
        log_failure("SubagentStart", ctx.env)
    return AddContext(f"{CLOCK_LABEL}{utc_stamp(ctx.now)}")
