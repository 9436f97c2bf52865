"""`web-research slug [--date YYYY-MM-DD] QUESTION`: print the slug (or the run-folder name)."""
from __future__ import annotations

import argparse
import datetime
import re
import sys

from ..exitcodes import EXIT_OK, EXIT_USAGE
from ..core.slug import dated_slug, slugify


def run(args: argparse.Namespace) -> int:
    if args.date is None:
        print(slugify(args.question))
        return EXIT_OK
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.date):
            raise ValueError(args.date)
        date = datetime.date.fromisoformat(args.date)
    except ValueError:
        print(f"error: --date: got {args.date!r}; expected a date as YYYY-MM-DD", file=sys.stderr)
        return EXIT_USAGE
    print(dated_slug(args.question, date))
    return EXIT_OK
