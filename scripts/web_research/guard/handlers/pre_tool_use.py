"""PreToolUse: allow, deny or leave alone a tool call while a run is active.

While a run is open the session is a sealed room (room.py): our own command lines
(Bash), researcher and claim-checker dispatches (Agent), each role's own files
(Write/Edit/MultiEdit/NotebookEdit) and web calls (WebSearch/WebFetch, within the
budgets); the hook sees every tool (matcher `*`), and every other one is denied unless it only
reads (room.FREE_TOOLS): an allowlist, so a tool nobody listed is denied too.
"""
from __future__ import annotations

import os
from typing import Callable, Mapping

from ... import formats
from ...core.paths import cache_dir, data_dir, user_data_dir
from ..events import WEB_TOOLS, WRITE_TOOLS
from ..rules import room
from ..rules.after_abandon import refusal_after_abandon
from ..rules.decision import NOTHING, Allow, Decision, Deny
from ..rules.room import bash_refusal, role_of, tool_refusal, write_target
from ..state import Context, Run, resolve_write


# Reads an orchestrator's edit of an approved plan.md: (the text above its second wave now, after
# the call, whether that wave's briefs are rendered), or None when it cannot be known (pre_plan.py).
PlanChange = Callable[[Context, str, str], "tuple[str, str, bool] | None"]


def pre_tool_use(ctx: Context) -> Decision:
    """Every tool call but Agent and Task (pre_agent.py), web calls and a researcher's Bash (pre_web.py):
    the rules of its tool."""
    return decide(ctx, TOOL_RULES.get(ctx.event.tool or "", _pre_other_tool))


def decide(ctx: Context, rules: Callable[[Context, Run | None], Decision]) -> Decision:
    """A tool call decided by `rules` on the run read once, after an abandoned run's shut room;
    a researcher's refusal by a scope rule is recorded for its metrics."""
    tool = ctx.event.tool
    run = ctx.run  # the run record, read once for every rule below
    if run is None:
        shut = _after_abandon(ctx, tool or "")
        if shut is not None:
            return shut
    if tool is None:
        return NOTHING
    decision = rules(ctx, run)
    if tool not in WEB_TOOLS and ctx.in_researcher and isinstance(decision, Deny) and not ctx.denial_recorded:
        record_denial(ctx, run, tool)
    return decision


def _after_abandon(ctx: Context, tool: str) -> Decision | None:
    """No run is open: if one was abandoned in this turn (state.Session.closed_marker), deny
    what rules/after_abandon.py refuses. None: no such run, or the call is allowed (a new start
    then goes through the start checks)."""
    session = ctx.session
    if session is None or not session.has_active_run():
        return None
    marker = session.closed_marker()
    if marker is None:
        return None
    is_start = False
    if tool == "Bash" and not ctx.in_researcher:
        parsed, _why = ctx.command
        is_start = parsed is not None and parsed.subcommand == "start"
    refusal = refusal_after_abandon(tool, is_start, marker.run_dir, ctx.program)
    return None if refusal is None else Deny(refusal)


def record_denial(ctx: Context, run: Run | None, tool: str) -> None:
    """A researcher's call refused by a scope rule: one `denied` entry, for its metrics."""
    if run is None:
        return
    from ..budgets import limits_of, record  # lazy: only a researcher's refused call writes the ledger

    record(ctx.env, run.run_dir, "denied", ctx.event.agent_id, run.slug_of(ctx.event.agent_id),
           limits_of(run), tool_use_id=ctx.event.tool_use_id, tool=tool, rule="scope")


def _pre_other_tool(ctx: Context, run: Run | None) -> Decision:
    """A tool the room has no rule of its own for (MCP tools, Skill, TaskStop, ...): denied in a
    run unless it only reads."""
    if run is None:
        return NOTHING
    refusal = tool_refusal(str(ctx.event.tool), role_of(ctx.event.agent_type), ctx.program, run.run_dir)
    return Deny(refusal) if refusal else NOTHING


