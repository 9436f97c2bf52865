"""`web-research briefs DIR`: write briefs/<slug>.md for every subtopic and print, as a JSON list,
the briefs still to dispatch (subtopic, brief_path, findings_path): a brief whose researcher wrote
its findings file is done (briefs.still_to_dispatch). The orchestrator dispatches each with the
prompt `Brief: <brief_path>`; the hook puts the brief's text in its place."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..checks.headings import plan_name_error
from ..exitcodes import EXIT_OK, EXIT_USAGE
from ..formats import PLAN_FILE
from ..core.fsutil import RunFileError
from ..run.briefs import TemplateError, render_and_approve
from ..run.choices import load_run_plan
from ..run.plan import PlanError
from .verify_cmd import open_run_dir


def run(args: argparse.Namespace) -> int:
    if open_run_dir(args.dir, "briefs") is None:
        return EXIT_USAGE
    try:
        run_dir = Path(os.path.abspath(args.dir))
        named = plan_name_error(load_run_plan(run_dir), run_dir / PLAN_FILE)  # a name states no figure
        if named is not None:
            raise named
        listed = render_and_approve(run_dir)
    except RunFileError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (PlanError, TemplateError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as error:
        # The file at fault, which need not be the folder (say a file of the installation).
        print(f"error: {error.filename or args.dir}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    text = json.dumps(listed, ensure_ascii=False, indent=2)
    sys.stdout.buffer.write((text + "\n").encode("utf-8"))
    return EXIT_OK
