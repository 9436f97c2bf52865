"""What the orchestrator is told to do next, in the words it reads: one place for the answers
the hooks give as context on the turn that needs them (guard/effects/next_step.py) and the
commands print: the researchers to dispatch (after plan.md's Write, after `briefs`), coverage and
the report's template (when the last researcher returns), and `finish`'s answers (printed by the
command, and given after report.md's Write and after a claim-checker returns).

Every text stays well within what the client shows the model (a hook's context is cut past
10,000 characters, a command's output past about 30,000: tests/e2e/test_e2e_client_limits.py):
failures come first, one short line each and a bounded number of them; the whole list, with the
passages the claims cite, goes to a file in the run's state folder that the model can Read.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import formats
from ..checks.coverage import STATE_COVERED, BulletState
from ..core.fsutil import atomic_write_text
from ..core.terminal import printable
from .finish import CHECK, DONE, REFERENCES_CHECK, Outcome

MAX_LISTED = 12  # failing checks listed in the answer itself
MAX_LINE = 600  # characters of one failing check in the answer
MAX_TEXT = 6_000  # characters of a whole answer: well within the 10,000 a hook's context has
MAX_GAPS = 2_500  # characters of the coverage list given with the report's template
MAX_DESCRIPTION = 40  # characters of an Agent call's description (the subtopic's name, cut)
FAILURES_FILE = "finish-failures.txt"  # in the run's state folder: every failure in full


def finish_command(program: str, run_dir: Path | str) -> str:
    return f'"{program}" finish "{run_dir}"'


def check_dispatch(run_dir: Path | str) -> str:
    """The claim-checker's dispatch, as SKILL.md and every answer give it."""
    return formats.dispatch_call(f"{formats.DISPATCH_CHECK_LABEL} {run_dir}")


def failure_lines(outcome: Outcome, run_dir: Path) -> list[str]:
    """Every failing error check (then warnings) as one line: `<id>: <file>:<line>: <message>`."""
    report = run_dir / formats.REPORT_FILE
    if outcome.problems:
        return [_line(REFERENCES_CHECK, str(report), line, message, run_dir) for line, message in outcome.problems]
    failing = [c for c in outcome.checks if not c.ok]
    failing.sort(key=lambda c: c.severity != "error")
    return [_line(c.id, c.path, c.line, c.message, run_dir) for c in failing]


def _line(check_id: str, path: str | None, line: int | None, message: str, run_dir: Path) -> str:
    """One failing check; a file of the run by its name in the run folder (the answer names the folder)."""
    if path and Path(path).is_relative_to(run_dir):
        path = str(Path(path).relative_to(run_dir))
    where = f"{path}:{line}" if path and line else (path or "")
    return f"{check_id}: {where + ': ' if where else ''}{' '.join(printable(message).split())}"


def _short(line: str, limit: int = MAX_LINE) -> str:
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "\u2026"


def write_failures(run_dir: Path, lines: Sequence[str], notes: Sequence[str]) -> Path:
    """Every failure in full (with the passages a partly supported claim cites), and finish's
    notes, in the run's state folder: the answer lists them short and points here."""
    path = run_dir / formats.RUN_STATE_DIR / FAILURES_FILE
    body = [f"- {line}" for line in lines] + [f"Note: {note}." for note in notes]
    atomic_write_text(path, "\n".join(body) + "\n")
    return path


def finish_answer(outcome: Outcome, run_dir: Path, program: str) -> str:
    """What `finish` says: the return object (JSON, alone), the claim-checker to dispatch, or the
    failing checks to fix, first and short, with the way to finish again."""
    if outcome.kind == DONE:
        return json.dumps(outcome.answer, ensure_ascii=False)
    if outcome.kind == CHECK:
        return (f"Claims of report.md need a verdict. Dispatch the claim-checker now: {check_dispatch(run_dir)}. "
                "When it returns, the plugin runs finish again and tells you what comes next.")
    lines = failure_lines(outcome, run_dir)
    errors = [c for c in outcome.checks if not c.ok and c.severity == "error"] if not outcome.problems else lines
    full = write_failures(run_dir, lines, outcome.notes)
    head = (f"{run_dir / formats.REPORT_FILE} fails {len(errors)} check(s). Round {outcome.rounds} of {formats.MAX_VERIFY_ROUNDS} "
            "of fixes:")
    tail = (f"Fix each in report.md (prose and references only), or, where the evidence is not there, remove the "
            "claim and say so under Gaps & Limitations. Make every fix and finish in ONE message: your Edits of "
            f"report.md, then {finish_command(program, run_dir)} (a Write of the whole report.md runs it for you).")
    listed: list[str] = []
    room = MAX_TEXT - len(head) - len(tail) - 400
    for line in lines[:MAX_LISTED]:
        item = f"- {_short(line)}"
        if len(item) > room:
            break
        listed.append(item)
        room -= len(item) + 1
    more = len(lines) - len(listed)
    where = (f"{'And ' + str(more) + ' more. ' if more else ''}Every failure in full, with the passages the claims "
             f"cite: {full}")
    notes = [_short(f"Note: {note}.") for note in outcome.notes[:3]]
    return "\n".join([head, *listed, where, *notes, tail])


# --- dispatch -------------------------------------------------------------------------------

