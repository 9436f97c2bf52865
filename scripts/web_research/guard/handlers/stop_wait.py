"""Stop while the run's report.md does not stand yet, or researchers still work in the background:
the gate waits (the review gate waits for the person with no report yet), and nothing is
verified. The run's metrics are written, as at every Stop.

A handler of its own (the entry picks it for such a Stop, state.Context.kind): the verifier
and the report view, which the gate loads (stop.py), are not needed to wait.
"""
from __future__ import annotations

from ..effects.metrics import write_metrics
from ..rules.decision import NOTHING, Decision
from ..state import Context, Run


def stop_wait(ctx: Context) -> Decision:
    snapshot = ctx.run
    if snapshot is None:
        return NOTHING
    write_metrics(ctx.env, snapshot, ctx.event, final=True)
    with ctx.locked_run() as run:
        if run is not None:
            free_slots(run, ctx.event.background_tasks)
    return NOTHING


def free_slots(run: Run, background: tuple[object, ...] | None) -> None:
    """At a Stop whose client says no task runs in the background (`()`), no researcher holds a slot."""
    if background == ():
        run.reservations = []
