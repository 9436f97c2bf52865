"""SubagentStop: a researcher must leave a usable findings file, a claim-checker its
verdicts file (each blocked once otherwise); what it leaves is sealed as it is let go.

The file on disk must be what its owner last wrote (the PostToolUse hook recorded the
hash of each write, `seals.record_written`): anything else changed it in between, say a
process left running in the background. Such a file is a problem like any other (one
block), and the seal is the owner's last write, so the file then fails its seal."""
from __future__ import annotations


from .rules.decision import NOTHING, Block, Decision, Notice
from .briefs_match import subagent_transcript_path
from .context import (CHECKER, RESEARCHER, Context, active_run, attribute, bind_agent, briefs_of, checker_prompt,
                      locked_run)
from .registry import SILENT_FAILURES_FILE, now_iso, write_run_state

from typing import Any


def _subtopic_of(run: dict[str, Any], slug: str) -> str:
    for item in run.get("briefs") or []:
        if item.get("slug") == slug and item.get("subtopic"):
            return str(item["subtopic"])
    return slug


def _checker_stop(ctx: Context, stray: bool = False) -> Decision:
    """A claim-checker stops: its reply must judge each claim of its prompt by number (blocked
    once otherwise, naming what is missing); the plugin then writes the verdicts file from the
    reply, mapping numbers to the claim keys bound to that prompt, and seals it."""
    active = active_run(ctx)
    if active is None:
        return NOTHING
    from .checker_gate import answer_block_reason, find_checker  # lazy: start-up

    session, snapshot = active
    agent_id = ctx.event.agent_id
    prompt = checker_prompt(ctx)
    if stray and prompt is None:
        return NOTHING
    entry = find_checker(snapshot["run"], agent_id if not stray else None, prompt)
    if entry is None:
        return NOTHING
    keys = entry.get("keys", [])
    verdicts, problems = checker_answer(ctx, keys)
    with locked_run(session, snapshot) as run:
        if run is None:
            return NOTHING
        current = next((c for c in run.get("checkers", [])
                        if c.get("prompt_hash") == entry.get("prompt_hash")
                        and c.get("verdicts_path") == entry.get("verdicts_path")), None)
        if current is None:
            return NOTHING
        if isinstance(agent_id, str):
            current["agent_id"] = agent_id
        if problems and not current.get("blocks") and not ctx.event.stop_hook_active:
            current["blocks"] = 1
            return Block(answer_block_reason(problems, len(keys)))
        current["state"] = "failed" if problems else "done"
    if verdicts:
        from .effects.plugin_writes import write_verdicts  # lazy: start-up

        write_verdicts(ctx.env, snapshot["run"]["run_dir"], entry["verdicts_path"], verdicts, agent_id)
    return NOTHING


