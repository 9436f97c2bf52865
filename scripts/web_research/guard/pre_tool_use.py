"""PreToolUse: allow, deny or leave alone a tool call while a run is active.

While a run is open the session is a sealed room (room.py): our own command lines
(Bash), researcher and claim-checker dispatches (Agent), each role's own files
(Write/Edit/MultiEdit/NotebookEdit) and web calls (WebSearch/WebFetch, within the
budgets); the hook sees every tool (matcher `*`), and every other one is denied unless it only
reads (room.FREE_TOOLS): an allowlist, so a tool nobody listed is denied too.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .. import formats
from . import output
from .briefs_match import subagent_transcript_path
from .context import (AGENT_TOOLS, CHECKER, WEB_TOOLS, WRITE_TOOLS, Context, active_run, attribute,
                      briefs_of, dispatch_fields, known_slug, learn_agent, same_run)
from .registry import Session


TTL_ENV = "WEB_RESEARCH_GUARD_SLOT_TTL"


def pre_tool_use(ctx: Context) -> dict[str, Any]:
    tool = ctx.payload.get("tool_name")
    shut = _after_abandon(ctx, tool)
    if shut is not None:
        return shut
    if tool in WEB_TOOLS:
        return _pre_web_tool(ctx)
    if tool == "Bash":
        decision = _pre_bash(ctx)
    elif tool in AGENT_TOOLS:
        decision = _pre_agent(ctx)
    elif tool in WRITE_TOOLS:
        decision = _pre_write(ctx)
    elif isinstance(tool, str):
        decision = _pre_other_tool(ctx, tool)
    else:
        return {}
    if ctx.in_researcher and _denied(decision) and not ctx.denial_recorded:
        _record_denial(ctx, str(tool))
    return decision


def _after_abandon(ctx: Context, tool: object) -> dict[str, Any] | None:
    """A run of this session was abandoned in this turn (registry.Session.closed_marker): deny
    what guard/after_abandon.py refuses. None: no such run, or the call is allowed (a new start
    then goes through the start checks below)."""
    session = ctx.session
    if session is None or not session.has_active_run() or session.read() is not None:
        return None
    marker = session.closed_marker()
    if marker is None:
        return None
    from .after_abandon import refusal_after_abandon  # lazy: hook start-up

    name = tool if isinstance(tool, str) else ""
    is_start = False
    if name == "Bash" and not ctx.in_researcher:
        parsed, _why = ctx.parse_command()
        is_start = parsed is not None and parsed.subcommand == "start"
    refusal = refusal_after_abandon(name, is_start, marker.get("run_dir"), ctx.program)
    return None if refusal is None else output.pre_tool_use("deny", refusal)


def _denied(decision: dict[str, Any]) -> bool:
    return (decision.get("hookSpecificOutput") or {}).get("permissionDecision") == "deny"


def _record_denial(ctx: Context, tool: str) -> None:
    """A researcher's call refused by a scope rule: one `denied` entry, for its metrics."""
    active = active_run(ctx)
    if active is None:
        return
    from .budgets import limits_of, record  # lazy: start-up

    run = active[1]["run"]
    record(ctx.env, run["run_dir"], "denied", ctx.payload.get("agent_id"), known_slug(ctx, run),
           limits_of(run), tool_use_id=ctx.payload.get("tool_use_id"), tool=tool, rule="scope")


def _researcher_slug(ctx: Context, active: tuple[Session, dict[str, Any]]) -> str | None:
    """The slug of the researcher in this payload: remembered, or read from its transcript
    (and then remembered), so that its ledger entries name it."""
    session, snapshot = active
    run = snapshot["run"]
    slug = known_slug(ctx, run)
    if slug is not None:
        return slug
    transcript = subagent_transcript_path(ctx.payload.get("transcript_path"), ctx.payload.get("agent_id"))
    brief, learned = attribute(ctx, run, briefs_of(run), transcript)
    if learned and brief is not None:
        learn_agent(session, snapshot, ctx.payload.get("agent_id"), brief.slug, "running")
    return brief.slug if brief is not None else None


