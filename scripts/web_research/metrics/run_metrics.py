"""Measured run metrics: what each agent of a run really spent.

Searches, page reads and refusals come from the run ledger (usage.py), which
only hooks write; tokens, model calls, tool calls and wall-clock time come
from the client's transcripts (one JSON line per record; an assistant record
carries the API's `message.usage`; a reply split into several content blocks
is several records with one `message.id`, counted once). Nothing is taken from
a model's own account of what it did.

The hooks assemble `<run>/metrics.json` at SubagentStop and Stop (and, at Stop,
a copy in `<data>/metrics/` that `web-research estimate` reads). Reading is
bounded: at most MAX_TRANSCRIPT_BYTES per transcript, MAX_OTHER_AGENTS other
subagent transcripts, and a wall-clock deadline after which the rest is
marked `partial` instead of read.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from ..core.clock import utc_stamp
from ..formats import METRICS_FILE
from ..core.fsutil import newest_regular_files, read_bounded, RunFileError, read_run_file
from typing import Any, Iterable, Mapping, NamedTuple, Sequence, TypedDict
from datetime import datetime
from .usage import AgentUsage


MAX_TRANSCRIPT_BYTES = 32 * 1024 * 1024
MAX_OTHER_AGENTS = 50
READ_SECONDS = 5.0  # total time a hook spends reading transcripts
VERSION = 1


def parse_time(value: object) -> float | None:
    """Seconds since the epoch of an ISO-8601 UTC stamp (`...Z`), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class TranscriptUsage(NamedTuple):
    """What one transcript records (records stamped before `since` left out)."""

    input_tokens: int = 0  # input + cache reads + cache writes
    output_tokens: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    first_at: float | None = None
    last_at: float | None = None
    partial: bool = False  # cut at the size bound or the deadline, or unreadable
    models: dict | None = None  # model id -> its four token counts (pricing.py prices them)

    @property
    def wall_seconds(self) -> float:
        if self.first_at is None or self.last_at is None:
            return 0.0
        return round(max(0.0, self.last_at - self.first_at), 3)


def _int(value: object) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def transcript_usage(path: str | Path | None, since: float | None = None,
                     max_bytes: int = MAX_TRANSCRIPT_BYTES, deadline: float | None = None) -> TranscriptUsage:
    """Fold one transcript's records: usage per distinct message id, tool_use blocks by id,
    first and last record times."""
    read = read_bounded(path, max_bytes) if path else None
    if read is None:
        return TranscriptUsage(partial=bool(path))
    raw, partial = read
    first_at: float | None = None
    last_at: float | None = None
    usages: dict[str, Mapping[str, Any]] = {}
    models: dict[str, str] = {}
    tools: set[str] = set()
    for number, line in enumerate(raw.split(b"\n")):
        if deadline is not None and number % 256 == 0 and time.monotonic() > deadline:
            partial = True
            break
        if b'"timestamp"' not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        stamp = parse_time(record.get("timestamp"))
        if stamp is None or (since is not None and stamp < since):
            continue
        first_at = stamp if first_at is None else min(first_at, stamp)
        last_at = stamp if last_at is None else max(last_at, stamp)
        message = record.get("message")
        if record.get("type") != "assistant" or not isinstance(message, dict):
            continue
        key = message.get("id") if isinstance(message.get("id"), str) else f"#{number}"
        if isinstance(message.get("usage"), dict):
            usages[key] = message["usage"]
            if isinstance(message.get("model"), str):
                models[key] = message["model"][:100]
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                tools.add(str(block.get("id") or f"#{number}:{len(tools)}"))
    input_tokens = sum(_int(usage.get("input_tokens")) + _int(usage.get("cache_read_input_tokens"))
                       + _int(usage.get("cache_creation_input_tokens")) for usage in usages.values())
    output_tokens = sum(_int(usage.get("output_tokens")) for usage in usages.values())
    return TranscriptUsage(input_tokens, output_tokens, len(usages), len(tools), first_at, last_at, partial,
                           _by_model(usages, models))


