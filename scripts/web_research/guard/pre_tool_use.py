"""PreToolUse: allow, deny or leave alone a tool call while a run is active.

While a run is open the session is a sealed room (room.py): our own command lines
(Bash), researcher and claim-checker dispatches (Agent), each role's own files
(Write/Edit/MultiEdit/NotebookEdit) and web calls (WebSearch/WebFetch, within the
budgets); the hook sees every tool (matcher `*`), and every other one is denied unless it only
reads (room.FREE_TOOLS): an allowlist, so a tool nobody listed is denied too.
"""
from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping

from .. import formats
from ..core.fsutil import RunFileError, read_run_file
from ..core.paths import cache_dir, data_dir, user_data_dir
from ..run.resume import read_approval, sha256_of, unknown_run_refusal
from ..subcommands import RESEARCHER as RESEARCHER_ROLE
from .briefs_match import attribute, briefs_of, subagent_transcript_path
from .budgets import check, limits_of, record
from .effects.findings_bookkeeping import write_stub
from .effects.seals import ledger_knows, sealed_ok_findings
from .events import AGENT_TOOLS, WEB_TOOLS, WRITE_TOOLS
from .rules import room
from .rules.after_abandon import refusal_after_abandon
from .rules.checker_gate import decide_checker_dispatch
from .rules.decision import NOTHING, Allow, Decision, Deny
from .rules.dispatch import CHECKER, RESERVATION_TTL_SECONDS, decide_dispatch, dispatch_fields
from .rules.dispatch import Decision as DispatchDecision
from .rules.room import bash_refusal, dispatch_refusal, role_of, tool_refusal, write_target
from .state import Context, Run, Session

TTL_ENV = "WEB_RESEARCH_GUARD_SLOT_TTL"


def pre_tool_use(ctx: Context) -> Decision:
    tool = ctx.event.tool
    run = ctx.run  # the run record, read once for every rule below
    if run is None:
        shut = _after_abandon(ctx, tool or "")
        if shut is not None:
            return shut
    if tool is None:
        return NOTHING
    decision = TOOL_RULES.get(tool, _pre_other_tool)(ctx, run)
    if tool not in WEB_TOOLS and ctx.in_researcher and isinstance(decision, Deny) and not ctx.denial_recorded:
        _record_denial(ctx, run, tool)
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


def _record_denial(ctx: Context, run: Run | None, tool: str) -> None:
    """A researcher's call refused by a scope rule: one `denied` entry, for its metrics."""
    if run is None:
        return
    record(ctx.env, run.run_dir, "denied", ctx.event.agent_id, run.slug_of(ctx.event.agent_id),
           limits_of(run), tool_use_id=ctx.event.tool_use_id, tool=tool, rule="scope")


def _researcher_slug(ctx: Context, run: Run) -> str | None:
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


def _pre_web_tool(ctx: Context, run: Run | None) -> Decision:
    """WebSearch / WebFetch during a run: a researcher's within its budgets, nobody else's."""
    if run is None:
        return NOTHING
    run_dir = run.run_dir
    tool = str(ctx.event.tool)
    researcher = ctx.in_researcher
    if researcher and tool == "WebFetch":
        # A WebFetch result is a model's summary of the page, not the page: it cannot back a
        # verbatim excerpt, and no snapshot of it is sealed. Researchers read through `fetch`.
        _record_denial(ctx, run, tool)
        ctx.denial_recorded = True
        return Deny((
            "In a research run pages are read only with the page-snapshot command, which keeps the page's "
            f'text for your excerpts: "{ctx.program}" fetch "<url>" --run "{run_dir}". WebFetch returns a '
            "model's summary, not the page, so it can back no citation. If fetch fails for a page, cite "
            "another page or note it under Searched and not found."))
    verdict = check(ctx.env, run_dir, limits=limits_of(run) if researcher else None,
                    agent_id=ctx.event.agent_id,
                    slug=_researcher_slug(ctx, run) if researcher else None,
                    tool_use_id=ctx.event.tool_use_id, tool=tool,
                    query=str(ctx.tool_input.get("query") or ""), url=str(ctx.tool_input.get("url") or ""),
                    researcher=researcher)
    return NOTHING if verdict.allowed else Deny(verdict.reason)


