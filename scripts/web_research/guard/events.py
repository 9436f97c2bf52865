"""One handler per hook event: payload in, decision (a JSON-able dict) out.

Handlers do the I/O (run record, files of the run folder) and delegate every
rule to the pure modules beside this one. `{}` means "no decision". Whatever a
handler cannot attribute to this session's active run it leaves alone.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from .. import formats
from . import output
from .briefs_match import Brief, first_user_message, load_briefs, match_prompt, subagent_transcript_path
from .commandline import CommandRejected, PluginCommand, parse_plugin_command, same_path
from .registry import SILENT_FAILURES_FILE, Session, data_dir, new_run, now_iso, valid_session_id, write_run_state

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
AGENT_TOOLS = ("Agent", "Task")
WEB_TOOLS = ("WebSearch", "WebFetch")
RESEARCHER = formats.RESEARCHER_SUBAGENT_TYPE
CHECKER = formats.CHECKER_SUBAGENT_TYPE
TTL_ENV = "WEB_RESEARCH_GUARD_SLOT_TTL"
# A background Agent call returns at once: `{"isAsync": true, "status": "async_launched", ...}` (2.1.328).
BACKGROUND_LAUNCH_STATUSES = ("async_launched",)


class Context:
    """One hook invocation: its payload, environment and clock."""

    def __init__(self, payload: dict[str, Any], env: Mapping[str, str], now: float | None = None):
        self.payload = payload
        self.env = env
        self.now = time.time() if now is None else now
        self.denial_recorded = False  # a handler already wrote this call's `denied` ledger entry

    @property
    def session(self) -> Session | None:
        sid = self.payload.get("session_id")
        return Session(data_dir(self.env), sid) if valid_session_id(sid) else None

    @property
    def plugin_root(self) -> str:
        return self.env.get("CLAUDE_PLUGIN_ROOT") or str(formats.PLUGIN_ROOT)

    @property
    def program(self) -> str:
        """Our command as the prompts spell it, for instructions in reasons."""
        return os.path.join(self.plugin_root, "scripts", "web-research")

    @property
    def tool_input(self) -> dict[str, Any]:
        value = self.payload.get("tool_input")
        return value if isinstance(value, dict) else {}

    @property
    def in_researcher(self) -> bool:
        return self.payload.get("agent_type") == RESEARCHER

    @property
    def in_checker(self) -> bool:
        return self.payload.get("agent_type") == CHECKER

    def parse_command(self) -> tuple[PluginCommand | None, str]:
        """(the plugin command in tool_input.command, or None and why not)."""
        try:
            return parse_plugin_command(self.tool_input.get("command", ""), self.plugin_root, self.env), ""
        except CommandRejected as exc:
            return None, str(exc)


def _active(ctx: Context) -> tuple[Session, dict[str, Any]] | None:
    session = ctx.session
    if session is None or not session.has_active_run():
        return None
    record = session.read()
    return (session, record) if record is not None else None


def _same_run(record: dict[str, Any] | None, snapshot: dict[str, Any]) -> bool:
    """Is `record` (read under the lock) still the run `snapshot` (read before it) was?
    Run files are read and checked between the two reads, never under the lock."""
    return record is not None and record["run"].get("run_dir") == snapshot["run"].get("run_dir") \
        and record["run"].get("started_at") == snapshot["run"].get("started_at")


def _learn_agent(session: Session, snapshot: dict[str, Any], agent_id: object, slug: str, state: str) -> None:
    """Remember which brief an agent works on (a short read-modify-write under the lock)."""
    if not isinstance(agent_id, str):
        return
    with session.locked_record() as record:
        if _same_run(record, snapshot) and agent_id not in record["run"].setdefault("agents", {}):
            record["run"]["agents"][agent_id] = {"slug": slug, "blocks": 0, "state": state}
            session.write(record)


def _briefs(run: dict[str, Any]) -> list[Brief]:
    from .dispatch import expected_briefs  # lazy: hook start-up

    return expected_briefs(run)


# --- PreToolUse -----------------------------------------------------------------

def pre_tool_use(ctx: Context) -> dict[str, Any]:
    tool = ctx.payload.get("tool_name")
    if tool in WEB_TOOLS:
        return _pre_web_tool(ctx)
    if tool == "Bash":
        decision = _pre_bash(ctx)
    elif tool in AGENT_TOOLS:
        decision = _pre_agent(ctx)
    elif tool in WRITE_TOOLS:
        decision = _pre_write(ctx)
    else:
        return {}
    if ctx.in_researcher and _denied(decision) and not ctx.denial_recorded:
        _record_denial(ctx, str(tool))
    return decision


def _denied(decision: dict[str, Any]) -> bool:
    return (decision.get("hookSpecificOutput") or {}).get("permissionDecision") == "deny"


def _record_denial(ctx: Context, tool: str) -> None:
    """A researcher's call refused by a scope rule: one `denied` entry, for its metrics."""
    active = _active(ctx)
    if active is None:
        return
    from .budgets import limits_of, record  # lazy: start-up

    run = active[1]["run"]
    record(ctx.env, run["run_dir"], "denied", ctx.payload.get("agent_id"), _known_slug(ctx, run),
           limits_of(run), tool_use_id=ctx.payload.get("tool_use_id"), tool=tool, rule="scope")


