"""SubagentStop: a researcher's reply is its findings, a claim-checker's its verdicts; the
plugin writes each file from the reply and seals it at once, or sends the reasons back once
so the agent replies again in full. No subagent writes a file of the run."""
from __future__ import annotations

from typing import Sequence

from ...checks.integrity import CLOSEST_SHOWN
from ...core.clock import utc_stamp
from ...formats import REPLY_IS_FINDINGS
from ...report.claim_checker import answer_instruction, parse_answer
from ...run.findings_reply import reply_document
from ..adapter import log_failure
from ..briefs_match import Brief, attribute, briefs_of, checker_prompt, last_assistant_text, subagent_transcript_path
from ..budgets import limits_of, record
from ..effects.findings_bookkeeping import subtopic_of
from ..effects.metrics import write_metrics
from ..effects.replies import seal_unsealed_findings, write_findings, write_verdicts
from ..effects.seals import seal_source, sealed_ok_findings
from ..events import CHECKER, RESEARCHER
from ..findings_gate import citation_problems, findings_problems, required_fields_text, unread_citations
from ..rules.checker_gate import find_checker
from ..rules.decision import NOTHING, Block, Decision, Notice
from ..rules.dispatch import findings_rel, release
from ..state import SILENT_FAILURES_FILE, Agent, Context, Run, SilentFailure, write_run_state

# Why the findings are unusable when the returned Agent call's result held no readable reply.
NO_READABLE_REPLY = ("no reply could be read from the Agent result; the findings file stays the plugin's stub, "
                     "marked failed")


def _checker_stop(ctx: Context, stray: bool = False) -> Decision:
    """A claim-checker stops: its reply must judge each claim of its prompt by number (blocked
    once otherwise, naming what is missing); the plugin then writes the verdicts file from the
    reply, mapping numbers to the claim keys bound to that prompt, and seals it. A checker whose
    answer was recorded is settled: a later stop of it changes nothing."""
    snapshot = ctx.run
    if snapshot is None:
        return NOTHING
    agent_id = ctx.event.agent_id
    prompt = checker_prompt(ctx.event)
    if stray and prompt is None:
        return NOTHING
    entry = find_checker(snapshot, agent_id if not stray else None, prompt)
    if entry is None:
        return NOTHING
    keys = entry.keys
    verdicts, problems = checker_answer(ctx, keys)
    with ctx.locked_run() as run:
        if run is None:
            return NOTHING
        current = next((c for c in run.checkers if (c.prompt_hash, c.verdicts_path, c.tool_use_id, c.since)
                        == (entry.prompt_hash, entry.verdicts_path, entry.tool_use_id, entry.since)), None)
        if current is None or current.state != "running":
            return NOTHING  # settled already (stopped again, re-entered): its verdicts are final
        if isinstance(agent_id, str):
            current.agent_id = agent_id
        if problems and not current.blocks and not ctx.event.stop_hook_active:
            current.blocks = 1
            return Block(answer_block_reason(problems, len(keys)))
        current.state = "failed" if problems else "done"
    if verdicts:
        write_verdicts(ctx.env, snapshot.run_dir, entry.verdicts_path, verdicts, agent_id)
    return NOTHING


def answer_block_reason(problems: Sequence[str], count: int) -> str:
    """What a checker whose reply cannot be used is told: what is wrong, and the answer format again."""

    return ("Your answer is not usable yet:\n" + "\n".join(f"- {p}" for p in problems) + "\n"
            + answer_instruction(count))


