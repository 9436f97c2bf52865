"""What the orchestrator is told to do next, in the words it reads: one place for the answers
the hooks give as context on the turn that needs them (guard/effects/next_step.py) and the
commands print: the researchers to dispatch (after plan.md's Write, after `briefs`), coverage and
the report's template (when the last researcher returns), and `finish`'s answers (printed by the
command, and given after report.md's Write and after a claim-checker returns).

Every text fits what the client shows the model whole (a hook's output is cut past 10,000
characters once JSON-escaped, guard/adapter.MAX_OUTPUT; a command's output past about 30,000:
tests/e2e/test_e2e_client_limits.py), and what the model must do next comes first and whole:
the claim-checker's dispatch line, or the fixes to make, every one of them listed (a long
message is shortened in its middle, where a claim's passages are, never dropped). Each failure
on a line of report.md shows that line as the file holds it now, in the Read tool's form, so
the model writes its Edit from the answer alone, with no Read. Every failure in full, with the
passages the claims cite, goes to a file in the run's state folder.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, NamedTuple, Sequence

from .. import formats
from ..checks.coverage import STATE_COVERED, BulletState
from ..core.fsutil import RunFileError, atomic_write_text, read_run_text
from ..core.message_fit import escaped_len, fit, short
from ..core.terminal import printable
from ..core.text import markdown_lines
from .finish import CHECK, CLAIMS_CHECKED, DONE, Outcome

MAX_TEXT = 9_000  # escaped characters of finish's answer: the hook's own words around it stay within message_fit.CLIENT_LIMIT
MAX_GAPS = 2_500  # characters of the coverage list given with the report's template
MAX_DESCRIPTION = 40  # characters of an Agent call's description (the subtopic's name, cut)
FAILURES_FILE = "finish-failures.txt"  # in the run's state folder: every failure in full


def finish_command(program: str, run_dir: Path | str) -> str:
    return f'"{program}" finish "{run_dir}"'


def check_dispatch(run_dir: Path | str) -> str:
    """The claim-checker's dispatch, as SKILL.md and every answer give it."""
    return formats.dispatch_call(f"{formats.DISPATCH_CHECK_LABEL} {run_dir}")


class Failure(NamedTuple):
    """One failing check as the answer lists it: `head` is `<id>: <file>:<line>: `, `message` what
    is wrong and what to do; `line` its line in report.md (None: another file, or no line);
    `error` False for a warning."""

    check_id: str
    head: str
    message: str
    line: int | None
    error: bool

    @property
    def text(self) -> str:
        return self.head + self.message


def failures_of(outcome: Outcome, run_dir: Path) -> list[Failure]:
    """Every failing check, errors first, then warnings."""
    report = run_dir / formats.REPORT_FILE
    if outcome.problems:
        return [Failure(check_id, *_line(check_id, str(report), line, message, run_dir), line, True)
                for line, message, check_id in outcome.problems]
    failing = sorted((c for c in outcome.checks if not c.ok), key=lambda c: c.severity != "error")
    out = []
    for c in failing:
        message = c.message
        if c.id == CLAIMS_CHECKED and outcome.kind != CHECK:  # not the next step: the fixes are
            message = ("the claim check waits for the fixes above: once the other checks pass, finish gives the "
                       "claim-checker's dispatch")
        on_report = c.path is not None and Path(c.path) == report
        out.append(Failure(c.id, *_line(c.id, c.path, c.line, message, run_dir), c.line if on_report else None,
                           c.severity == "error"))
    return out


def failure_lines(outcome: Outcome, run_dir: Path) -> list[str]:
    """Every failing error check (then warnings) as one line: `<id>: <file>:<line>: <message>`."""
    return [f.text for f in failures_of(outcome, run_dir)]


def _line(check_id: str, path: str | None, line: int | None, message: str, run_dir: Path) -> tuple[str, str]:
    """One failing check, (`<id>: <file>:<line>: `, the message on one line); a file of the run by
    its name in the run folder (the answer names the folder)."""
    if path and Path(path).is_relative_to(run_dir):
        path = str(Path(path).relative_to(run_dir))
    where = f"{path}:{line}" if path and line else (path or "")
    return f"{check_id}: {where + ': ' if where else ''}", " ".join(printable(message).split())


def report_lines(run_dir: Path) -> list[str]:
    """report.md's lines as the file holds them now ([] when it cannot be read)."""
    try:
        return markdown_lines(read_run_text(run_dir / formats.REPORT_FILE, run_dir).removeprefix("\ufeff"))
    except RunFileError:
        return []


