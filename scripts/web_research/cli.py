"""Command-line entry point: `web-research <subcommand>`.

This module only parses and dispatches: every subcommand is described once in
subcommands.py (help, arguments, exit codes, the module that runs it), and that
module is imported only when its command runs, so `--help` stays cheap. Nothing
imports this module but the entry points (`__main__`, the `web-research` script).
"""
from __future__ import annotations

import importlib
import os
import sys
from typing import Sequence

from .exitcodes import EXIT_BROKEN_PIPE
from .subcommands import SUBCOMMANDS, parser_for


def main(argv: Sequence[str] | None = None) -> int:
    args = parser_for(sys.argv[1:] if argv is None else argv).parse_args(argv)
    handler = importlib.import_module(f"{__package__}.commands.{SUBCOMMANDS[args.command].module}").run
    try:
        code = handler(args)
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    return code


def _quiet_broken_pipe() -> int:
    """`web-research verify DIR | head` closed our output early: stop without a traceback.

    Standard output is pointed at /dev/null so the interpreter's final flush of
    the unwritten rest cannot fail (and print) again.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
