"""The verification checklist of a run folder: `run_checklist(run_dir) -> list[Check]`.

It reads the folder and writes nothing, so `web-research verify`, `status`
and the hooks can all run it at any moment. The rules live in small per-file
modules (`citation_checks`, `findings`, `report`); this module only walks the folder,
parses each file once and collects their checks in a stable order.

Each check has a stable id (hooks and people match on these). `<slug>` is a
subtopic slug from plan.md; severities are errors unless marked (warning).

    plan.exists                           plan.md exists
    plan.readable                         ... and can be read (listed only when it cannot)
    plan.parses                           plan.md parses (question, 1-5 subtopics, budget, second wave)
    plan.names                            no subtopic name states an amount or count the question does not
                                          (headings.py: a name becomes a heading no check reads)
    provenance.links                      no symbolic link among the run's evidence (plan.md,
                                          report.md, briefs/, findings/, sources/, checks/,
                                          .web-research/, or directly inside those folders):
                                          one failing check per link (fsutil.evidence_links)
    findings.<slug>.exists                findings/<slug>.md exists for each subtopic
    findings.<slug>.readable              ... and can be read (`fsutil.read_run_text`: inside the run,
                                          a regular file, not a link loop, within the size limit,
                                          UTF-8); only a failing one is listed, as for plan and report
    findings.<slug>.frontmatter           frontmatter present, YAML mapping, fields valid
                                          (subtopic, brief_hash, started_at, finished_at)
    findings.<slug>.frontmatter.extra     (warning) fields the schema does not know
    findings.<slug>.status                status is ok, empty or failed
    findings.<slug>.reason                reason given for empty/failed, absent for ok
    findings.<slug>.subtopic              frontmatter subtopic equals the plan's name
    findings.<slug>.brief_hash            brief_hash equals the hash of briefs/<slug>.md
                                          (only when that brief exists)
    findings.<slug>.sources               one "## Sources" heading when the file cites anything
    findings.<slug>.citations.<rule>      the citation rules below, on the file's own citations
    findings.<slug>.citations.none        (warning) status ok but nothing cited
    findings.<slug>.text.bidi             no bidirectional control character (text.py: it makes the
                                          text display other than the checks read it)
    findings.<slug>.text.controls         no C0/C1 control character but tab, line feed and CRLF
                                          (a terminal acts on them: text_controls.py)
    findings.<slug>.text.blank            no blank-looking character (a braille blank, a filler, a zero-width
                                          space, a run of wide spaces: text_controls.py)
    findings.<slug>.markdown              the body holds only the allowed Markdown forms (markdown_form.py)
    findings.<slug>.claims.grounded       each figure a cited sentence states is in an excerpt it cites
                                          or the title of a page it cites
    findings.<slug>.layout                (warning) a body with sections follows the brief's skeleton
                                          (Claims ... Exit reason, Sources), exit reason named
    findings.<slug>.length                (warning) at most about 1,200 words before Sources
    findings.<slug>.uncited               (warning) Claims paragraphs or items without a footnote
    findings.<slug>.memory                (warning) wording such as "from memory", "training data"
    findings.unexpected                   (warning) files in findings/ no subtopic expects
    report.exists                         report.md exists
    report.readable                       ... and can be read (listed only when it cannot)
    report.references                     no [^<subtopic-slug>:<n>] reference is left for `finish` to number
    report.text.bidi                      no bidirectional control character, as in findings files
    report.text.controls                  no control character, as in findings files
    report.text.blank                     no blank-looking character, as in findings files
    report.title                          first line is "# Research: <question verbatim>"
    report.sections.missing               each of TL;DR, Findings, Gaps & Limitations, Sources
                                          appears as a "##" heading
    report.sections.duplicate             ... and only once
    report.sections.order                 ... in that order
    report.sections.extra                 no other "##" headings
    report.tldr.bullets                   TL;DR has 3 to 5 top-level bullets
    report.gaps.nonempty                  Gaps & Limitations has content
    report.gaps.names.<slug>              Gaps names each failed, empty or missing subtopic
    report.tldr.uncited                   every TL;DR bullet and paragraph carries a reference
    report.findings.uncited               every Findings paragraph, list item and table row carries one
    report.figures.uncited                every sentence in TL;DR or Findings that states a figure
                                          carries a reference in that sentence
    report.headings.figures               no heading in TL;DR or Findings states a figure (but a plan
                                          subtopic's name)
    report.headings.label                 each ### heading of Findings is a first-wave subtopic's name:
                                          formats.HEADING_RULE (headings.py)
    report.gaps.figures                   a sentence in Gaps & Limitations that states a figure carries
                                          a reference, or is the plan's (finish's own lines are not read)
    report.gaps.form                      every other sentence of Gaps & Limitations takes a form a check
                                          reads: a claim, a statement of absence, a fixed sentence
                                          (gaps_prose.py)
    report.references.form                every footnote-like mark outside Sources is a reference,
                                          [^<subtopic-slug>:<n>] or a number finish gave
                                          (statements.py, the last six)
    report.markdown                       only the allowed Markdown forms, in the template's shape:
                                          one title, nothing before TL;DR, ### only in Findings,
                                          nothing in Sources but its entries (markdown_form.py)
    report.citations.<rule>               the citation rules below, on report.md
    report.citations.provenance           each report entry is copied from a findings file
                                          (same title, URL and excerpt)
    report.citations.none                 (warning) the report cites nothing
    report.claims.grounded                each figure a cited sentence states is in an excerpt it cites
                                          or the title of a page it cites
    report.tldr.sites                     (warning) a TL;DR bullet whose excerpts all come from one
                                          site (registrable domain: sites.py), in a run whose
                                          sources span two sites or more
    report.coverage.<id>                  each plan bullet (id M.N) is supported by a source its
                                          findings cite under it, or named in Gaps by id or text
                                          (only when the briefs carry bullet ids: coverage.py)
    run.abandoned                         the run was not given up with `abandon` (abandonment.py)

Citation rules (`citation_checks.citation_checks`): `undefined` (a [^n] without an
entry), `orphan` (an entry never used), `duplicate` (two entries, one number),
`numbering` (numbers used run 1..n, entries ascending), `first_use` (warning:
numbers follow the order of first use), `placement` (entries
inside the Sources section), `required` (title, absolute http(s) URL, quoted
excerpt), `optional` (Retrieved date, Source type, no unknown labels).
Page-snapshot rules (`integrity.py`, run last as an extra group): `verbatim`
(the excerpt appears in the page snapshot of its URL), `snapshot` (warning:
no snapshot, not verifiable; an error in a run with seals, where every citation
needs a snapshot a researcher's fetch sealed), `title` (the cited title is the page's own, or its
main part: an error), `final_url` (the cited URL is the one the fetch ended at after redirects,
not one it was redirected from: an error), `site_root`, `repeated_url` (the same URL and excerpt
under two numbers), `retrieved`
(warnings; `retrieved`: the Retrieved date is the day of the snapshot's fetch stamp);
plus sources.records (warning: unreadable snapshot records) and
citations.integrity (the summary line, always passes). Then `provenance.sealed`
(provenance.py): snapshots, findings files, briefs and verdicts files against their seals.
Claim-check rules (`verdicts.py`, the last group; only when the plan's tier has a
claim check): `report.claims.checked` (every cited claim of report.md and every
statement of absence has a current verdict, voted when the tier votes),
`report.claims.verdict` (an unsupported or partial claim, wherever it stands),
`checks.verdicts` (warning: a verdicts file that is not valid JSON of its schema), and
`report.gaps.absence` (a statement of absence that a stored page's passage states, as the
checker judged it; without a claim check, one whose words a passage holds all: absence.py).
Claim rules (`claims.py`, the last group), scope `report` or `findings.<slug>`:
`<scope>.claims.grounded` (each figure a cited sentence states, years and dates
included, appears in an excerpt it cites or the sealed title of a page it cites;
one failing check per claim).

Defects in a findings file (or a missing one) can only be recorded, not
fixed, once the researchers are done: a failing `findings.<slug>.*` error is
reported as a warning when report.md's Gaps & Limitations names that subtopic
(its message then ends with "(recorded in Gaps & Limitations)").

A check that cannot apply (its file is missing, or the part it inspects is
already reported broken) is left out rather than failed, so that one defect
fails one check. When plan.md is unusable, the files found in findings/ are
still checked on their own (ids use the file name's stem as `<slug>`).
"""
from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any, Sequence

