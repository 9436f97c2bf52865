"""Stop: the main agent may not stop on a report.md that fails verify (stopgate.py)."""
from __future__ import annotations


from . import output
from .context import Context, active_run, same_run

from typing import Any


def _end_hashes(run_dir: str) -> dict[str, str | None]:
    """sha256 of report.md and plan.md (None when unreadable), taken before and after the verifier."""
    from pathlib import Path  # lazy: start-up

    from .. import formats  # lazy: start-up
    from ..evidence import ledger  # lazy: start-up
    from ..evidence.provenance import MAX_EVIDENCE_BYTES  # lazy: start-up

    return {name: ledger.file_sha256(Path(run_dir) / name, MAX_EVIDENCE_BYTES)
            for name in (formats.REPORT_FILE, formats.PLAN_FILE)}


def _return_object(run_dir: str) -> dict[str, Any]:
    """The object `finish` prints for a verified run (companion-contract.md)."""
    from pathlib import Path  # lazy: start-up

    from ..run.return_object import return_object  # lazy: only when a run passes

    return return_object(Path(run_dir))


def stop(ctx: Context) -> dict[str, Any]:
    active = active_run(ctx)
    if active is None:
        if ctx.session is not None:
            ctx.session.free()  # the turn a run was abandoned in ends: the session is free again
        return {}
    from .stopgate import (block_reason, decide_stop, declares_unverified, report_written, return_reason,
                           returns_object, verifier_failures)  # lazy: hook start-up

    run_dir = active[1]["run"]["run_dir"]
    from .metrics_writer import write_metrics  # lazy: start-up

    write_metrics(ctx.env, active[1]["run"], ctx.payload, final=True)  # before the gate may close the run
    background = ctx.payload.get("background_tasks")
    researching = bool(background) and bool(active[1]["run"].get("reservations"))
    # Verify only once the report exists and no researcher is still working in the background.
    from .seals import seal_source  # lazy: hook start-up

    seals = seal_source(ctx.env, run_dir)
    failures, verified = None, {}
    if report_written(run_dir) and not researching:
        verified = _end_hashes(run_dir)
        failures = verifier_failures(run_dir, seals)
        if not failures and _end_hashes(run_dir) != verified:
            failures = [f"{run_dir}: report.md or plan.md changed while the run was being verified; "
                        "verify it again [verify.incomplete]"]
    session, snapshot = active
    # Not locked_run: a pass or a release archives the record instead of writing it.
    with session.locked_record() as record:
        if not same_run(record, snapshot):
            return {}
        run = record["run"]
        if background == []:
            run["reservations"] = []  # nothing runs in the background: no researcher holds a slot
        message = ctx.payload.get("last_assistant_message")
        decision = decide_stop(run.setdefault("stop", {}), failures, bool(ctx.payload.get("stop_hook_active")),
                               declares_unverified(message))
        expected = _return_object(run_dir) if decision.action == "pass" else None
        if expected is not None and not run["stop"].get("return_asked") and not returns_object(message, expected):
            run["stop"]["return_asked"] = True  # once: the next stop passes whatever the message says
            session.write(record)
            return output.block(return_reason(expected), "web-research: report.md passes; asking the agent "
                                "to return finish's object.")
        if decision.action in ("pass", "release"):
            session.archive(record, "verified" if decision.action == "pass" else "unverified")
        else:
            session.write(record)
    if decision.action == "pass":
        from .seals import seal_at_pass  # lazy: hook start-up

        # Sealed as verified, with the rest: a later verify names either file if it changes.
        seal_at_pass(ctx.env, run_dir, {k: v for k, v in verified.items() if v})
    if decision.action in ("pass", "release"):
        from .ending import end_of_run  # lazy: only when a run ends

        # The person's ending: the report view written, the TL;DR, the result and the paths.
        return output.notice(end_of_run(ctx.env, run_dir, seals, decision.failures, ctx.program))
    if decision.action == "block":
        return output.block(block_reason(run_dir, decision.failures, ctx.program),
                            f"web-research: report.md fails {len(decision.failures)} check(s); "
                            "asking the agent to fix them.")
    return {}