def checker_answer(ctx: Context, keys: list[str]) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The verdicts a checker's last reply gives (its SubagentStop's `last_assistant_message`,
    else the last assistant text of its transcript), and what is wrong with the reply."""

    return parse_answer(reply_text(ctx), keys)


def reply_text(ctx: Context) -> str:
    """A subagent's last reply: its SubagentStop's `last_assistant_message`, else the last
    assistant text of its transcript."""
    text = ctx.event.last_message
    if not isinstance(text, str) or not text.strip():
        transcript = ctx.event.agent_transcript_path or subagent_transcript_path(
            ctx.event.transcript_path, ctx.event.agent_id)
        text = last_assistant_text(transcript) if transcript else None
    return text or ""


def subagent_stop(ctx: Context) -> Decision:
    if ctx.event.agent_type == CHECKER:
        return _checker_stop(ctx)
    if ctx.event.agent_type not in (RESEARCHER, "", None):
        return NOTHING
    snapshot = ctx.run
    if snapshot is None:
        return NOTHING
    agent_id = ctx.event.agent_id
    transcript = ctx.event.agent_transcript_path or subagent_transcript_path(
        ctx.event.transcript_path, agent_id)
    brief, _learned = attribute(snapshot, agent_id, briefs_of(snapshot), transcript)
    if brief is None:
        if ctx.event.agent_type != RESEARCHER and snapshot.checkers:
            return _checker_stop(ctx, stray=True)  # an unnamed stop may be a claim-checker's
        if isinstance(agent_id, str) and agent_id in snapshot.unattributed:
            with ctx.locked_run() as run:  # gone: no longer a candidate for elimination
                if run is not None and agent_id in run.unattributed:
                    run.unattributed.remove(agent_id)
        return NOTHING  # not one of this run's researchers
    may_block = not ctx.event.stop_hook_active
    return settle_researcher(ctx, brief, agent_id, reply_text(ctx), may_block)


def settle_researcher(ctx: Context, brief: Brief, agent_id: str | None, reply: str | None,
                      may_block: bool) -> Decision:
    """A researcher's reply is its findings (run/findings_reply.py): checked, then written as its
    findings file and sealed at once; or, once, sent back with the reasons so that it replies again
    in full. A reply that holds no findings leaves the plugin's stub in place: a silent failure.
    Called at its SubagentStop, or when its Agent call returned and that stop went unseen
    (`may_block` False: nothing can be sent back any more; `reply` None: the call's result held
    no reply this code can read, so there was nothing to judge)."""
    snapshot = ctx.run
    if snapshot is None:
        return NOTHING
    run_dir = snapshot.run_dir
    key = agent_id if isinstance(agent_id, str) else f"unknown-{brief.slug}"
    known = snapshot.agents.get(key)
    seals = seal_source(ctx.env, run_dir).seals
    if _settled(known, agent_id) or findings_rel(run_dir, brief) in sealed_ok_findings(ctx.env, run_dir, seals):
        return NOTHING  # stopped again (re-entered): its result is final, never written or sealed anew
    started = snapshot.started.get(brief.slug)
    document, unusable = (None, NO_READABLE_REPLY) if reply is None else reply_document(
        reply, subtopic_of(snapshot, brief), brief.brief_hash,
        utc_stamp(started) if started is not None else utc_stamp(ctx.now), utc_stamp(ctx.now))
    if document is None:
        problems = [str(unusable)]
    else:
        def where(_path: object, line: int | None) -> str:
            return f"line {document.reply_line(line)} of your reply"

        problems = findings_problems(brief, document.text, where)
    may_block = may_block and not (known is not None and known.blocks)
    quotes: list[str] = []
    if may_block and document is not None:
        # In a run every page a researcher read was sealed by its fetch: a citation of a page
        # with no sealed snapshot cites a page never read, told now while it can still read it.
        quotes = citation_problems(brief, seals, document.text, where)
    elif document is not None and not problems:
        # Too late to tell it: a reply that still cites a page never read is no result (findings_gate).
        problems = unread_citations(brief, seals, document.text, where)
        if problems:
            document = None  # the stub stays, sealed as the plugin wrote it
    with ctx.locked_run() as run:
        if run is None:
            return NOTHING
        agent = run.bind_agent(key, brief.slug, "running")
        if _settled(agent, agent_id):
            return NOTHING  # a concurrent stop of the same agent settled it first
        if (problems or quotes) and may_block and not agent.blocks:
            agent.blocks = 1
            return Block(block_reason(problems + quotes, brief.findings_path))
        release(run, agent_id=agent_id, slug=brief.slug)
        if problems:
            agent.state = "silent-failure"
            subtopic = run.subtopic_of(brief.slug) or brief.slug
            run.silent_failures.append(SilentFailure(brief.slug, subtopic, brief.findings_path, brief.brief_path,
                                                     agent_id, problems, utc_stamp()))
            state_file = write_run_state(run.run_dir, SILENT_FAILURES_FILE,
                                         [failure._asdict() for failure in run.silent_failures])
        else:
            agent.state = "done"
    # Written and sealed at once, outside the record's lock. A reply with no findings leaves the
    # stub (or an earlier attempt's file), sealed as the plugin last wrote it.
    if document is not None:
        write_findings(ctx.env, run_dir, brief.findings_path, document.text, agent_id, brief.slug)
    else:
        seal_unsealed_findings(ctx.env, run_dir, brief.findings_path, agent_id, brief.slug)
    _after_researcher(ctx, run, agent_id, brief.slug)
    if not problems:
        return NOTHING
    return Notice(
        f'web-research: the researcher for subtopic "{subtopic}" ended without usable findings for '
        f"{brief.findings_path} ({'; '.join(problems)}). It is a silent failure, recorded in {state_file}; the "
        "report's Gaps & Limitations must name it.")


def _settled(agent: Agent | None, agent_id: object) -> bool:
    """Was this researcher's reply already settled? Known only by its agent id: stops without
    one share a key per brief, and a retry of that brief is another researcher."""
    return isinstance(agent_id, str) and agent is not None and agent.settled


def block_reason(problems: list[str], findings_path: str) -> str:
    """What a researcher whose reply cannot be written as its findings is told (sent once, as the
    client's feedback: guard/adapter.py subagent_feedback); the closest passage is pointed at only
    when a problem shows one."""
    shown = " (the closest passage is shown above)" if any(CLOSEST_SHOWN in p for p in problems) else ""
    return ("Your findings are not usable yet:\n" + "\n".join(f"- {p}" for p in problems)
            + f"\n{REPLY_IS_FINDINGS[0].upper() + REPLY_IS_FINDINGS[1:]}: reply again with all of it, as your brief "
            f"shows: the frontmatter ({required_fields_text()}), "
            f"then every section. Copy each excerpt word for word from the page{shown}, "
            "take each figure a claim states from an excerpt it cites, and leave out each claim you cannot quote. If "
            "you have nothing usable, reply with status: failed and a one-line reason. The plugin writes your reply "
            f"to {findings_path}; you write no file.")


def _after_researcher(ctx: Context, run: Run, agent_id: object, slug: str) -> None:
    """A researcher was let go: close its life in the ledger and refresh the run's metrics."""

    try:
        record(ctx.env, run.run_dir, "agent_stop", agent_id, slug, limits_of(run))
    except Exception:  # bookkeeping only: the findings decision above stands
        log_failure("SubagentStop", ctx.env)
    write_metrics(ctx.env, run, ctx.event, final=False)
