"""Are a researcher's findings usable? The same rules as the verifier
(`findings.findings_checks`, `integrity`), in two groups:

- `findings_problems`: the document's frontmatter. Findings without a valid
  `status` (and `reason` when it is not ok) make a failure invisible, so a
  researcher whose reply has them is sent back once and then recorded as a
  silent failure.
- `citation_problems`: each citation's required fields, its excerpt against
  the page snapshot (with the closest passage of the page), and, the run's
  seals given, a citation whose page no fetch of this run sealed (a page never
  read). Checked while the researcher can still read the page, so it can
  correct its own quote; at a second stop a wrong quote is not held against it
  (verify reports what remains), but
- `unread_citations`, a citation of a page never read, is: the reply is no
  result, and the plugin's stub stays (a silent failure, which the Gaps name;
  the brief may be dispatched once more). The reply is not sealed without that
  citation either: its claims stand on the page, and cutting them would make
  the plugin the author of what is left, from a researcher that cited a page it
  never read after it was told.

Both read the text given (the document the plugin is about to write from the
researcher's reply, run/findings_reply.py) or else the file on disk, and write
nothing. `where` says where a problem is: by default `<path>:<line>`; for a
reply, its line in the reply.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping

from ..checks.citation_checks import citation_checks
from ..checks.claims import claim_records, claims_checks, plan_bullet_ids, sealed_page_titles
from ..checks.findings import findings_checks, load_findings
from ..checks.integrity import citation_integrity_checks
from ..checks.markdown_form import findings_form_check
from ..checks.text_controls import bidi_check, blank_check, control_check
from ..core.fsutil import RunFileError, read_run_file, read_run_text
from ..core.schema_validation import load_schema
from ..formats import FINDINGS_PLUGIN_FIELDS, FINDINGS_STUB_REASON, MAX_MARKDOWN_BYTES, PLAN_FILE, STATUS_FAILED
from .adapter import log_failure
from .briefs_match import Brief

# Check ids (after "findings.<slug>.") that SubagentStop insists on.
FRONTMATTER_CHECKS = ("frontmatter", "status", "reason", "subtopic", "brief_hash")
CITATION_CHECKS = ("citations.required", "citations.verbatim", "citations.snapshot", "citations.title",
                   "citations.final_url", "claims.grounded", "text.bidi",
                   "text.controls", "text.blank", "markdown")
FRONTMATTER_SCHEMA = "findings-frontmatter.schema.json"


def required_fields_text() -> str:
    """The frontmatter fields a researcher writes itself, read from the schema: "status, and
    reason when status is empty or failed" (the plugin fills in formats.FINDINGS_PLUGIN_FIELDS)."""

    schema = load_schema(FRONTMATTER_SCHEMA)
    required = [name for name in schema["required"] if name not in FINDINGS_PLUGIN_FIELDS]
    conditional = [name for rule in schema.get("allOf", []) for name in rule.get("then", {}).get("required", [])
                   if name not in required]
    text = ", ".join(required)
    if conditional:
        text += ", and " + ", ".join(conditional) + " when status is empty or failed"
    return text


Where = Callable[[Path, "int | None"], str]


def at_path(path: Path, line: int | None) -> str:
    return f"{path}:{line or 1}"


def _load(brief: Brief, text: str | None = None) -> "tuple[Any, list[str]]":
    """(parsed findings or None, problems reading it). `text` given: that document, as the
    findings file; else reads only a bounded regular file inside the run (fsutil), never
    following a link out of it."""
    path = Path(brief.findings_path)
    if text is not None:
        return load_findings(path, text), []
    try:
        text = read_run_text(path, path.parent.parent, MAX_MARKDOWN_BYTES)  # <run>/findings/<slug>.md
    except RunFileError as exc:
        return None, [f"{path}: {'the file does not exist' if exc.missing else exc.reason}"]
    return load_findings(path, text), []


def _problems(checks, wanted: set[str], path: Path, where: Where = at_path) -> list[str]:
    return [f"{where(Path(check.path or path), check.line)}: {check.message}" for check in checks
            if not check.ok and check.severity == "error" and check.id in wanted]


def _checked(brief: Brief, rules: Callable[[Brief, Any], list[str]], missing: bool,
             text: str | None = None) -> list[str]:
    """Run `rules` on the parsed file. The file is the researcher's own output, so
    anything in it that makes the check fail to complete (an exception, the hook's
    deadline) is a problem of the file: the gate holds instead of failing open.
    `missing`: whether an unreadable or absent file is reported here."""
    path = Path(brief.findings_path)
    try:
        found, problems = _load(brief, text)
        if found is None:
            return problems if missing else []
        return rules(brief, found)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        log_failure(f"checking {path}", os.environ)
        return [f"{path}: could not be checked ({type(exc).__name__}: {str(exc)[:200]})"]


