"""What the orchestrator is told to do next, in the words it reads: one place for `finish`'s
answers (printed by the command, and given by the hooks as context after report.md's Write and
after a claim-checker returns).

Every text stays well within what the client shows the model (a hook's context is cut past
10,000 characters, a command's output past about 30,000: tests/e2e/test_e2e_client_limits.py):
failures come first, one short line each and a bounded number of them; the whole list, with the
passages the claims cite, goes to a file in the run's state folder that the model can Read.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from .. import formats
from ..core.fsutil import atomic_write_text
from ..core.terminal import printable
from .finish import CHECK, DONE, REFERENCES_CHECK, Outcome

MAX_LISTED = 12  # failing checks listed in the answer itself
MAX_LINE = 600  # characters of one failing check in the answer
MAX_TEXT = 6_000  # characters of a whole answer: a third of the room a hook's context has
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
                "When it returns, run finish again.")
    lines = failure_lines(outcome, run_dir)
    errors = [c for c in outcome.checks if not c.ok and c.severity == "error"] if not outcome.problems else lines
    full = write_failures(run_dir, lines, outcome.notes)
    head = (f"{run_dir / formats.REPORT_FILE} fails {len(errors)} check(s). Round {outcome.rounds} of {formats.MAX_VERIFY_ROUNDS} "
            "of fixes:")
    tail = (f"Fix each in report.md (prose and references only), or, where the evidence is not there, remove the "
            "claim and say so under Gaps & Limitations. Make every fix and finish in ONE message: your Edits of "
            f"report.md, then {finish_command(program, run_dir)}.")
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