def _pre_other_tool(ctx: Context, run: Run | None) -> Decision:
    """A tool the room has no rule of its own for (MCP tools, Skill, TaskStop, ...): denied in a
    run unless it only reads."""
    if run is None:
        return NOTHING
    refusal = tool_refusal(str(ctx.event.tool), role_of(ctx.event.agent_type), ctx.program, run.run_dir)
    return Deny(refusal) if refusal else NOTHING


def _pre_bash(ctx: Context, run: Run | None) -> Decision:
    parsed, why = ctx.command
    if run is None:
        if parsed is not None and parsed.subcommand == "start" and not ctx.in_researcher:
            refusal = _start_refusal(ctx, parsed.heredoc_body or "")
            if refusal is not None:
                return Deny((
                    f"web-research start would refuse these arguments, so it was not run: {refusal} "
                    "Reply with that JSON unchanged and stop."))
            return Allow("web-research: the plugin's start command.")
        return NOTHING
    run_dir = run.run_dir
    role = role_of(ctx.event.agent_type)
    refusal = bash_refusal(role, parsed, why, run_dir, ctx.program,
                           background=ctx.tool_input.get("run_in_background") not in (None, False),
                           real_run_dir=real_path(run_dir))
    if refusal is not None or parsed is None:
        return Deny(refusal or "not a command of the run")
    if role == RESEARCHER_ROLE:
        verdict = check(ctx.env, run_dir, limits=limits_of(run),
                        agent_id=ctx.event.agent_id,
                        slug=_researcher_slug(ctx, run), tool_use_id=ctx.event.tool_use_id,
                        tool="fetch", url=parsed.args.url, offset=int(parsed.args.offset or 0))
        if not verdict.allowed:
            ctx.denial_recorded = True  # `check` wrote its `denied` entry
            return Deny(verdict.reason)
        return Allow("web-research: the researcher's fetch command.")
    return Allow(f"web-research: the plugin's {parsed.subcommand} command.")


def _start_refusal(ctx: Context, raw_args: str) -> str | None:
    """The invalid-input JSON `start` would print for these arguments, or None when it
    may run: the hook approves only a start that passes start's own checks."""
    from ..run.inputs import InputError  # lazy: the checker's side, only in hooks that check files
    from ..run.runfolder import check_start_args  # lazy: the checker's side, only in hooks that check files

    cwd = ctx.event.cwd
    try:
        request, run_dir = check_start_args(raw_args, Path(cwd if isinstance(cwd, str) and cwd else os.getcwd()),
                                            datetime.date.today(), ctx.env)
    except InputError as error:
        return json.dumps({"error": formats.ERROR_INVALID_INPUT, "detail": str(error)}, ensure_ascii=False)
    if request.resume:
        # Only a run the plugin's own records know is resumed: nothing is adopted.
        refusal = unknown_run_refusal(run_dir, ledger_knows(ctx.env, str(run_dir)))
        if refusal is not None:
            return json.dumps(refusal, ensure_ascii=False)
    return None


def _pre_checker_agent(ctx: Context, session: Session, snapshot: Run, tool_input: Mapping[str, Any]) -> Decision:
    """A claim-checker gets the prompt `claims --prompt` would print now, in place of its `Check:
    <output_dir>` (rules/checker_gate.py); `tool_input` is the call with the plugin's fields."""
    from ..checks.checklist import parse_and_check  # lazy: the checker's side, only in hooks that check files
    from ..report.claim_checker import prompt_for_run  # lazy: the checker's side, only in hooks that check files
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
    return _as_decision(decision, ctx.tool_input, tool_input)


def _as_decision(decision: DispatchDecision, original: Mapping[str, Any], fixed: Mapping[str, Any]) -> Decision:
    """A dispatch rule's answer (dispatch.Decision) as the hook's: an allowed dispatch carries
    the decision's input (prompt put in place), else the call with the plugin's fields when they
    differ from what the model sent."""
    if decision.action != "allow":
        return Deny(decision.reason)
    return Allow(decision.reason, decision.updated_input or (fixed if fixed != original else None))


