"""Stop: the main agent may not stop on a report.md that fails verify (rules/stop_gate.py).

Reads what the gate judges (is there a report, what the verifier finds, the final message),
asks rules/stop_gate.py, then does what follows: the run record updated or closed, report.md
and plan.md sealed at a pass, the person's ending written (ending.py)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from ... import formats
from ...checks.checklist import run_checklist
from ...evidence import ledger
from ...evidence.provenance import MAX_EVIDENCE_BYTES
from ...run.return_object import return_object
from ..adapter import log_failure
from ..effects.ending import end_of_run
from ..effects.metrics import write_metrics
from ..effects.seals import seal_at_pass, seal_source
from ..rules.decision import NOTHING, Block, Decision, Notice
from ..rules.stop_gate import block_reason, decide_stop, declares_unverified, return_reason, returns_object
from ..state import Context, waits
from .stop_wait import free_slots, stop_wait


def report_path(run_dir: str | Path) -> Path:
    return Path(run_dir) / formats.REPORT_FILE


def verifier_failures(run_dir: str | Path, seal_source: Any = None) -> list[str]:
    """Failing error checks of the whole run folder, as "<file>:<line>: <message> [<id>]".
    A check that cannot complete (an exception raised by what the run folder holds, the
    hook's deadline) is one failure: the gate holds rather than failing open.
    `seal_source` (provenance.SealSource): inside a run, the ledger's seals, all required."""

    try:
        checks = run_checklist(Path(run_dir), seal_source)
    except Exception as exc:  # noqa: BLE001 - the run's own files broke the check: the gate holds
        log_failure(f"verifying {run_dir}", os.environ)
        return [f"{run_dir}: the verifier could not check the run folder ({type(exc).__name__}: "
                f"{str(exc)[:200]}) [verify.incomplete]"]
    failures = []
    for check in checks:
        if check.ok or check.severity != "error":
            continue
        where = check.path or str(run_dir)
        if check.line:
            where = f"{where}:{check.line}"
        failures.append(f"{where}: {check.message} [{check.id}]")
    return failures


def _end_hashes(run_dir: str) -> Mapping[str, str | None]:
    """sha256 of report.md and plan.md (None when unreadable), taken before and after the verifier."""
    return {name: ledger.file_sha256(Path(run_dir) / name, MAX_EVIDENCE_BYTES)
            for name in (formats.REPORT_FILE, formats.PLAN_FILE)}


def _return_object(run_dir: str) -> Mapping[str, Any]:
    """The object `finish` prints for a verified run (companion-contract.md)."""
    return return_object(Path(run_dir))


def stop(ctx: Context) -> Decision:
    snapshot, session = ctx.run, ctx.session
    if snapshot is None or session is None:
        return NOTHING  # the entry gives a stop with no run to idle.py, which frees the session
    run_dir = snapshot.run_dir
    background = ctx.event.background_tasks
    if waits(ctx.event, snapshot):  # the entry gives such a stop to stop_wait.py
        return stop_wait(ctx)
    write_metrics(ctx.env, snapshot, ctx.event, final=True)  # before the gate may close the run
    seals = seal_source(ctx.env, run_dir)
    verified = _end_hashes(run_dir)
    failures = verifier_failures(run_dir, seals)
    if not failures and _end_hashes(run_dir) != verified:
        failures = [f"{run_dir}: report.md or plan.md changed while the run was being verified; "
                    "verify it again [verify.incomplete]"]
    # Not locked_run: a pass or a release archives the record instead of writing it.
    with session.locked_record() as run:
        if run is None or not snapshot.same_run(run):
            return NOTHING
        free_slots(run, background)
        message = ctx.event.last_message
        decision = decide_stop(run.stop, failures, bool(ctx.event.stop_hook_active), declares_unverified(message))
        expected = _return_object(run_dir) if decision.action == "pass" else None
        if expected is not None and not run.stop.return_asked and not returns_object(message, expected):
            run.stop.return_asked = True  # once: the next stop passes whatever the message says
            session.write(run)
            return Block(return_reason(expected), "web-research: report.md passes; asking the agent "
                         "to return finish's object.")
        if decision.action in ("pass", "release"):
            session.archive(run, "verified" if decision.action == "pass" else "unverified")
        else:
            session.write(run)
    if decision.action == "pass":
        # Sealed as verified, with the rest: a later verify names either file if it changes.
        seal_at_pass(ctx.env, run_dir, {k: v for k, v in verified.items() if v})
    if decision.action in ("pass", "release"):
        # The person's ending: the report view written, the TL;DR, the result and the paths.
        return Notice(end_of_run(ctx.env, run_dir, seals, decision.failures, ctx.program))
    if decision.action == "block":
        return Block(block_reason(run_dir, decision.failures, ctx.program),
                     f"web-research: report.md fails {len(decision.failures)} check(s); asking the agent to fix them.")
    return NOTHING
