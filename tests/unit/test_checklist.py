"""The verification checklist: one test per rule.

Each case copies the bundled example run (which passes), breaks it in one
place, and asserts that exactly the expected checks fail, naming the right
file and line.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from example_run import (
    BILLING,
    builtin_checks,
    COMMITMENTS,
    COST,
    EXAMPLE_DIR,
    copy_example,
    failing,
    findings_path,
    line_of,
    replace_once,
)
from web_research.checks import checklist
from web_research import formats
from web_research.checks.checklist import ParsedRun, run_checklist
from web_research.core.result import Check, passed


@dataclass(frozen=True)
class Expect:
    id: str
    file: str  # relative to the run folder
    needle: str | None  # text on the expected line; None: the check names no line
    severity: str = "error"
    occurrence: int = 1


def _billing(run: Path) -> Path:
    return findings_path(run, BILLING)


def _report(run: Path) -> Path:
    return run / formats.REPORT_FILE


def _plan(run: Path) -> Path:
    return run / formats.PLAN_FILE


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _move_gaps_before_findings(run: Path) -> None:
    text = _report(run).read_text(encoding="utf-8")
    start, end = text.index("## Gaps & Limitations"), text.index("## Sources")
    gaps = text[start:end]
    text = text[:start] + text[end:]
    at = text.index("## Findings")
    _report(run).write_text(text[:at] + gaps + text[at:], encoding="utf-8")


def _move_entry_one_above_sources(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index("[^1]: **Title**")
    end = text.index("[^2]: **Title**")
    entry = text[start:end]
    text = text[:start] + text[end:]
    at = text.index("## Sources")
    path.write_text(text[:at] + entry + text[at:], encoding="utf-8")


ENTRY_9 = """[^9]: **Title**: What we learned negotiating three observability renewals
      **URL**: https://forum.sreguild.example/t/observability-renewals-2026/4182
      **Excerpt**: "Every vendor started at list and came down 10 to 30 percent once we committed to a volume for two years."
      **Retrieved**: 2026-04-18
      **Source type**: forum
