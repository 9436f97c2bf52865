"""PreToolUse of Agent and Task: while a run is open, the main session dispatches only the
plugin's researchers (one per rendered brief, at most 3 at once: rules/dispatch.py) and its
claim-checker (pre_checker.py, which the entry picks for a call whose prompt names it).

A handler of its own (the entry picks it by the tool, events.handler_name): the dispatch
reads briefs and seals, which no other tool call needs.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..briefs_match import briefs_of
from ..budgets import limits_of
from ..effects.findings_bookkeeping import write_stub
from ..effects.seals import sealed_ok_findings
from ..events import CHECKER, dispatch_fields
from .pre_tool_use import decide
from ..rules.decision import NOTHING, Allow, Decision, Deny
from ..rules.dispatch import RESERVATION_TTL_SECONDS, decide_dispatch
from ..rules.dispatch import Decision as DispatchDecision
from ..rules.room import dispatch_fields_refusal, dispatch_refusal, role_of
from ..state import Context, Run

TTL_ENV = "WEB_RESEARCH_GUARD_SLOT_TTL"


def pre_agent(ctx: Context) -> Decision:
    return decide(ctx, _dispatch)


def as_decision(decision: DispatchDecision, original: Mapping[str, Any], fixed: Mapping[str, Any]) -> Decision:
    """A dispatch rule's answer (dispatch.Decision) as the hook's: an allowed dispatch carries
    the decision's input (prompt put in place), else the call with the plugin's fields when they
    differ from what the model sent."""
    if decision.action != "allow":
        return Deny(decision.reason)
    return Allow(decision.reason, decision.updated_input or (fixed if fixed != original else None))


def _dispatch(ctx: Context, snapshot: Run | None) -> Decision:
    session = ctx.session
    if snapshot is None or session is None:
        return NOTHING
    tool_input = dispatch_fields(ctx.tool_input)  # the agent type and the foreground: the plugin's
    refusal = dispatch_refusal(role_of(ctx.event.agent_type), tool_input.get("subagent_type"), ctx.program,
                               snapshot.run_dir) or dispatch_fields_refusal(ctx.tool_input)
    if refusal is not None:
        return Deny(refusal)
    if tool_input.get("subagent_type") == CHECKER:  # the entry gave it to pre_checker.py; reached only if called here
        return Deny("A claim-checker is dispatched through its own handler.")
    ttl = float(ctx.env.get(TTL_ENV) or RESERVATION_TTL_SECONDS)
    briefs = briefs_of(snapshot)  # run files are read before the lock is taken
    cap = limits_of(snapshot).max_dispatches
    sealed_ok = sealed_ok_findings(ctx.env, snapshot.run_dir)
    # Not locked_run: a denial writes nothing, though decide_dispatch has dropped expired slots.
    with session.locked_record() as run:
        if not snapshot.same_run(run):
            return NOTHING
        decision = decide_dispatch(run, tool_input, ctx.event.tool_use_id, briefs,
                                   ctx.now, ttl, ctx.program, max_dispatches=cap, sealed_ok=sealed_ok)
        if decision.action == "allow":
            session.write(run)
    if decision.action == "allow" and decision.brief is not None:
        write_stub(ctx.env, run, decision.brief, ctx.now)
    return as_decision(decision, ctx.tool_input, tool_input)