def _pre_web_tool(ctx: Context) -> dict[str, Any]:
    """WebSearch / WebFetch during a run: a researcher's within its budgets, nobody else's."""
    active = active_run(ctx)
    if active is None:
        return {}
    from .budgets import check, limits_of  # lazy: start-up

    run_dir = active[1]["run"]["run_dir"]
    tool = str(ctx.payload.get("tool_name"))
    researcher = ctx.in_researcher
    if researcher and tool == "WebFetch":
        # A WebFetch result is a model's summary of the page, not the page: it cannot back a
        # verbatim excerpt, and no snapshot of it is sealed. Researchers read through `fetch`.
        _record_denial(ctx, tool)
        ctx.denial_recorded = True
        return output.pre_tool_use("deny", (
            "In a research run pages are read only with the page-snapshot command, which keeps the page's "
            f'text for your excerpts: "{ctx.program}" fetch "<url>" --run "{run_dir}". WebFetch returns a '
            "model's summary, not the page, so it can back no citation. If fetch fails for a page, cite "
            "another page or note it under Searched and not found."))
    verdict = check(ctx.env, run_dir, limits=limits_of(active[1]["run"]) if researcher else None,
                    agent_id=ctx.payload.get("agent_id"),
                    slug=_researcher_slug(ctx, active) if researcher else None,
                    tool_use_id=ctx.payload.get("tool_use_id"), tool=tool,
                    query=str(ctx.tool_input.get("query") or ""), url=str(ctx.tool_input.get("url") or ""),
                    researcher=researcher)
    return {} if verdict.allowed else output.pre_tool_use("deny", verdict.reason)


def _pre_other_tool(ctx: Context, tool: str) -> dict[str, Any]:
    """A tool the room has no rule of its own for (MCP tools, Skill, TaskStop, ...): denied in a
    run unless it only reads."""
    active = active_run(ctx)
    if active is None:
        return {}
    from .room import role_of, tool_refusal  # lazy: hook start-up

    refusal = tool_refusal(tool, role_of(ctx.payload), ctx.program, active[1]["run"]["run_dir"])
    return output.pre_tool_use("deny", refusal) if refusal else {}


def _pre_bash(ctx: Context) -> dict[str, Any]:
    parsed, why = ctx.parse_command()
    active = active_run(ctx)
    if active is None:
        if parsed is not None and parsed.subcommand == "start" and not ctx.in_researcher:
            refusal = _start_refusal(ctx, parsed.heredoc_body or "")
            if refusal is not None:
                return output.pre_tool_use("deny", (
                    f"web-research start would refuse these arguments, so it was not run: {refusal} "
                    "Reply with that JSON unchanged and stop."))
            return output.pre_tool_use("allow", "web-research: the plugin's start command.")
        return {}
    from .room import bash_refusal, role_of  # lazy: hook start-up

    run_dir = active[1]["run"]["run_dir"]
    role = role_of(ctx.payload)
    refusal = bash_refusal(role, parsed, why, run_dir, ctx.program,
                           background=ctx.tool_input.get("run_in_background") not in (None, False))
    if refusal is not None or parsed is None:
        return output.pre_tool_use("deny", refusal or "not a command of the run")
    if role == "researcher":
        from .budgets import check, limits_of  # lazy: start-up

        verdict = check(ctx.env, run_dir, limits=limits_of(active[1]["run"]),
                        agent_id=ctx.payload.get("agent_id"),
                        slug=_researcher_slug(ctx, active), tool_use_id=ctx.payload.get("tool_use_id"),
                        tool="fetch", url=parsed.args.url, offset=int(parsed.args.offset or 0))
        if not verdict.allowed:
            ctx.denial_recorded = True  # `check` wrote its `denied` entry
            return output.pre_tool_use("deny", verdict.reason)
        return output.pre_tool_use("allow", "web-research: the researcher's fetch command.")
    return output.pre_tool_use("allow", f"web-research: the plugin's {parsed.subcommand} command.")


def _start_refusal(ctx: Context, raw_args: str) -> str | None:
    """The invalid-input JSON `start` would print for these arguments, or None when it
    may run: the hook approves only a start that passes start's own checks."""
    import datetime  # lazy: start-up

    from ..run.inputs import InputError  # lazy: hook start-up
    from ..run.runfolder import check_start_args  # lazy: hook start-up

    cwd = ctx.payload.get("cwd")
    try:
        request, run_dir = check_start_args(raw_args, Path(cwd if isinstance(cwd, str) and cwd else os.getcwd()),
                                            datetime.date.today(), ctx.env)
    except InputError as error:
        return json.dumps({"error": formats.ERROR_INVALID_INPUT, "detail": str(error)}, ensure_ascii=False)
    if request.resume:
        from ..run.resume import unknown_run_refusal  # lazy: start-up
        from .seals import ledger_knows  # lazy: start-up

        # Only a run the plugin's own records know is resumed: nothing is adopted.
        refusal = unknown_run_refusal(run_dir, ledger_knows(ctx.env, str(run_dir)))
        if refusal is not None:
            return json.dumps(refusal, ensure_ascii=False)
    return None