"""

CASES: list[tuple[str, Callable[[Path], None], list[Expect]]] = [
    # --- plan ----------------------------------------------------------------
    ("plan.exists", lambda run: _plan(run).unlink(),
     [Expect("plan.exists", "plan.md", None)]),
    ("plan.parses", lambda run: replace_once(_plan(run), "## Synthesis approach", "## Synthesis"),
     [Expect("plan.parses", "plan.md", "## Synthesis")]),
    # --- findings files --------------------------------------------------------
    ("findings.exists",
     lambda run: replace_once(_plan(run), "## Synthesis approach",
                              "### Log pipeline vendors\n- Which pipelines resell logs\n\n## Synthesis approach"),
     [Expect("findings.log-pipeline-vendors.exists", "findings/log-pipeline-vendors.md", None),
      Expect("report.gaps.names.log-pipeline-vendors", "report.md", "## Gaps & Limitations")]),
    ("findings.frontmatter.field",
     lambda run: replace_once(_billing(run), "started_at: 2026-04-18T09:02:11Z", "started_at: yesterday"),
     [Expect(f"findings.{BILLING}.frontmatter", f"findings/{BILLING}.md", "started_at:")]),
    ("findings.frontmatter.absent",
     lambda run: _billing(run).write_text(
         _billing(run).read_text(encoding="utf-8").split("---\n", 2)[2], encoding="utf-8"),
     [Expect(f"findings.{BILLING}.frontmatter", f"findings/{BILLING}.md", "")]),
    ("findings.frontmatter.yaml",
     lambda run: replace_once(_billing(run), "status: ok\n", "status: [ok\n"),
     [Expect(f"findings.{BILLING}.frontmatter", f"findings/{BILLING}.md", "subtopic:")]),
    ("findings.frontmatter.extra",
     lambda run: replace_once(_billing(run), "status: ok\n", "status: ok\nmodel: sonnet\n"),
     [Expect(f"findings.{BILLING}.frontmatter.extra", f"findings/{BILLING}.md", "model:", "warning")]),
    ("findings.status.invalid",
     lambda run: replace_once(_billing(run), "status: ok\n", "status: done\n"),
     [Expect(f"findings.{BILLING}.status", f"findings/{BILLING}.md", "status: done")]),
    ("findings.status.missing",
     lambda run: replace_once(_billing(run), "status: ok\n", ""),
     [Expect(f"findings.{BILLING}.status", f"findings/{BILLING}.md", "---")]),
    ("findings.reason.forbidden-for-ok",
     lambda run: replace_once(_billing(run), "status: ok\n", 'status: ok\nreason: "fine"\n'),
     [Expect(f"findings.{BILLING}.reason", f"findings/{BILLING}.md", "reason:")]),
    ("findings.reason.required (recorded in Gaps, so a warning)",
     lambda run: replace_once(findings_path(run, COST), 'reason: "page fetch timed out three times on '
                              'docs.acme.example/logs/exclusion-filters and the remaining search results were '
                              'vendor landing pages without quotable detail"\n', ""),
     [Expect(f"findings.{COST}.reason", f"findings/{COST}.md", "---", "warning")]),
    ("findings.subtopic",
     lambda run: replace_once(_billing(run), 'subtopic: "Billing units and retention tiers"',
                              'subtopic: "Billing units"'),
     [Expect(f"findings.{BILLING}.subtopic", f"findings/{BILLING}.md", "subtopic:")]),
    ("findings.brief_hash",
     lambda run: _billing(run).write_text(re.sub(r"brief_hash: sha256:[0-9a-f]{64}", "brief_hash: sha256:" + "f" * 64,
                                                 _billing(run).read_text(encoding="utf-8")), encoding="utf-8"),
     [Expect(f"findings.{BILLING}.brief_hash", f"findings/{BILLING}.md", "brief_hash:")]),
    ("findings.sources",
     lambda run: replace_once(_billing(run), "## Sources\n", ""),
     [Expect(f"findings.{BILLING}.sources", f"findings/{BILLING}.md", "[^1]")]),
    ("findings.citations.undefined",
     lambda run: replace_once(_billing(run), "separate fee per\n", "separate fee[^7] per\n"),
     [Expect(f"findings.{BILLING}.citations.undefined", f"findings/{BILLING}.md", "[^7]"),
      Expect(f"findings.{BILLING}.citations.first_use", f"findings/{BILLING}.md", "first part[^1]", "warning")]),
    ("findings.citations.orphan",
     lambda run: replace_once(_billing(run), "billed per GB[^3].", "billed per GB[^2]."),
     [Expect(f"findings.{BILLING}.citations.orphan", f"findings/{BILLING}.md", "[^3]: **Title**")]),
    ("findings.citations.required",
     lambda run: replace_once(_billing(run), "**URL**: https://lumenlogs.example/pricing",
                              "**URL**: lumenlogs.example/pricing"),
     [Expect(f"findings.{BILLING}.citations.required", f"findings/{BILLING}.md", "**URL**: lumenlogs")]),
    ("findings.citations.optional",
     lambda run: replace_once(_billing(run), "**Source type**: blog", "**Source type**: podcast"),
     [Expect(f"findings.{BILLING}.citations.optional", f"findings/{BILLING}.md", "podcast")]),
    ("findings.citations.numbering",
     lambda run: (replace_once(_billing(run), "restored[^5][^4]", "restored[^6][^4]"),
                  replace_once(_billing(run), "[^5]: **Title**", "[^6]: **Title**")),
     [Expect(f"findings.{BILLING}.citations.numbering", f"findings/{BILLING}.md", "[^6]: **Title**")]),
    ("findings.citations.duplicate",
     lambda run: _append(_billing(run), "\n" + ENTRY_9.replace("[^9]", "[^5]")),
     [Expect(f"findings.{BILLING}.citations.duplicate", f"findings/{BILLING}.md", "[^5]: **Title**", "error", 2)]),
    ("findings.citations.placement", lambda run: _move_entry_one_above_sources(_billing(run)),
     [Expect(f"findings.{BILLING}.citations.placement", f"findings/{BILLING}.md", "[^1]: **Title**")]),
    ("findings.citations.none",
     lambda run: findings_path(run, COMMITMENTS).write_text(
         findings_path(run, COMMITMENTS).read_text(encoding="utf-8").split("## Claims")[0]
         + "Nothing worth citing.\n", encoding="utf-8"),
     [Expect(f"findings.{COMMITMENTS}.citations.none", f"findings/{COMMITMENTS}.md", "status: ok", "warning"),
      Expect("report.citations.provenance", "report.md", "[^6]: **Title**"),
      # ... and the report's claims for that subtopic's bullets no longer rest on its findings
      # (2.3, established only in part, is named in Gaps by finish's line)
      *(Expect(f"report.coverage.2.{n}", "report.md", "## Gaps & Limitations") for n in (1, 2))]),
    ("findings.unexpected",
     lambda run: (run / "findings" / "notes.md").write_text("scratch\n", encoding="utf-8"),
     [Expect("findings.unexpected", "findings/notes.md", None, "warning")]),
    # --- report ----------------------------------------------------------------
    ("report.exists", lambda run: _report(run).unlink(),
     [Expect("report.exists", "report.md", None)]),
    ("report.title",
     lambda run: replace_once(_report(run), "logs tier in 2026?\n", "logs tier?\n"),
     [Expect("report.title", "report.md", "# Research:")]),
    ("report.title.prefix",
     lambda run: replace_once(_report(run), "# Research: How", "# How"),
     [Expect("report.title", "report.md", "# How")]),
    ("report.sections.missing",
     lambda run: replace_once(_report(run), "## Gaps & Limitations", "## Gaps"),
     [Expect("report.sections.missing", "report.md", None),
      Expect("report.sections.extra", "report.md", "## Gaps")]),
    ("report.sections.duplicate",
     lambda run: _append(_report(run), "\n## TL;DR\n\n- again\n"),
     [Expect("report.sections.duplicate", "report.md", "## TL;DR", "error", 2)]),
    ("report.sections.order", _move_gaps_before_findings,
     [Expect("report.sections.order", "report.md", "## Gaps & Limitations")]),
    ("report.sections.extra",
     lambda run: replace_once(_report(run), "## Sources", "## Method\n\nThree researchers.\n\n## Sources"),
     [Expect("report.sections.extra", "report.md", "## Method")]),
    ("report.tldr.bullets",
     lambda run: replace_once(_report(run), "## Findings\n", "- one more[^1][^2]\n- and another[^1][^2]\n\n## Findings\n"),
     [Expect("report.tldr.bullets", "report.md", "- and another")]),
    ("report.tldr.uncited",
     lambda run: replace_once(_report(run), "## TL;DR\n\n", "## TL;DR\n\n- Vendors agree on little.\n"),
     [Expect("report.tldr.uncited", "report.md", "- Vendors agree on little.")]),
    ("report.figures.uncited",
     # (a figure the neighbouring claim's excerpt states: else report.claims.grounded fails too)
     lambda run: replace_once(_report(run), "rather than billing the excess[^8].",
                              "rather than billing the excess[^8]. The limit is 150%."),
     [Expect("report.figures.uncited", "report.md", "The limit is 150%.")]),
    ("report.headings.figures",
     lambda run: replace_once(_report(run), "### Enterprise commitments and overages",
                              "### Enterprise commitments, up to 30% off"),
     [Expect("report.headings.figures", "report.md", "### Enterprise commitments, up to 30% off"),
      Expect("report.headings.label", "report.md", "### Enterprise commitments, up to 30% off")]),
    ("report.references.form",
     lambda run: replace_once(_report(run), "pays only the ingestion fee[^1].",
                              "pays only the ingestion fee[^1][^acme: 1]."),
     [Expect("report.references.form", "report.md", "[^acme: 1]")]),
    ("report.gaps.nonempty",
     lambda run: _report(run).write_text(re.sub(r"## Gaps & Limitations\n.*?## Sources",
                                                "## Gaps & Limitations\n\n## Sources",
                                                _report(run).read_text(encoding="utf-8"), flags=re.S),
                                         encoding="utf-8"),
     [Expect("report.gaps.nonempty", "report.md", "## Gaps & Limitations")]),
    ("report.gaps.names",
     lambda run: _report(run).write_text(re.sub(r'^- \*\*Subtopic "Cost controls for high-volume logs"\*\*.*$',
                                                "- Only the pages listed under Sources were read.",
                                                _report(run).read_text(encoding="utf-8"), count=1, flags=re.M),
                                         encoding="utf-8"),
     [Expect(f"report.gaps.names.{COST}", "report.md", "## Gaps & Limitations")]),
    ("report.findings.uncited",
     lambda run: replace_once(_report(run), "### Enterprise commitments and overages\n",
                              "### Enterprise commitments and overages\n\nCommitments are common.\n"),
     [Expect("report.findings.uncited", "report.md", "Commitments are common.")]),
    ("report.citations.undefined",
     lambda run: replace_once(_report(run), "pays only the ingestion fee[^1].", "pays only the ingestion fee[^12]."),
     [Expect("report.citations.undefined", "report.md", "[^12]")]),
    ("report.citations.orphan",
     lambda run: _append(_report(run), "\n" + ENTRY_9.replace("[^9]", "[^10]")),
     [Expect("report.citations.orphan", "report.md", "[^10]: **Title**"),
      # A renumbered copy also cites [^9]'s URL under a second number (integrity.py).
      Expect("report.citations.repeated_url", "report.md", "[^10]: **Title**", "warning")]),
    ("report.citations.duplicate",
     lambda run: _append(_report(run), "\n" + ENTRY_9),
     [Expect("report.citations.duplicate", "report.md", "[^9]: **Title**", "error", 2)]),
    ("report.citations.numbering",
     lambda run: (replace_once(_report(run), "off list[^9],", "off list[^10],"),
                  replace_once(_report(run), "for two years[^9].", "for two years[^10]."),
                  replace_once(_report(run), "[^9]: **Title**", "[^10]: **Title**")),
     [Expect("report.citations.numbering", "report.md", "[^10]: **Title**")]),
    ("report.citations.first_use",
     lambda run: (replace_once(_report(run), "(per million events)[^1]", "(per million events)[^X]"),
                  replace_once(_report(run), "included[^2]", "included[^1]"),
                  replace_once(_report(run), "(per million events)[^X]", "(per million events)[^2]")),
     [Expect("report.citations.first_use", "report.md", "(per million events)[^2]", "warning")]),
    ("report.citations.placement", lambda run: _move_entry_one_above_sources(_report(run)),
     [Expect("report.citations.placement", "report.md", "[^1]: **Title**")]),
    ("report.citations.required.url",
     lambda run: replace_once(_report(run), "**URL**: https://lumenlogs.example/pricing",
                              "**URL**: /pricing"),
     [Expect("report.citations.required", "report.md", "**URL**: /pricing")]),
    ("report.citations.required.excerpt-unquoted",
     lambda run: replace_once(_report(run), '**Excerpt**: "Every plan is priced per GB ingested. Indexing is '
                              'always included; choose 7, 30 or 90 days of retention."',
                              "**Excerpt**: Every plan is priced per GB ingested."),
     [Expect("report.citations.required", "report.md", "**Excerpt**: Every plan")]),
    ("report.citations.required.title-missing",
     lambda run: replace_once(_report(run), "]: **Title**: Northwind Telemetry pricing FAQ",
                              "]: Northwind Telemetry pricing FAQ"),
     [Expect("report.citations.required", "report.md", "]: Northwind")]),
    ("report.citations.optional.date",
     lambda run: replace_once(_report(run), "      **Retrieved**: 2026-04-18\n      **Source type**: vendor",
                              "      **Retrieved**: April 2026\n      **Source type**: vendor"),
     [Expect("report.citations.optional", "report.md", "April 2026")]),
    ("report.citations.optional.unknown-label",
     lambda run: replace_once(_report(run), "      **Source type**: forum",
                              "      **Source type**: forum\n      **Author**: someone"),
     [Expect("report.citations.optional", "report.md", "**Author**")]),
    ("report.citations.provenance",
     lambda run: replace_once(_report(run), '"Every vendor started at list and came down 10 to 30 percent',
                              '"Every vendor started at list and went down 10 to 30 percent'),
     [Expect("report.citations.provenance", "report.md", "[^9]: **Title**"),
      # The changed excerpt is no longer in the page snapshot either (integrity.py).
      Expect("report.citations.verbatim", "report.md", "[^9]: **Title**")]),
]


def test_the_example_run_passes_every_check_page_snapshots_included() -> None:
    assert checklist.EXTRA_CHECK_GROUPS, "page-snapshot integrity should be joined"
    checks = run_checklist(EXAMPLE_DIR)
    assert any(c.id == "report.citations.verbatim" and c.ok for c in checks)
    assert failing(builtin_checks(EXAMPLE_DIR)) == {}
    assert failing(checks) == {}
    assert passed(checks)
    ids = [c.id for c in checks]
    assert len(ids) == len(set(ids))
    for expected in ("plan.exists", "plan.parses", f"findings.{BILLING}.brief_hash",
                     f"report.gaps.names.{COST}", "report.citations.undefined", "report.sections.order"):
        assert expected in ids


@pytest.mark.parametrize("name,mutate,expected", CASES, ids=[c[0] for c in CASES])
def test_one_defect_fails_exactly_its_check(tmp_path: Path, name: str, mutate, expected: list[Expect]) -> None:
    run = copy_example(tmp_path)
    mutate(run)
    checks = run_checklist(run)
    bad = failing(checks)
    assert sorted(bad) == sorted(e.id for e in expected), [f"{c.id}: {c.message}" for c in bad.values()]
    for e in expected:
        check = bad[e.id]
        assert check.severity == e.severity
        assert Path(check.path) == run / e.file
        want_line = line_of(run / e.file, e.needle, e.occurrence) if e.needle is not None else None
        assert check.line == want_line, check
        assert check.message
    assert passed(checks) == all(e.severity == "warning" for e in expected)


def test_the_checklist_writes_nothing(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in run.rglob("*") if p.is_file()}
    run_checklist(run)
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in run.rglob("*") if p.is_file()}
    assert before == after


def test_a_missing_findings_file_named_in_gaps_is_only_a_warning(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    findings_path(run, COST).unlink()
    bad = failing(run_checklist(run))
    assert list(bad) == [f"findings.{COST}.exists"]
    assert bad[f"findings.{COST}.exists"].severity == "warning"
    assert bad[f"findings.{COST}.exists"].message.endswith("(recorded in Gaps & Limitations)")


def test_findings_defects_stay_errors_without_a_report(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    _report(run).unlink()
    replace_once(findings_path(run, COST), 'reason: "page fetch', 'because: "page fetch')
    bad = failing(run_checklist(run))
    assert bad[f"findings.{COST}.reason"].severity == "error"
    assert bad["report.exists"].severity == "error"


def test_an_unusable_plan_still_checks_the_findings_files_on_their_own(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    _plan(run).unlink()
    replace_once(_billing(run), "status: ok\n", "status: done\n")
    bad = failing(run_checklist(run))
    assert sorted(bad) == ["findings.billing-units-and-retention-tiers.status", "plan.exists"]


def test_an_empty_folder_fails_plan_and_report_but_nothing_else(tmp_path: Path) -> None:
    bad = failing(run_checklist(tmp_path))
    assert sorted(bad) == ["plan.exists", "report.exists"]


def test_extra_check_groups_receive_the_parsed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[ParsedRun] = []

    def group(run_dir: Path, parsed: ParsedRun) -> list[Check]:
        seen.append(parsed)
        return [Check("integrity.demo", False, "error", "demo failure", str(run_dir / "report.md"), 3)]

    monkeypatch.setattr(checklist, "EXTRA_CHECK_GROUPS", (group,))
    checks = run_checklist(EXAMPLE_DIR)
    assert checks[-1].id == "integrity.demo"
    assert not passed(checks)
    parsed = seen[0]
    assert parsed.plan is not None and len(parsed.plan.subtopics) == 3
    assert parsed.report is not None
    urls = {c.citation.url for c in parsed.cited}
    assert "https://lumenlogs.example/pricing" in urls
    assert len(parsed.cited) == 9 + 5 + 4


def test_every_check_id_is_documented_in_the_module_docstring() -> None:
    doc = checklist.__doc__ or ""
    checks = run_checklist(EXAMPLE_DIR)
    rules = set(re.findall(r"`(\w+)`", doc.split("Citation rules")[1].split("A check that")[0]))
    for check in checks:
        generic = re.sub(r"^findings\.[^.]+\.", "findings.<slug>.", check.id)
        generic = re.sub(r"^report\.gaps\.names\..+$", "report.gaps.names.<slug>", generic)
        generic = re.sub(r"^report\.coverage\..+$", "report.coverage.<id>", generic)
        if ".citations." in generic and generic.rsplit(".", 1)[1] in rules:
            continue
        assert generic in doc, f"{check.id} is not listed in checklist's docstring"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads unreadable files")
def test_an_unreadable_report_is_a_failing_check(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    _report(run).chmod(0)
    try:
        bad = failing(run_checklist(run))
    finally:
        _report(run).chmod(0o644)
    assert "report.exists" in bad


def test_a_report_that_is_not_utf8_is_a_failing_check(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    _report(run).write_bytes(b"# Research: \xff\xfe\n")
    bad = failing(run_checklist(run))
    assert list(bad) == ["report.readable"]  # report.exists passes: the file is there
    assert bad["report.readable"].message.startswith(
        "report.md is not UTF-8 text: line 1, column 13 holds the byte 0xff")
    assert bad["report.readable"].line == 1


def test_byte_order_marks_and_crlf_line_ends_are_accepted(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    for path in (_report(run), _billing(run)):
        text = path.read_text(encoding="utf-8")
        path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    assert failing(builtin_checks(run)) == {}
