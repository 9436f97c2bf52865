"""Did a researcher leave a usable findings file? The same rules as the verifier
(`findings.findings_checks`, `integrity`), in two groups:

- `findings_problems`: the file's existence and frontmatter. A file without a
  valid `status` (and `reason` when it is not ok) makes a failure invisible, so
  a researcher that stops with one is blocked once and then recorded as a
  silent failure.
- `citation_problems`: each citation's required fields, and its excerpt against
  the page snapshot (with the closest passage of the page). Checked while the
  researcher still holds the page, so it can correct its own quote; a second
  stop is not held against it (verify reports what remains).

Both are pure over the run folder: they read files and write nothing.
"""
from __future__ import annotations

from pathlib import Path

from .briefs_match import Brief

# Check ids (after "findings.<slug>.") that SubagentStop insists on.
FRONTMATTER_CHECKS = ("frontmatter", "status", "reason", "subtopic", "brief_hash")
CITATION_CHECKS = ("citations.required", "citations.verbatim")
FRONTMATTER_SCHEMA = "findings-frontmatter.schema.json"


def required_fields_text() -> str:
    """The frontmatter fields a findings file needs, read from its schema:
    "status, subtopic, ..., and reason when status is empty or failed"."""
    from ..citations import load_schema

    schema = load_schema(FRONTMATTER_SCHEMA)
    required = [name for name in schema["required"]]
    conditional = [name for rule in schema.get("allOf", []) for name in rule.get("then", {}).get("required", [])
                   if name not in required]
    text = ", ".join(required)
    if conditional:
        text += ", and " + ", ".join(conditional) + " when status is empty or failed"
    return text


def _load(brief: Brief):
    """(parsed findings or None, problems reading it)."""
    path = Path(brief.findings_path)
    if not path.is_file():
        return None, [f"{path}: the file does not exist"]
    from ..findings import load_findings

    try:
        return load_findings(path), []
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path}: cannot be read ({exc})"]


def _problems(checks, wanted: set[str], path: Path) -> list[str]:
    return [f"{check.path or path}:{check.line or 1}: {check.message}" for check in checks
            if not check.ok and check.severity == "error" and check.id in wanted]


def findings_problems(brief: Brief) -> list[str]:
    """Each frontmatter problem as "<path>:<line>: <what is wrong>"; empty when the file is usable."""
    found, problems = _load(brief)
    if found is None:
        return problems
    from ..findings import findings_checks

    brief_bytes = None
    try:
        brief_bytes = Path(brief.brief_path).read_bytes()
    except OSError:
        pass
    scope = f"findings.{brief.slug}."
    checks = findings_checks(brief.slug, None, found, brief_bytes, Path(brief.brief_path))
    return _problems(checks, {scope + name for name in FRONTMATTER_CHECKS}, found.path)


def citation_problems(brief: Brief) -> list[str]:
    """Each citation whose required fields are invalid or whose excerpt is not in
    its page snapshot (naming the closest passage), as "<path>:<line>: <what>"."""
    found, _problems_reading = _load(brief)
    if found is None or not found.citations:
        return []
    from ..citations import citation_checks
    from ..integrity import citation_integrity_checks

    path = found.path
    run_dir = path.parent.parent
    scope = f"findings.{brief.slug}"
    checks = citation_checks(scope, path, found.citations, found.markers, found.sources_span)
    checks += citation_integrity_checks(run_dir, [(path, c) for c in found.citations])
    return _problems(checks, {f"{scope}.{name}" for name in CITATION_CHECKS}, path)