def _researcher_slug(ctx: Context, active: tuple[Session, dict[str, Any]]) -> str | None:
    """The slug of the researcher in this payload: remembered, or read from its transcript
    (and then remembered), so that its ledger entries name it."""
    session, snapshot = active
    run = snapshot["run"]
    slug = _known_slug(ctx, run)
    if slug is not None:
        return slug
    transcript = subagent_transcript_path(ctx.payload.get("transcript_path"), ctx.payload.get("agent_id"))
    brief, learned = _attribute(ctx, run, _briefs(run), transcript)
    if learned and brief is not None:
        _learn_agent(session, snapshot, ctx.payload.get("agent_id"), brief.slug, "running")
    return brief.slug if brief is not None else None


def _pre_web_tool(ctx: Context) -> dict[str, Any]:
    """WebSearch / WebFetch during a run: a researcher's within its budgets, nobody else's."""
    active = _active(ctx)
    if active is None:
        return {}
    from .budgets import check, limits_of  # lazy: start-up

    run_dir = active[1]["run"]["run_dir"]
    tool = str(ctx.payload.get("tool_name"))
    researcher = ctx.in_researcher
    verdict = check(ctx.env, run_dir, limits=limits_of(active[1]["run"]) if researcher else None,
                    agent_id=ctx.payload.get("agent_id"),
                    slug=_researcher_slug(ctx, active) if researcher else None,
                    tool_use_id=ctx.payload.get("tool_use_id"), tool=tool,
                    query=str(ctx.tool_input.get("query") or ""), url=str(ctx.tool_input.get("url") or ""),
                    researcher=researcher)
    return {} if verdict.allowed else output.pre_tool_use("deny", verdict.reason)


def _pre_bash(ctx: Context) -> dict[str, Any]:
    parsed, why = ctx.parse_command()
    if parsed is not None and parsed.subcommand == "start" and not ctx.in_researcher:
        refusal = _start_refusal(ctx, parsed.heredoc_body or "")
        if refusal is not None:
            return output.pre_tool_use("deny", (
                f"web-research start would refuse these arguments, so it was not run: {refusal} "
                "Reply with that JSON unchanged and stop."))
        return output.pre_tool_use("allow", "web-research: the plugin's start command.")
    active = _active(ctx)
    if active is None:
        return {}
    run_dir = active[1]["run"]["run_dir"]
    from .seals import bash_refusal  # lazy: hook start-up

    refusal = bash_refusal(ctx.tool_input.get("command"), ctx.env) if parsed is None else None
    if refusal:
        return output.pre_tool_use("deny", refusal)
    if ctx.in_checker:
        return output.pre_tool_use("deny", "A claim-checker runs no commands: judge the claims in your prompt "
                                   "and write your verdicts file.")
    if ctx.in_researcher:
        if parsed is not None and parsed.subcommand == "fetch" and same_path(parsed.run_dir, run_dir):
            from .budgets import check, limits_of  # lazy: start-up

            verdict = check(ctx.env, run_dir, limits=limits_of(active[1]["run"]),
                            agent_id=ctx.payload.get("agent_id"),
                            slug=_researcher_slug(ctx, active), tool_use_id=ctx.payload.get("tool_use_id"),
                            tool="fetch", url=parsed.args.url, offset=int(parsed.args.offset or 0))
            if not verdict.allowed:
                ctx.denial_recorded = True  # `check` wrote its `denied` entry
                return output.pre_tool_use("deny", verdict.reason)
            return output.pre_tool_use("allow", "web-research: the researcher's fetch command.")
        if parsed is not None and parsed.subcommand == "fetch":
            why = f"--run must be the run folder {run_dir}"
        return output.pre_tool_use("deny", (
            "Inside a researcher, Bash runs only the page-snapshot command, exactly as the brief shows: "
            f'"{ctx.program}" fetch "<url>" --run "{run_dir}" [--offset N]. '
            f"This command was refused: {why or 'it is not that command'}."))
    if parsed is not None and parsed.subcommand in ("briefs", "claims", "estimate", "gaps", "verify", "status") \
            and same_path(parsed.run_dir, run_dir):
        return output.pre_tool_use("allow", f"web-research: the plugin's {parsed.subcommand} command.")
    return {}


