"""PostToolUse of a web call: a researcher's `fetch` returned (its snapshot sealed), or a
WebSearch or WebFetch returned (one ledger entry): guard/effects/seals.py does both.

A handler of its own (state.Context.kind "web"), so that the seals and the ledger load only here.
"""
from __future__ import annotations

from ..commandline import same_path
from ..effects.seals import after_fetch, after_web_tool
from ..rules.decision import NOTHING, Decision
from ..state import Context


def post_web(ctx: Context) -> Decision:
    run = ctx.run
    if run is None:
        return NOTHING
    if ctx.event.tool != "Bash":
        after_web_tool(ctx.env, run.run_dir, str(ctx.event.tool), ctx.tool_input,
                       ctx.event.agent_id, run.slug_of(ctx.event.agent_id), tool_use_id=ctx.event.tool_use_id)
        return NOTHING
    parsed, _why = ctx.command
    if parsed is None or parsed.subcommand != "fetch" or not same_path(parsed.run_dir, run.run_dir):
        return NOTHING
    after_fetch(ctx.env, run.run_dir, parsed.args.url, int(parsed.args.offset or 0),
                ctx.event.stdout, ctx.event.agent_id, run.slug_of(ctx.event.agent_id),
                tool_use_id=ctx.event.tool_use_id, find=parsed.args.find)
    return NOTHING
