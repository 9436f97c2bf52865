"""`web-research view DIR [--open]`: write DIR/report.html, the report with its evidence.

One self-contained page (view/html.py): the report rendered from report.md,
each footnote opening its source (fields, seal, the excerpt highlighted in the
stored page text, the claim-checker's verdict), the plan's coverage, what the
run spent (with dollars) and the verification result. `--open` then hands it
to the person's browser when one is available (nothing happens where none is).
Exit 0 when the page is written, whatever the run's state; 2 when the folder
cannot be used or the page cannot be written.
"""
from __future__ import annotations

import argparse
import os
import sys
import webbrowser

from ..exitcodes import EXIT_OK, EXIT_USAGE
from .verify_cmd import open_run_dir
from ..core.paths import data_dir
from ..view.html import write_view


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "view")
    if run_dir is None:
        return EXIT_USAGE
    try:
        path = write_view(run_dir, env=os.environ, data_dir=data_dir(os.environ))
    except OSError as exc:
        print(f"web-research view: {args.dir}: cannot write the view ({exc.strerror or exc})", file=sys.stderr)
        return EXIT_USAGE
    print(path)
    if getattr(args, "open", False):
        _open_in_browser(path)
    return EXIT_OK


def _open_in_browser(path) -> None:
    """Hand the page to the person's browser; say so on stderr when there is none."""
    try:
        opened = webbrowser.open(path.as_uri())
    except webbrowser.Error:
        opened = False
    if not opened:
        print(f"web-research view: no browser available here; open {path} in one", file=sys.stderr)
