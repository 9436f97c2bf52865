"""SessionEnd: no researcher slot outlives its session."""
from __future__ import annotations

from ..rules.decision import NOTHING, Decision
from ..state import Context


def session_end(ctx: Context) -> Decision:
    """No subagent outlives its session: free every slot, at SessionEnd and again at
    SessionStart (a crashed session never sent SessionEnd). The run itself stays
    active, so a resumed session carries on with it."""
    if ctx.run is None:
        return NOTHING
    with ctx.locked_run() as run:
        if run is not None:
            run.reservations = []
    return NOTHING