def pre_bash(ctx: Context, run: Run | None) -> Decision:
    parsed, why = ctx.command
    if run is None:
        return NOTHING  # no room: a start is pre_start.py's
    run_dir = run.run_dir
    role = role_of(ctx.event.agent_type)
    refusal = bash_refusal(role, parsed, why, run_dir, ctx.program,
                           background=ctx.tool_input.get("run_in_background") not in (None, False),
                           real_run_dir=real_path(run_dir),
                           unsandboxed=unsandboxed(ctx))
    if refusal is not None or parsed is None:
        return Deny(refusal or "not a command of the run")
    return Allow(f"web-research: the plugin's {parsed.subcommand} command.")


def unsandboxed(ctx: Context) -> bool:
    """Does this Bash call ask the client to run it outside its sandbox? Any value but false."""
    return ctx.tool_input.get("dangerouslyDisableSandbox") not in (None, False)


def _pre_write(ctx: Context, run: Run | None) -> Decision:
    return write_rules(ctx, run, None)


def write_rules(ctx: Context, run: Run | None, plan_change: PlanChange | None) -> Decision:
    """The room's rules for a write. `plan_change` reads an edit of an approved plan.md (the text
    above its second wave now and after the call, and whether that wave's briefs are rendered):
    pre_plan.py's, which the entry picks for a write that names the run's plan.md."""
    if run is None:
        return NOTHING
    tool = str(ctx.event.tool)
    path, ambiguous = write_target(tool, ctx.tool_input)
    named = [v for k, v in ctx.tool_input.items() if k in ("file_path", "notebook_path") and v is not None]
    targets = [resolve_write(v, ctx.event.cwd) for v in [path, *named]] if path else [None]
    role = room.role_of(ctx.event.agent_type)
    if ambiguous:
        return Deny(f"{ambiguous} In a research run each agent writes only its own file.")
    if None in targets:
        return Deny(f"The {tool} call names no path that can be resolved safely "
                    "(an absolute path, or one relative to the session's folder).")
    if any(room.in_protected(t, protected_roots(ctx.env, ctx.plugin_root)) for t in targets):
        return Deny(room.PROTECTED_REFUSAL)
    if role == room.OTHER:
        return Deny("While a research run is open, only the run's researchers, its "
                    "claim-checker and the main session write files; this agent writes none.")
    if role == room.CHECKER:
        return Deny(room.CHECKER_REFUSAL)
    if role == room.RESEARCHER:
        return Deny(room.RESEARCHER_REFUSAL)
    return _pre_orchestrator_write(ctx, run, tool, targets, plan_change)


def _pre_orchestrator_write(ctx: Context, run: Run, tool: str, targets: list[str | None],
                            plan_change: PlanChange | None) -> Decision:
    """The main session writes plan.md (second-wave rules once briefs are rendered) and report.md."""
    run_dir = run.run_dir
    real_run = real_path(run_dir)
    briefs_rendered = bool(run.briefs) or os.path.lexists(
        os.path.join(run_dir, formats.RUN_STATE_DIR, formats.APPROVAL_FILE))
    plan = os.path.join(real_run, formats.PLAN_FILE)
    for target in dict.fromkeys(targets):
        change = plan_change(ctx, run_dir, tool) if plan_change and briefs_rendered and target == plan else None
        refusal = room.orchestrator_write_refusal(
            target, run_dir, briefs_rendered, change[:2] if change else None, ctx.program,
            second_wave_rendered=change is not None and change[2], real_run_dir=real_run)
        if refusal is not None:
            return Deny(refusal)
    return NOTHING


# Which rules decide each tool; any other tool gets the room's rule for tools it has none for
# (Agent and Task have their own handler, pre_agent.py; web calls and a researcher's Bash, pre_web.py).
TOOL_RULES: dict[str, Callable[[Context, Run | None], Decision]] = {
    "Bash": pre_bash,
    **{tool: _pre_write for tool in WRITE_TOOLS},
}


# --- where a write lands (file system: the rules get resolved paths) ---------------------

def protected_roots(env: Mapping[str, str], plugin_root: str) -> list[str]:
    """The plugin's folder and its data and cache folders: never written in a run, whatever else
    a rule allows (a run folder placed inside one of them gets no write there either)."""
    roots = [plugin_root, str(formats.PLUGIN_ROOT), str(data_dir(env)), str(user_data_dir(env)), str(cache_dir(env))]
    return sorted({os.path.realpath(r) for r in roots if r})


def real_path(path: str) -> str:
    """`path` with its links and `..` resolved (the form the rules compare)."""
    return os.path.realpath(path)
