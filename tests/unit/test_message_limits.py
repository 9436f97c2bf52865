"""Every message the hooks send fits what the client shows whole, and the next step comes first
and whole (issue 42): the claim-checker's dispatch line, or every fix to make, each failure with
its line as report.md holds it now, so an Edit needs no Read.

The client's limit: a hook's output is cut past 10,000 characters (tests/e2e/test_e2e_client_limits.py
measures it on the pinned client); guard/adapter.serialize keeps a decision's JSON line within
MAX_OUTPUT (9,500) once escaped by cutting its longest text. A message fits when serialize has
nothing to cut: the text the client shows is the text the plugin wrote.
"""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from example_run import BILLING
from test_finish import to_references
from test_verdicts import absence_keys, judge_all, prompt_for_run, tiered
from web_research import formats
from web_research.guard import adapter
from web_research.guard.rules.decision import AddContext, Block
from web_research.report.finish import finish_run
from web_research.core.message_fit import CLIENT_LIMIT
from web_research.report.steps import (check_dispatch, dispatch_text, finish_answer,
                                       finish_context, second_wave_text, report_text, template_body)

PROGRAM = "/home/user/.claude/plugins/cache/web-research/web-research/1.0.0/scripts/web-research"
WORDS = ("amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "iris", "juniper")


def shown_whole(event: str, decision) -> str:
    """The text the client shows for `decision`, asserting the adapter had nothing to cut."""
    out = adapter.to_json(event, decision)
    line = adapter.serialize(out)
    assert len(line) <= adapter.MAX_OUTPUT <= CLIENT_LIMIT < 10_000, len(line)
    printed = json.loads(line)
    holder = printed.get("hookSpecificOutput", printed)
    shown = holder.get("additionalContext") or holder.get("reason") or holder.get("permissionDecisionReason")
    assert shown == getattr(decision, "text", None) or shown == getattr(decision, "reason", None), \
        "the adapter cut the message: the client would not see it whole"
    return shown


def with_claims(tmp_path: Path, count: int) -> Path:
    """The example run with a claim check (standard tier) and `count` more cited claims in Findings,
    each distinct (no figure: they fail nothing but their verdict)."""
    run = tiered(tmp_path)
    draft = to_references(run)
    pairs = itertools.islice(itertools.product(WORDS, WORDS), count)
    claims = "".join(f"- The {a} {b} notes say Log Management is billed on two dimensions, data ingested and "
                     f"events indexed[^{BILLING}:1].\n" for a, b in pairs)
    (run / formats.REPORT_FILE).write_text(draft.replace("## Findings\n", "## Findings\n\n" + claims, 1),
                                           encoding="utf-8")
    return run


def hook_context(run: Path) -> str:
    """What the hook after report.md's Write (or a checker's return) gives the model, as the client shows it."""
    outcome = finish_run(run, by_hook=True)
    text = finish_context(outcome, run, PROGRAM, for_person=False) + "\n(finish took 0.9 s)"
    return shown_whole("PostToolUse", AddContext(text))


def test_sixty_claims_needing_a_verdict_give_the_dispatch_line_first_and_whole(tmp_path):
    run = with_claims(tmp_path, 60)
    shown = hook_context(run)
    dispatch = check_dispatch(run)
    assert "need a verdict" in shown and dispatch in shown
    assert shown.index(dispatch) < 400  # the next step leads, before anything else
    assert "more" not in shown.replace("comes next", "")


def test_sixty_claims_to_fix_are_all_listed_with_their_lines_within_the_limit(tmp_path):
    """Every claim judged partial: 69 failures the model must fix, each listed (no "And N more"),
    the passages shortened instead, the finish command in the lead."""
    run = with_claims(tmp_path, 60)
    finish_run(run, by_hook=True)
    statements = absence_keys(prompt_for_run(run)[0])  # the example's Gaps statements of absence hold
    judge_all(run, 1, "partial", **dict.fromkeys(statements, "supported"))
    outcome = finish_run(run, by_hook=True)
    failing = [c for c in outcome.checks if not c.ok and c.severity == "error"]
    assert len([c for c in failing if c.id == "report.claims.verdict"]) > 60
    shown = hook_context(run)
    lead = shown.split("\n- ", 1)[0]
    assert f"fails {len(failing)} check(s)" in lead and f'"{PROGRAM}" finish "{run}"' in lead and "no Read" in lead
    listed = re.findall(r"^- ([a-z._]+): report\.md:(\d+):", shown, re.M)
    assert "And " not in shown and " more." not in shown
    assert sorted((i, int(n)) for i, n in listed) == sorted((c.id, c.line) for c in failing if c.line)
    assert all(f"- {c.id}: report.md: " in shown for c in failing if not c.line)


def test_a_few_failures_show_each_line_whole_so_an_edit_needs_no_read(tmp_path):
    """The quoted line is report.md's line as it stands after finish numbered it: its text, taken
    from the answer alone, is an Edit's old_string that matches the file once."""
    run = with_claims(tmp_path, 2)
    finish_run(run, by_hook=True)
    keys = judge_all(run, 1)
    judge_all_but_first = {keys[0]: "unsupported"}
    from test_verdicts import write_verdicts
    write_verdicts(run, 1, {k: judge_all_but_first.get(k, "supported") for k in keys})
    shown = hook_context(run)
    text = (run / formats.REPORT_FILE).read_text(encoding="utf-8")
    lines = shown.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("- report.claims.verdict: report.md:")]
    number, quote = lines[at + 1].split("\t", 1)
    assert int(number) == int(lines[at].split(":")[2])
    assert quote == text.splitlines()[int(number) - 1] and text.count(quote) == 1