def agent_call(subtopic: str, brief_path: str) -> str:
    """One researcher's dispatch, whole: the Agent tool's input as JSON after its name."""
    description = subtopic if len(subtopic) <= MAX_DESCRIPTION else subtopic[:MAX_DESCRIPTION - 1].rstrip() + "\u2026"
    return "Agent " + json.dumps({"description": description,
                                  "prompt": f"{formats.DISPATCH_BRIEF_LABEL} {brief_path}"}, ensure_ascii=False)


def dispatch_text(listed: Sequence[Mapping[str, str]]) -> str:
    """The researchers to dispatch now (at most MAX_PARALLEL_RESEARCHERS, in one message), each
    call written out; the rest are told when these return."""
    now = list(listed)[:formats.MAX_PARALLEL_RESEARCHERS]
    rest = len(listed) - len(now)
    calls = "\n".join(agent_call(b["subtopic"], b["brief_path"]) for b in now)
    later = (f" The other {rest} brief(s) wait for these to return; the plugin then lists them." if rest else "")
    return (f"Dispatch {len(now)} researcher(s) now, all in ONE message, one Agent call each, exactly as written:"
            f"\n{calls}\n{later.strip()}").rstrip()


# --- when the researchers have returned -------------------------------------------------------

def coverage_lines(states: Sequence[BulletState], run_dir: Path) -> list[str]:
    """`gaps`' text: one line per plan bullet with its state, the references that cite its sources
    (to cite as they are), and what its findings say is missing, quoted and marked as the
    researcher's words (never for report.md: finish names the bullet there in its own words)."""
    lines = []
    for s in states:
        line = f"{s.bullet.id}  {s.state:<15}  {s.bullet.text}"
        if s.references:
            line += "\n      cite: " + " ".join(s.references)
        if s.reason and s.state != STATE_COVERED:
            line += f'\n      {"missing" if s.partly else "why"}, in the researcher\'s words: "{" ".join(s.reason.split())}"'
        lines.append(line)
    uncovered = [s.bullet.id for s in states if s.state != STATE_COVERED]
    lines.append(f"uncovered: {', '.join(uncovered) if uncovered else 'none'}")
    return lines


def _bounded_coverage(states: Sequence[BulletState], run_dir: Path) -> str:
    text = "\n".join(coverage_lines(states, run_dir))
    if len(text) <= MAX_GAPS:
        return text
    short = [f"{s.bullet.id}  {s.state:<15}  {_short(s.bullet.text, 90)}"
             + (f"\n      cite: {_short(' '.join(s.references), 300)}" if s.references else "") for s in states]
    uncovered = [s.bullet.id for s in states if s.state != STATE_COVERED]
    return "\n".join(short + [f"uncovered: {', '.join(uncovered) if uncovered else 'none'}"])


def second_wave_text(states: Sequence[BulletState], run_dir: Path) -> str:
    return ("All researchers have returned. Coverage of the plan's bullets:\n" + _bounded_coverage(states, run_dir)
            + "\n\nBullets are uncovered and this run allows one second wave: append `## Second wave` to plan.md "
            f"as {formats.REFERENCES_DIR / 'second-wave.md'} says, in a Write of the whole plan.md.")


def report_text(states: Sequence[BulletState], run_dir: Path, template: str) -> str:
    """Coverage and the report's template, given when the last researcher returns."""
    return ("All researchers have returned. Coverage of the plan's bullets (for each `covered` or `partly` one, "
            "cite the references shown; `finish` names every bullet not `covered` under Gaps & Limitations):\n"
            + _bounded_coverage(states, run_dir)
            + f"\n\nWrite {run_dir / formats.REPORT_FILE} now from the researchers' results, as this template says; "
            "the plugin runs finish when you save it.\n\n" + template.strip())


def template_body(markdown: str) -> str:
    """report-template.md without its title line."""
    lines = markdown.strip().splitlines()
    return "\n".join(lines[1:] if lines and lines[0].startswith("# ") else lines).strip()


# --- finish, as the hooks give it ------------------------------------------------------------

def finish_context(outcome: Outcome, run_dir: Path, program: str, for_person: bool) -> str:
    """finish's answer as context: for the return object, what the final message is (the object
    unchanged for a calling skill; a short summary for a person)."""
    if outcome.kind != DONE:
        return "web-research ran finish on report.md:\n" + finish_answer(outcome, run_dir, program)
    answer: dict[str, Any] = dict(outcome.answer or {})
    verified = answer.get(formats.RETURN_VERIFIED_KEY) is not False
    result = ("report.md passes verification." if verified else
              f"report.md still fails {', '.join(answer.get(formats.RETURN_FAILED_CHECKS_KEY) or [])} after "
              f"{formats.MAX_VERIFY_ROUNDS} rounds of fixes: the run ends unverified.")
    if not for_person:
        return (f"web-research ran finish: {result} Your final message is this object, unchanged, and nothing "
                f"else:\n{json.dumps(answer, ensure_ascii=False)}")
    return (f"web-research ran finish: {result} The run is over. Your final message is for the person who asked "
            f"(not this object): say in a line whether the report is "
            f"{'verified' if verified else 'unverified (and which checks fail)'}, give its TL;DR in a few short "
            f"bullets, and where to read it: the report {answer.get('report')} and its page {answer.get('view')} "
            f"(open it in a browser: each footnote shows its source). The run's object, for the record:\n"
            f"{json.dumps(answer, ensure_ascii=False)}")