def findings_problems(brief: Brief, text: str | None = None, where: Where = at_path) -> list[str]:
    """Each frontmatter problem as "<where>: <what is wrong>"; empty when the findings are usable."""
    return _checked(brief, lambda b, found: _frontmatter_problems(b, found, where), missing=True, text=text)


def _frontmatter_problems(brief: Brief, found: Any, where: Where = at_path) -> list[str]:
    run_dir = found.path.parent.parent
    brief_bytes = None
    try:
        brief_bytes = read_run_file(Path(brief.brief_path), run_dir)
    except RunFileError:
        pass
    scope = f"findings.{brief.slug}."
    checks = findings_checks(brief.slug, None, found, brief_bytes, Path(brief.brief_path))
    problems = _problems(checks, {scope + name for name in FRONTMATTER_CHECKS}, found.path, where)
    meta = found.frontmatter or {}
    if meta.get("status") == STATUS_FAILED and meta.get("reason") == FINDINGS_STUB_REASON:
        problems.append(f"{where(found.path, 1)}: still the stub the plugin wrote when you started: you gave no "
                        "findings (give them, or status: failed with your own one-line reason)")
    return problems


def citation_problems(brief: Brief, sealed: Mapping[str, Any] | None = None, text: str | None = None,
                      where: Where = at_path) -> list[str]:
    """Each citation whose required fields are invalid, whose excerpt is not in
    its page snapshot (naming the closest passage) or, with the run's seals
    (`sealed`: path relative to the run -> seal), whose page has no sealed snapshot,
    as "<path>:<line>: <what>"."""
    return _checked(brief, lambda b, found: _citation_problems(b, found, sealed, where), missing=False, text=text)


def unread_citations(brief: Brief, sealed: Mapping[str, Any], text: str | None = None,
                     where: Where = at_path) -> list[str]:
    """Each citation whose page has no snapshot a fetch of this run sealed (`sealed`: the run's
    seals), as "<where>: <what>": a page the researcher never read."""
    return _checked(brief, lambda b, found: _unread(b, found, sealed, where), missing=False, text=text)


def _unread(brief: Brief, found: Any, sealed: Mapping[str, Any], where: Where) -> list[str]:
    if not found.citations:
        return []
    path = found.path
    checks = citation_integrity_checks(path.parent.parent, [(path, c) for c in found.citations], sealed)
    return _problems(checks, {f"findings.{brief.slug}.citations.snapshot"}, path, where)


def _plan_bullet_ids(run_dir: Path) -> frozenset[str] | None:
    """The plan's bullet ids, so a findings list item is read as verify reads it (a `4.99:` label
    the plan has no bullet for is a figure, issue 44); None when the plan cannot be read."""
    from ..run.plan import PlanError, load_plan  # the plan's reader only when a findings file is gated

    try:
        return plan_bullet_ids(load_plan(run_dir / PLAN_FILE, run_dir))
    except (PlanError, OSError):
        return None


def _citation_problems(brief: Brief, found: Any, sealed: Mapping[str, Any] | None = None,
                       where: Where = at_path) -> list[str]:
    path = found.path
    scope = f"findings.{brief.slug}"
    # The text as a person reads it: no control character, no Markdown form no check reads.
    shown = [control_check(scope, path, found.body, found.body_first_line),
             blank_check(scope, path, found.body, found.body_first_line),
             findings_form_check(scope, path, found.doc, (c.url for c in found.citations if c.url))]
    if not found.citations:
        return _problems(shown, {f"{scope}.{name}" for name in CITATION_CHECKS}, path, where)

    run_dir = path.parent.parent
    checks = shown + citation_checks(scope, path, found.citations, found.markers, found.sources_span)
    checks += citation_integrity_checks(run_dir, [(path, c) for c in found.citations], sealed)
    # The figure rule, told while the researcher still holds the page: each figure a cited
    # sentence states appears in an excerpt it cites (claims.py; verify checks the same).

    checks += claims_checks(claim_records(path, scope, found.doc, found.citations,
                                          sealed_page_titles(run_dir, sealed), _plan_bullet_ids(run_dir)))

    checks.append(bidi_check(scope, path, found.body, found.body_first_line))
    return _problems(checks, {f"{scope}.{name}" for name in CITATION_CHECKS}, path, where)