def checker_answer(ctx: Context, keys: list[str]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The verdicts a checker's last reply gives (its SubagentStop's `last_assistant_message`,
    else the last assistant text of its transcript), and what is wrong with the reply."""
    from ..checks.verdicts import parse_answer  # lazy: start-up
    from .briefs_match import last_assistant_text  # lazy: start-up

    text = ctx.event.last_message
    if not isinstance(text, str) or not text.strip():
        transcript = ctx.event.agent_transcript_path or subagent_transcript_path(
            ctx.event.transcript_path, ctx.event.agent_id)
        text = last_assistant_text(transcript) if transcript else None
    return parse_answer(text or "", keys)


def subagent_stop(ctx: Context) -> Decision:
    if ctx.event.agent_type == CHECKER:
        return _checker_stop(ctx)
    if ctx.event.agent_type not in (RESEARCHER, "", None):
        return NOTHING
    active = active_run(ctx)
    if active is None:
        return NOTHING
    from .rules.dispatch import release  # lazy: hook start-up
    from .findings_gate import citation_problems, findings_problems, required_fields_text  # lazy: hook start-up

    agent_id = ctx.event.agent_id
    transcript = ctx.event.agent_transcript_path or subagent_transcript_path(
        ctx.event.transcript_path, agent_id)
    session, snapshot = active
    brief, _learned = attribute(ctx, snapshot["run"], briefs_of(snapshot["run"]), transcript)
    if brief is None:
        if ctx.event.agent_type != RESEARCHER and snapshot["run"].get("checkers"):
            return _checker_stop(ctx, stray=True)  # an unnamed stop may be a claim-checker's
        if isinstance(agent_id, str) and agent_id in (snapshot["run"].get("unattributed") or ()):
            with locked_run(session, snapshot) as run:  # gone: no longer a candidate for elimination
                if run is not None and agent_id in (run.get("unattributed") or ()):
                    run["unattributed"].remove(agent_id)
        return NOTHING  # not one of this run's researchers
    # The researcher's own file must be what its owner (the researcher, or the plugin's stub) last
    # wrote before the plugin completes it (its frontmatter fields): completing a file something
    # else changed would make that change the plugin's. Read and checked before the lock is taken.
    from .effects.findings_bookkeeping import complete  # lazy: hook start-up
    from .effects.seals import findings_status, owner_written, written_problem  # lazy: hook start-up

    run_dir = snapshot["run"]["run_dir"]
    written, on_disk = owner_written(ctx.env, run_dir, brief.findings_path, agent_id)
    tampered = written_problem(brief.findings_path, written, on_disk)
    if not tampered:
        complete(ctx, snapshot["run"], brief)  # recorded as a plugin write: the owner's last write
    problems = findings_problems(brief)
    written, on_disk = owner_written(ctx.env, run_dir, brief.findings_path, agent_id)
    tampered = written_problem(brief.findings_path, written, on_disk)
    if tampered:
        problems.append(tampered)
    known = snapshot["run"].get("agents", {}).get(agent_id or f"unknown-{brief.slug}", {})
    may_block = not known.get("blocks") and not ctx.event.stop_hook_active
    if may_block:
        from .effects.seals import seal_source  # lazy: hook start-up

        # In a run every page a researcher read was sealed by its fetch: a citation of a page
        # with no sealed snapshot cites a page never read, told now while it can still read it.
        quotes = citation_problems(brief, seal_source(ctx.env, run_dir).seals)
    else:
        quotes = []
    fields = required_fields_text() if may_block and (problems or quotes) else ""
    with locked_run(session, snapshot) as run:
        if run is None:
            return NOTHING
        agent = bind_agent(run, agent_id or f"unknown-{brief.slug}", brief.slug, "running")
        if (problems or quotes) and fields and not agent.get("blocks"):
            agent["blocks"] = 1
            return Block(
                "Your findings file is not usable yet:\n" + "\n".join(f"- {p}" for p in problems + quotes)
                + f"\nWrite {brief.findings_path} now with the frontmatter your brief gives ({fields}), "
                "each excerpt copied word for word from the page (the closest passage is shown above), each figure "
                "a claim states taken from an excerpt it cites, and each claim you cannot quote removed. If you "
                "have nothing usable, write it with status: failed and a one-line reason. Then reply with the "
                "status line.")
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
    from .effects.seals import seal_findings  # lazy: hook start-up

    # Sealed as it is let go (or recorded as a silent failure), outside the record's lock: as its
    # owner last wrote it, so a file changed by anything else since fails its seal.
    if written:
        seal_findings(ctx.env, run_dir, brief.findings_path, agent_id, brief.slug, sha256=written,
                      status=findings_status(brief.findings_path, written))
    _after_researcher(ctx, run, agent_id, brief.slug)
    if not problems:
        return NOTHING
    return Notice(
        f'web-research: the researcher for subtopic "{subtopic}" ended without a usable findings file '
        f"({'; '.join(problems)}). It is a silent failure, recorded in {state_file}; the report's "
        "Gaps & Limitations must name it.")


def _after_researcher(ctx: Context, run: dict[str, Any], agent_id: object, slug: str) -> None:
    """A researcher was let go: close its life in the ledger and refresh the run's metrics."""
    from .budgets import limits_of, record  # lazy: start-up
    from .effects.metrics import write_metrics  # lazy: start-up

    try:
        record(ctx.env, run["run_dir"], "agent_stop", agent_id, slug, limits_of(run))
    except Exception:  # bookkeeping only: the findings decision above stands
        from .failure_log import log_failure  # lazy: start-up

        log_failure("SubagentStop", ctx.env)
    write_metrics(ctx.env, run, ctx.event, final=False)
