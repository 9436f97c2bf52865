"""The findings file's bookkeeping, done by the hooks so that no researcher copies it.

- `write_stub` (PreToolUse, an allowed researcher dispatch): the findings file starts as the
  plugin's stub (findings_stub.stub_text): failed, "did not finish", with the subtopic, the
  brief's hash and the dispatch time. Written only where no researcher's own file would be
  lost: no file yet, or one that is still a stub or has no status. (Written at dispatch, not at
  SubagentStart: when that event fires the subagent's transcript does not exist yet, and the
  starts of one message's parallel dispatches cannot be told apart.)
- at its stop the researcher's reply becomes the file (subagent_stop.settle_researcher): the
  plugin fills in the subtopic, brief hash, started_at (the dispatch time, `iso`) and
  finished_at (now), and drops a reason left under `status: ok`.

Both write through plugin_writes.write_run_file (one recorded kind of write).
"""
from __future__ import annotations

from typing import Mapping

from ...core.clock import utc_stamp
from ...run.findings_stub import still_to_dispatch, stub_text
from ..adapter import log_failure
from ..briefs_match import Brief
from ..state import Run
from .plugin_writes import write_run_file


def subtopic_of(run: Run, brief: Brief) -> str:
    """The subtopic's name: as `briefs` listed it, else the brief's own `Your subtopic:` line."""
    listed = next((b.subtopic for b in run.briefs or () if b.slug == brief.slug and b.subtopic is not None), None)
    if listed is not None:
        return listed
    for line in brief.text.splitlines():
        if line.startswith("Your subtopic: "):
            return line[len("Your subtopic: "):].strip()
    return brief.slug


def write_stub(env: Mapping[str, str], run: Run, brief: Brief, now: float) -> None:
    """The stub of a dispatched researcher's findings file (see the module docstring)."""
    try:
        if not still_to_dispatch(run.run_dir, brief.findings_path):
            return  # a researcher's own file (a retry): it stays until the new researcher writes
        write_run_file(env, run.run_dir, brief.findings_path,
                       stub_text(subtopic_of(run, brief), brief.brief_hash, utc_stamp(now)), None, brief.slug)
    except Exception:  # bookkeeping only: the dispatch decision stands, the stop gate judges the file
        log_failure("PreToolUse stub", env)