def _start_refusal(ctx: Context, raw_args: str) -> str | None:
    """The invalid-input JSON `start` would print for these arguments, or None when it
    may run: the hook approves only a start that passes start's own checks."""
    import datetime  # lazy: start-up

    from ..inputs import InputError  # lazy: hook start-up
    from ..runfolder import check_start_args  # lazy: hook start-up

    cwd = ctx.payload.get("cwd")
    try:
        check_start_args(raw_args, Path(cwd if isinstance(cwd, str) and cwd else os.getcwd()),
                         datetime.date.today(), ctx.env)
    except InputError as error:
        return json.dumps({"error": formats.ERROR_INVALID_INPUT, "detail": str(error)}, ensure_ascii=False)
    return None


def _pre_checker_agent(ctx: Context) -> dict[str, Any]:
    """A claim-checker is dispatched only with the prompt `claims --prompt` prints now (checker_gate.py)."""
    active = _active(ctx)
    if active is None:
        return {}
    from ..verdicts import prompt_for_run  # lazy: start-up
    from .checker_gate import decide_checker_dispatch  # lazy: start-up

    session, snapshot = active
    rendered, why = prompt_for_run(Path(snapshot["run"]["run_dir"]))  # run files, before the lock
    with session.locked_record() as record:
        if not _same_run(record, snapshot):
            return {}
        decision = decide_checker_dispatch(record["run"], ctx.tool_input, ctx.payload.get("tool_use_id"),
                                           rendered, why, ctx.now, ctx.program)
        if decision.action == "allow":
            session.write(record)
    return output.pre_tool_use(decision.action, decision.reason)


def _pre_agent(ctx: Context) -> dict[str, Any]:
    if ctx.tool_input.get("subagent_type") == CHECKER:
        return _pre_checker_agent(ctx)
    if ctx.tool_input.get("subagent_type") != RESEARCHER:
        return {}
    active = _active(ctx)
    if active is None:
        return {}
    from .budgets import limits_of  # lazy: hook start-up
    from .dispatch import RESERVATION_TTL_SECONDS, decide_dispatch  # lazy: hook start-up

    ttl = float(ctx.env.get(TTL_ENV) or RESERVATION_TTL_SECONDS)
    session, snapshot = active
    briefs = _briefs(snapshot["run"])  # run files are read before the lock is taken
    cap = limits_of(snapshot["run"]).max_dispatches
    with session.locked_record() as record:
        if not _same_run(record, snapshot):
            return {}
        run = record["run"]
        decision = decide_dispatch(run, ctx.tool_input, ctx.payload.get("tool_use_id"), briefs,
                                   ctx.now, ttl, ctx.program, max_dispatches=cap)
        if decision.action == "allow":
            session.write(record)
    return output.pre_tool_use(decision.action, decision.reason, decision.updated_input)


def _attribute(ctx: Context, run: dict[str, Any], briefs: list[Brief],
               transcript: str | None) -> tuple[Brief | None, bool]:
    """(the brief of the subagent in this payload, whether it was learned just now and
    should be remembered in run["agents"]): remembered there, or read from the
    subagent's transcript. Reads files: call it before taking the session lock."""
    agent_id = ctx.payload.get("agent_id")
    known = run.get("agents", {}).get(agent_id) if isinstance(agent_id, str) else None
    if known and known.get("slug"):
        return next((b for b in briefs if b.slug == known["slug"]), None), False
    prompt = first_user_message(transcript) if transcript else None
    if prompt is None:
        return None, False
    brief = match_prompt(prompt, briefs).brief
    return brief, brief is not None and isinstance(agent_id, str)


