"""The report template and the citation schema doc agree with the code.

Both are prompts the model follows, so they must describe exactly what
verify enforces: the sections, the citation layout, the fields and the
source types come from formats.py and the schemas.
"""
from __future__ import annotations

import re

from web_research import formats
from web_research.checks.citation_checks import citation_problems
from web_research.checks.citation_entries import parse_citations
from web_research.checks.citation_entries import find_markers
from web_research.core.schema_validation import load_schema
from web_research.checks.report import parse_report


def _fenced_blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```$", text, flags=re.S | re.M)


def _template() -> str:
    (block,) = _fenced_blocks(formats.REPORT_TEMPLATE.read_text(encoding="utf-8"))
    return block


def _schema_doc() -> str:
    return formats.CITATION_SCHEMA_DOC.read_text(encoding="utf-8")


def _filled_template() -> str:
    """The template with every reference placeholder citing footnote 1 or 2 of findings/s.md."""
    from web_research.checks.report_references import SHAPE

    text = _template()
    count = text.count(SHAPE)
    for i in range(count):
        text = text.replace(SHAPE, f"[^s:{1 + i % 2}]", 1)
    return text


def _findings_entries():
    from web_research.report.assembly import entries_of

    findings = ('[^1]: **Title**: A page\n      **URL**: https://a.example/p\n      **Excerpt**: "one two three four"\n\n'
                '[^2]: **Title**: B page\n      **URL**: https://b.example/p\n      **Excerpt**: "five six seven eight"\n')
    return {"s": entries_of("s", findings, parse_citations(findings))}


def test_template_sections_and_finish_give_the_report_sections_in_order() -> None:
    from web_research.report.assembly import assemble

    report = parse_report(_template())
    assert tuple(s.name for s in report.sections) == formats.REPORT_SECTIONS[:3]  # finish adds Sources
    assert report.title is not None and report.title.startswith(formats.REPORT_TITLE_PREFIX)
    finished = assemble(_filled_template(), _findings_entries(), {}, [])
    assert finished.problems == [] and finished.text is not None
    assert tuple(s.name for s in parse_report(finished.text).sections) == formats.REPORT_SECTIONS


def test_template_references_are_the_rule_finish_reads() -> None:
    from web_research.checks.report_references import REFERENCE, SHAPE, find_references
    from web_research.report.assembly import assemble

    text = _template()
    assert "[^" in text and not re.search(r"\[\^\d+\]", text)  # no numbered footnote to copy
    assert all(m.group(0) == SHAPE for m in re.finditer(r"\[\^[^\]]*\]", text))
    filled = _filled_template()
    assert [m.slug for m in find_references(filled)] == ["s"] * text.count(SHAPE)
    assert REFERENCE.search(filled)
    finished = parse_report(assemble(filled, _findings_entries(), {}, []).text or "")
    assert [c.number for c in finished.citations] == [1, 2]
    assert {n for n, _line in finished.markers} == {1, 2}
    assert all(citation_problems(c) == [] for c in finished.citations)


def test_template_states_the_rules_verify_enforces() -> None:
    text = " ".join(formats.REPORT_TEMPLATE.read_text(encoding="utf-8").split())
    assert f"{formats.TLDR_MIN_BULLETS} to {formats.TLDR_MAX_BULLETS}" in text
    assert f"`{formats.REPORT_TITLE_PREFIX}`" in text
    for rule in ("never empty", "failed, empty, missing or unreadable", "by first use", "field for field"):
        assert rule in text, rule


def test_template_names_the_allowed_forms_the_refusals_give() -> None:
    from web_research.checks.markdown_form import _REFUSED

    text = " ".join(formats.REPORT_TEMPLATE.read_text(encoding="utf-8").split())
    assert f"write only {formats.allowed_forms()}." in text
    assert f"at most {formats.MARKDOWN_MAX_DEPTH} deep" in formats.allowed_forms()
    # each refused kind is named in the template's list
    named = {"html_block": "HTML", "html_inline": "HTML", "fence": "code blocks", "code_block": "code blocks",
             "hr": "thematic breaks", "setext": "underlined with", "nested_heading": None, "image": "images",
             "strikethrough": "strikethrough", "entity": "character references", "empty_table": None,
             "link_title": "link titles", "extra_cells": "a row with more cells than its header"}
    assert set(named) == set(_REFUSED)
    for kind, words in named.items():
        assert words is None or words in text, kind
    for shape in ("a second `# ` line", "`####` headings", "`###` outside Findings", "text before `## TL;DR`",
                  "any other `##` section", "text after the Sources entries", "control characters",
                  "a header cell over an empty column", "blank-looking characters"):
        assert shape in text, shape


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


def test_template_states_the_heading_rule_the_check_quotes() -> None:
    """Issue 43: headings are labels, not statements; the rule is stated once, in formats."""
    text = " ".join(formats.REPORT_TEMPLATE.read_text(encoding="utf-8").split())
    assert text.count(formats.HEADING_RULE) == 1  # stated once
    assert "## Subtopics" in formats.HEADING_RULE and "nothing else" in formats.HEADING_RULE
    assert "theme" not in text  # no other kind of heading is offered