from ..core.result import Check, fail, ok
from .parsed_run import CheckGroup, ParsedRun
from .. import formats
from ..core.fsutil import RunFileError, evidence_links, read_run_file, read_run_text
from ..evidence.provenance import load_folder_copy, provenance_checks
from ..run.abandonment import abandoned_checks
from ..run.choices import parse_run_plan, read_start_record
from ..run.plan import PlanError
from .finish_lines import is_own, own_lines, second_wave_label
from .claims import claims_checks, run_claims, tldr_sites_check
from .citation_checks import present
from .coverage import coverage_checks
from .findings import findings_checks, load_findings
from .headings import heading_label_check, plan_name_error
from .integrity import citation_integrity_checks
from .report import gaps_name, parse_report, report_checks
from .report_references import references_check
from .absence import finish_lines
from .gaps_prose import gaps_form_check, gaps_sentences
from .markdown_form import findings_form_check, report_form_check
from .statements import statement_checks
from .text_controls import bidi_check, blank_check, control_check
from .verdicts import verdict_checks


def _seals_of(run_dir: Path, parsed: ParsedRun) -> Any:
    """The run's seal source (provenance.SealSource), read once: the one given (the Stop gate:
    the ledger), else the folder copy (standalone verify)."""
    if parsed.seal_source is None:
        parsed.seal_source = load_folder_copy(run_dir)
    return parsed.seal_source


