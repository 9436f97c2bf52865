"""PostToolUse: what a tool call that ran changes in the active run.

A `start` opens the run (post_start.py), `briefs` records the expected briefs and fixes the
limits (post_briefs.py), a researcher's fetch and every web call go to the ledger (post_web.py),
and a returned Agent call frees its slot and does what its SubagentStop could not (post_agent.py);
here, what is left: `abandon` closes the run, and a command of ours with no run is told so.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from ..commandline import mentioned_subcommand, same_path
from ..rules.decision import NOTHING, AddContext, Decision, Notice
from ..rules.room import PERSON_COMMANDS
from ..state import Context


def stdout_json(response: Any) -> Mapping[str, Any] | None:
    stdout = response.get("stdout") if isinstance(response, dict) else response
    if not isinstance(stdout, str):
        return None
    for candidate in (stdout.strip(), *reversed(stdout.strip().splitlines())):
        if candidate.startswith("{"):
            try:
                value = json.loads(candidate)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                return value
    return None


def post_tool_use(ctx: Context) -> Decision:
    """A Bash call of the main session (a researcher's, and web calls: post_web.py; Agent: post_agent.py)."""
    if ctx.event.tool == "Bash" and not ctx.in_researcher:
        return _post_bash(ctx)
    return NOTHING


def _post_bash(ctx: Context) -> Decision:
    parsed, _why = ctx.command
    if ctx.session is None:
        return NOTHING
    response = ctx.event.response
    if parsed is None:  # a start in any spelling is post_start.py's
        return unguarded_notice(ctx, mentioned_subcommand(ctx.tool_input.get("command")))
    snapshot = ctx.run
    if snapshot is None:
        return unguarded_notice(ctx, parsed.subcommand)
    if parsed.subcommand == "abandon":
        return _post_abandon(ctx, parsed.run_dir, response)
    return NOTHING


def unguarded_notice(ctx: Context, subcommand: str | None) -> Decision:
    """One of our run commands with no run open in this session: say plainly that nothing guards it."""
    if subcommand in (None, "start", "slug", *PERSON_COMMANDS) or ctx.run is not None:
        return NOTHING
    return AddContext((
        f"web-research: no research run is open in this session (the hooks saw no successful start), so "
        f"this {subcommand} command ran unguarded: no budgets, write scopes, seals or Stop gate apply, "
        "and its evidence cannot verify as sealed. A guarded run begins with the start command."))


def _post_abandon(ctx: Context, run_dir: str | None, response: Any) -> Decision:
    """`abandon` on the open run succeeded: the room closes (outcome `abandoned`), so the Stop
    gate lets the session go; the user is told the run is not verified."""
    result = stdout_json(response)
    snapshot, session = ctx.run, ctx.session
    if snapshot is None or session is None or not (result and result.get("abandoned") is True and run_dir
                                                   and same_path(run_dir, snapshot.run_dir)):
        return NOTHING
    with session.locked_record() as run:
        if run is None or run.run_dir != snapshot.run_dir:
            return NOTHING
        run.abandon_reason = str(result.get("reason") or "")[:1000]
        session.archive(run, "abandoned", closed=True)  # shut until this turn's Stop (rules/after_abandon.py)
    return Notice(f"web-research: the research run in {snapshot.run_dir} was abandoned "
                         f"({str(result.get('reason') or '')[:300]}); it is not verified. Until this turn "
                         "ends, only read-only tools and a new start are allowed.")