def _pre_write(ctx: Context) -> dict[str, Any]:
    active = _active(ctx)
    if active is None:
        return {}
    from .seals import write_refusal  # lazy: hook start-up
    from .writescope import orchestrator_write_refusal, write_allowed, write_target  # lazy: hook start-up

    path, ambiguous = write_target(ctx.payload.get("tool_name"), ctx.tool_input)
    named = [v for k, v in ctx.tool_input.items() if isinstance(v, str) and k in ("file_path", "notebook_path")]
    refusal = next(filter(None, (write_refusal(v, ctx.payload.get("cwd"), ctx.env) for v in [path, *named])), None)
    if refusal:
        return output.pre_tool_use("deny", refusal)
    if ctx.in_checker:
        return _pre_checker_write(ctx, active[1]["run"], path, ambiguous)
    if not ctx.in_researcher:
        run_dir = active[1]["run"]["run_dir"]
        refusal = next(filter(None, (orchestrator_write_refusal(v, ctx.payload.get("cwd"), run_dir)
                                     for v in [path, *named])), None)
        return output.pre_tool_use("deny", refusal) if refusal else {}
    if ambiguous:
        return output.pre_tool_use("deny", ambiguous + " A researcher writes only its findings file or scratch.")

    session, snapshot = active
    run = snapshot["run"]
    briefs = _briefs(run)
    transcript = subagent_transcript_path(ctx.payload.get("transcript_path"), ctx.payload.get("agent_id"))
    brief, learned = _attribute(ctx, run, briefs, transcript)
    if learned and brief is not None:
        _learn_agent(session, snapshot, ctx.payload.get("agent_id"), brief.slug, "running")
    if brief is not None:
        candidates = [brief]
    else:  # cannot tell which researcher this is: any brief no other researcher owns
        owned = {a.get("slug") for a in run.get("agents", {}).values()}
        candidates = [b for b in briefs if b.slug not in owned]
    allowed, reason = write_allowed(path, ctx.payload.get("cwd"), run["run_dir"], candidates)
    return output.pre_tool_use("allow" if allowed else "deny", reason)


def _checker_prompt(ctx: Context) -> str | None:
    transcript = ctx.payload.get("agent_transcript_path") or subagent_transcript_path(
        ctx.payload.get("transcript_path"), ctx.payload.get("agent_id"))
    return first_user_message(transcript) if transcript else None


def _pre_checker_write(ctx: Context, run: dict[str, Any], path: str | None, ambiguous: str | None) -> dict[str, Any]:
    """A claim-checker writes its own verdicts file and nothing else."""
    from .checker_gate import checker_write_refusal, find_checker  # lazy: start-up

    if ambiguous:
        return output.pre_tool_use("deny", ambiguous + " A claim-checker writes only its verdicts file.")
    prompt = _checker_prompt(ctx)
    entry = find_checker(run, ctx.payload.get("agent_id"), prompt)
    if entry is not None:
        allowed = [entry["verdicts_path"]]
    elif prompt is None:  # cannot tell which checker this is: any running checker's file
        allowed = [c["verdicts_path"] for c in run.get("checkers", []) if c.get("state") == "running"]
    else:
        allowed = []
    refusal = checker_write_refusal(path, ctx.payload.get("cwd"), allowed)
    if refusal:
        return output.pre_tool_use("deny", refusal)
    return output.pre_tool_use("allow", f"{path} is this claim-checker's verdicts file.")


# --- PostToolUse ----------------------------------------------------------------

def _stdout_json(response: Any) -> dict[str, Any] | None:
    stdout = response.get("stdout") if isinstance(response, dict) else response
    if not isinstance(stdout, str):
        return None
    for candidate in (stdout.strip(), *reversed(stdout.strip().splitlines())):
        if candidate.startswith("{"):
            try:
                value = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    return None


def post_tool_use(ctx: Context) -> dict[str, Any]:
    tool = ctx.payload.get("tool_name")
    if tool == "Bash" and ctx.in_researcher:
        return _post_researcher_bash(ctx)
    if tool in WEB_TOOLS:
        return _post_web_tool(ctx)
    if tool == "Bash" and not ctx.in_researcher:
        return _post_bash(ctx)
    if tool in AGENT_TOOLS and ctx.tool_input.get("subagent_type") == RESEARCHER:
        return _post_agent(ctx)
    if tool in AGENT_TOOLS and ctx.tool_input.get("subagent_type") == CHECKER:
        return _post_checker_agent(ctx)
    return {}


