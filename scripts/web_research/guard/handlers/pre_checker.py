"""PreToolUse of the claim-checker's dispatch: the checker gets the prompt `claims --prompt` would
print now, in place of its `Check: <output_dir>` (rules/checker_gate.py), so the orchestrator
neither copies nor chooses it.

A handler of its own (the entry picks it for an Agent or Task call whose prompt's form names
the claim-checker, events.handler_name): rendering that prompt loads the checker.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ...checks.checklist import parse_and_check
from ...report.claim_checker import prompt_for_run
from ..events import CHECKER, dispatch_fields
from .pre_agent import as_decision
from .pre_tool_use import decide
from ..rules.checker_gate import decide_checker_dispatch
from ..rules.decision import NOTHING, Decision, Deny
from ..rules.room import dispatch_fields_refusal, dispatch_refusal, role_of
from ..state import Context, Run, Session


def pre_checker(ctx: Context) -> Decision:
    return decide(ctx, _dispatch)


def _dispatch(ctx: Context, snapshot: Run | None) -> Decision:
    session = ctx.session
    if snapshot is None or session is None:
        return NOTHING
    tool_input = dispatch_fields(ctx.tool_input)  # the agent type and the foreground: the plugin's
    refusal = (dispatch_refusal(role_of(ctx.event.agent_type), CHECKER, ctx.program, snapshot.run_dir)
               or dispatch_fields_refusal(ctx.tool_input))
    if refusal is not None:
        return Deny(refusal)
    return _pre_checker_agent(ctx, session, snapshot, tool_input)


def _pre_checker_agent(ctx: Context, session: Session, snapshot: Run, tool_input: Mapping[str, Any]) -> Decision:
    """A claim-checker gets the prompt `claims --prompt` would print now, in place of its `Check:
    <output_dir>` (rules/checker_gate.py); `tool_input` is the call with the plugin's fields."""
    run_dir = Path(snapshot.run_dir)
    rendered, why = prompt_for_run(run_dir, parse_and_check(run_dir, extra=())[0])  # run files, before the lock
    # Not locked_run: only an allowed dispatch is written, whatever the decision touched.
    with session.locked_record() as run:
        if not snapshot.same_run(run):
            return NOTHING
        decision = decide_checker_dispatch(run, tool_input, ctx.event.tool_use_id,
                                           rendered, why, ctx.now, ctx.program)
        if decision.action == "allow":
            session.write(run)
    return as_decision(decision, ctx.tool_input, tool_input)
