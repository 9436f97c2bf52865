"""The run's state, read once per hook: the session's run record as typed values, its file, and
the hook invocation (`Context`) that carries both to the handlers.

One JSON file per session, `<data>/sessions/<session_id>.json` (its path is core/paths.py's),
exists exactly while that session has an active run. The hook launcher only tests that the file
exists to decide whether to start Python at all, so a session that is not researching never
pays for more than a shell. Closed runs (verified, replaced by a second `start`, given up) move
to `<session_id>.history.json`; an abandoned run leaves a closed marker in the record until the
Stop of its turn (rules/after_abandon.py).

JSON enters the hooks' state here (`Run.from_json`, in `Session.read`) and leaves it here
(`Run.to_json`, in `Session.write`): every other module sees the typed record. The record is
written only by these hooks, yet it is still read defensively: a field of the wrong type reads
as its default, a file that is not a record reads as no run.

Every read-modify-write happens under an exclusive lock (filelock) on `<session_id>.lock`:
hooks for concurrent tool calls run as concurrent processes, and the researcher cap is only real
if they cannot both read "2 running" and both reserve the third slot.

The record's classes are dataclasses with slots (the hooks load dataclasses anyway, through
metrics/usage.py) and NamedTuples for the parts no hook changes.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple

from .. import formats
from ..core.clock import utc_stamp
from ..core.fsutil import atomic_write_text
from ..core.locks import exclusive_lock
from ..core.paths import data_dir, session_record, sessions_dir, valid_session_id
from ..subcommands import OPENS_A_RUN
from .commandline import CommandRejected, PluginCommand, mentioned_subcommand, parse_plugin_command
from .events import AGENT_TOOLS, CHECKER, TOOL_EVENTS, WEB_TOOLS, WRITE_TOOLS, HookEvent, ToolInput, dispatch_fields
from .events import Stop as StopEvent
from .rules.budgets import RunLimits

RECORD_VERSION = 1
# Files a hook writes inside the run folder for the orchestrator and the verifier.
RUN_STATE_DIR = formats.RUN_STATE_DIR
SILENT_FAILURES_FILE = "silent-failures.json"
HISTORY_LIMIT = 50
LOCK_TIMEOUT_SECONDS = 15.0
CLOSED_KEY = "closed"  # a record with this key and no "run": a run abandoned this turn


# --- the typed record ------------------------------------------------------------------

class RecordError(ValueError):
    """The session's record is not what these hooks write; the message names the field. The
    hook fails closed on it (runner.py): a record nobody can read must not open the room."""


def _get(data: Mapping[str, Any], key: str, kinds: type | tuple[type, ...], default: Any, where: str) -> Any:
    """`data[key]` when it is one of `kinds` (a bool is no number), `default` when absent or null."""
    value = data.get(key)
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if value is None:
        return default
    if isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool)):
        return value
    raise RecordError(f"{where}.{key} is {type(value).__name__} {str(value)[:40]!r}, not "
                      f"{' or '.join(kind.__name__ for kind in kinds)}")


def _str(data: Mapping[str, Any], key: str, where: str) -> str | None:
    return _get(data, key, str, None, where)


def _int(data: Mapping[str, Any], key: str, where: str) -> int:
    return _get(data, key, int, 0, where)


def _number(data: Mapping[str, Any], key: str, where: str) -> float:
    return float(_get(data, key, (int, float), 0.0, where))


def _strings(data: Mapping[str, Any], key: str, where: str) -> list[str]:
    items = _get(data, key, list, [], where)
    if not all(isinstance(item, str) for item in items):
        raise RecordError(f"{where}.{key} holds an item that is not a string")
    return list(items)


def _objects(data: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
    items = _get(data, key, list, [], where)
    if not all(isinstance(item, dict) for item in items):
        raise RecordError(f"{where}.{key} holds an item that is not an object")
    return items


@dataclass(slots=True)
class Reservation:
    """A researcher slot, reserved by an allowed dispatch (rules/dispatch.py)."""
    tool_use_id: str | None
    slug: str
    since: float
    agent_id: str | None = None

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Reservation:
        return cls(_str(data, "tool_use_id", where), _str(data, "slug", where) or "", _number(data, "since", where),
                   _str(data, "agent_id", where))


# A researcher's states once its reply was settled (guard/subagent_stop.settle_researcher): its
# findings file is written and sealed, and no later stop of that agent changes it.
SETTLED = ("done", "silent-failure")


@dataclass(slots=True)
class Agent:
    """A researcher the run knows: its brief, whether it was sent back once, where it stands."""
    slug: str
    blocks: int = 0
    state: str = "running"

    @property
    def settled(self) -> bool:
        return self.state in SETTLED

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Agent:
        return cls(_str(data, "slug", where) or "", _int(data, "blocks", where), _str(data, "state", where) or "")


@dataclass(slots=True)
class Checker:
    """A claim-checker dispatch (rules/checker_gate.py): the prompt it was given, the claim keys
    in prompt order, the verdicts file the plugin writes from its answer."""
    tool_use_id: str | None
    verdicts_path: str
    prompt_hash: str
    keys: list[str]
    round: str | None
    state: str = "running"
    blocks: int = 0
    agent_id: str | None = None
    since: float = 0.0

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Checker:
        return cls(_str(data, "tool_use_id", where), _str(data, "verdicts_path", where) or "",
                   _str(data, "prompt_hash", where) or "", _strings(data, "keys", where), _str(data, "round", where),
                   _str(data, "state", where) or "", _int(data, "blocks", where), _str(data, "agent_id", where),
                   _number(data, "since", where))


@dataclass(slots=True)
class StopState:
    """The Stop gate's memory (rules/stop_gate.py): blocks so far, the failures last shown, whether
    the agent was asked once to return finish's object."""
    blocks: int = 0
    last_failures: list[str] = field(default_factory=list)
    return_asked: bool = False

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"blocks": self.blocks, "last_failures": list(self.last_failures)}
        if self.return_asked:
            data["return_asked"] = True
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> StopState:
        return cls(_int(data, "blocks", where), _strings(data, "last_failures", where),
                   _get(data, "return_asked", bool, False, where))


