"""What every hook handler shares: the invocation (`Context`), the active run, and
attributing a subagent to its brief.

One module per hook event sits beside this one (`pre_tool_use`, `post_tool_use`,
`subagent_start`, `subagent_stop`, `stop`, `session_start`, `session_end`), each
holding the handler of that name; `events` picks the one module a hook needs.
Handlers do the I/O (run record, files of the run folder) and delegate every
rule to the pure modules of this package. `{}` means "no decision". Whatever a
handler cannot attribute to this session's active run it leaves alone.
"""
from __future__ import annotations

import json
import os
import re
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from .. import formats
from ..run.brief_prompt import split_agent_prompt
from .briefs_match import Brief, first_user_message, load_briefs, match_prompt, subagent_transcript_path
from .events import TOOL_EVENTS, HookEvent, in_checker, in_researcher
from ..core.paths import cache_dir, data_dir, user_data_dir, valid_session_id
from .registry import Session
from .commandline import CommandRejected, parse_plugin_command

if TYPE_CHECKING:
    from .commandline import PluginCommand

WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
AGENT_TOOLS = ("Agent", "Task")
WEB_TOOLS = ("WebSearch", "WebFetch")
RESEARCHER = formats.RESEARCHER_SUBAGENT_TYPE
CHECKER = formats.CHECKER_SUBAGENT_TYPE
# `Brief:` or `Check:` as a word anywhere in a prompt ("Brief hash:" is not one): the first names the agent.
_DISPATCH_FORM = re.compile(r"(?<![\w-])(" + re.escape(formats.DISPATCH_BRIEF_LABEL[:-1]) + "|"
                            + re.escape(formats.DISPATCH_CHECK_LABEL[:-1]) + r")[\s*_`]*:", re.IGNORECASE)


