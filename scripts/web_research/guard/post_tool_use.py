"""PostToolUse: what a tool call that ran changes in the active run.

A `start` opens the run, `briefs` records the expected briefs and fixes the
limits, a researcher's fetch and every web call go to the ledger, and a returned
Agent call frees its slot and does what its SubagentStop could not (write a
researcher's findings or a checker's verdicts from the reply the call returned).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from .. import formats
from ..core.fsutil import RunFileError, is_within, read_run_file
from ..evidence import ledger
from ..run.resume import NotARun, PlanChanged, unknown_run_refusal
from .briefs_match import Brief, briefs_of, load_briefs, resolve_prompt
from .budgets import run_limits
from .commandline import mentioned_subcommand, same_path
from .effects.plugin_writes import write_verdicts
from .effects.seals import _ledger_entries, after_fetch, after_web_tool, ledger_knows, record, seal_briefs
from .events import AGENT_TOOLS, WEB_TOOLS
from .rules.checker_gate import prompt_hash
from .rules.decision import NOTHING, AddContext, Decision, Notice
from .rules.dispatch import CHECKER, RESEARCHER, dispatch_fields, release
from .rules.room import PERSON_COMMANDS
from .state import Context, RenderedBrief, new_run


# A researcher's states once its findings are settled (subagent_stop.settle_researcher).
SETTLED = ("done", "silent-failure")
# A background Agent call returns at once: `{"isAsync": true, "status": "async_launched", ...}` (2.1.328).
BACKGROUND_LAUNCH_STATUSES = ("async_launched",)


def _stdout_json(response: Any) -> Mapping[str, Any] | None:
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
    tool = ctx.event.tool
    if tool == "Bash" and ctx.in_researcher:
        return _post_researcher_bash(ctx)
    if tool in WEB_TOOLS:
        return _post_web_tool(ctx)
    if tool == "Bash" and not ctx.in_researcher:
        return _post_bash(ctx)
    agent = dispatch_fields(ctx.tool_input).get("subagent_type") if tool in AGENT_TOOLS else None
    if agent == RESEARCHER:
        return _post_agent(ctx)
    if agent == CHECKER:
        return _post_checker_agent(ctx)
    return NOTHING


def _post_checker_agent(ctx: Context) -> Decision:
    """A foreground claim-checker returned. If its SubagentStop went unseen (its record still
    says `running`), its answer is read from the call's result and recorded here as that stop
    would have (a reply that misses a claim cannot be sent back any more: it counts as failed)."""
    snapshot = ctx.run
    response = ctx.event.response
    if snapshot is None or not isinstance(response, dict) or response.get("status") != "completed":
        return NOTHING
    from ..report.claim_checker import parse_answer  # lazy: the checker's side, only in hooks that check files
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


def _post_bash(ctx: Context) -> Decision:
    parsed, _why = ctx.command
    if ctx.session is None:
        return NOTHING
    response = ctx.event.response
    if parsed is None or parsed.subcommand == "start":
        # `start` in any form the CLI accepts opens the room: the heredoc the skill writes
        # (parsed strictly), or another spelling of the program, a pip-installed
        # `web-research`, arguments on the command line (recognised loosely, by its output).
        command = ctx.tool_input.get("command")
        mentioned = parsed.subcommand if parsed is not None else mentioned_subcommand(command)
        if mentioned == "start":
            return _open_run(ctx, _stdout_json(response))
        return _unguarded_notice(ctx, mentioned)
    snapshot = ctx.run
    if snapshot is None:
        return _unguarded_notice(ctx, parsed.subcommand)
    if parsed.subcommand == "abandon":
        return _post_abandon(ctx, parsed.run_dir, response)
    if parsed.subcommand == "briefs":
        if not same_path(parsed.run_dir, snapshot.run_dir):
            return NOTHING
        stdout = response.get("stdout", "") if isinstance(response, dict) else str(response or "")
        run_dir = snapshot.run_dir
        briefs = load_briefs(run_dir)
        approved = _approved_hashes(run_dir)  # the plan's briefs, written by this `briefs` run
        printed = [b for b in briefs if b.brief_hash in approved or b.brief_hash in stdout]
        shown = _printed_briefs(stdout, run_dir)
        limits = run_limits(run_dir)  # fixed now, from the plan the briefs were rendered from
        with ctx.locked_run() as run:
            if run is None:
                return NOTHING
            run.briefs = [RenderedBrief(b.slug, b.brief_path, b.brief_hash, _shown(shown, b).get("subtopic"),
                                        _shown(shown, b).get("findings_path", b.findings_path))
                          for b in (printed or briefs)]
            run.limits = limits
        seal_briefs(ctx.env, run.run_dir, [(b.brief_path, b.slug) for b in run.briefs])
    return NOTHING


def _open_run(ctx: Context, result: Mapping[str, Any] | None) -> Decision:
    """A start printed a run folder (and no error): the session's room opens on it, and the
    ledger records a `run_open`. After `start --resume` the findings files it kept are judged
    again from the ledger (`_kept_by_the_ledger`); the orchestrator is told which others to
    research again."""
    if not result or "error" in result or not isinstance(result.get("output_dir"), str):
        return NOTHING
    if not os.path.isabs(result["output_dir"]) or not ("research_question" in result or "resume" in result):
        return NOTHING
    session = ctx.session
    if session is None:
        return NOTHING
    run = new_run(os.path.normpath(result["output_dir"]), result)
    resumed = result.get("resume")
    extra: list[str] = []
    if isinstance(resumed, dict):  # start --resume, in whatever form it ran: the pre-hook saw only the skill's
        refusal = unknown_run_refusal(run.run_dir, ledger_knows(ctx.env, run.run_dir))
        if refusal is not None:
            return AddContext((
                "web-research refused this start --resume, and no run is open: "
                f"{json.dumps(refusal, ensure_ascii=False)} Reply with that JSON unchanged and stop."))
        printed = [s for s in resumed.get("keep") or [] if isinstance(s, str)]
        run.kept, extra = _kept_by_the_ledger(ctx, run.run_dir, printed)
    with session.locked():
        session.open_run(run)
    record(ctx.env, run.run_dir, [ledger.entry(ledger.RUN_OPEN, resumed=isinstance(resumed, dict))])
    if extra:
        return AddContext((
            "web-research: the plugin's records do not confirm these findings files, so they are not kept "
            f"and must be researched again: {', '.join(extra)}. Dispatch their briefs (files in "
            f"{run.run_dir}/briefs/) as well, each brief's text and its 'Brief hash:' line as the prompt."))
    return NOTHING


def _unguarded_notice(ctx: Context, subcommand: str | None) -> Decision:
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
    result = _stdout_json(response)
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


def _kept_by_the_ledger(ctx: Context, run_dir: str, printed: list[str]) -> tuple[list[str], list[str]]:
    """(the slugs `start --resume` kept that the ledger's seals confirm, those it does not).
    `start` ran in the Bash tool, without the hooks' data directory: it judged seals from the
    folder copy, which anything in the run could have edited. The hook judges them again
    from the ledger; only a findings file sealed there, intact and `ok`, is kept."""
    from ..checks.resume import assess  # lazy: the checker's side, only in hooks that check files

    try:
        found = assess(Path(run_dir), ctx.env, seals=ledger.seals(_ledger_entries(ctx.env, run_dir)))
    except (NotARun, PlanChanged):
        return [], printed
    kept = [slug for slug in printed if slug in found.keep]
    return kept, [slug for slug in printed if slug not in kept]


def _post_researcher_bash(ctx: Context) -> Decision:
    """A researcher's fetch returned: seal the snapshot it wrote (guard/effects/seals.py)."""
    parsed, _why = ctx.command
    if parsed is None or parsed.subcommand != "fetch":
        return NOTHING
    run = ctx.run
    if run is None or not same_path(parsed.run_dir, run.run_dir):
        return NOTHING
    after_fetch(ctx.env, run.run_dir, parsed.args.url, int(parsed.args.offset or 0),
                ctx.event.stdout, ctx.event.agent_id, run.slug_of(ctx.event.agent_id),
                tool_use_id=ctx.event.tool_use_id)
    return NOTHING


def _post_web_tool(ctx: Context) -> Decision:
    """A WebSearch or WebFetch returned during a run: one ledger entry (guard/effects/seals.py)."""
    run = ctx.run
    if run is None:
        return NOTHING
    after_web_tool(ctx.env, run.run_dir, str(ctx.event.tool), ctx.tool_input,
                   ctx.event.agent_id, run.slug_of(ctx.event.agent_id), tool_use_id=ctx.event.tool_use_id)
    return NOTHING


def _approved_hashes(run_dir: str) -> set[str]:
    """The brief hashes `briefs` recorded as approved (.web-research/approval.json): every brief
    of the current plan, the ones it no longer lists (done) included; none when unreadable."""
    path = os.path.join(run_dir, formats.RUN_STATE_DIR, formats.APPROVAL_FILE)
    try:
        data = json.loads(read_run_file(path, run_dir, 1024 * 1024).decode("utf-8"))
    except (RunFileError, UnicodeDecodeError, ValueError):
        return set()
    briefs = data.get("briefs") if isinstance(data, dict) else None
    return {h for h in briefs.values() if isinstance(h, str)} if isinstance(briefs, dict) else set()


def _shown(shown: Mapping[str, Mapping[str, str]], brief: Brief) -> Mapping[str, str]:
    return shown.get(brief.brief_hash) or shown.get(brief.brief_path) or {}


def _printed_briefs(stdout: str, run_dir: str) -> dict[str, dict[str, str]]:
    """brief_hash or brief_path -> {"subtopic", "findings_path"} from the JSON list `briefs`
    prints (its findings path wins over the guard's own `findings/<slug>.md`; only paths
    inside the run folder are taken)."""
    try:
        items = json.loads(stdout)
    except (ValueError, RecursionError):
        return NOTHING
    shown: dict[str, dict[str, str]] = {}
    for item in items if isinstance(items, list) else []:
        key = item.get("brief_hash") or item.get("brief_path") if isinstance(item, dict) else None
        if not isinstance(key, str):
            continue
        entry = {name: item[name] for name in ("subtopic", "findings_path") if isinstance(item.get(name), str)}
        if "findings_path" in entry and not (os.path.isabs(entry["findings_path"])
                                             and is_within(entry["findings_path"], run_dir)):
            del entry["findings_path"]
        shown[key] = entry
    return shown


def _post_agent(ctx: Context) -> Decision:
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
        if brief is not None and (agent is None or agent.state not in SETTLED):
            from .subagent_stop import settle_researcher  # lazy: the hook entry loads only its own event's handler module

            settle_researcher(ctx, brief, agent_id, ctx.event.agent_reply, may_block=False)
    return NOTHING