class RenderedBrief(NamedTuple):
    """A brief `briefs` reported when it last succeeded, with the findings path it printed."""
    slug: str
    brief_path: str
    brief_hash: str
    subtopic: str | None
    findings_path: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> RenderedBrief:
        return cls(_str(data, "slug", where) or "", _str(data, "brief_path", where) or "",
                   _str(data, "brief_hash", where) or "", _str(data, "subtopic", where),
                   _str(data, "findings_path", where) or "")


class SilentFailure(NamedTuple):
    """A researcher that ended without usable findings (also written to the run folder's
    silent-failures.json, which finish and the report's Gaps read)."""
    slug: str
    subtopic: str
    findings_path: str
    brief_path: str
    agent_id: str | None
    problems: list[str]
    at: str

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> SilentFailure:
        return cls(_str(data, "slug", where) or "", _str(data, "subtopic", where) or "",
                   _str(data, "findings_path", where) or "", _str(data, "brief_path", where) or "",
                   _str(data, "agent_id", where), _strings(data, "problems", where), _str(data, "at", where) or "")


def _limits(data: Mapping[str, Any], where: str) -> RunLimits | None:
    """The limits `briefs` fixed: searches and page reads (positive) and the run-wide dispatch cap
    (None: the plan could not be read)."""
    value = _get(data, "limits", list, None, where)
    if value is None:
        return None
    if len(value) == 3 and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in value[:2]) \
            and (value[2] is None or (isinstance(value[2], int) and not isinstance(value[2], bool))):
        return RunLimits(*value)
    raise RecordError(f"{where}.limits is {str(value)[:60]}, not [searches, page reads, dispatch cap or null]")


