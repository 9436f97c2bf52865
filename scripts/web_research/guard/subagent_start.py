"""SubagentStart: a researcher of the active run is told the real UTC time."""
from __future__ import annotations

import time

from .rules.decision import NOTHING, AddContext, Decision
from .context import RESEARCHER, Context, active_run, locked_run, note_started
from .budgets import limits_of, record
from .failure_log import log_failure


# The line a researcher reads its start time from (agents/researcher.md names it).
CLOCK_LABEL = "web-research clock: the current UTC time is "


def subagent_start(ctx: Context) -> Decision:
    """Give a researcher of the active run a real clock.

    A model has no clock, yet its findings file needs `started_at`; without
    this it could only guess. The time comes from this machine, at the moment
    the subagent starts. The start is also noted in the run record, so that a researcher
    whose transcript cannot be read yet can still be told apart by elimination.
    """
    active = active_run(ctx) if ctx.event.agent_type == RESEARCHER else None
    if active is None:
        return NOTHING
    try:
        session, snapshot = active
        agent_id = ctx.event.agent_id
        slug = None
        if isinstance(agent_id, str):
            with locked_run(session, snapshot) as run:
                slug = note_started(run, agent_id) if run is not None else None
        run = snapshot["run"]
        record(ctx.env, run["run_dir"], "agent_start", agent_id, slug, limits_of(run))
    except Exception:  # bookkeeping only: the clock line matters more
        log_failure("SubagentStart", ctx.env)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ctx.now))
    return AddContext(f"{CLOCK_LABEL}{stamp}")