def _page_snapshot_integrity(run_dir: Path, parsed: ParsedRun) -> "list[Check]":
    """Excerpts against page snapshots (integrity.py); Gaps acknowledge findings defects as usual.
    In a run the hooks managed (seals recorded) a citation needs a sealed snapshot."""
    source = _seals_of(run_dir, parsed)
    managed = source.required or source.seals is not None
    sealed = (source.seals or {}) if managed else None
    return _acknowledge_gaps(parsed, citation_integrity_checks(run_dir, parsed.cited, sealed))


def _claims_grounded(run_dir: Path, parsed: ParsedRun) -> "list[Check]":
    """Figures of cited claims against their excerpts (claims.py); Gaps acknowledge findings defects."""
    records = run_claims(parsed)
    sites = tldr_sites_check(parsed, records)
    return _acknowledge_gaps(parsed, claims_checks(records) + ([sites] if sites is not None else []))


def _sealed_provenance(run_dir: Path, parsed: ParsedRun) -> "list[Check]":
    """Evidence files against their seals (provenance.py). Never softened by Gaps: a changed
    snapshot or findings file is not a defect to record but evidence that cannot be trusted."""
    return provenance_checks(run_dir, _seals_of(run_dir, parsed))


def _claim_verdicts(run_dir: Path, parsed: ParsedRun) -> "list[Check]":
    """The claim-checker's verdicts on report.md's claims (verdicts.py), when the plan's tier asks."""
    return verdict_checks(run_dir, parsed)


# ---- Extension point ------------------------------------------------------
# Extra check groups, run after the built-in ones, in order. Each is called as
# group(run_dir, parsed_run) and returns a list of Check. Keep imports inside
# the callables so verify stays fast to start.
def _plan_coverage(run_dir: Path, parsed: ParsedRun) -> "list[Check]":
    """Each bullet of the plan supported in the report or named in Gaps (coverage.py)."""
    return coverage_checks(run_dir, parsed)