@dataclass(slots=True)
class Run:
    """The active run of a session, as the hooks keep it."""
    run_dir: str
    started_at: str | None = None
    auto_proceed: bool = False
    briefs: list[RenderedBrief] | None = None  # None until `briefs` succeeds (briefs_match.briefs_of)
    limits: RunLimits | None = None  # fixed when `briefs` rendered the plan (budgets.limits_of)
    reservations: list[Reservation] = field(default_factory=list)
    dispatches: dict[str, int] = field(default_factory=dict)  # slug -> researchers dispatched
    started: dict[str, float] = field(default_factory=dict)  # slug -> when its last researcher was dispatched
    agents: dict[str, Agent] = field(default_factory=dict)  # agent_id -> its brief and state
    unattributed: list[str] = field(default_factory=list)  # started, brief not yet known
    checkers: list[Checker] = field(default_factory=list)
    silent_failures: list[SilentFailure] = field(default_factory=list)
    stop: StopState = field(default_factory=StopState)
    kept: list[str] | None = None  # start --resume: the findings files kept (final); None for a new run
    abandon_reason: str | None = None
    for_person: bool = False  # a person ran the skill (not a calling skill): the last message is a summary
    next_told: int = 0  # researchers dispatched when the last wave's next step was told (post_agent)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "run") -> Run:
        """The run of a record's `run` object (`RecordError` for one these hooks did not write)."""
        run_dir = _str(data, "run_dir", where)
        if not run_dir:
            raise RecordError(f"{where}.run_dir is missing: the record names no run folder")
        briefs = _get(data, "briefs", list, None, where)
        agents = _get(data, "agents", dict, {}, where)
        dispatches = _get(data, "dispatches", dict, {}, where)
        started = _get(data, "started", dict, {}, where)
        kept = _get(data, "kept", list, None, where)
        return cls(
            run_dir, _str(data, "started_at", where), _get(data, "auto_proceed", bool, False, where),
            [RenderedBrief.from_json(b, f"{where}.briefs") for b in _objects(data, "briefs", where)]
            if briefs is not None else None,
            _limits(data, where),
            [Reservation.from_json(r, f"{where}.reservations") for r in _objects(data, "reservations", where)],
            {slug: _int(dispatches, slug, f"{where}.dispatches") for slug in dispatches},
            {slug: _number(started, slug, f"{where}.started") for slug in started},
            {agent_id: Agent.from_json(_get(agents, agent_id, dict, {}, f"{where}.agents"), f"{where}.agents")
             for agent_id in agents},
            _strings(data, "unattributed", where),
            [Checker.from_json(c, f"{where}.checkers") for c in _objects(data, "checkers", where)],
            [SilentFailure.from_json(f, f"{where}.silent_failures") for f in _objects(data, "silent_failures", where)],
            StopState.from_json(_get(data, "stop", dict, {}, where), f"{where}.stop"),
            _strings(data, "kept", where) if kept is not None else None,
            _str(data, "abandon_reason", where), _get(data, "for_person", bool, False, where),
            _get(data, "next_told", int, 0, where))

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "run_dir": self.run_dir, "started_at": self.started_at, "auto_proceed": self.auto_proceed,
            "briefs": [b._asdict() for b in self.briefs] if self.briefs is not None else None,
            "reservations": [r.to_json() for r in self.reservations], "dispatches": dict(self.dispatches),
            "agents": {k: a.to_json() for k, a in self.agents.items()},
            "silent_failures": [s._asdict() for s in self.silent_failures], "stop": self.stop.to_json()}
        optional = {"limits": list(self.limits) if self.limits is not None else None,
                    "started": dict(self.started) or None, "unattributed": self.unattributed or None,
                    "checkers": [c.to_json() for c in self.checkers] or None, "kept": self.kept,
                    "abandon_reason": self.abandon_reason, "for_person": self.for_person or None,
                    "next_told": self.next_told or None}
        data.update({k: v for k, v in optional.items() if v is not None})
        return data

    def same_run(self, other: Run | None) -> bool:
        """Is `other` (read under the lock) still this run (read before it)? Run files are read
        and checked between the two reads, never under the lock."""
        return other is not None and other.run_dir == self.run_dir and other.started_at == self.started_at

    # --- the run's researchers (called under the lock) ------------------------------

    def bind_agent(self, agent_id: str, slug: str, state: str) -> Agent:
        """Record that `agent_id` works on the brief `slug`: its entry (kept when it exists),
        and the one dispatch of that brief no agent holds yet. Returns the agent's entry."""
        agent = self.agents.setdefault(agent_id, Agent(slug, 0, state))
        if agent_id in self.unattributed:
            self.unattributed.remove(agent_id)
        if not any(r.agent_id == agent_id for r in self.reservations):
            held = next((r for r in self.reservations if r.slug == slug and not r.agent_id), None)
            if held is not None:
                held.agent_id = agent_id
        return agent

    def note_started(self, agent_id: str) -> str | None:
        """SubagentStart of a researcher: note it as started and not yet known, then attribute it
        by elimination when that is certain (`by_elimination`). Returns the slug it was bound
        to, or None."""
        if agent_id in self.agents:
            return None
        if agent_id not in self.unattributed:
            self.unattributed.append(agent_id)
        slug = self.by_elimination(agent_id)
        if slug is not None:
            self.bind_agent(agent_id, slug, "running")
        return slug

    def by_elimination(self, agent_id: object) -> str | None:
        """The brief of a researcher that cannot be read from its transcript (the client may not
        have written it yet when a short-lived subagent stops): certain only when this agent is
        the one started researcher not yet attributed and exactly one dispatch has no agent yet.
        Every researcher starts from a dispatch the PreToolUse hook reserved, so that dispatch
        is its own."""
        if not isinstance(agent_id, str) or self.unattributed != [agent_id]:
            return None
        open_slugs = [r.slug for r in self.reservations if not r.agent_id]
        return open_slugs[0] if len(open_slugs) == 1 and open_slugs[0] else None

    def slug_of(self, agent_id: object) -> str | None:
        """The slug of a researcher the record already attributes."""
        agent = self.agents.get(agent_id) if isinstance(agent_id, str) else None
        return agent.slug if agent is not None and agent.slug else None

    def subtopic_of(self, slug: str) -> str | None:
        """The subtopic's name as `briefs` listed it."""
        return next((b.subtopic for b in self.briefs or () if b.slug == slug and b.subtopic), None)


