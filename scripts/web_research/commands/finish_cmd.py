"""`web-research finish DIR`: number the report's references, write its Sources, verify, answer.

The orchestrator cites sources by reference (`[^<subtopic-slug>:<n>]`,
checks/report_references.py) and never writes `## Sources`. This command:

1. numbers every reference globally by first use and writes `## Sources` with
   each entry copied from its findings file, rewriting report.md atomically
   (only the markers and the Sources section change; the prose stays);
2. runs the verification checklist;
3. prints what to do next, or the exact JSON object the skill returns.

The steps live in report/finish.py (the assembly in report/assembly.py and
report/gaps.py); this command calls them in order and says what to do next.
It counts the rounds of fixes in `.web-research/finish.json`: a run whose
checklist fails (other than only for claims awaiting a checker) is one round.
After `formats.MAX_VERIFY_ROUNDS` rounds of fixes, the object it prints carries
`"verified": false` and the failing check ids. It can run any number of times:
references added later and numbers already assigned come out right, and a report
written the old way (numbered footnotes and a hand-written Sources section, no
reference) is checked as written.

Exit 0 when it printed the return object (stdout holds that object alone, and
nothing goes to stderr: a model reads both as one result) or the claim-checker to
dispatch (a step of the run, not an error), 1 when the report needs work (stdout says
what, failures first; report/steps.py words every answer), 2 when the folder cannot be
used. Notes are also kept in the record.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import formats
from ..exitcodes import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE
from ..core.paths import data_dir
from ..report.finish import DONE, FIX, finish_run
from ..report.steps import finish_answer
from ..view.html import write_view as write
from .verify_cmd import open_run_dir

PROGRAM = str(formats.PLUGIN_ROOT / "scripts" / "web-research")


def write_view(run_dir: Path) -> None:
    """report.html (`web-research view`), so the return object's `view` exists when a caller reads
    it; the Stop hook writes it again when the session's turn ends. Best effort: a failure is a
    note, never the run's verdict."""
    try:
        write(run_dir, env=os.environ, data_dir=data_dir(os.environ))
    except Exception as exc:  # noqa: BLE001 - the page is for people; the report's state is decided
        print(f"web-research finish: note: the report view could not be written ({type(exc).__name__}: "
              f"{' '.join(str(exc).split())[:200]}); run the view command for it.", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "finish")
    if run_dir is None:
        return EXIT_USAGE
    try:
        outcome = finish_run(run_dir)
    except Exception as exc:  # noqa: BLE001 - a bug must not look like a verdict on the report
        print(f"web-research finish: {args.dir}: cannot finish the run ({type(exc).__name__}: "
              f"{' '.join(str(exc).split())[:300]})", file=sys.stderr)
        return EXIT_USAGE
    if outcome.kind == DONE:
        write_view(run_dir)
    print(finish_answer(outcome, run_dir, PROGRAM))
    return EXIT_CHECK_FAILED if outcome.kind == FIX else EXIT_OK
