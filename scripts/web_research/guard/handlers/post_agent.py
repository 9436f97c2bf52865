"""PostToolUse of Agent and Task: a returned call frees its researcher slot, and does what the
subagent's SubagentStop could not if that stop went unseen: a researcher's findings or a
claim-checker's verdicts are written from the reply the call returned. When the last researcher
of a wave returns, the orchestrator is told what comes next (effects/next_step.py: briefs still
to dispatch, or coverage and the report's template); when a claim-checker returns and no other
is running, `finish` runs and the orchestrator is told what it said.

A handler of its own (the entry picks it by the tool, events.handler_name): settling a reply
needs the checker, which no other tool call's PostToolUse loads.
"""
from __future__ import annotations

from ...report.claim_checker import parse_answer
from ..briefs_match import briefs_of, resolve_prompt
from ..effects.next_step import finished, researchers_returned
from ..effects.replies import write_verdicts
from ..events import CHECKER, RESEARCHER, dispatch_fields
from ..rules.checker_gate import prompt_hash
from ..rules.decision import NOTHING, AddContext, Decision, Notice
from ..rules.dispatch import release
from ..state import Context
from .subagent_stop import settle_researcher

# A background Agent call returns at once: `{"isAsync": true, "status": "async_launched", ...}` (2.1.328).
BACKGROUND_LAUNCH_STATUSES = ("async_launched",)


def post_agent(ctx: Context) -> Decision:
    agent = dispatch_fields(ctx.tool_input).get("subagent_type")
    if agent == RESEARCHER:
        return _post_researcher(ctx)
    if agent == CHECKER:
        return _post_checker(ctx)
    return NOTHING


def _post_checker(ctx: Context) -> Decision:
    """A foreground claim-checker returned. If its SubagentStop went unseen (its record still
    says `running`), its answer is read from the call's result and recorded here as that stop
    would have (a reply that misses a claim cannot be sent back any more: it counts as failed)."""
    snapshot = ctx.run
    response = ctx.event.response
    if snapshot is None or not isinstance(response, dict) or response.get("status") != "completed":
        return NOTHING
    wanted = prompt_hash(str(ctx.tool_input.get("prompt") or ""))
    agent_id = response.get("agentId")
    verdicts: dict = {}
    with ctx.locked_run() as run:
        if run is None:
            return NOTHING
        tool_use_id = ctx.event.tool_use_id
        entry = next((c for c in reversed(run.checkers)
                      if (c.prompt_hash == wanted or (tool_use_id and c.tool_use_id == tool_use_id))
                      and c.state == "running"), None)
        if entry is not None:
            verdicts, problems = parse_answer(ctx.event.agent_reply or "", entry.keys)
            entry.state = "failed" if problems else "done"
            if isinstance(agent_id, str):
                entry.agent_id = agent_id
        others = any(c.state == "running" for c in run.checkers)
    if verdicts and entry is not None:
        write_verdicts(ctx.env, snapshot.run_dir, entry.verdicts_path, verdicts, agent_id)
    if others:
        return NOTHING  # finish runs when the last checker of a round returns
    return finished(run, ctx.program, ctx.env)


def _post_researcher(ctx: Context) -> Decision:
    snapshot = ctx.run
    if snapshot is None:
        return NOTHING
    response = ctx.event.response
    response = response if isinstance(response, dict) else {}
    agent_id = response.get("agentId")
    agent_id = agent_id if isinstance(agent_id, str) else None
    tool_use_id = ctx.event.tool_use_id
    returned = None
    if agent_id is not None and agent_id not in snapshot.agents:
        returned = resolve_prompt(ctx.tool_input.get("prompt") or "", briefs_of(snapshot))
    with ctx.locked_run() as run:
        if run is None:
            return NOTHING
        if response.get("isAsync") is True or response.get("status") in BACKGROUND_LAUNCH_STATUSES:
            for item in run.reservations:
                if item.tool_use_id == tool_use_id:
                    item.agent_id = agent_id
        else:
            release(run, tool_use_id=tool_use_id)
        if returned is not None and agent_id is not None and agent_id not in run.agents:
            run.bind_agent(agent_id, returned.slug, "returned")
        # The last researcher of a wave out of the room tells what comes next, once: SubagentStop may
        # free the others' slots before their calls return, so each wave is told by one call only.
        dispatched = sum(run.dispatches.values())
        last = not run.reservations and run.next_told != dispatched
        if last:
            run.next_told = dispatched
    decision: Decision = NOTHING
    if response.get("status") == "completed":
        # A foreground researcher returned and the orchestrator has not acted since: if its
        # SubagentStop went unseen (no stop settled it), its reply is the call's result.
        brief = resolve_prompt(ctx.tool_input.get("prompt") or "", briefs_of(run))
        agent = run.agents.get(agent_id) if agent_id is not None else None
        if brief is not None and (agent is None or not agent.settled):
            # Its notice of a silent failure reaches the person now, as the stop's would have.
            decision = settle_researcher(ctx, brief, agent_id, ctx.event.agent_reply, may_block=False)
    if not last or response.get("status") != "completed":
        return decision
    fresh = ctx.session.read() if ctx.session is not None else None  # as the settling above left it
    text = researchers_returned(fresh if fresh is not None and fresh.run_dir == run.run_dir else run)
    return AddContext(text, decision.message if isinstance(decision, Notice) else None)
