"""Researcher dispatch: only rendered briefs, at most 3 at once.

The cap counts *reservations*, not started subagents. Several `Agent` calls in
one assistant message get their PreToolUse hooks before any subagent starts,
so counting SubagentStart events would let a run-away message through. Each
allowed dispatch reserves a slot (under the session lock); the slot is freed
when the researcher's SubagentStop lets it end, when a foreground Agent call
returns (PostToolUse), when the main agent stops with no background task left,
at SessionEnd, or after RESERVATION_TTL seconds as a last resort against a
crashed subagent holding a slot forever.
"""
from __future__ import annotations

import os
from typing import Collection, NamedTuple, Sequence

from ... import formats
from ..briefs_match import Brief, dispatch_prompt, match_prompt
from ..events import ToolInput
from ..state import Reservation, Run

MAX_DISPATCHES_PER_BRIEF = 2  # the first attempt and one retry
RESERVATION_TTL_SECONDS = 3600


class Decision(NamedTuple):
    action: str  # "allow" | "deny"
    reason: str
    updated_input: ToolInput | None = None  # the call's input with the brief's prompt put in place
    brief: Brief | None = None  # the brief an allowed researcher dispatch runs


def expire_reservations(run: Run, now: float, ttl: float) -> None:
    run.reservations = [r for r in run.reservations if now - r.since < ttl]


def release(run: Run, *, slug: str | None = None, tool_use_id: str | None = None,
            agent_id: str | None = None) -> bool:
    """Free one slot, matched by tool_use_id, agent_id or (oldest) slug. True when one was freed."""
    reservations = run.reservations
    for index, item in enumerate(reservations):
        if (tool_use_id and item.tool_use_id == tool_use_id) or (agent_id and item.agent_id == agent_id):
            del reservations[index]
            return True
    if slug:
        for index, item in enumerate(reservations):
            if item.slug == slug:
                del reservations[index]
                return True
    return False


def findings_rel(run_dir: str, brief: Brief) -> str:
    """`findings/<name>` of a brief's findings file, as the ledger's seals name it."""
    return f"{formats.FINDINGS_DIR}/{os.path.basename(brief.findings_path)}"


def _brief_list(briefs: Sequence[Brief]) -> str:
    return "\n".join(f"- {formats.dispatch_call(f'{formats.DISPATCH_BRIEF_LABEL} {b.brief_path}')}" for b in briefs)


def decide_dispatch(run: Run, tool_input: ToolInput, tool_use_id: str | None,
                    briefs: Sequence[Brief], now: float,
                    ttl: float = RESERVATION_TTL_SECONDS,
                    program: str = "<plugin root>/scripts/web-research",
                    max_dispatches: int | None = None, sealed_ok: Collection[str] = ()) -> Decision:
    """Decide one `Agent` call for a researcher; on allow, reserve its slot in `run`.
    `max_dispatches`: the run-wide cap (guard/budgets.py `max_dispatches`), None for none.
    `sealed_ok`: findings files (`findings/<name>`) sealed with status ok: their briefs are done."""
    run_dir = run.run_dir
    if not briefs:
        return Decision("deny", "No researcher briefs exist for this run yet. Run "
                        f'"{program}" briefs "{run_dir}" first, then dispatch each researcher with '
                        f"{formats.dispatch_call(formats.DISPATCH_BRIEF_PROMPT)}.")
    prompt = tool_input.get("prompt")
    match = match_prompt(prompt if isinstance(prompt, str) else "", briefs)
    updated: ToolInput | None = None
    brief = match.brief
    if brief is None:
        if len(match.intended) != 1:
            return Decision("deny", "A researcher is dispatched with "
                            f"{formats.dispatch_call(formats.DISPATCH_BRIEF_PROMPT)}, naming one of this run's "
                            "briefs; this prompt names " + ("several" if match.intended else "none")
                            + f" of them. One call per brief:\n{_brief_list(briefs)}")
        brief = match.intended[0]
        updated = {**tool_input, "prompt": dispatch_prompt(brief)}
    if brief.slug in (run.kept or []):
        return Decision("deny", f"{brief.findings_path} was kept when this run was resumed (status ok, seal "
                        "intact); it is final. Dispatch only the subtopics start --resume listed under dispatch.")
    if findings_rel(run_dir, brief) in sealed_ok:
        return Decision("deny", f"{brief.findings_path} is sealed with status ok: the researcher for "
                        f"{brief.slug} has finished, and its result is final (a second researcher would "
                        "overwrite it). Do not dispatch it again; dispatch only briefs whose findings are "
                        "missing, failed or empty.")
    expire_reservations(run, now, ttl)
    reservations = run.reservations
    if any(r.slug == brief.slug for r in reservations):
        return Decision("deny", f"A researcher for {brief.brief_path} is already running; wait for it to "
                        "return instead of dispatching it again.")
    cap = formats.MAX_PARALLEL_RESEARCHERS
    if len(reservations) >= cap:
        running = ", ".join(sorted(r.slug or "?" for r in reservations))
        return Decision("deny", f"{cap} researchers are already running ({running}); at most {cap} run at "
                        f"once. Wait until they return, then dispatch {brief.slug} in a later message.")
    dispatched = run.dispatches
    if dispatched.get(brief.slug, 0) >= MAX_DISPATCHES_PER_BRIEF:
        return Decision("deny", f"The researcher for {brief.slug} was already dispatched "
                        f"{dispatched[brief.slug]} times. Do not dispatch it again: its subtopic is a gap, which "
                        "finish records under Gaps & Limitations with the reason its findings file gives.")
    total = sum(dispatched.values())
    if max_dispatches is not None and total >= max_dispatches:
        return Decision("deny", f"This run has dispatched {total} researchers, the most its plan allows "
                        f"({max_dispatches}: each subtopic once plus one retry). Do not dispatch more: {brief.slug} "
                        "is a gap, which finish records under Gaps & Limitations.")
    reservations.append(Reservation(tool_use_id, brief.slug, now))
    dispatched[brief.slug] = dispatched.get(brief.slug, 0) + 1
    run.started[brief.slug] = now  # the findings file's started_at (findings_stub.py)
    if updated is not None:
        return Decision("allow", f"Researcher for {brief.slug}: the prompt is the text of {brief.brief_path} "
                        f"(put in place by the plugin); {len(reservations)} of {cap} slots in use.", updated, brief)
    return Decision("allow", f"Researcher for {brief.slug}: brief {brief.brief_hash} matches; "
                    f"{len(reservations)} of {cap} slots in use.", None, brief)