_SPLIT = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")


def _by_model(usages: Mapping[str, Mapping[str, Any]], models: Mapping[str, str]) -> dict:
    """Each model's input, cache-read, cache-write and output tokens: what a price applies to."""
    out: dict[str, dict[str, int]] = {}
    for key, usage in usages.items():
        counts = out.setdefault(models.get(key) or "unknown", dict.fromkeys(_SPLIT, 0))
        for field in _SPLIT:
            counts[field] += _int(usage.get(field))
    return out


class ResearcherSpend(TypedDict):
    """What schemas/run-metrics.schema.json requires of a researcher's entry: all that
    `estimate` reads of the metrics of earlier runs (run/estimate.py)."""

    searches: int
    page_reads: int
    input_tokens: int
    output_tokens: int
    wall_seconds: float


class Measured(TypedDict):
    """What an agent's transcript tells (`transcript_usage`), as metrics.json records it."""

    input_tokens: int
    output_tokens: int
    model_calls: int
    tool_calls: int
    wall_seconds: float
    partial: bool
    models: dict[str, dict[str, int]]  # model id -> the token counts pricing.py prices


class AgentMetrics(Measured):
    """One agent's entry: the ledger's counts and its transcript's measures."""

    searches: int
    page_reads: int
    denied: int


class ResearcherMetrics(AgentMetrics):
    agent_id: str
    slug: str | None
    state: str | None
    started_at: str | None
    finished_at: str | None


class OtherAgentMetrics(AgentMetrics):
    agent_id: str


class Totals(TypedDict):
    researchers: int
    dispatches: int
    other_agents: int
    searches: int
    page_reads: int
    denied: int
    tool_calls: int
    model_calls: int
    input_tokens: int
    output_tokens: int
    wall_seconds: float
    partial: bool


class RunMetrics(TypedDict):
    """The metrics document (schemas/run-metrics.schema.json) as `build` writes it."""

    version: int
    run_dir: str
    updated_at: str | None
    final: bool
    budget: dict[str, Any] | None  # JSON: the plan's effective budget (budget.Budget.to_json)
    researchers: list[ResearcherMetrics]
    other_agents: list[OtherAgentMetrics]
    orchestrator: AgentMetrics
    totals: Totals


class Researcher(NamedTuple):
    """One researcher subagent as the hooks know it."""

    agent_id: str
    slug: str | None
    state: str | None  # running | done | silent-failure | returned (run record) or None
    transcript: str | None


class RunInputs(NamedTuple):
    """Everything `build` needs, gathered by the hook adapter."""

    run_dir: str
    started_at: str | None
    researchers: list[Researcher]
    usage: Mapping[str | None, AgentUsage]
    main_transcript: str | None
    other_transcripts: Sequence[str] = ()
    dispatches: int = 0
    budget: Mapping[str, Any] | None = None


def _tokens(usage: TranscriptUsage) -> Measured:
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "model_calls": usage.model_calls, "tool_calls": usage.tool_calls,
            "wall_seconds": usage.wall_seconds, "partial": usage.partial, "models": usage.models or {}}


def _stamp(seconds: float | None) -> str | None:
    return utc_stamp(seconds) if seconds is not None else None


