"""SessionEnd: no researcher slot outlives its session."""
from __future__ import annotations


from .rules.decision import NOTHING, Decision
from .context import Context, active_run



def session_end(ctx: Context) -> Decision:
    """No subagent outlives its session: free every slot, at SessionEnd and again at
    SessionStart (a crashed session never sent SessionEnd). The run itself stays
    active, so a resumed session carries on with it."""
    active = active_run(ctx)
    if active is None:
        return NOTHING
    session = active[0]
    with session.locked_record() as record:
        if record is not None and record["run"].get("reservations"):
            record["run"]["reservations"] = []
            session.write(record)
    return NOTHING
