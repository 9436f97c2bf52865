"""PreToolUse of a write that names the run's plan.md: the room's rules for writes (pre_tool_use.py),
and, once the briefs are rendered, the approved plan changes only in its `## Second wave`
section, and not at all once that section's briefs are rendered (rules/room.second_wave_refusal).

A handler of its own (the entry picks it for a Write, Edit, MultiEdit or NotebookEdit whose path
resolves to the open run's plan.md, state.Context.kind): reading plan.md's sections takes the
Markdown parser, which no other call loads.
"""
from __future__ import annotations

from pathlib import Path

from ... import formats
from ...core.fsutil import RunFileError, read_run_file
from ...run.choices import read_start_record
from ...run.plan import complete_plan, split_second_wave
from ...run.resume import read_approval, sha256_of
from .pre_tool_use import decide, write_rules
from ..rules import room
from ..rules.decision import NOTHING, Allow, Decision
from ..state import Context, Run


def pre_plan(ctx: Context) -> Decision:
    return decide(ctx, _write)


def _write(ctx: Context, run: Run | None) -> Decision:
    decision = write_rules(ctx, run, plan_change)
    if decision != NOTHING or run is None or ctx.event.tool != "Write" or run.briefs \
            or read_approval(Path(run.run_dir)) is not None:
        return decision
    return _completed(ctx, Path(run.run_dir))


def _completed(ctx: Context, run_dir: Path) -> Decision:
    """The plan's Write, its content completed from start's record (nothing when there is none:
    a run made before the record, whose plan holds its own question)."""
    record = read_start_record(run_dir)
    content = ctx.tool_input.get("content")
    if record.question is None or not isinstance(content, str):
        return NOTHING
    completed = complete_plan(content, record.question, record.tier, bool(record.deepen))
    if completed == content:
        return NOTHING
    return Allow("web-research: plan.md gets the question and the tier the person gave at start.",
                 {**ctx.tool_input, "content": completed})


def plan_change(ctx: Context, run_dir: str, tool: str) -> tuple[str, str, bool] | None:
    """(plan.md above its second wave now, the same after this call, whether the second wave's
    briefs are rendered), or None when either text cannot be known."""
    try:
        current = read_run_file(Path(run_dir) / formats.PLAN_FILE, Path(run_dir)).decode("utf-8")
    except (RunFileError, UnicodeDecodeError):
        current = None
    new = room.edited_text(tool, ctx.tool_input, current)
    if new is None or (current is None and tool != "Write"):
        return None
    before_now, _wave = split_second_wave(current or "")
    before_new, _ = split_second_wave(new)
    return before_now, before_new, _second_wave_rendered(run_dir, current or "")


def _second_wave_rendered(run_dir: str, plan_text: str) -> bool:
    """plan.md holds a second wave and `briefs` rendered it (the approval record is this plan)."""
    if split_second_wave(plan_text)[1] is None:
        return False
    approval = read_approval(Path(run_dir))
    return approval is not None and approval.get("plan_sha256") == sha256_of(plan_text.encode("utf-8"))
