"""PostToolUse of Agent and Task: a returned call frees its researcher slot, and does what the
subagent's SubagentStop could not if that stop went unseen: a researcher's findings or a
claim-checker's verdicts are written from the reply the call returned.

A handler of its own (the entry picks it by the tool, events.handler_name): settling a reply
needs the checker, which no other tool call's PostToolUse loads.
"""
from __future__ import annotations

from ...report.claim_checker import parse_answer
from ..briefs_match import briefs_of, resolve_prompt
from ..effects.replies import write_verdicts
from ..events import CHECKER, RESEARCHER, dispatch_fields
from ..rules.checker_gate import prompt_hash
from ..rules.decision import NOTHING, Decision
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
    with ctx.locked_run() as run:
        if run is None:
            return NOTHING
        tool_use_id = ctx.event.tool_use_id
        entry = next((c for c in reversed(run.checkers)
                      if (c.prompt_hash == wanted or (tool_use_id and c.tool_use_id == tool_use_id))
                      and c.state == "running"), None)
        if entry is None:
            return NOTHING
        verdicts, problems = parse_answer(ctx.event.agent_reply or "", entry.keys)
        entry.state = "failed" if problems else "done"
        if isinstance(agent_id, str):
            entry.agent_id = agent_id
    if verdicts:
        write_verdicts(ctx.env, snapshot.run_dir, entry.verdicts_path, verdicts, agent_id)
    return NOTHING


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
    if response.get("status") == "completed":
        # A foreground researcher returned and the orchestrator has not acted since: if its
        # SubagentStop went unseen (no stop settled it), its reply is the call's result.
        brief = resolve_prompt(ctx.tool_input.get("prompt") or "", briefs_of(run))
        agent = run.agents.get(agent_id) if agent_id is not None else None
        if brief is not None and (agent is None or not agent.settled):
            # Its notice of a silent failure reaches the person now, as the stop's would have.
            return settle_researcher(ctx, brief, agent_id, ctx.event.agent_reply, may_block=False)
    return NOTHING
