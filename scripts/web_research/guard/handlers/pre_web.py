"""PreToolUse of a web call: WebSearch or WebFetch by anyone, and a researcher's Bash (its one
command is `fetch`). A researcher's within its budgets (guard/budgets.py, counted in the run's
ledger), nobody else's; the room's rules for a researcher's command line first (pre_tool_use.py).

A handler of its own (state.Context.kind "web") so that the budgets' ledger, the briefs and the
researcher's attribution load only for these calls, never for the orchestrator's commands,
reads and writes.
"""
from __future__ import annotations

from ..briefs_match import attribute, briefs_of, subagent_transcript_path
from ..budgets import check, limits_of
from ..rules.decision import NOTHING, Allow, Decision, Deny
from ..state import Context, Run
from .pre_tool_use import decide, pre_bash, record_denial


def pre_web(ctx: Context) -> Decision:
    return decide(ctx, _researcher_bash if ctx.event.tool == "Bash" else _web_tool)


def researcher_slug(ctx: Context, run: Run) -> str | None:
    """The slug of the researcher in this payload: remembered, or read from its transcript
    (and then remembered), so that its ledger entries name it."""
    slug = run.slug_of(ctx.event.agent_id)
    if slug is not None:
        return slug
    transcript = subagent_transcript_path(ctx.event.transcript_path, ctx.event.agent_id)
    brief, learned = attribute(run, ctx.event.agent_id, briefs_of(run), transcript)
    if learned and brief is not None:
        ctx.learn_agent(ctx.event.agent_id, brief.slug, "running")
    return brief.slug if brief is not None else None


def _researcher_bash(ctx: Context, run: Run | None) -> Decision:
    """A researcher's command: the room allows only `fetch` of its run (pre_tool_use.pre_bash); a
    page read within its budget (`--find` is one page read however many windows it prints)."""
    decision = pre_bash(ctx, run)
    parsed, _why = ctx.command
    if run is None or not isinstance(decision, Allow) or parsed is None:
        return decision
    verdict = check(ctx.env, run.run_dir, limits=limits_of(run), agent_id=ctx.event.agent_id,
                    slug=researcher_slug(ctx, run), tool_use_id=ctx.event.tool_use_id,
                    tool="fetch", url=parsed.args.url, offset=int(parsed.args.offset or 0),
                    find=parsed.args.find)
    if not verdict.allowed:
        ctx.denial_recorded = True  # `check` wrote its `denied` entry
        return Deny(verdict.reason)
    return Allow("web-research: the researcher's fetch command.")


def _web_tool(ctx: Context, run: Run | None) -> Decision:
    """WebSearch / WebFetch during a run: a researcher's within its budgets, nobody else's."""
    if run is None:
        return NOTHING
    run_dir = run.run_dir
    tool = str(ctx.event.tool)
    researcher = ctx.in_researcher
    if researcher and tool == "WebFetch":
        # A WebFetch result is a model's summary of the page, not the page: it cannot back a
        # verbatim excerpt, and no snapshot of it is sealed. Researchers read through `fetch`.
        record_denial(ctx, run, tool)
        ctx.denial_recorded = True
        return Deny((
            "In a research run pages are read only with the page-snapshot command, which keeps the page's "
            f'text for your excerpts: "{ctx.program}" fetch "<url>" --run "{run_dir}". WebFetch returns a '
            "model's summary, not the page, so it can back no citation. If fetch fails for a page, cite "
            "another page or note it under Searched and not found."))
    verdict = check(ctx.env, run_dir, limits=limits_of(run) if researcher else None,
                    agent_id=ctx.event.agent_id,
                    slug=researcher_slug(ctx, run) if researcher else None,
                    tool_use_id=ctx.event.tool_use_id, tool=tool,
                    query=ctx.event.text("query"), url=ctx.event.text("url"),
                    researcher=researcher)
    return NOTHING if verdict.allowed else Deny(verdict.reason)
