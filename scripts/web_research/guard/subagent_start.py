"""SubagentStart: a researcher of the active run is told the real UTC time."""
from __future__ import annotations

import time

from . import output
from .context import RESEARCHER, Context, active_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The line a researcher reads its start time from (agents/researcher.md names it).
CLOCK_LABEL = "web-research clock: the current UTC time is "


def subagent_start(ctx: Context) -> dict[str, Any]:
    """Give a researcher of the active run a real clock.

    A model has no clock, yet its findings file needs `started_at`; without
    this it could only guess. The time comes from this machine, at the moment
    the subagent starts.
    """
    active = active_run(ctx) if ctx.payload.get("agent_type") == RESEARCHER else None
    if active is None:
        return {}
    try:
        from .budgets import limits_of, record  # lazy: start-up

        run = active[1]["run"]
        record(ctx.env, run["run_dir"], "agent_start", ctx.payload.get("agent_id"), None, limits_of(run))
    except Exception:  # bookkeeping only: the clock line matters more
        from .runner import log_failure  # lazy: start-up

        log_failure("SubagentStart", ctx.env)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ctx.now))
    return output.additional_context("SubagentStart", f"{CLOCK_LABEL}{stamp}")
