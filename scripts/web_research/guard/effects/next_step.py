"""The orchestrator's next step, given as PostToolUse context on the turn that needs it.

A turn of the orchestrator costs its whole context again, so no turn is spent running one of
our commands only to read what it prints (issue 38): the hooks run it and the client shows
the model their `additionalContext` right after the tool's result (whole below 10,000
characters: tests/e2e/test_e2e_client_limits.py). Where each is called:
- plan.md written (handler post_plan): the review gate's estimate, or, with auto_proceed, the
  briefs rendered and the Agent calls to make (`plan_written`);
- the last researcher of a wave returned (post_agent): the briefs still to dispatch, or the
  coverage and the report's template, or the second wave to append (`researchers_returned`);
- report.md written, a claim-checker returned (post_report, post_agent): `finish` run, and what
  it said (`finished`).
The words are report/steps.py's, the same the commands print.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Mapping

from ... import formats
from ...checks.coverage import STATE_COVERED, bullet_states, read_findings_files
from ...checks.headings import plan_name_error
from ...core.fsutil import RunFileError, read_run_text
from ...core.message_fit import fit
from ...report.finish import finish_run
from ...report.steps import dispatch_text, finish_context, report_text, second_wave_text, template_body
from ...run.briefs import TemplateError, render_and_approve
from ...run.choices import load_run_plan
from ...run.estimate import estimate_text
from ...run.findings_stub import still_to_dispatch
from ...run.plan import PlanError, split_second_wave
from ...run.budget import effective_budget
from ...run.resume import read_approval, sha256_of
from ..adapter import log_failure
from ..rules.decision import AddContext, Decision
from ..state import Run

MAX_DISPATCHES_PER_BRIEF = 2  # SKILL.md: a researcher that did not finish gets one more try


def _elapsed(started: float) -> str:
    return f"{time.monotonic() - started:.1f} s"


MAX_PLAN_ERRORS = 7_000  # escaped characters of plan.md's mistakes in one answer (core/message_fit)


def plan_errors(error: Exception, run_dir: str) -> str:
    """What to do, then every mistake of plan.md, each shortened when they do not all fit."""
    lead = (f"web-research: plan.md has mistakes, so nothing was rendered. Fix them (never the question or the "
            f"tier) with one Write of the whole {Path(run_dir) / formats.PLAN_FILE}; the plugin checks it again when "
            "you save it.")
    mistakes = [line for line in str(error).splitlines() if line.strip()]
    return "\n".join([lead, *fit([("", line, "") for line in mistakes], MAX_PLAN_ERRORS,
                                  [f"- {len(mistakes)} mistakes: run the briefs command for them"])])


def review_gate(run_dir: str, env: Mapping[str, str]) -> str:
    """auto_proceed is false: the estimate, for the person, with the plan."""
    try:
        plan = load_run_plan(Path(run_dir))
    except PlanError as error:
        return plan_errors(error, run_dir)
    named = plan_name_error(plan, Path(run_dir) / formats.PLAN_FILE)
    if named is not None:
        return plan_errors(named, run_dir)
    return (f"web-research ran estimate on the plan. Review gate: show the person the plan's text, its path "
            f"({Path(run_dir) / formats.PLAN_FILE}) and this estimate unchanged, ask them to confirm, revise or "
            f"stop, and end your turn.\n\n{estimate_text(Path(run_dir), plan, env)}")


def render(run_dir: str) -> tuple[list[dict[str, str]] | None, str | None]:
    """The briefs rendered and approved (run.briefs.render_and_approve): (what is still to
    dispatch, None), or (None, what to tell the orchestrator instead)."""
    try:
        named = plan_name_error(load_run_plan(Path(run_dir)), Path(run_dir) / formats.PLAN_FILE)
        if named is not None:
            raise named
        return render_and_approve(Path(run_dir)), None
    except (PlanError, TemplateError) as error:
        return None, plan_errors(error, run_dir)
    except (RunFileError, OSError) as error:
        return None, f"web-research could not render the briefs ({error}); run the briefs command for them."


def second_wave_pending(run_dir: str) -> bool:
    """plan.md holds a `## Second wave` its briefs were not rendered from yet."""
    try:
        text = read_run_text(Path(run_dir) / formats.PLAN_FILE, Path(run_dir))
    except RunFileError:
        return False
    approval = read_approval(Path(run_dir))
    return split_second_wave(text)[1] is not None and approval is not None \
        and approval.get("plan_sha256") != sha256_of(text.encode("utf-8"))


def briefs_to_dispatch(run: Run) -> list[dict[str, str]]:
    """The briefs whose findings are still missing or a stub and whose researcher was dispatched
    fewer than MAX_DISPATCHES_PER_BRIEF times, as `briefs` lists them."""
    out = []
    for brief in run.briefs or []:
        findings = brief.findings_path or str(Path(run.run_dir) / formats.FINDINGS_DIR / f"{brief.slug}.md")
        if run.dispatches.get(brief.slug, 0) < MAX_DISPATCHES_PER_BRIEF and still_to_dispatch(Path(run.run_dir), findings):
            out.append({"subtopic": brief.subtopic or brief.slug, "brief_path": brief.brief_path,
                        "findings_path": findings})
    return out


def retry_note(run: Run, listed: list[dict[str, str]]) -> str:
    """Which of `listed` are a second try (their researcher was dispatched and did not finish):
    words for retries only, never for a brief dispatched for the first time."""
    tried = {b.brief_path for b in run.briefs or [] if run.dispatches.get(b.slug, 0) > 0}
    again = [b["subtopic"] for b in listed if b["brief_path"] in tried]
    if not again:
        return ""
    names = ", ".join(f'"{name}"' for name in again)
    return f" ({names}: the researcher did not finish, so it gets one more try)"


def researchers_returned(run: Run) -> str:
    """Every researcher of the wave has returned: who is still to dispatch, or the coverage and
    the report's template (or, where the run allows one and bullets are uncovered, the second wave)."""
    again = briefs_to_dispatch(run)
    if again:
        return "Some briefs still need a researcher" + retry_note(run, again) + ". " + dispatch_text(again)
    run_dir = Path(run.run_dir)
    try:
        plan = load_run_plan(run_dir)
    except PlanError as error:
        return f"web-research could not read plan.md ({error}); run the gaps command."
    states = bullet_states(plan, *read_findings_files(run_dir, plan))
    uncovered = [s for s in states if s.state != STATE_COVERED]
    if uncovered and effective_budget(plan).second_wave and not plan.second_wave:
        return second_wave_text(states, run_dir)
    template = formats.REPORT_TEMPLATE.read_text(encoding="utf-8")
    return report_text(states, run_dir, template_body(template))


def finished(run: Run, program: str, env: Mapping[str, str]) -> Decision:
    """`finish` run by the hook, and its answer as context, with what it cost."""
    started = time.monotonic()
    run_dir = Path(run.run_dir)
    try:
        outcome = finish_run(run_dir, by_hook=True)
    except Exception as exc:  # noqa: BLE001 - a bug must not look like a verdict: the command says it again
        log_failure(f"finish in a hook on {run_dir}", env)
        return AddContext(f"web-research could not run finish ({type(exc).__name__}); run it yourself: "
                          f'"{program}" finish "{run_dir}"')
    return AddContext(finish_context(outcome, run_dir, program, run.for_person) + f"\n(finish took {_elapsed(started)})")