def _post_checker_agent(ctx: Context) -> dict[str, Any]:
    """A foreground claim-checker returned and the orchestrator has not acted since: if its
    SubagentStop could not be attributed, its verdicts file is sealed here (else no one could
    ever seal it, and verify would fail it as unsealed)."""
    active = _active(ctx)
    response = ctx.payload.get("tool_response")
    if active is None or not isinstance(response, dict) or response.get("status") != "completed":
        return {}
    from .checker_gate import prompt_hash  # lazy: start-up

    session, snapshot = active
    wanted = prompt_hash(str(ctx.tool_input.get("prompt") or ""))
    with session.locked_record() as record:
        if not _same_run(record, snapshot):
            return {}
        entry = next((c for c in reversed(record["run"].get("checkers", []))
                      if c.get("prompt_hash") == wanted and c.get("state") == "running"), None)
        if entry is None:
            return {}
        entry["state"] = "returned"
        session.write(record)
    from .seals import seal_verdicts  # lazy: start-up

    seal_verdicts(ctx.env, snapshot["run"]["run_dir"], entry["verdicts_path"], response.get("agentId"))
    return {}


def _post_bash(ctx: Context) -> dict[str, Any]:
    parsed, _why = ctx.parse_command()
    if parsed is None or ctx.session is None:
        return {}
    response = ctx.payload.get("tool_response")
    if parsed.subcommand == "start":
        result = _stdout_json(response)
        if not result or "error" in result or not isinstance(result.get("output_dir"), str):
            return {}
        if not os.path.isabs(result["output_dir"]):
            return {}
        session = ctx.session
        run = new_run(os.path.normpath(result["output_dir"]), result)
        resumed = result.get("resume")
        if isinstance(resumed, dict):  # start --resume: the run goes on in this session
            run["kept"] = [s for s in resumed.get("keep") or [] if isinstance(s, str)]
        with session.locked():
            session.open_run(run)
        if isinstance(resumed, dict):
            from .seals import adopt_unsealed_run  # lazy: start-up

            adopt_unsealed_run(ctx.env, run["run_dir"], run["kept"])
        return {}
    if parsed.subcommand == "briefs":
        active = _active(ctx)
        if active is None or not same_path(parsed.run_dir, active[1]["run"]["run_dir"]):
            return {}
        stdout = response.get("stdout", "") if isinstance(response, dict) else str(response or "")
        session, snapshot = active
        run_dir = snapshot["run"]["run_dir"]
        briefs = load_briefs(run_dir)
        printed = [b for b in briefs if b.brief_hash in stdout]
        shown = _printed_briefs(stdout, run_dir)
        from .budgets import run_limits  # lazy: start-up

        limits = run_limits(run_dir)  # fixed now, from the plan the briefs were rendered from
        with session.locked_record() as record:
            if not _same_run(record, snapshot):
                return {}
            run = record["run"]
            run["briefs"] = [{"slug": b.slug, "brief_path": b.brief_path, "brief_hash": b.brief_hash,
                              "subtopic": shown.get(b.brief_hash, {}).get("subtopic"),
                              "findings_path": shown.get(b.brief_hash, {}).get("findings_path", b.findings_path)}
                             for b in (printed or briefs)]
            run["limits"] = list(limits)
            session.write(record)
        from .seals import seal_briefs  # lazy: hook start-up

        seal_briefs(ctx.env, run["run_dir"], [(b["brief_path"], b["slug"]) for b in run["briefs"]])
    return {}


def _known_slug(ctx: Context, run: dict[str, Any]) -> str | None:
    """The slug of the researcher in this payload, when the record already attributes it."""
    agent = run.get("agents", {}).get(ctx.payload.get("agent_id"))
    return agent.get("slug") if isinstance(agent, dict) else None


def _post_researcher_bash(ctx: Context) -> dict[str, Any]:
    """A researcher's fetch returned: seal the snapshot it wrote (guard/seals.py)."""
    parsed, _why = ctx.parse_command()
    if parsed is None or parsed.subcommand != "fetch":
        return {}
    active = _active(ctx)
    if active is None or not same_path(parsed.run_dir, active[1]["run"]["run_dir"]):
        return {}
    from .seals import after_fetch  # lazy: hook start-up

    response = ctx.payload.get("tool_response")
    stdout = response.get("stdout") if isinstance(response, dict) else response
    run = active[1]["run"]
    after_fetch(ctx.env, run["run_dir"], parsed.args.url, int(parsed.args.offset or 0),
                stdout if isinstance(stdout, str) else "", ctx.payload.get("agent_id"), _known_slug(ctx, run),
                tool_use_id=ctx.payload.get("tool_use_id"))
    return {}


