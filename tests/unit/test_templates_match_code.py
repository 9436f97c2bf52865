"""The report template and the citation schema doc agree with the code.

Both are prompts the model follows, so they must describe exactly what
verify enforces: the sections, the citation layout, the fields and the
source types come from formats.py and the schemas.
"""
from __future__ import annotations

import re

from web_research import formats
from web_research.citation_checks import citation_problems
from web_research.citation_entries import parse_citations
from web_research.markdown_scan import find_markers
from web_research.schema_validation import load_schema
from web_research.report import parse_report


def _fenced_blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```$", text, flags=re.S | re.M)


def _template() -> str:
    (block,) = _fenced_blocks(formats.REPORT_TEMPLATE.read_text(encoding="utf-8"))
    return block


def _schema_doc() -> str:
    return formats.CITATION_SCHEMA_DOC.read_text(encoding="utf-8")


def test_template_sections_are_the_report_sections_in_order() -> None:
    report = parse_report(_template())
    assert tuple(s.name for s in report.sections) == formats.REPORT_SECTIONS
    assert report.title is not None and report.title.startswith(formats.REPORT_TITLE_PREFIX)


def test_template_citation_layout_parses_with_the_citation_parser() -> None:
    block = _template()
    report = parse_report(block)
    citations = report.citations
    assert [c.number for c in citations] == [1, 2]
    assert set(citations[0].fields) == set(formats.CITATION_LABELS.values())
    assert set(citations[1].fields) == set(formats.CITATION_REQUIRED)
    sources = report.section("Sources")
    assert all(sources.line < c.line <= sources.end for c in citations)
    used = {n for n, _line in find_markers(block)}
    assert used == {c.number for c in citations}


def test_template_states_the_rules_verify_enforces() -> None:
    text = formats.REPORT_TEMPLATE.read_text(encoding="utf-8")
    assert f"{formats.TLDR_MIN_BULLETS} to {formats.TLDR_MAX_BULLETS}" in text
    assert f"`{formats.REPORT_TITLE_PREFIX}`" in text
    for rule in ("never empty", "failed, empty or", "missing", "across the whole report", "no gaps"):
        assert rule in text, rule


def test_schema_doc_lists_the_labels_and_which_are_required() -> None:
    rows = re.findall(r"^\| `\*\*(.+?)\*\*` \| (yes|no) \|", _schema_doc(), flags=re.M)
    assert [label for label, _ in rows] == list(formats.CITATION_LABELS)
    required = tuple(formats.CITATION_LABELS[label] for label, flag in rows if flag == "yes")
    assert required == formats.CITATION_REQUIRED == tuple(load_schema("citation.schema.json")["required"])


def test_schema_doc_source_types_are_the_formats_source_types() -> None:
    section = _schema_doc().split("Source types:")[1].split("\n\n")[0]
    listed = tuple(re.findall(r"^- `([a-z-]+)`:", section, flags=re.M))
    assert listed == formats.SOURCE_TYPES


def test_schema_doc_example_is_valid() -> None:
    (block,) = _fenced_blocks(_schema_doc())
    citations = parse_citations(block)
    assert len(citations) >= 2
    for citation in citations:
        assert citation_problems(citation) == [], citation
    assert any(c.retrieved_at is None for c in citations)  # shows an omitted optional field
    assert {n for n, _ in find_markers(block)} == {c.number for c in citations}