def dispatch_fields(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    """An `Agent` call's input with the fields the plugin decides: the prompt's form names the
    agent (`Brief: <path>` a researcher, `Check: <dir>` the claim-checker, wherever it stands in
    the prompt, the first one found, and whatever `subagent_type` says or if it says nothing; a
    brief's whole text with its `Brief hash:` line is a researcher's), and a researcher or
    checker runs in the foreground (the client's default is the background). So the
    orchestrator writes only the prompt (formats.dispatch_call); any other call is returned
    unchanged."""
    prompt = tool_input.get("prompt")
    agent = None
    if isinstance(prompt, str):
        form = _DISPATCH_FORM.search(prompt)
        if split_agent_prompt(prompt)[1] is not None:
            agent = RESEARCHER
        elif form is not None:
            agent = RESEARCHER if form.group(1).lower() == formats.DISPATCH_BRIEF_LABEL[:-1].lower() else CHECKER
    agent = agent or tool_input.get("subagent_type")
    if agent not in (RESEARCHER, CHECKER):
        return dict(tool_input)
    return {**tool_input, "subagent_type": agent, "run_in_background": False}


class Context:
    """One hook invocation: its typed event (events.py), environment and clock."""

    def __init__(self, event: HookEvent, env: Mapping[str, str], now: float | None = None):
        self.event = event
        self.env = env
        self.now = time.time() if now is None else now
        self.denial_recorded = False  # a handler already wrote this call's `denied` ledger entry

    @property
    def session(self) -> Session | None:
        sid = self.event.session_id
        return Session(data_dir(self.env), sid) if valid_session_id(sid) else None

    @property
    def plugin_root(self) -> str:
        return self.env.get("CLAUDE_PLUGIN_ROOT") or str(formats.PLUGIN_ROOT)

    @property
    def program(self) -> str:
        """Our command as the prompts spell it, for instructions in reasons."""
        return os.path.join(self.plugin_root, "scripts", "web-research")

    @property
    def tool_input(self) -> Mapping[str, Any]:
        return self.event.tool_input if isinstance(self.event, TOOL_EVENTS) else {}

    @property
    def in_researcher(self) -> bool:
        return in_researcher(self.event)

    @property
    def in_checker(self) -> bool:
        return in_checker(self.event)

    def parse_command(self) -> tuple[PluginCommand | None, str]:
        """(the plugin command in tool_input.command, or None and why not)."""
        try:
            return parse_plugin_command(self.tool_input.get("command") or "", self.plugin_root, self.env), ""
        except CommandRejected as exc:
            return None, str(exc)


def active_run(ctx: Context) -> tuple[Session, dict[str, Any]] | None:
    session = ctx.session
    if session is None or not session.has_active_run():
        return None
    record = session.read()
    return (session, record) if record is not None else None


def same_run(record: dict[str, Any] | None, snapshot: dict[str, Any]) -> bool:
    """Is `record` (read under the lock) still the run `snapshot` (read before it) was?
    Run files are read and checked between the two reads, never under the lock."""
    return record is not None and record["run"].get("run_dir") == snapshot["run"].get("run_dir") \
        and record["run"].get("started_at") == snapshot["run"].get("started_at")


@contextmanager
def locked_run(session: Session, snapshot: dict[str, Any]) -> Iterator[dict[str, Any] | None]:
    """The one read-modify-write of the run record: under the session lock, the run
    (`record["run"]`) if the record is still the run `snapshot` was, else None. The
    record is written back when the block leaves it changed, and not when it raises."""
    with session.locked_record() as record:
        if record is None or not same_run(record, snapshot):
            yield None
            return
        before = json.dumps(record, sort_keys=True)
        yield record["run"]
        if json.dumps(record, sort_keys=True) != before:
            session.write(record)


def learn_agent(session: Session, snapshot: dict[str, Any], agent_id: object, slug: str, state: str) -> None:
    """Remember which brief an agent works on (a short read-modify-write under the lock)."""
    if not isinstance(agent_id, str):
        return
    with locked_run(session, snapshot) as run:
        if run is not None:
            bind_agent(run, agent_id, slug, state)


def bind_agent(run: dict[str, Any], agent_id: str, slug: str, state: str) -> dict[str, Any]:
    """Record (under the lock) that `agent_id` works on the brief `slug`: its entry in
    run["agents"] (kept when it exists), and the one dispatch of that brief no agent holds yet.
    Returns the agent's entry."""
    agent = run.setdefault("agents", {}).setdefault(agent_id, {"slug": slug, "blocks": 0, "state": state})
    unknown = run.get("unattributed")
    if isinstance(unknown, list) and agent_id in unknown:
        unknown.remove(agent_id)
    if not any(r.get("agent_id") == agent_id for r in run.get("reservations", [])):
        held = next((r for r in run.get("reservations", []) if r.get("slug") == slug and not r.get("agent_id")), None)
        if held is not None:
            held["agent_id"] = agent_id
    return agent


def note_started(run: dict[str, Any], agent_id: str) -> str | None:
    """SubagentStart of a researcher (under the lock): note it as started and not yet known,
    then attribute it by elimination when that is certain (see `by_elimination`). Returns
    the slug it was bound to, or None."""
    if agent_id in run.get("agents", {}):
        return None
    unknown = run.setdefault("unattributed", [])
    if agent_id not in unknown:
        unknown.append(agent_id)
    slug = by_elimination(run, agent_id)
    if slug is not None:
        bind_agent(run, agent_id, slug, "running")
    return slug


def by_elimination(run: dict[str, Any], agent_id: object) -> str | None:
    """The brief of a researcher that cannot be read from its transcript (the client may not
    have written it yet when a short-lived subagent stops): certain only when this agent is
    the one started researcher not yet attributed and exactly one dispatch has no agent yet.
    Every researcher starts from a dispatch the PreToolUse hook reserved, so that dispatch
    is its own."""
    unknown = run.get("unattributed")
    if not isinstance(agent_id, str) or not isinstance(unknown, list) or unknown != [agent_id]:
        return None
    open_slugs = [r.get("slug") for r in run.get("reservations", []) if isinstance(r, dict) and not r.get("agent_id")]
    return open_slugs[0] if len(open_slugs) == 1 and isinstance(open_slugs[0], str) else None


def briefs_of(run: dict[str, Any]) -> list[Brief]:
    """The run's briefs: those `briefs` reported when it last succeeded (with the findings
    path it printed), or else all in the folder."""
    recorded = run.get("briefs")
    if not (isinstance(recorded, list) and recorded):
        return load_briefs(run["run_dir"])
    paths = {b.get("brief_hash"): b.get("findings_path") for b in recorded if isinstance(b, dict)}
    return [brief._replace(findings_path=paths.get(brief.brief_hash) or brief.findings_path)
            for brief in load_briefs(run["run_dir"], paths)]


def attribute(ctx: Context, run: dict[str, Any], briefs: list[Brief],
               transcript: str | None) -> tuple[Brief | None, bool]:
    """(the brief of the subagent in this payload, whether it was learned just now and
    should be remembered in run["agents"]): remembered there, read from the subagent's
    transcript, or else found by elimination. Reads files: call it before taking the
    session lock."""
    agent_id = ctx.event.agent_id
    known = run.get("agents", {}).get(agent_id) if isinstance(agent_id, str) else None
    if known and known.get("slug"):
        return next((b for b in briefs if b.slug == known["slug"]), None), False
    prompt = first_user_message(transcript) if transcript else None
    brief = match_prompt(prompt, briefs).brief if prompt is not None else None
    if brief is None:
        slug = by_elimination(run, agent_id)
        brief = next((b for b in briefs if b.slug == slug), None) if slug else None
    return brief, brief is not None and isinstance(agent_id, str)


def known_slug(ctx: Context, run: dict[str, Any]) -> str | None:
    """The slug of the researcher in this payload, when the record already attributes it."""
    agent = run.get("agents", {}).get(ctx.event.agent_id)
    return agent.get("slug") if isinstance(agent, dict) else None


def checker_prompt(ctx: Context) -> str | None:
    transcript = getattr(ctx.event, "agent_transcript_path", None) or subagent_transcript_path(
        ctx.event.transcript_path, ctx.event.agent_id)
    return first_user_message(transcript) if transcript else None


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