def _post_web_tool(ctx: Context) -> dict[str, Any]:
    """A WebSearch or WebFetch returned during a run: one ledger entry (guard/seals.py)."""
    active = _active(ctx)
    if active is None:
        return {}
    from .seals import after_web_tool  # lazy: hook start-up

    run = active[1]["run"]
    after_web_tool(ctx.env, run["run_dir"], ctx.payload.get("tool_name"), ctx.tool_input,
                   ctx.payload.get("agent_id"), _known_slug(ctx, run), tool_use_id=ctx.payload.get("tool_use_id"))
    return {}


def _printed_briefs(stdout: str, run_dir: str) -> dict[str, dict[str, str]]:
    """brief_hash -> {"subtopic", "findings_path"} from the JSON list `briefs` prints
    (its findings path wins over the guard's own `findings/<slug>.md`; only paths
    inside the run folder are taken)."""
    from ..fsutil import is_within  # lazy: hook start-up

    try:
        items = json.loads(stdout)
    except ValueError:
        return {}
    shown: dict[str, dict[str, str]] = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("brief_hash"), str):
            continue
        entry = {key: item[key] for key in ("subtopic", "findings_path") if isinstance(item.get(key), str)}
        if "findings_path" in entry and not (os.path.isabs(entry["findings_path"])
                                             and is_within(entry["findings_path"], run_dir)):
            del entry["findings_path"]
        shown[item["brief_hash"]] = entry
    return shown


def _subtopic_of(run: dict[str, Any], slug: str) -> str:
    for item in run.get("briefs") or []:
        if item.get("slug") == slug and item.get("subtopic"):
            return str(item["subtopic"])
    return slug


def _post_agent(ctx: Context) -> dict[str, Any]:
    active = _active(ctx)
    if active is None:
        return {}
    from .dispatch import release  # lazy: hook start-up

    response = ctx.payload.get("tool_response")
    response = response if isinstance(response, dict) else {}
    agent_id = response.get("agentId")
    tool_use_id = ctx.payload.get("tool_use_id")
    session, snapshot = active
    returned = None
    if isinstance(agent_id, str) and agent_id not in snapshot["run"].get("agents", {}):
        returned = match_prompt(ctx.tool_input.get("prompt") or "", _briefs(snapshot["run"])).brief
    with session.locked_record() as record:
        if not _same_run(record, snapshot):
            return {}
        run = record["run"]
        if response.get("isAsync") is True or response.get("status") in BACKGROUND_LAUNCH_STATUSES:
            for item in run.get("reservations", []):
                if item.get("tool_use_id") == tool_use_id:
                    item["agent_id"] = agent_id
        else:
            release(run, tool_use_id=tool_use_id)
        if returned is not None and agent_id not in run.setdefault("agents", {}):
            run["agents"][agent_id] = {"slug": returned.slug, "blocks": 0, "state": "returned"}
        session.write(record)
    if response.get("status") == "completed":
        from .seals import seal_unsealed_findings  # lazy: hook start-up

        # A foreground researcher returned and the orchestrator has not acted since: seal
        # its findings file here if its SubagentStop could not (an unattributable stop).
        brief = match_prompt(ctx.tool_input.get("prompt") or "", _briefs(run)).brief
        if brief is not None:
            seal_unsealed_findings(ctx.env, run["run_dir"], brief.findings_path, agent_id, brief.slug)
    return {}


# --- SubagentStop ---------------------------------------------------------------

def _checker_stop(ctx: Context, stray: bool = False) -> dict[str, Any]:
    """A claim-checker stops: its verdicts file must judge exactly its claims (blocked once
    otherwise); when it is let go, the file is sealed."""
    active = _active(ctx)
    if active is None:
        return {}
    from .checker_gate import block_reason, find_checker, verdicts_problems  # lazy: start-up

    session, snapshot = active
    agent_id = ctx.payload.get("agent_id")
    prompt = _checker_prompt(ctx)
    if stray and prompt is None:
        return {}
    entry = find_checker(snapshot["run"], agent_id if not stray else None, prompt)
    if entry is None:
        return {}
    run_dir = snapshot["run"]["run_dir"]
    problems = verdicts_problems(entry["verdicts_path"], run_dir, entry.get("keys", []))
    with session.locked_record() as record:
        if not _same_run(record, snapshot):
            return {}
        current = next((c for c in record["run"].get("checkers", [])
                        if c.get("prompt_hash") == entry.get("prompt_hash")
                        and c.get("verdicts_path") == entry.get("verdicts_path")), None)
        if current is None:
            return {}
        if isinstance(agent_id, str):
            current["agent_id"] = agent_id
        if problems and not current.get("blocks") and not ctx.payload.get("stop_hook_active"):
            current["blocks"] = 1
            session.write(record)
            return output.block(block_reason(entry["verdicts_path"], problems))
        current["state"] = "failed" if problems else "done"
        session.write(record)
    from .seals import seal_verdicts  # lazy: start-up

    seal_verdicts(ctx.env, run_dir, entry["verdicts_path"], agent_id)
    return {}


