"""`verify --deep`: every page extracted again from its WARC (evidence/reextract.py), as checks.

    archive.reextracted        one passing line: how many pages gave their stored text again,
                               and how many were never archived (runs from before fetch kept a
                               WARC: stated, never a failure)
    archive.reextracted        error: a page whose text extracted again differs with the recorded
                               extractor version, or whose WARC is missing, unreadable, fails its
                               digests or holds another body than the record says;
                               warning: it differs, and this Python's extractor is another version

Slow on purpose (one extraction per page, seconds each), so not part of the checklist that
the hooks and a plain `verify` run.
"""
from __future__ import annotations

from pathlib import Path

from ..core.result import Check, fail, ok
from ..evidence.reextract import BROKEN, DIFFERS, NEVER_ARCHIVED, OTHER_VERSION, SAME, reextract_run

CHECK_ID = "archive.reextracted"


def archive_checks(run_dir: Path) -> list[Check]:
    results, problems = reextract_run(Path(run_dir))
    checks: list[Check] = []
    for item in results:
        rel = f"{item.snapshot.meta_path.parent.name}/{item.snapshot.text_path.name}"
        if item.state in (DIFFERS, BROKEN):
            checks.append(fail(CHECK_ID, f"{rel} ({item.snapshot.final_url}): {item.detail}", item.snapshot.text_path))
        elif item.state == OTHER_VERSION:
            checks.append(fail(CHECK_ID, f"{rel} ({item.snapshot.final_url}): {item.detail}", item.snapshot.text_path,
                               severity="warning"))
    for message in problems:
        checks.append(fail(CHECK_ID, f"a snapshot record cannot be read, so its page cannot be extracted again: "
                                     f"{message}", run_dir))
    same = sum(1 for item in results if item.state == SAME)
    never = sum(1 for item in results if item.state == NEVER_ARCHIVED)
    summary = f"archive: {same} of {len(results)} page(s) extracted again from their WARC give their stored text"
    if never:
        summary += (f"; {never} page(s) never archived (fetched before fetch kept the page's WARC: their text "
                    "cannot be extracted again, and nothing fails for it)")
    checks.insert(0, ok(CHECK_ID, summary, run_dir))
    return checks