def quoted(lines: Sequence[str], number: int | None) -> str:
    """Line `number` of report.md as the Read tool shows it (`     14\t<text>`), so an Edit is written
    from it; where the same text stands on other lines too, which (an Edit's old_string must be
    unique: take in a line next to it)."""
    if number is None or not 1 <= number <= len(lines):
        return ""
    text = printable(lines[number - 1])
    twins = [str(i) for i, other in enumerate(lines, start=1) if other == lines[number - 1] and i != number]
    return f"{number:>6}\t{text}" + (f"\n        (the same text is on line {', '.join(twins[:5])} too)"
                                      if twins and text.strip() else "")


def _items(failures: Sequence[Failure], lines: Sequence[str]) -> list[tuple[str, str]]:
    """(failure, its line quoted): a line with several failures is quoted after the first only."""
    seen: set[int] = set()
    out = []
    for f in failures:
        out.append((f.head, f.message, "" if f.line in seen else quoted(lines, f.line)))
        seen.add(f.line or 0)
    return out


def _by_check(failures: Sequence[Failure]) -> list[str]:
    """The last resort of `fit`: each check's lines of report.md by number."""
    by_check: dict[str, list[str]] = {}
    for f in failures:
        by_check.setdefault(f.check_id, []).append(str(f.line) if f.line else "")
    return [f"- {check_id}: report.md line(s) {', '.join(n for n in numbers if n) or '(no line)'}"
            for check_id, numbers in by_check.items()]


def write_failures(run_dir: Path, lines: Sequence[str], notes: Sequence[str]) -> Path:
    """Every failure in full (with the passages a partly supported claim cites), and finish's
    notes, in the run's state folder: the answer lists them short and points here."""
    path = run_dir / formats.RUN_STATE_DIR / FAILURES_FILE
    body = [f"- {line}" for line in lines] + [f"Note: {note}." for note in notes]
    atomic_write_text(path, "\n".join(body) + "\n")
    return path


def finish_answer(outcome: Outcome, run_dir: Path, program: str) -> str:
    """What `finish` says: the return object (JSON, alone), the claim-checker to dispatch, or the
    failing checks to fix: what to do first, then every error with its line as report.md holds
    it now, within MAX_TEXT (escaped) whatever their number."""
    if outcome.kind == DONE:
        return json.dumps(outcome.answer, ensure_ascii=False)
    if outcome.kind == CHECK:
        return (f"Claims of report.md need a verdict. Dispatch the claim-checker now: {check_dispatch(run_dir)}. "
                "When it returns, the plugin runs finish again and tells you what comes next.")
    failures = failures_of(outcome, run_dir)
    errors = [f for f in failures if f.error]
    warnings = [f for f in failures if not f.error]
    full = write_failures(run_dir, [f.text for f in failures], outcome.notes)
    head = (f"{run_dir / formats.REPORT_FILE} fails {len(errors)} check(s). Round {outcome.rounds} of "
            f"{formats.MAX_VERIFY_ROUNDS} of fixes. Fix each in report.md (prose and references only), or, where "
            "the evidence is not there, remove the claim and say so under Gaps & Limitations. Each failure shows "
            "its line as report.md holds it now: write your Edits from it, with no Read. Make every fix and "
            f"finish in ONE message: your Edits, then {finish_command(program, run_dir)} (a Write of the whole "
            "report.md runs it for you).")
    notes = [short(f"Note: {note}.", 400) for note in outcome.notes[:3]]
    tail = f"Every failure in full, with the passages the claims cite: {full}"
    room = MAX_TEXT - sum(escaped_len(part) + 2 for part in (head, tail, *notes)) - 120
    lines = report_lines(run_dir)
    listed = fit(_items(errors, lines), room, _by_check(errors))
    room -= sum(escaped_len(item) + 2 for item in listed)
    shown = fit(_items(warnings, lines), room, _by_check(warnings)) if warnings else []
    if warnings and sum(escaped_len(item) + 2 for item in shown) > room:
        shown = [f"- and {len(warnings)} warning(s), which fail no round: in the file below"]
    return "\n".join([head, *listed, *shown, tail, *notes])


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
    brief = [f"{s.bullet.id}  {s.state:<15}  {short(s.bullet.text, 90)}"
             + (f"\n      cite: {short(' '.join(s.references), 300)}" if s.references else "") for s in states]
    uncovered = [s.bullet.id for s in states if s.state != STATE_COVERED]
    return "\n".join(brief + [f"uncovered: {', '.join(uncovered) if uncovered else 'none'}"])


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