def subagent_stop(ctx: Context) -> dict[str, Any]:
    if ctx.payload.get("agent_type") == CHECKER:
        return _checker_stop(ctx)
    if ctx.payload.get("agent_type") not in (RESEARCHER, "", None):
        return {}
    active = _active(ctx)
    if active is None:
        return {}
    from .dispatch import release  # lazy: hook start-up
    from .findings_gate import citation_problems, findings_problems, required_fields_text  # lazy: hook start-up

    agent_id = ctx.payload.get("agent_id")
    transcript = ctx.payload.get("agent_transcript_path") or subagent_transcript_path(
        ctx.payload.get("transcript_path"), agent_id)
    session, snapshot = active
    brief, _learned = _attribute(ctx, snapshot["run"], _briefs(snapshot["run"]), transcript)
    if brief is None:
        if ctx.payload.get("agent_type") != RESEARCHER and snapshot["run"].get("checkers"):
            return _checker_stop(ctx, stray=True)  # an unnamed stop may be a claim-checker's
        return {}  # not one of this run's researchers
    # The researcher's own file is read and checked before the lock is taken.
    problems = findings_problems(brief)
    known = snapshot["run"].get("agents", {}).get(agent_id or f"unknown-{brief.slug}", {})
    may_block = not known.get("blocks") and not ctx.payload.get("stop_hook_active")
    quotes = citation_problems(brief) if may_block else []
    fields = required_fields_text() if may_block and (problems or quotes) else ""
    with session.locked_record() as record:
        if not _same_run(record, snapshot):
            return {}
        run = record["run"]
        agent = run.setdefault("agents", {}).setdefault(
            agent_id or f"unknown-{brief.slug}", {"slug": brief.slug, "blocks": 0, "state": "running"})
        if (problems or quotes) and fields and not agent.get("blocks"):
            agent["blocks"] = 1
            session.write(record)
            return output.block(
                "Your findings file is not usable yet:\n" + "\n".join(f"- {p}" for p in problems + quotes)
                + f"\nWrite {brief.findings_path} now with the frontmatter your brief gives ({fields}), "
                "each excerpt copied word for word from the page (the closest passage is shown above), and each "
                "claim you cannot quote removed. If you have nothing usable, write it with status: failed and a "
                "one-line reason. Then reply with the status line.")
        release(run, agent_id=agent_id, slug=brief.slug)
        if problems:
            agent["state"] = "silent-failure"
            subtopic = _subtopic_of(run, brief.slug)
            entry = {"slug": brief.slug, "subtopic": subtopic, "findings_path": brief.findings_path,
                     "brief_path": brief.brief_path,
                     "agent_id": agent_id, "problems": problems, "at": now_iso()}
            run.setdefault("silent_failures", []).append(entry)
            state_file = write_run_state(run["run_dir"], SILENT_FAILURES_FILE, run["silent_failures"])
        else:
            agent["state"] = "done"
        session.write(record)
    from .seals import seal_findings  # lazy: hook start-up

    # Sealed as it is let go (or recorded as a silent failure), outside the record's lock.
    seal_findings(ctx.env, snapshot["run"]["run_dir"], brief.findings_path, agent_id, brief.slug)
    _after_researcher(ctx, run, agent_id, brief.slug)
    if not problems:
        return {}
    return output.notice(
        f'web-research: the researcher for subtopic "{subtopic}" ended without a usable findings file '
        f"({'; '.join(problems)}). It is a silent failure, recorded in {state_file}; the report's "
        "Gaps & Limitations must name it.")


