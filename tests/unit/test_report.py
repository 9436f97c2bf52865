"""report.md: parsing into title, sections and citations, and the report checks."""
from __future__ import annotations

from pathlib import Path

import pytest

from example_run import EXAMPLE_DIR
from web_research import formats
from web_research.checks.report import gaps_name, parse_report, report_checks

QUESTION = "How do vendors price logs?"

GOOD = """\
# Research: How do vendors price logs?

## TL;DR

- One[^1]
- Two[^2]
- Three

## Findings

### Units

Acme bills per GB[^1]. Lumen bills per host[^2].

```text
## Not a heading [^9]
```

## Gaps & Limitations

- **Subtopic "Contract terms"** (failed): timeout.

## Sources

[^1]: **Title**: A
      **URL**: https://a.example/p
      **Excerpt**: "per GB"

[^2]: **Title**: B
      **URL**: https://b.example/p
      **Excerpt**: "per host"
"""


def _checks(text: str, question: str | None = QUESTION, gaps=(("contract-terms", "Contract terms", "failed"),)):
    return report_checks(Path("report.md"), parse_report(text), question, list(gaps))


def _failing(checks) -> dict:
    return {c.id: c for c in checks if not c.ok}


def test_parse_finds_title_sections_and_ignores_code() -> None:
    report = parse_report(GOOD)
    assert (report.title, report.title_line) == ("# Research: How do vendors price logs?", 1)
    assert [(s.name, s.line) for s in report.sections] == [
        ("TL;DR", 3), ("Findings", 9), ("Gaps & Limitations", 19), ("Sources", 23)]
    assert report.sections[0].end == 8
    assert [c.number for c in report.citations] == [1, 2]
    assert report.markers == [(1, 5), (2, 6), (1, 13), (2, 13)]


def test_a_good_report_passes() -> None:
    assert _failing(_checks(GOOD)) == {}


@pytest.mark.parametrize("old,new,check_id,line", [
    ("- Three\n", "", "report.tldr.bullets", 3),
    ("- Three\n", "- Three\n  - nested does not count\n", None, None),
    ("- Three\n", "- Three\n- Four\n- Five\n- Six\n", "report.tldr.bullets", 10),
    ("- Three\n", "1. Three\n", None, None),
    ('"Contract terms"', '"Contracts"', "report.gaps.names.contract-terms", 19),
    ('- **Subtopic "Contract terms"** (failed): timeout.\n', "\n", "report.gaps.nonempty", 19),
    ("# Research: How do vendors price logs?", "# Research: How  do vendors\tprice logs?", None, None),
    ("# Research: How do vendors price logs?", "# Research: How do vendors price logs", "report.title", 1),
])
def test_report_rules(old: str, new: str, check_id: str | None, line: int | None) -> None:
    assert old in GOOD
    bad = _failing(_checks(GOOD.replace(old, new, 1)))
    if check_id is None:
        assert bad == {}
    else:
        assert list(bad) == [check_id] and bad[check_id].line == line


def test_gaps_match_the_slug_or_the_name_in_any_case() -> None:
    report = parse_report(GOOD.replace('"Contract terms"', "CONTRACT-TERMS"))
    assert gaps_name(report, "Contract terms", "contract-terms")
    assert not gaps_name(report, "Pricing history", "pricing-history")


def test_without_a_plan_the_title_only_needs_the_prefix() -> None:
    bad = _failing(_checks(GOOD.replace("How do vendors price logs?", "Something else", 1), question=None, gaps=()))
    assert bad == {}
    bad = _failing(_checks(GOOD.replace("# Research: ", "# ", 1), question=None, gaps=()))
    assert list(bad) == ["report.title"]


def test_a_multi_line_question_matches_a_one_line_title() -> None:
    assert _failing(_checks(GOOD, question="How do vendors\nprice logs?")) == {}


def test_provenance_compares_with_findings_entries() -> None:
    report = parse_report(GOOD)
    from_findings = parse_report(GOOD).citations
    checks = report_checks(Path("report.md"), report, QUESTION, [], from_findings)
    assert _failing(checks) == {}
    checks = report_checks(Path("report.md"), report, QUESTION, [], from_findings[:1])
    bad = _failing(checks)
    assert list(bad) == ["report.citations.provenance"] and bad["report.citations.provenance"].line == 29


def test_the_example_report_sections_are_the_formats_sections() -> None:
    report = parse_report((EXAMPLE_DIR / formats.REPORT_FILE).read_text(encoding="utf-8"))
    assert tuple(s.name for s in report.sections) == formats.REPORT_SECTIONS
