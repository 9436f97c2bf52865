"""Hook side of the run metrics (../metrics.py): gather the inputs, write the files.

Called at a researcher's SubagentStop (when it is let go) and at every Stop of
the main agent while the run is active. Writes `<run>/metrics.json`; at Stop
also `<data>/metrics/<run key>.json`, the copy `web-research estimate` reads for
later runs (outside the run folder, so a model of this run cannot edit the
numbers a later estimate trusts). A failure here is logged and never changes
the hook's decision: metrics are a report, not a gate.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Mapping

from ...core.fsutil import atomic_write_text
from ...core.paths import data_dir
from ...evidence import ledger
from ...metrics.run_metrics import METRICS_FILE, RunInputs, RunMetrics, build, researcher_list, subagent_transcripts
from ...metrics.usage import fold
from ..adapter import log_failure
from ..briefs_match import subagent_transcript_path
from ..budgets import limits_of
from ..events import HookEvent
from ..state import Run

METRICS_DIR = "metrics"  # as estimate.METRICS_DIR (not imported: estimate pulls in more than a hook needs)


def write_metrics(env: Mapping[str, str], run: Run, event: HookEvent,
                  final: bool, now: float | None = None) -> RunMetrics | None:
    """Write the run's metrics; returns the document, or None when it could not be written."""
    try:
        return _write(env, run, event, final, time.time() if now is None else now)
    except Exception:  # a report, not a gate: never let it take the hook's decision down
        log_failure("metrics", env)
        return None


def _write(env: Mapping[str, str], run: Run, event: HookEvent, final: bool,
           now: float) -> RunMetrics:
    run_dir = run.run_dir
    data = data_dir(env)
    usage = fold(ledger.read(ledger.ledger_path(data, run_dir)))
    main = event.transcript_path
    stopping = event.agent_id
    own = getattr(event, "agent_transcript_path", None)

    def transcript_of(agent_id: str) -> str | None:
        if agent_id == stopping and isinstance(own, str) and own:
            return own
        return subagent_transcript_path(main, agent_id)

    agents = {agent_id: agent.to_json() for agent_id, agent in run.agents.items()}  # run_metrics reads JSON
    limits = limits_of(run)
    inputs = RunInputs(
        run_dir=run_dir, started_at=run.started_at,
        researchers=researcher_list(agents, usage.values(), transcript_of), usage=usage,
        main_transcript=main, other_transcripts=subagent_transcripts(main),
        dispatches=sum(run.dispatches.values()),
        budget={"searches_per_researcher": limits.searches, "page_reads_per_researcher": limits.page_reads,
                "max_dispatches": limits.max_dispatches})
    document = build(inputs, now, final)
    text = json.dumps(document, indent=1, sort_keys=True) + "\n"
    atomic_write_text(Path(run_dir) / METRICS_FILE, text)
    if final and document["researchers"]:
        atomic_write_text(data / METRICS_DIR / f"{ledger.run_key(run_dir)}.json", text)
    return document