EXTRA_CHECK_GROUPS: tuple[CheckGroup, ...] = (_page_snapshot_integrity, _claims_grounded,
                                              _sealed_provenance, _plan_coverage, _claim_verdicts)
# ---------------------------------------------------------------------------


def _read(path: Path, run_dir: Path, parsed: ParsedRun, max_bytes: int | None = None) -> tuple[str | None, Any]:
    """The file's text, or why it cannot be used (`fsutil.RunFileError`): missing, or refused
    by `fsutil.read_run_text` (a link, a link loop, not a regular file, too large, not UTF-8),
    which is then recorded in `parsed.unreadable`. `max_bytes`: a lower size limit than
    fsutil's (Markdown files: `formats.MAX_MARKDOWN_BYTES`)."""
    try:
        return (read_run_text(path, run_dir) if max_bytes is None else read_run_text(path, run_dir, max_bytes)), None
    except RunFileError as exc:
        if not exc.missing:
            parsed.unreadable[path] = exc
        return None, exc


def _unreadable(scope: str, name: str, error: Any, path: Path) -> list[Check]:
    """The checks of a file that is there but cannot be used: it exists, and is not readable (why)."""
    return [ok(f"{scope}.exists", f"{name} exists", path),
            fail(f"{scope}.readable", f"{name} {error.reason}", path, getattr(error, "line", None))]


MAX_LINKS_LISTED = 20


def _link_checks(run_dir: Path, parsed: ParsedRun) -> list[Check]:
    """The run's evidence holds no symbolic link (fsutil.evidence_links: the one rule every
    reader follows; a link is never read through, and here it fails)."""
    links = evidence_links(run_dir)
    if not links:
        return [ok("provenance.links", "no symbolic link among the run's evidence", run_dir)]
    checks = [fail("provenance.links", f"{rel} is a symbolic link; a run's evidence is read only where it is, never "
                                "through a link: replace it with the file or folder itself", run_dir / rel)
              for rel in links[:MAX_LINKS_LISTED]]
    if len(links) > MAX_LINKS_LISTED:
        checks.append(fail("provenance.links", f"... and {len(links) - MAX_LINKS_LISTED} more symbolic link(s)", run_dir))
    return checks


def _plan_checks(run_dir: Path, parsed: ParsedRun) -> list[Check]:
    path = run_dir / formats.PLAN_FILE
    text, error = _read(path, run_dir, parsed)
    if error is not None and error.missing:
        return [fail("plan.exists", f"{formats.PLAN_FILE} is missing; expected the research plan here", path)]
    if text is None:
        return _unreadable("plan", formats.PLAN_FILE, error, path)
    checks = [ok("plan.exists", f"{formats.PLAN_FILE} exists", path)]
    try:  # held to start's record: the person's question and tier decide what is checked
        parsed.plan = parse_run_plan(text, path, read_start_record(run_dir))
    except PlanError as exc:
        # One check, at the first mistake, naming every other one with its line.
        more = "; ".join(f"line {e.line}: {e.message}" for e in exc.errors[1:])
        return checks + [fail("plan.parses", str(exc.message) + (f" (also {more})" if more else ""), path,
                              exc.line if isinstance(exc.line, int) else None)]
    plan = parsed.plan
    named = plan_name_error(plan, path)
    return checks + [ok("plan.parses", f"plan parses: {len(plan.subtopics)} subtopic(s)", path),
                     ok("plan.names", "no subtopic name states an amount or count the question does not", path)
                     if named is None else fail("plan.names", str(named.message) + _also(named), path, named.line)]


def _also(error: PlanError) -> str:
    """The other mistakes of a PlanError, each with its line."""
    more = "; ".join(f"line {e.line}: {e.message}" for e in error.errors[1:])
    return f" (also {more})" if more else ""


