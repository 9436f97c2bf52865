"""`web-research recheck DIR [--json] [--only N,...]`: are the report's citations still true?

Fetches each page report.md cites once more, with `fetch`'s transport, address policy and
limits (the same WEB_RESEARCH_FETCH_TIMEOUT and other variables, fetch_cmd.limits_from_env),
a few at a time, with `N of M pages` on stderr as they come in; then prints one line per
footnote with its state (recheck/record.py) and, for each that is not unchanged, what was
found. `--json` prints the record instead. The run's evidence is never touched: the record is
checks/recheck-<UTC time>.json and the live texts lie in rechecks/<UTC time>/, in DIR or in the
folder `--out` names.

A person's command, for any run folder (a run of this plugin, an old one, a folder checked
standalone); inside a research run the hooks deny it (guard/rules/room.py).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.terminal import escaped_json, one_line
from ..exitcodes import EXIT_CHECK_FAILED, EXIT_NO_VERDICT, EXIT_OK, EXIT_USAGE
from ..recheck.live import Transport
from ..recheck.record import (BYTES_CHANGED, BYTES_SAME, CHANGED, GONE, MOVED, NEVER_ARCHIVED, UNCHANGED, UNREACHABLE,
                              RecheckRecord, RecheckRecordError)
from ..recheck.session import RecheckInputError, recheck_run
from .fetch_cmd import limits_from_env, missing_extractors
from .verify_cmd import display_path, open_run_dir

_LABEL_WIDTH = max(len(s) for s in (UNCHANGED, CHANGED, MOVED, GONE, UNREACHABLE))


def exit_code(record: RecheckRecord) -> int:
    """0: every citation unchanged; 1: one changed, moved or gone; 3: the others only unreachable."""
    counts = record.summary()
    if counts[CHANGED] or counts[MOVED] or counts[GONE]:
        return EXIT_CHECK_FAILED
    if counts[UNREACHABLE]:
        return EXIT_NO_VERDICT
    return EXIT_OK


def report_lines(record: RecheckRecord, shown_dir: str, skipped: tuple[tuple[int, str], ...] = (),
                 written_dir: str | None = None) -> list[str]:
    """The people's view: one line per footnote, what differs under each that is not unchanged,
    then the summary and where the record and the live texts are. Report and live page text is
    shown without control or format characters, as the run's ending shows it. `written_dir`: where
    the record and the live texts went, when not the run folder (--out)."""
    lines = [f"Recheck of {shown_dir}/report.md against the live pages, {record.started_at.replace('T', ' ')[:16]} "
             f"UTC ({len(record.pages)} page{'s' if len(record.pages) != 1 else ''} fetched)"]
    for citation in record.citations:  # report and page text: one printable line each (core/terminal.py)
        lines.append(f"  [^{citation.number}] {citation.state:<{_LABEL_WIDTH}}  {one_line(citation.url)}")
        if citation.state == UNCHANGED:
            continue
        lines.append(f"        {one_line(citation.note)}")
        if citation.closest and citation.excerpt_found is False:
            lines.append(f"        closest live passage: \"{one_line(citation.closest)}\"")
    for number, why in skipped:
        lines.append(f"  [^{number}] skipped: {one_line(why)}, nothing to recheck")
    lines.extend(bytes_lines(record))
    counts = record.summary()
    lines.append(f"Summary: {record.summary_line()}")
    if counts[UNREACHABLE]:
        lines.append(f"{counts[UNREACHABLE]} unreachable: no verdict on those; run recheck again later")
    written = written_dir or shown_dir
    lines.append(f"Record: {written}/{record.path.parent.name}/{record.path.name}" if record.path else "")
    lines.append(f"Live texts: {written}/{record.live_dir}/ (the run's sources/ and report are unchanged)")
    return [line for line in lines if line]


def bytes_lines(record: RecheckRecord) -> list[str]:
    """One line on the pages' bytes against their archived WARCs: how many are byte for byte
    what was fetched, which changed, how many were never archived."""
    pages = [p for p in record.pages if p.bytes is not None]
    if not pages:
        return []
    same = sum(1 for p in pages if p.bytes == BYTES_SAME)
    changed = [p.url for p in pages if p.bytes == BYTES_CHANGED]
    never = sum(1 for p in pages if p.bytes == NEVER_ARCHIVED)
    never_text = f"{never} page(s) never archived (fetched before fetch kept a WARC)"
    if same + len(changed) == 0:
        return [f"Bytes: {never_text}, so no bytes to compare"]
    line = f"Bytes: {same} of {same + len(changed)} archived page(s) send the same body as their WARC"
    if changed:
        line += f"; changed: {', '.join(one_line(url) for url in changed[:5])}{' ...' if len(changed) > 5 else ''}"
    if never:
        line += f"; {never_text}"
    return [line]


def _progress(done: int, total: int) -> None:
    end = "\n" if done == total or not sys.stderr.isatty() else ""
    print(f"\rweb-research recheck: {done} of {total} page{'s' if total != 1 else ''}", end=end, file=sys.stderr,
          flush=True)


def run(args: argparse.Namespace) -> int:
    run_dir = open_run_dir(args.dir, "recheck")
    if run_dir is None:
        return EXIT_USAGE
    missing = missing_extractors()
    if missing:
        print(f"web-research recheck: {missing}", file=sys.stderr)
        return EXIT_USAGE
    fetch_limits, extract_limits = limits_from_env()
    transport = Transport(fetch_limits, extract_limits, allow_loopback=args.allow_loopback)
    try:
        result = recheck_run(run_dir, transport, only=args.only, progress=_progress,
                             out_dir=Path(args.out).expanduser() if args.out else None)
    except (RecheckInputError, RecheckRecordError, OSError) as exc:
        print(f"web-research recheck: {args.dir}: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(escaped_json(json.dumps({**result.record.to_json(), "record": str(result.path),
                                       "skipped": [{"number": n, "why": why} for n, why in result.skipped]},
                                      ensure_ascii=False, indent=1)))
    else:
        written = display_path(str(result.path.parent.parent)) if args.out else None
        print("\n".join(report_lines(result.record, display_path(str(run_dir)), result.skipped, written)))
    return exit_code(result.record)