def _after_researcher(ctx: Context, run: dict[str, Any], agent_id: object, slug: str) -> None:
    """A researcher was let go: close its life in the ledger and refresh the run's metrics."""
    from .budgets import limits_of, record  # lazy: start-up
    from .metrics_writer import write_metrics  # lazy: start-up

    try:
        record(ctx.env, run["run_dir"], "agent_stop", agent_id, slug, limits_of(run))
    except Exception:  # bookkeeping only: the findings decision above stands
        from .runner import log_failure  # lazy: start-up

        log_failure("SubagentStop", ctx.env)
    write_metrics(ctx.env, run, ctx.payload, final=False)


# --- Stop -----------------------------------------------------------------------

def stop(ctx: Context) -> dict[str, Any]:
    active = _active(ctx)
    if active is None:
        return {}
    from .stopgate import (block_reason, decide_stop, declares_unverified, release_message, report_written,
                           verifier_failures)  # lazy: hook start-up

    run_dir = active[1]["run"]["run_dir"]
    from .metrics_writer import write_metrics  # lazy: start-up

    write_metrics(ctx.env, active[1]["run"], ctx.payload, final=True)  # before the gate may close the run
    background = ctx.payload.get("background_tasks")
    researching = bool(background) and bool(active[1]["run"].get("reservations"))
    # Verify only once the report exists and no researcher is still working in the background.
    from .seals import seal_source  # lazy: hook start-up

    failures = verifier_failures(run_dir, seal_source(ctx.env, run_dir)) \
        if report_written(run_dir) and not researching else None
    session, snapshot = active
    with session.locked_record() as record:
        if not _same_run(record, snapshot):
            return {}
        run = record["run"]
        if background == []:
            run["reservations"] = []  # nothing runs in the background: no researcher holds a slot
        decision = decide_stop(run.setdefault("stop", {}), failures, bool(ctx.payload.get("stop_hook_active")),
                               declares_unverified(ctx.payload.get("last_assistant_message")))
        if decision.action == "pass":
            session.archive(record, "verified")
            return {}
        if decision.action == "release":
            session.archive(record, "unverified")
            return output.notice(release_message(run_dir, decision.failures))
        session.write(record)
    if decision.action == "block":
        return output.block(block_reason(run_dir, decision.failures, ctx.program),
                            f"web-research: report.md fails {len(decision.failures)} check(s); "
                            "asking the agent to fix them.")
    return {}


# --- SubagentStart --------------------------------------------------------------

# The line a researcher reads its start time from (agents/researcher.md names it).
CLOCK_LABEL = "web-research clock: the current UTC time is "


def subagent_start(ctx: Context) -> dict[str, Any]:
    """Give a researcher of the active run a real clock.

    A model has no clock, yet its findings file needs `started_at`; without
    this it could only guess. The time comes from this machine, at the moment
    the subagent starts.
    """
    active = _active(ctx) if ctx.payload.get("agent_type") == RESEARCHER else None
    if active is None:
        return {}
    try:
        from .budgets import limits_of, record  # lazy: start-up

        run = active[1]["run"]
        record(ctx.env, run["run_dir"], "agent_start", ctx.payload.get("agent_id"), None, limits_of(run))
    except Exception:  # bookkeeping only: the clock line matters more
        from .runner import log_failure  # lazy: start-up

        log_failure("SubagentStart", ctx.env)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ctx.now))
    return output.additional_context("SubagentStart", f"{CLOCK_LABEL}{stamp}")


# --- SessionEnd -----------------------------------------------------------------

def session_end(ctx: Context) -> dict[str, Any]:
    """No subagent outlives its session: free every slot, at SessionEnd and again at
    SessionStart (a crashed session never sent SessionEnd). The run itself stays
    active, so a resumed session carries on with it."""
    active = _active(ctx)
    if active is None:
        return {}
    session = active[0]
    with session.locked_record() as record:
        if record is not None and record["run"].get("reservations"):
            record["run"]["reservations"] = []
            session.write(record)
    return {}


def session_start(ctx: Context) -> dict[str, Any]:
    """A crashed session never sent SessionEnd: free its slots when it comes back."""
    return session_end(ctx)


HANDLERS: dict[str, Callable[[Context], dict[str, Any]]] = {
    "PreToolUse": pre_tool_use,
    "PostToolUse": post_tool_use,
    "SubagentStart": subagent_start,
    "SubagentStop": subagent_stop,
    "Stop": stop,
    "SessionEnd": session_end,
    "SessionStart": session_start,
}


def handle(event: str, payload: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    handler = HANDLERS.get(event)
    if handler is None or payload.get("hook_event_name", event) != event:
        return {}
    return handler(Context(payload, env))
