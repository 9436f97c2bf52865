"""Stop: the main agent may not stop on a report.md that fails verify (stopgate.py)."""
from __future__ import annotations


from . import output
from .context import Context, active_run, same_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def stop(ctx: Context) -> dict[str, Any]:
    active = active_run(ctx)
    if active is None:
        return {}
    from .stopgate import (block_reason, decide_stop, declares_unverified, release_message, report_written,
                           verifier_failures)  # lazy: hook start-up

    run_dir = active[1]["run"]["run_dir"]
    from .metrics_writer import write_metrics  # lazy: start-up

    write_metrics(ctx.env, active[1]["run"], ctx.payload, final=True)  # before the gate may close the run
    background = ctx.payload.get("background_tasks")
    researching = bool(background) and bool(active[1]["run"].get("reservations"))
    # Verify only once the report exists and no researcher is still working in the background.
    from .seals import seal_source  # lazy: hook start-up

    failures = verifier_failures(run_dir, seal_source(ctx.env, run_dir)) \
        if report_written(run_dir) and not researching else None
    session, snapshot = active
    # Not locked_run: a pass or a release archives the record instead of writing it.
    with session.locked_record() as record:
        if not same_run(record, snapshot):
            return {}
        run = record["run"]
        if background == []:
            run["reservations"] = []  # nothing runs in the background: no researcher holds a slot
        decision = decide_stop(run.setdefault("stop", {}), failures, bool(ctx.payload.get("stop_hook_active")),
                               declares_unverified(ctx.payload.get("last_assistant_message")))
        if decision.action == "pass":
            session.archive(record, "verified")
            return {}
        if decision.action == "release":
            session.archive(record, "unverified")
            return output.notice(release_message(run_dir, decision.failures))
        session.write(record)
    if decision.action == "block":
        return output.block(block_reason(run_dir, decision.failures, ctx.program),
                            f"web-research: report.md fails {len(decision.failures)} check(s); "
                            "asking the agent to fix them.")
    return {}