def _pre_agent(ctx: Context, snapshot: Run | None) -> Decision:
    session = ctx.session
    if snapshot is None or session is None:
        return NOTHING
    tool_input = dispatch_fields(ctx.tool_input)  # the agent type and the foreground: the plugin's
    refusal = dispatch_refusal(role_of(ctx.event.agent_type), tool_input.get("subagent_type"), ctx.program,
                               snapshot.run_dir)
    if refusal is not None:
        return Deny(refusal)
    if tool_input.get("subagent_type") == CHECKER:
        return _pre_checker_agent(ctx, session, snapshot, tool_input)
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
    return _as_decision(decision, ctx.tool_input, tool_input)


def _pre_write(ctx: Context, run: Run | None) -> Decision:
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
    return _pre_orchestrator_write(ctx, run, tool, targets)


def _pre_orchestrator_write(ctx: Context, run: Run, tool: str, targets: list[str | None]) -> Decision:
    """The main session writes plan.md (second-wave rules once briefs are rendered) and report.md."""
    run_dir = run.run_dir
    real_run = real_path(run_dir)
    briefs_rendered = bool(run.briefs) or os.path.lexists(
        os.path.join(run_dir, formats.RUN_STATE_DIR, formats.APPROVAL_FILE))
    plan = os.path.join(real_run, formats.PLAN_FILE)
    for target in dict.fromkeys(targets):
        change = _plan_change(ctx, run_dir, tool) if briefs_rendered and target == plan else None
        refusal = room.orchestrator_write_refusal(
            target, run_dir, briefs_rendered, change, ctx.program,
            second_wave_rendered=change is not None and _second_wave_rendered(run_dir, change[0]),
            real_run_dir=real_run)
        if refusal is not None:
            return Deny(refusal)
    return NOTHING


def _plan_change(ctx: Context, run_dir: str, tool: str) -> tuple[str, str] | None:
    """(plan.md now, plan.md after this call), or None when either cannot be known."""
    try:
        current = read_run_file(Path(run_dir) / formats.PLAN_FILE, Path(run_dir)).decode("utf-8")
    except (RunFileError, UnicodeDecodeError):
        current = None
    new = room.edited_text(tool, ctx.tool_input, current)
    return (current or "", new) if new is not None and (current is not None or tool == "Write") else None


def _second_wave_rendered(run_dir: str, plan_text: str) -> bool:
    """plan.md holds a second wave and `briefs` rendered it (the approval record is this plan)."""
    from ..run.plan import split_second_wave  # lazy: the checker's side, only in hooks that check files
    if split_second_wave(plan_text)[1] is None:
        return False
    approval = read_approval(Path(run_dir))
    return approval is not None and approval.get("plan_sha256") == sha256_of(plan_text.encode("utf-8"))


# Which rules decide each tool; any other tool gets the room's rule for tools it has none for.
TOOL_RULES: dict[str, Callable[[Context, Run | None], Decision]] = {
    "Bash": _pre_bash,
    **{tool: _pre_agent for tool in AGENT_TOOLS},
    **{tool: _pre_write for tool in WRITE_TOOLS},
    **{tool: _pre_web_tool for tool in WEB_TOOLS},
}


# --- where a write lands (file system: the rules get resolved paths) ---------------------

def resolve_write(file_path: object, cwd: object) -> str | None:
    """The real file a write lands in (symlinks and `..` resolved, the file itself too), or
    None when the path cannot be resolved safely (not a string, NUL, relative with no cwd)."""
    if not isinstance(file_path, str) or not file_path or "\x00" in file_path:
        return None
    if not os.path.isabs(file_path):
        if cwd is None:  # no cwd in the payload: the hook runs in the session's folder (__main__)
            cwd = os.getcwd()
        if not isinstance(cwd, str) or not os.path.isabs(cwd) or "\x00" in cwd:
            return None
        file_path = os.path.join(cwd, file_path)
    try:
        return os.path.realpath(file_path)
    except (OSError, ValueError):
        return None


def protected_roots(env: Mapping[str, str], plugin_root: str) -> list[str]:
    """The plugin's folder and its data and cache folders: never written in a run, whatever else
    a rule allows (a run folder placed inside one of them gets no write there either)."""
    roots = [plugin_root, str(formats.PLUGIN_ROOT), str(data_dir(env)), str(user_data_dir(env)), str(cache_dir(env))]
    return sorted({os.path.realpath(r) for r in roots if r})


def real_path(path: str) -> str:
    """`path` with its links and `..` resolved (the form the rules compare)."""
    return os.path.realpath(path)