def build(inputs: RunInputs, now: float, final: bool, read_seconds: float = READ_SECONDS) -> RunMetrics:
    """The metrics document (schemas/run-metrics.schema.json)."""
    deadline = time.monotonic() + read_seconds
    since = parse_time(inputs.started_at)
    researchers: list[ResearcherMetrics] = []
    seen = set()
    for item in inputs.researchers:
        seen.add(item.agent_id)
        used = inputs.usage.get(item.agent_id) or AgentUsage(item.agent_id)
        measured = transcript_usage(item.transcript, deadline=deadline)
        researchers.append({
            "agent_id": item.agent_id, "slug": item.slug or used.slug,
            "state": ("running" if used.running else item.state) or ("done" if used.stopped_at else None),
            "searches": used.search_count, "page_reads": used.page_read_count, "denied": used.denied,
            **_tokens(measured),
            "started_at": _stamp(measured.first_at), "finished_at": _stamp(measured.last_at),
        })
    others: list[OtherAgentMetrics] = []
    for path in inputs.other_transcripts[:MAX_OTHER_AGENTS]:
        agent_id = Path(path).stem.removeprefix("agent-")
        if agent_id in seen:
            continue
        measured = transcript_usage(path, since=since, deadline=deadline)
        if measured.first_at is None:
            continue  # nothing of it falls inside this run
        used = inputs.usage.get(agent_id) or AgentUsage(agent_id)
        others.append({"agent_id": agent_id, "searches": used.search_count, "page_reads": used.page_read_count,
                       "denied": used.denied, **_tokens(measured)})
    main = transcript_usage(inputs.main_transcript, since=since, deadline=deadline)
    main_used = inputs.usage.get(None) or AgentUsage(None)
    orchestrator: AgentMetrics = {"searches": main_used.search_count, "page_reads": main_used.page_read_count,
                    "denied": main_used.denied, **_tokens(main)}
    everyone: list[AgentMetrics] = [*researchers, *others, orchestrator]
    totals: Totals = {
        "researchers": len(researchers), "dispatches": inputs.dispatches, "other_agents": len(others),
        **{key: sum(a[key] for a in everyone)
           for key in ("searches", "page_reads", "denied", "tool_calls", "model_calls", "input_tokens",
                       "output_tokens")},
        "wall_seconds": round(max(0.0, now - since), 3) if since is not None else 0.0,
        "partial": any(a["partial"] for a in everyone),
    }
    return {"version": VERSION, "run_dir": inputs.run_dir, "updated_at": _stamp(now), "final": final,
            "budget": dict(inputs.budget) if inputs.budget else None,
            "researchers": researchers, "other_agents": others, "orchestrator": orchestrator, "totals": totals}


def read_metrics(run_dir: Path) -> dict[str, Any] | None:
    """`<run>/metrics.json` for display (status), or None when absent or not a JSON object."""
    return read_run_json(Path(run_dir) / METRICS_FILE, Path(run_dir))


def read_run_json(path: Path, run_dir: Path, max_bytes: int = 4 * 1024 * 1024) -> dict[str, Any] | None:
    """A JSON object from a run file (`fsutil.read_run_file`: a regular file inside the run, bounded),
    or None when it is missing, refused or not a JSON object: a display never fails on it."""
    try:
        value = json.loads(read_run_file(path, run_dir, max_bytes).decode("utf-8"))
    except (RunFileError, OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def subagent_transcripts(main_transcript: str | None, limit: int = MAX_OTHER_AGENTS) -> list[str]:
    """The session's subagent transcripts (`<dir>/<session>/subagents/agent-*.jsonl`), newest first."""
    if not main_transcript:
        return []
    folder = Path(main_transcript).with_suffix("") / "subagents"
    return newest_regular_files(folder, lambda name: name.startswith("agent-") and name.endswith(".jsonl"), limit)


def researcher_list(agents: Mapping[str, Any], usage: Iterable[AgentUsage], transcript_of: Any) -> list[Researcher]:
    """The run's researchers: those the run record attributes, and any other agent that searched
    or read under a slug in the ledger."""
    out: dict[str, Researcher] = {}
    for agent_id, info in agents.items():
        if isinstance(agent_id, str) and not agent_id.startswith("unknown-") and isinstance(info, dict):
            out[agent_id] = Researcher(agent_id, info.get("slug"), info.get("state"), transcript_of(agent_id))
    for used in usage:
        if used.agent_id and used.agent_id not in out and used.slug:
            out[used.agent_id] = Researcher(used.agent_id, used.slug, None, transcript_of(used.agent_id))
    return list(out.values())