def _findings_checks(run_dir: Path, parsed: ParsedRun) -> list[Check]:
    findings_dir = run_dir / formats.FINDINGS_DIR
    briefs_dir = run_dir / formats.BRIEFS_DIR
    on_disk = sorted(findings_dir.glob("*.md")) if findings_dir.is_dir() else []
    checks: list[Check] = []
    if parsed.plan is not None:
        expected = [(s.slug, s) for s in parsed.plan.all_subtopics]
    else:
        expected = [(p.stem, None) for p in on_disk]
    expected_slugs = {slug for slug, _ in expected}
    for slug, subtopic in expected:
        path = findings_dir / f"{slug}.md"
        check_id = f"findings.{slug}.exists"
        text, error = _read(path, run_dir, parsed, formats.MAX_MARKDOWN_BYTES)
        if error is not None and error.missing:
            what = f' for subtopic "{subtopic.name}"' if subtopic is not None else ""
            checks.append(fail(check_id, f"findings/{slug}.md is missing{what}; every subtopic needs a "
                                         "findings file, even a failed one", path))
            continue
        if text is None:
            checks.extend(_unreadable(f"findings.{slug}", f"findings/{slug}.md", error, path))
            continue
        checks.append(ok(check_id, f"findings/{slug}.md exists", path))
        checks.append(bidi_check(f"findings.{slug}", path, text))
        checks.append(control_check(f"findings.{slug}", path, text))
        checks.append(blank_check(f"findings.{slug}", path, text))
        found = load_findings(path, text)
        parsed.findings[slug] = found
        checks.append(findings_form_check(f"findings.{slug}", path, found.doc,
                                          (c.url for c in found.citations if c.url)))
        brief_path = briefs_dir / f"{slug}.md"
        brief = None
        try:
            brief = read_run_file(brief_path, run_dir)
        except RunFileError as exc:
            if not exc.missing:
                checks.append(fail(f"findings.{slug}.brief_hash", f"briefs/{slug}.md {exc.reason}; "
                                   "the findings cannot be matched to their brief", brief_path))
        checks.extend(findings_checks(slug, subtopic.name if subtopic is not None else None,
                                      found, brief, brief_path))
    unexpected = [p for p in on_disk if p.stem not in expected_slugs]
    if parsed.plan is not None:
        if unexpected:
            names = ", ".join(f"findings/{p.name}" for p in unexpected)
            checks.append(fail("findings.unexpected", f"{names}: no subtopic in plan.md expects "
                               f"{'this file' if len(unexpected) == 1 else 'these files'}",
                               unexpected[0], None, "warning"))
        else:
            checks.append(ok("findings.unexpected", "every file in findings/ belongs to a subtopic",
                             findings_dir, "warning"))
    return checks


