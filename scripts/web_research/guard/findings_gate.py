"""Did a researcher leave a usable findings file? The same rules as the verifier
(`findings.findings_checks`), restricted to the file's existence and frontmatter:
the body's citations are the report's business, but a file without a valid
`status` (and `reason` when it is not ok) makes a failure invisible.
"""
from __future__ import annotations

import os
from pathlib import Path

from .briefs_match import Brief

# Check ids (after "findings.<slug>.") that SubagentStop insists on.
FRONTMATTER_CHECKS = ("frontmatter", "status", "reason", "subtopic", "brief_hash")


def findings_problems(brief: Brief) -> list[str]:
    """Each problem as "<path>:<line>: <what is wrong>"; empty when the file is usable.

    The file is the researcher's own output, so anything in it that makes the check
    fail to complete (an exception, the hook's deadline) is a problem of the file:
    the gate holds instead of failing open."""
    from ..fsutil import RunFileError, read_run_text

    path = Path(brief.findings_path)
    run_dir = path.parent.parent  # <run>/findings/<slug>.md
    try:
        text = read_run_text(path, run_dir)
    except RunFileError as exc:
        return [f"{path}: {'the file does not exist' if exc.missing else exc.reason}"]
    try:
        return _frontmatter_problems(brief, path, text, run_dir)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        from .runner import log_failure

        log_failure(f"checking {path}", os.environ)
        return [f"{path}: could not be checked ({type(exc).__name__}: {str(exc)[:200]})"]


def _frontmatter_problems(brief: Brief, path: Path, text: str, run_dir: Path) -> list[str]:
    from ..findings import findings_checks, load_findings
    from ..fsutil import RunFileError, read_run_file

    found = load_findings(path, text)
    brief_bytes = None
    try:
        brief_bytes = read_run_file(Path(brief.brief_path), run_dir)
    except RunFileError:
        pass
    scope = f"findings.{brief.slug}."
    wanted = {scope + name for name in FRONTMATTER_CHECKS}
    problems = []
    for check in findings_checks(brief.slug, None, found, brief_bytes, Path(brief.brief_path)):
        if check.ok or check.severity != "error" or check.id not in wanted:
            continue
        problems.append(f"{check.path or path}:{check.line or 1}: {check.message}")
    return problems
