"""The budgets' adapter: the PreToolUse hook's web calls decided against the run ledger.

A model cannot count its own tool calls reliably, so the PreToolUse hook counts for it,
from the run ledger that only hooks write (ledger.py, folded by usage.py), with the rules
of rules/budgets.py. Each decision is taken under the ledger's lock and, when it allows
the call, appends the call's entry at once (`phase: "allowed"`, with its `tool_use_id`):
parallel calls in one message are therefore counted one after the other, and
PostToolUse's entry for the same call is not a second one. The run's limits come from
its plan (post_briefs.run_limits), fixed in the run record when `briefs` rendered it (`limits_of`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from .. import formats
from ..core.clock import utc_stamp
from ..core.paths import data_dir
from ..evidence import ledger
from ..evidence.snapshots import SnapshotError, find_snapshot
from ..metrics.usage import ALLOWED, DENIED, PAGE_READ, SEARCH, AgentUsage, fold
from ..run.budget import budget_for
from .rules.budgets import RunLimits, Verdict, decide_page_read, decide_search, orchestrator_verdict
from .state import Run, write_run_state

def limits_of(run: Run) -> RunLimits:
    """The limits fixed in the run record when `briefs` rendered the approved plan, or when
    `start --resume` reopened a run (post_briefs.run_limits): recorded limits keep hooks from
    parsing the plan on every call, and a plan.md edited after its briefs were rendered cannot
    raise the budget. A run without them has dispatched no researcher yet (no briefs); it gets
    the untiered defaults and no run-wide dispatch cap, as an unreadable plan does."""
    if run.limits is not None:
        return run.limits
    fallback = budget_for(None, 0)
    return RunLimits(fallback.searches_per_researcher, fallback.page_reads_per_researcher, None)


# --- the hook adapter -------------------------------------------------------------

def check(env: Mapping[str, str], run_dir: str, *, agent_id: object, slug: object, tool_use_id: object,
          tool: str, query: str = "", url: str = "", offset: int = 0, find: str | None = None,
          researcher: bool = True, limits: RunLimits | None = None) -> Verdict:
    """Decide one web call of the active run and record it in the ledger (under its lock):
    an allowed call as its `search`/`page_read` entry, a denied one as a `denied` entry.
    `tool`: a researcher's WebSearch or `fetch` (`find`: its --find words); anyone else's WebSearch or
    WebFetch."""
    if researcher and limits is None:
        fallback = budget_for(None, 0)
        limits = RunLimits(fallback.searches_per_researcher, fallback.page_reads_per_researcher, None)
    call = tool_use_id if isinstance(tool_use_id, str) else None
    with ledger.locked(data_dir(env), run_dir) as path:
        entries = ledger.read(path)
        usage = fold(entries).get(agent_id if isinstance(agent_id, str) else None) or AgentUsage(None)
        if not researcher:
            verdict = orchestrator_verdict()
        elif tool == "WebSearch":
            verdict = decide_search(usage, limits.searches, query)  # type: ignore[union-attr]
        else:
            verdict = decide_page_read(usage, limits.page_reads, url, offset,  # type: ignore[union-attr]
                                       find=find is not None, stored=offset > 0 and stored_in_run(run_dir, url))
        if verdict.allowed:
            if tool == "WebSearch":
                item = ledger.entry(SEARCH, agent_id, slug, tool_use_id=call, phase=ALLOWED, query=query)
            else:
                item = ledger.entry(PAGE_READ, agent_id, slug, tool_use_id=call, phase=ALLOWED, tool=tool,
                                    url=url, paging=verdict.paging, offset=offset, find=find)
        else:
            item = ledger.entry(DENIED, agent_id, slug, tool_use_id=call, tool=tool, rule=verdict.rule,
                                query=query or None, url=url or None)
        ledger.append(path, [item])
        write_progress(run_dir, entries + [item], limits)
    return verdict


def stored_in_run(run_dir: str, url: str) -> bool:
    """Does the run hold a readable snapshot of `url` (fetch would serve it without a download)?"""
    try:
        return find_snapshot(Path(run_dir), url) is not None
    except (SnapshotError, OSError, ValueError):
        return False


def record(env: Mapping[str, str], run_dir: str, kind: str, agent_id: object, slug: object,
           limits: RunLimits | None = None, **fields: Any) -> None:
    """Append one entry (agent_start, agent_stop, denied) and refresh the progress file
    (`limits`: the run's, budgets.limits_of)."""
    with ledger.locked(data_dir(env), run_dir) as path:
        item = ledger.entry(kind, agent_id, slug, **fields)
        ledger.append(path, [item])
        write_progress(run_dir, ledger.read(path), limits)


def write_progress(run_dir: str, entries: list[ledger.Entry], limits: RunLimits | None) -> None:
    """`<run>/.web-research/progress.json`: what each agent has spent so far, for `status` during a
    run (the Bash tool that runs `status` cannot see the hooks' data directory). A display copy
    only: no check reads it."""
    folded = fold(entries)
    data: dict[str, object] = {
        "version": 1, "updated_at": utc_stamp(),
        "agents": [u.to_json() for key, u in folded.items() if key is not None],
        "main_agent": folded[None].to_json() if None in folded else None,
    }
    if limits is not None:
        data["budget"] = {"searches_per_researcher": limits.searches, "page_reads_per_researcher": limits.page_reads,
                          "max_dispatches": limits.max_dispatches}
    write_run_state(Path(run_dir), formats.PROGRESS_FILE, data)
