"""Stop and SubagentStop with no run open in the session: nothing to judge. A Stop ends the turn
an abandoned run left the room shut in (rules/after_abandon.py): the session is free again.

A handler of its own (the entry picks it for these events when the session has no run,
state.Context.kind): the Stop gate and the findings gate load the verifier, which a session
that is not researching never needs.
"""
from __future__ import annotations

from ..rules.decision import NOTHING, Decision
from ..state import Context


def idle(ctx: Context) -> Decision:
    session = ctx.session
    if ctx.event.name == "Stop" and session is not None:
        session.free()
    return NOTHING