def test_a_fix_round_with_claims_unchecked_lists_the_fixes_not_the_checkers_dispatch(tmp_path):
    """Issue 42, runs A, B and D: the dispatch line was the failure cut. With other checks failing,
    the fixes are the next step; the claims waiting for a verdict are one short line."""
    run = with_claims(tmp_path, 60)
    path = run / formats.REPORT_FILE
    path.write_text(path.read_text(encoding="utf-8").replace("# Research: How do", "# Research: Why do", 1),
                    encoding="utf-8")
    shown = hook_context(run)
    assert "report.title" in shown and check_dispatch(run) not in shown
    (waiting,) = [line for line in shown.splitlines() if line.startswith("- report.claims.checked")]
    assert len(waiting) < 200


def test_the_stop_gates_reason_fits_with_sixty_failures(tmp_path):
    from web_research.guard.rules.stop_gate import block_reason

    failures = [f"report.claims.verdict: report.md:{n}: claim {n:016x} goes further than the passage it cites: "
                + "x" * 400 for n in range(60)]
    shown = shown_whole("Stop", Block(block_reason(tmp_path, failures, PROGRAM)))
    assert shown.startswith("The research report") and f'"{PROGRAM}" finish' in shown.split("\n- ", 1)[0]
    assert all(f"report.md:{n}:" in shown for n in range(60))


def test_the_researchers_to_dispatch_with_long_names_fit_whole():
    briefs = [{"subtopic": "A subtopic whose name runs on and on " * 4, "brief_path":
               "/home/user/project/.beagle/research/2026-04-18-" + "q" * 80 + f"/briefs/s{i}.md"} for i in range(5)]
    shown = shown_whole("PostToolUse", AddContext(dispatch_text(briefs)))
    assert shown.count("Agent {") == formats.MAX_PARALLEL_RESEARCHERS
    assert all(json.loads(line[len("Agent "):])["prompt"].endswith(f"s{i}.md")
               for i, line in enumerate(line for line in shown.splitlines() if line.startswith("Agent ")))


def test_coverage_and_the_template_fit_with_many_long_bullets(tmp_path):
    from web_research.checks.coverage import bullet_states, read_findings_files
    from web_research.run.choices import load_run_plan

    run = tiered(tmp_path)
    plan = run / formats.PLAN_FILE
    long = "".join(f"- A long bullet about {w} pricing, retention, discounts and overage terms " * 3 + "\n"
                   for w in WORDS[:5])
    plan.write_text(plan.read_text(encoding="utf-8").replace("## Synthesis approach", long + "\n## Synthesis approach"),
                    encoding="utf-8")
    loaded = load_run_plan(run)
    states = bullet_states(loaded, *read_findings_files(run, loaded))
    template = template_body(formats.REPORT_TEMPLATE.read_text(encoding="utf-8"))
    shown = shown_whole("PostToolUse", AddContext(report_text(states, run, template)))
    assert shown.rstrip().endswith(template.rstrip().splitlines()[-1])  # the template whole, to its last rule
    shown_whole("PostToolUse", AddContext(second_wave_text(states, run)))


@pytest.mark.parametrize("count", [1, 12, 60, 200])
def test_finish_answers_fit_for_any_number_of_failures(tmp_path, count):
    """Pure: an Outcome with `count` failing checks on report.md lines, each with a long message."""
    from web_research.core.result import Check
    from web_research.report.finish import FIX, Outcome

    run = tmp_path / "run"
    (run / formats.RUN_STATE_DIR).mkdir(parents=True)
    lines = [f"- line {n} of the report " + "w" * 150 for n in range(count)]
    (run / formats.REPORT_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    checks = [Check("report.claims.verdict", False, "error", f"claim {n} goes further: " + "p" * 900 + " Narrow it.",
                    str(run / formats.REPORT_FILE), n + 1) for n in range(count)]
    answer = finish_answer(Outcome(FIX, None, checks, ["report.claims.verdict"], [], [], 1), run, PROGRAM)
    shown = shown_whole("PostToolUse", AddContext("web-research ran finish on report.md:\n" + answer))
    named = {int(n) for n in re.findall(r"report\.md:(\d+):", shown)}
    for grouped in re.findall(r"report\.md line\(s\) ([\d, ]+)", shown):
        named |= {int(n) for n in grouped.split(",")}
    assert named == set(range(1, count + 1))  # every failure the model must fix, by its line
    if count <= 12:
        assert all(f"{n + 1:>6}\t{lines[n]}" in shown for n in range(count))  # every line whole


def test_plan_mistakes_come_after_what_to_do_and_fit_however_many():
    from web_research.guard.effects.next_step import plan_errors

    mistakes = "\n".join(f"/run/plan.md:{n}: subtopic 'Report {n}' would get the findings file the client refuses; "
                         + "rename the subtopic " * 20 for n in range(80))
    shown = shown_whole("PostToolUse", AddContext(plan_errors(ValueError(mistakes), "/run")))
    assert shown.startswith("web-research: plan.md has mistakes") and "one Write of the whole /run/plan.md" \
        in shown.splitlines()[0]
    assert all(f"plan.md:{n}:" in shown for n in range(80))


def test_a_quoted_line_is_the_files_line_in_the_read_tools_form_and_names_its_twins():
    from web_research.report.steps import quoted

    lines = ["# Research: q", "", "- Acme bills per GB[^1].", "", "- Acme bills per GB[^1].", ""]
    assert quoted(lines, 3) == "     3\t- Acme bills per GB[^1].\n        (the same text is on line 5 too)"
    assert quoted(lines, 1) == "     1\t# Research: q"
    assert quoted(lines, None) == quoted(lines, 0) == quoted(lines, 99) == ""
    assert quoted(lines, 2) == "     2\t"  # an empty line has no twins to name