def _report_checks(run_dir: Path, parsed: ParsedRun) -> list[Check]:
    path = run_dir / formats.REPORT_FILE
    parsed.report_path = path
    text, error = _read(path, run_dir, parsed, formats.MAX_MARKDOWN_BYTES)
    if error is not None and error.missing:
        return [fail("report.exists", f"{formats.REPORT_FILE} is missing; expected the synthesized report here",
                     path)]
    if text is None:
        return _unreadable("report", formats.REPORT_FILE, error, path)
    parsed.report = parse_report(text)
    gaps_needed: list[tuple] = []  # (slug, name, status, how finish's line labels a second-wave one)
    if parsed.plan is not None:
        for s in parsed.plan.all_subtopics:
            found = parsed.findings.get(s.slug)
            if found is None:
                unusable = run_dir / formats.FINDINGS_DIR / f"{s.slug}.md" in parsed.unreadable
                gaps_needed.append((s.slug, s.name, "unreadable" if unusable else "missing",
                                    second_wave_label(parsed.plan, s)))
            elif found.status in (formats.STATUS_EMPTY, formats.STATUS_FAILED):
                gaps_needed.append((s.slug, s.name, found.status, second_wave_label(parsed.plan, s)))
    question = parsed.plan.question if parsed.plan is not None else None
    findings_citations = [c for found in parsed.findings.values() for c in found.citations]
    names = [s.name for s in parsed.plan.all_subtopics] if parsed.plan is not None else []
    ids = [b.id for b in parsed.plan.bullets] if parsed.plan is not None else []
    own = None  # whether a line is one finish writes (None without a plan: not known)
    planned: list[str] = []  # the plan's words written before any page was read
    if parsed.plan is not None:
        unreadable = {p.stem: getattr(e, "reason", str(e)) for p, e in parsed.unreadable.items()
                      if p.parent.name == formats.FINDINGS_DIR}
        lines = own_lines(parsed.plan, parsed.findings, unreadable)
        own = partial(is_own, own=lines)
        planned = [s.name for s in parsed.plan.subtopics] + [b.text for b in parsed.plan.bullets]
    return [ok("report.exists", f"{formats.REPORT_FILE} exists", path), references_check(path, text),
            bidi_check("report", path, text), control_check("report", path, text),
            blank_check("report", path, text)] + \
        report_checks(path, parsed.report, question, gaps_needed, findings_citations) + \
        statement_checks(path, parsed.report, names, question, ids, own, planned) + \
        present([heading_label_check(path, parsed.report, [s.name for s in parsed.plan.subtopics])
                 if parsed.plan is not None else None]) + \
        ([gaps_form_check(path, gaps_sentences(parsed.report, finish_lines(parsed),
                                                names + [s.slug for s in parsed.plan.all_subtopics]))]
         if parsed.plan is not None else []) + \
        [report_form_check(path, parsed.report, (c.url for c in findings_citations if c.url))]


def _acknowledge_gaps(parsed: ParsedRun, checks: list[Check]) -> list[Check]:
    """Turn failing `findings.<slug>.*` errors into warnings when report.md's
    Gaps & Limitations names that subtopic.

    Only report.md may be edited after the researchers return, so a defect in
    a findings file (or a missing one) can only be recorded, never fixed: once
    recorded in Gaps it is no longer a silent failure, and verify can pass.
    Without such an entry it stays an error.
    """
    if parsed.report is None or parsed.plan is None:
        return checks
    named = {s.slug for s in parsed.plan.all_subtopics
             if gaps_name(parsed.report, s.name, s.slug, second_wave_label(parsed.plan, s))}
    if not named:
        return checks
    out = []
    for check in checks:
        parts = check.id.split(".")
        if (not check.ok and check.severity == "error" and parts[0] == "findings"
                and len(parts) > 2 and parts[1] in named):
            check = check._replace(severity="warning",
                            message=check.message + " (recorded in Gaps & Limitations)")
        out.append(check)
    return out


def _abandoned(run_dir: Path, parsed: ParsedRun) -> list[Check]:
    """An abandoned run (abandonment.py) fails: giving up is never a pass."""
    return abandoned_checks(run_dir, parsed)


BUILTIN_CHECK_GROUPS: tuple[CheckGroup, ...] = (_plan_checks, _link_checks, _findings_checks, _report_checks,
                                                  _abandoned)


def parse_and_check(run_dir: Path, extra: Sequence[CheckGroup] | None = None,
                    seal_source: Any = None) -> tuple[ParsedRun, list[Check]]:
    """Run every group and also return what was parsed (for `status`). `seal_source`
    (provenance.SealSource): the seals to check against, default the folder copy."""
    run_dir = Path(run_dir)
    parsed = ParsedRun(run_dir=run_dir, seal_source=seal_source)
    checks: list[Check] = []
    for group in BUILTIN_CHECK_GROUPS:
        checks.extend(group(run_dir, parsed))
    checks = _acknowledge_gaps(parsed, checks)
    for group in tuple(EXTRA_CHECK_GROUPS if extra is None else extra):
        checks.extend(group(run_dir, parsed))
    return parsed, checks


def run_checklist(run_dir: Path, seal_source: Any = None) -> list[Check]:
    """Every check for the run folder `run_dir`, in a stable order. Read-only."""
    return parse_and_check(run_dir, seal_source=seal_source)[1]