def new_run(run_dir: str, start_output: Mapping[str, Any]) -> Run:
    """The record of a run that `web-research start` just opened (`start_output`: what it printed)."""
    return Run(run_dir, utc_stamp(), bool(start_output.get("auto_proceed")),
               for_person=start_output.get("caller") == "person")


class ClosedMarker(NamedTuple):
    """What an abandoned run leaves in the record until the Stop of its turn."""
    outcome: str | None
    run_dir: str | None
    at: str | None


# --- the record's file -----------------------------------------------------------------

class Session:
    """The files of one session's record."""

    def __init__(self, data: Path, session_id: str):
        self.record_path = session_record(data, session_id)  # ValueError for an id that is no file name
        self.session_id = session_id
        self.dir = sessions_dir(data)
        self.history_path = self.dir / f"{session_id}.history.json"
        self.lock_path = self.dir / f"{session_id}.lock"

    def has_active_run(self) -> bool:
        return self.record_path.is_file()

    @contextlib.contextmanager
    def locked(self, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[Session]:
        """Hold the session's exclusive lock. Waits for other hooks to release it, but
        not forever: a stuck holder makes this hook fail (open) instead of hanging."""
        self.dir.mkdir(parents=True, exist_ok=True)
        with exclusive_lock(self.lock_path, timeout):
            yield self

    @contextlib.contextmanager
    def locked_record(self) -> Iterator[Run | None]:
        """The active run read under the session lock (None when there is none): every
        read-modify-write of a record goes through here, so concurrent hooks (three Agent
        calls in one message) never lose each other's changes."""
        with self.locked():
            yield self.read()

    def _load(self) -> object:
        try:
            return json.loads(self.record_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # absent, unreadable or corrupt (kept for diagnosis)
            return None

    def read(self) -> Run | None:
        """The active run, or None (no record, a closed marker, a file that is not JSON, kept for
        diagnosis). A record whose run these hooks did not write raises `RecordError`: the
        hook then fails closed, naming the field."""
        data = self._load()
        run = data.get("run") if isinstance(data, dict) else None
        if not isinstance(run, dict):
            return None
        try:
            return Run.from_json(run)
        except RecordError as exc:
            raise RecordError(f"{self.record_path}: {exc}") from None

    def write(self, run: Run) -> None:
        self._write({"version": RECORD_VERSION, "session_id": self.session_id, "run": run.to_json()})

    def _write(self, record: dict[str, object]) -> None:
        record["updated_at"] = utc_stamp()
        atomic_write_text(self.record_path, json.dumps(record, indent=1, sort_keys=True) + "\n")

    def history(self) -> list[dict[str, object]]:
        """The closed runs, as written (JSON: nothing in the hooks reads them back)."""
        try:
            data = json.loads(self.history_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return data if isinstance(data, list) else []

    def archive(self, run: Run, outcome: str, closed: bool = False) -> None:
        """Move the active run to the history list and remove the active record. `closed`: put
        a closed marker in its place instead (`closed_marker`), in one atomic write, so that
        no hook ever sees the session free in between."""
        entry = {**run.to_json(), "outcome": outcome, "closed_at": utc_stamp()}
        history = (self.history() + [entry])[-HISTORY_LIMIT:]
        atomic_write_text(self.history_path, json.dumps(history, indent=1, sort_keys=True) + "\n")
        if closed:
            marker = {"outcome": outcome, "run_dir": run.run_dir, "at": entry["closed_at"]}
            self._write({"version": RECORD_VERSION, "session_id": self.session_id, CLOSED_KEY: marker})
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.record_path)

    def closed_marker(self) -> ClosedMarker | None:
        """The marker an abandoned run leaves until the Stop of its turn (`archive(closed=True)`),
        or None. The record file stays, so the hooks keep running for the session: no run is
        active (`read` is None), yet the room stays shut (guard/rules/after_abandon.py)."""
        data = self._load()
        marker = data.get(CLOSED_KEY) if isinstance(data, dict) and not isinstance(data.get("run"), dict) else None
        if not isinstance(marker, dict):
            return None
        try:
            return ClosedMarker(_str(marker, "outcome", CLOSED_KEY), _str(marker, "run_dir", CLOSED_KEY),
                                _str(marker, "at", CLOSED_KEY))
        except RecordError as exc:
            raise RecordError(f"{self.record_path}: {exc}") from None

    def free(self) -> bool:
        """Remove the closed marker (the turn it was left in ended); True when there was one.
        An active run's record is never touched here."""
        if not self.record_path.is_file():
            return False  # the common case, decided without taking (or creating) the lock
        with self.locked():
            if self.closed_marker() is None:
                return False
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.record_path)
            return True

    def open_run(self, run: Run) -> Run | None:
        """Make `run` the active run (call under the lock). A run already active in this
        session is archived as replaced and returned."""
        previous = self.read()
        if previous is not None:
            self.archive(previous, "replaced")
        self.write(run)
        return previous


def write_run_state(run_dir: str | Path, name: str, data: Any) -> Path:
    """Write `<run>/.web-research/<name>` atomically (files the orchestrator and verifier read)."""
    path = Path(run_dir) / RUN_STATE_DIR / name
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


# --- one hook invocation ---------------------------------------------------------------

def report_written(run_dir: str | Path) -> bool:
    """Whether anything stands at report.md: a FIFO, a device or a symlink leading
    anywhere counts too, so that the verifier (which refuses them as failing
    checks) runs rather than the gate waiting as if no report existed yet."""
    return os.path.lexists(Path(run_dir) / formats.REPORT_FILE)


def waits(event: StopEvent, run: Run | None) -> bool:
    """Does the Stop gate wait, verifying nothing? Until report.md stands, and while researchers
    still work in the background (the client lists background tasks and the run holds slots)."""
    return run is not None and (not report_written(run.run_dir)
                                or (bool(event.background_tasks) and bool(run.reservations)))


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



_UNREAD: Any = object()


class Context:
    """One hook invocation: its typed event (events.py), environment and clock, and the
    session's run read once (`run`: the snapshot every rule of this hook judges)."""

    def __init__(self, event: HookEvent, env: Mapping[str, str], now: float | None = None):
        self.event = event
        self.env = env
        self.now = time.time() if now is None else now
        self.denial_recorded = False  # a handler already wrote this call's `denied` ledger entry
        self._run: Run | None = _UNREAD
        self._command: tuple[PluginCommand | None, str] | None = None

    @property
    def session(self) -> Session | None:
        sid = self.event.session_id
        return Session(data_dir(self.env), sid) if valid_session_id(sid) else None

    @property
    def run(self) -> Run | None:
        """The session's active run, read on first use and kept for the rest of the hook."""
        if self._run is _UNREAD:
            session = self.session
            self._run = session.read() if session is not None else None
        return self._run

    @property
    def plugin_root(self) -> str:
        return self.env.get("CLAUDE_PLUGIN_ROOT") or str(formats.PLUGIN_ROOT)

    @property
    def program(self) -> str:
        """Our command as the prompts spell it, for instructions in reasons."""
        return os.path.join(self.plugin_root, "scripts", "web-research")

    @property
    def tool_input(self) -> ToolInput:
        return self.event.tool_input if isinstance(self.event, TOOL_EVENTS) else {}

    @property
    def in_researcher(self) -> bool:
        return self.event.agent_type == formats.RESEARCHER_SUBAGENT_TYPE

    @property
    def in_checker(self) -> bool:
        return self.event.agent_type == formats.CHECKER_SUBAGENT_TYPE

    @property
    def command(self) -> tuple[PluginCommand | None, str]:
        """(the plugin command in tool_input.command, or None and why not), parsed once."""
        if self._command is None:
            try:
                self._command = parse_plugin_command(self.tool_input.get("command") or "", self.plugin_root,
                                                     self.env), ""
            except CommandRejected as exc:
                self._command = None, str(exc)
        return self._command

    @property
    def kind(self) -> str | None:
        """What kind of call this is, for the entry's choice of handler (adapter.handler_name):
        "checker" (an Agent or Task call whose prompt's form names the claim-checker), "agent"
        (any other), "web" (a WebSearch or WebFetch, or a researcher's Bash: its fetch), "plan" or
        "report" (a write whose path resolves to the open run's plan.md or report.md), "start" (a
        Bash call, not a researcher's, of our `start`, the one command that opens a run: parsed
        strictly, or once it ran in any spelling the CLI accepts), "briefs" (of our `briefs`),
        "idle" (a Stop or SubagentStop with no run open), "wait" (a Stop the gate waits at,
        `waits`), or None."""
        if not isinstance(self.event, TOOL_EVENTS):
            if self.event.name in ("Stop", "SubagentStop") and self.run is None:
                return "idle"
            return "wait" if isinstance(self.event, StopEvent) and waits(self.event, self.run) else None
        if self.event.tool in AGENT_TOOLS:
            return "checker" if dispatch_fields(self.tool_input).get("subagent_type") == CHECKER else "agent"
        if self.event.tool in WRITE_TOOLS:
            return self._names_run_file()
        if self.event.tool in WEB_TOOLS or (self.event.tool == "Bash" and self.in_researcher):
            return "web"
        if self.event.tool != "Bash":
            return None
        parsed, _why = self.command
        if parsed is not None:
            return parsed.subcommand if parsed.subcommand in (OPENS_A_RUN, "briefs") else None
        mentioned = mentioned_subcommand(self.tool_input.get("command"))
        return "start" if self.event.name == "PostToolUse" and mentioned == OPENS_A_RUN else None

    def _names_run_file(self) -> str | None:
        """"plan" or "report": the write names the open run's plan.md or report.md."""
        run = self.run
        if run is None:
            return None
        named = [resolve_write(value, self.event.cwd) for key, value in self.tool_input.items()
                 if key in ("file_path", "notebook_path")]
        for kind, name in (("plan", formats.PLAN_FILE), ("report", formats.REPORT_FILE)):
            if os.path.realpath(os.path.join(run.run_dir, name)) in named:
                return kind
        return None

    @contextlib.contextmanager
    def locked_run(self) -> Iterator[Run | None]:
        """The one read-modify-write of the run: under the session lock, the run as it is now
        if it is still the run this hook read (`run`), else None. It is written back when the
        block leaves it changed, and not when it raises."""
        session, snapshot = self.session, self.run
        if session is None or snapshot is None:
            yield None
            return
        with session.locked_record() as current:
            if current is None or not snapshot.same_run(current):
                yield None
                return
            before = current.to_json()
            yield current
            if current.to_json() != before:
                session.write(current)

    def learn_agent(self, agent_id: object, slug: str, state: str) -> None:
        """Remember which brief an agent works on (a short read-modify-write under the lock)."""
        if not isinstance(agent_id, str):
            return
        with self.locked_run() as run:
            if run is not None:
                run.bind_agent(agent_id, slug, state)