def _pre_checker_agent(ctx: Context, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A claim-checker gets the prompt `claims --prompt` would print now, in place of its `Check:
    <output_dir>` (checker_gate.py); `tool_input` is the call with the plugin's fields."""
    active = active_run(ctx)
    if active is None:
        return {}
    from ..checks.checklist import parse_and_check  # lazy: start-up
    from ..checks.verdicts import prompt_for_run  # lazy: start-up
    from .checker_gate import decide_checker_dispatch  # lazy: start-up

    session, snapshot = active
    run_dir = Path(snapshot["run"]["run_dir"])
    rendered, why = prompt_for_run(run_dir, parse_and_check(run_dir, extra=())[0])  # run files, before the lock
    # Not locked_run: only an allowed dispatch is written, whatever the decision touched.
    with session.locked_record() as record:
        if not same_run(record, snapshot):
            return {}
        decision = decide_checker_dispatch(record["run"], tool_input, ctx.payload.get("tool_use_id"),
                                           rendered, why, ctx.now, ctx.program)
        if decision.action == "allow":
            session.write(record)
    return output.pre_tool_use(decision.action, decision.reason, _with_fields(decision, ctx.tool_input, tool_input))


def _with_fields(decision: Any, original: dict[str, Any], fixed: dict[str, Any]) -> dict[str, Any] | None:
    """The updatedInput of an allowed dispatch: the decision's (prompt put in place), else the call
    with the plugin's fields when they differ from what the model sent."""
    if decision.action != "allow":
        return None
    return decision.updated_input or (fixed if fixed != original else None)


def _pre_agent(ctx: Context) -> dict[str, Any]:
    active = active_run(ctx)
    if active is None:
        return {}
    from .room import dispatch_refusal, role_of  # lazy: hook start-up

    tool_input = dispatch_fields(ctx.tool_input)  # the agent type and the foreground: the plugin's
    refusal = dispatch_refusal(role_of(ctx.payload), tool_input.get("subagent_type"), ctx.program,
                               active[1]["run"]["run_dir"])
    if refusal is not None:
        return output.pre_tool_use("deny", refusal)
    if tool_input.get("subagent_type") == CHECKER:
        return _pre_checker_agent(ctx, tool_input)
    from .budgets import limits_of  # lazy: hook start-up
    from .dispatch import RESERVATION_TTL_SECONDS, decide_dispatch  # lazy: hook start-up

    from .seals import sealed_ok_findings  # lazy: hook start-up

    ttl = float(ctx.env.get(TTL_ENV) or RESERVATION_TTL_SECONDS)
    session, snapshot = active
    briefs = briefs_of(snapshot["run"])  # run files are read before the lock is taken
    cap = limits_of(snapshot["run"]).max_dispatches
    sealed_ok = sealed_ok_findings(ctx.env, snapshot["run"]["run_dir"])
    # Not locked_run: a denial writes nothing, though decide_dispatch has dropped expired slots.
    with session.locked_record() as record:
        if not same_run(record, snapshot):
            return {}
        run = record["run"]
        decision = decide_dispatch(run, tool_input, ctx.payload.get("tool_use_id"), briefs,
                                   ctx.now, ttl, ctx.program, max_dispatches=cap, sealed_ok=sealed_ok)
        if decision.action == "allow":
            session.write(record)
    if decision.action == "allow" and decision.brief is not None:
        from .findings_bookkeeping import write_stub  # lazy: hook start-up

        write_stub(ctx, run, decision.brief)
    return output.pre_tool_use(decision.action, decision.reason, _with_fields(decision, ctx.tool_input, tool_input))


def _pre_write(ctx: Context) -> dict[str, Any]:
    active = active_run(ctx)
    if active is None:
        return {}
    from . import room  # lazy: hook start-up
    from .writescope import write_allowed, write_target  # lazy: hook start-up

    tool = str(ctx.payload.get("tool_name"))
    path, ambiguous = write_target(tool, ctx.tool_input)
    named = [v for k, v in ctx.tool_input.items() if k in ("file_path", "notebook_path") and v is not None]
    targets = [room.resolve_write(v, ctx.payload.get("cwd")) for v in [path, *named]] if path else [None]
    role = room.role_of(ctx.payload)
    if ambiguous:
        return output.pre_tool_use("deny", f"{ambiguous} In a research run each agent writes only its own file.")
    if None in targets:
        return output.pre_tool_use("deny", f"The {tool} call names no path that can be resolved safely "
                                   "(an absolute path, or one relative to the session's folder).")
    if any(room.in_protected(t, room.protected_roots(ctx.env, ctx.plugin_root)) for t in targets):
        return output.pre_tool_use("deny", room.PROTECTED_REFUSAL)
    if role == room.OTHER:
        return output.pre_tool_use("deny", "While a research run is open, only the run's researchers, its "
                                   "claim-checker and the main session write files; this agent writes none.")
    if role == room.CHECKER:
        return output.pre_tool_use("deny", room.CHECKER_REFUSAL)
    if role == room.ORCHESTRATOR:
        return _pre_orchestrator_write(ctx, active[1]["run"], tool, targets)
    session, snapshot = active
    run = snapshot["run"]
    briefs = briefs_of(run)
    transcript = subagent_transcript_path(ctx.payload.get("transcript_path"), ctx.payload.get("agent_id"))
    brief, learned = attribute(ctx, run, briefs, transcript)
    if learned and brief is not None:
        learn_agent(session, snapshot, ctx.payload.get("agent_id"), brief.slug, "running")
    from .dispatch import findings_rel  # lazy: hook start-up
    from .seals import sealed_ok_findings  # lazy: hook start-up

    # A findings file sealed `ok` is a researcher's final result: nobody writes over it.
    final = sealed_ok_findings(ctx.env, run["run_dir"])
    if brief is not None:
        candidates = [brief]
    else:  # cannot tell which researcher this is: any brief no other researcher owns
        owned = {a.get("slug") for a in run.get("agents", {}).values()}
        candidates = [b for b in briefs if b.slug not in owned]
    candidates = [b for b in candidates if findings_rel(run["run_dir"], b) not in final]
    if not candidates:
        return output.pre_tool_use("deny", (
            f"{brief.findings_path if brief is not None else 'Every unowned findings file'} is sealed with "
            "status ok: a researcher's final result, never written over. Reply with your status line."))
    allowed, reason = write_allowed(path, ctx.payload.get("cwd"), run["run_dir"], candidates)
    return output.pre_tool_use("allow" if allowed else "deny", reason)


def _pre_orchestrator_write(ctx: Context, run: dict[str, Any], tool: str, targets: list[str | None]) -> dict[str, Any]:
    """The main session writes plan.md (second-wave rules once briefs are rendered) and report.md."""
    from . import room  # lazy: hook start-up

    run_dir = run["run_dir"]
    briefs_rendered = bool(run.get("briefs")) or os.path.lexists(
        os.path.join(run_dir, formats.RUN_STATE_DIR, formats.APPROVAL_FILE))
    plan = os.path.join(os.path.realpath(run_dir), formats.PLAN_FILE)
    for target in dict.fromkeys(targets):
        change = _plan_change(ctx, run_dir, tool) if briefs_rendered and target == plan else None
        refusal = room.orchestrator_write_refusal(
            target, run_dir, briefs_rendered, change, ctx.program,
            second_wave_rendered=change is not None and _second_wave_rendered(run_dir, change[0]))
        if refusal is not None:
            return output.pre_tool_use("deny", refusal)
    return {}


def _plan_change(ctx: Context, run_dir: str, tool: str) -> tuple[str, str] | None:
    """(plan.md now, plan.md after this call), or None when either cannot be known."""
    from ..core.fsutil import RunFileError, read_run_file  # lazy: hook start-up
    from .room import edited_text  # lazy: hook start-up

    try:
        current = read_run_file(Path(run_dir) / formats.PLAN_FILE, Path(run_dir)).decode("utf-8")
    except (RunFileError, UnicodeDecodeError):
        current = None
    new = edited_text(tool, ctx.tool_input, current)
    return (current or "", new) if new is not None and (current is not None or tool == "Write") else None


def _second_wave_rendered(run_dir: str, plan_text: str) -> bool:
    """plan.md holds a second wave and `briefs` rendered it (the approval record is this plan)."""
    from ..run.resume import read_approval, sha256_of  # lazy: hook start-up
    from .room import PLAN_SECOND_WAVE_HEADING  # lazy: hook start-up

    if not any(line.rstrip() == PLAN_SECOND_WAVE_HEADING for line in plan_text.split("\n")):
        return False
    approval = read_approval(Path(run_dir))
    return approval is not None and approval.get("plan_sha256") == sha256_of(plan_text.encode("utf-8"))
