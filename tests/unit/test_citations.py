"""Citation entries and footnote markers: parsing, rendering, validation
(`markdown_doc`, `citation_entries`, `citation_checks`)."""
from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from web_research import formats
from web_research.checks.citation_checks import citation_checks, citation_problems
from web_research.checks.citation_entries import parse_citations, render_citation
from web_research.checks.citation_entries import find_markers
from web_research.core.schema_validation import load_schema

ENTRIES = """\
Intro line[^1] and another[^2].

## Sources

[^1]: **Title**: Log Management Pricing | Acme Docs
      **URL**: https://docs.acme.example/logs/pricing
      **Excerpt**: "Billed per GB ingested."
      **Retrieved**: 2026-04-18
      **Source type**: official-docs

[^2]: **Title**: Series C
      **URL**: https://news.example/acme
      **Excerpt**: "The round closed
        in March."
"""


def test_parse_reads_every_field_with_its_line() -> None:
    first, second = parse_citations(ENTRIES)
    assert (first.number, first.line, first.end_line) == (1, 5, 9)
    assert first.title == "Log Management Pricing | Acme Docs"
    assert first.url == "https://docs.acme.example/logs/pricing"
    assert first.excerpt == "Billed per GB ingested."
    assert first.retrieved_at == "2026-04-18"
    assert first.source_type == "official-docs"
    assert first.field_lines == {"title": 5, "url": 6, "excerpt": 7, "retrieved_at": 8, "source_type": 9}
    # A wrapped excerpt continues on the next indented line.
    assert second.excerpt == "The round closed in March."
    assert second.retrieved_at is None and second.source_type is None
    assert citation_problems(first) == [] and citation_problems(second) == []


def test_parse_uses_the_offset_for_file_line_numbers() -> None:
    assert [c.line for c in parse_citations(ENTRIES, first_line=10)] == [14, 20]


def test_markers_skip_definitions_code_and_inline_code() -> None:
    text = (
        "A claim[^1] and[^2].\n"
        "`[^3]` is code, so is ``x [^4] y``.\n"
        "```\n[^5] in a fence\n```\n"
        "~~~markdown\n[^6]\n~~~\n"
        "[^1]: **Title**: T [^7]\n"
        "      **URL**: https://a.example/[^8]\n"
        "\n"
        "After the entry[^9].\n"
    )
    assert find_markers(text) == [(1, 1), (2, 1), (9, 12)]


def test_definitions_inside_code_fences_are_not_entries() -> None:
    text = "```\n[^1]: **Title**: x\n```\n[^2]: **Title**: y\n"
    assert [c.number for c in parse_citations(text)] == [2]


def test_an_entry_ends_at_a_blank_line_heading_or_the_next_entry() -> None:
    text = ("[^1]: **Title**: a\n      **URL**: https://a.example\n\nplain text\n"
            "[^2]: **Title**: b\n## Next\n      **URL**: https://b.example\n")
    first, second = parse_citations(text)
    assert first.url == "https://a.example" and first.end_line == 2
    assert second.url is None
    assert find_markers("[^1]: **Title**: a\n\nUsed here[^1].\n") == [(1, 3)]


def test_a_line_run_on_after_an_entry_belongs_to_it_as_in_commonmark() -> None:
    """A paragraph continues on an unindented line (a lazy continuation line), in a
    footnote too: a reader sees it in the entry, so the field it extends is checked with it.
    (The hand-written scanner this replaced ended the entry there instead.)"""
    text = "[^1]: **Title**: a\n      **URL**: https://a.example\nplain text\n"
    (entry,) = parse_citations(text)
    assert entry.url == "https://a.example plain text" and entry.end_line == 3
    assert ("url", 2) in [(name, problem.line) for name, problem in citation_problems(entry)]


@pytest.mark.parametrize("field,value,needle", [
    ("url", "docs.acme.example/x", "absolute http(s) URL"),
    ("url", "ftp://docs.acme.example/x", "absolute http(s) URL"),
    ("url", "https:///nohost", "absolute http(s) URL"),
    ("excerpt", "no quotes", "double quotes"),
    ("excerpt", '""', "double quotes"),
    ("excerpt", '"   "', "double quotes"),
    ("retrieved_at", "2026-13-01", "YYYY-MM-DD"),
    ("retrieved_at", "18 April 2026", "YYYY-MM-DD"),
    ("source_type", "podcast", "one of official-docs"),
    ("title", "", "title"),
])
def test_invalid_values_name_the_label_and_the_expectation(field: str, value: str, needle: str) -> None:
    raw = {"title": "T", "url": "https://a.example/p", "excerpt": '"quote"', field: value}
    lines = [f"**{label}**: {raw[name]}" for label, name in formats.CITATION_LABELS.items() if name in raw]
    (citation,) = parse_citations("[^3]: " + "\n    ".join(lines))
    problems = citation_problems(citation)
    assert len(problems) == 1, problems
    name, problem = problems[0]
    label = {v: k for k, v in formats.CITATION_LABELS.items()}[field]
    assert name == field
    assert problem.line == next(i for i, ln in enumerate(lines, 1) if ln.startswith(f"**{label}**"))
    assert f"[^3] **{label}**" in problem.message
    assert needle in problem.message


def test_unknown_and_repeated_labels_are_problems() -> None:
    text = ('[^1]: **Title**: T\n    **URL**: https://a.example\n    **Excerpt**: "q"\n'
            "    **Author**: someone\n    **URL**: https://b.example\n")
    (citation,) = parse_citations(text)
    problems = {name: p for name, p in citation_problems(citation)}
    assert problems["Author"].line == 4 and "not a known field" in problems["Author"].message
    assert problems["url"].line == 5 and "given twice" in problems["url"].message


def test_missing_required_fields_point_at_the_entry_line() -> None:
    (citation,) = parse_citations("text\n[^2]: **Title**: only a title\n")
    problems = citation_problems(citation)
    assert [(n, p.line) for n, p in problems] == [("url", 2), ("excerpt", 2)]
    assert all("is missing (required)" in p.message for _n, p in problems)


def test_schema_fields_come_from_formats() -> None:
    schema = load_schema("citation.schema.json")
    assert set(schema["properties"]) == set(formats.CITATION_LABELS.values())
    assert tuple(schema["required"]) == formats.CITATION_REQUIRED
    assert tuple(schema["properties"]["source_type"]["enum"]) == formats.SOURCE_TYPES
    json.dumps(schema)  # plain JSON


def test_citation_checks_report_each_rule_once() -> None:
    text = ("Uses [^1], [^3] and [^4].\n\n## Sources\n\n"
            '[^1]: **Title**: A\n    **URL**: https://a.example\n    **Excerpt**: "a"\n\n'
            '[^3]: **Title**: C\n    **URL**: https://c.example\n    **Excerpt**: "c"\n\n'
            '[^5]: **Title**: E\n    **URL**: https://e.example\n    **Excerpt**: "e"\n')
    checks = {c.id: c for c in citation_checks("x", Path("f.md"), parse_citations(text), find_markers(text), (3, 20))}
    assert not checks["x.citations.undefined"].ok and checks["x.citations.undefined"].line == 1
    assert "[^4]" in checks["x.citations.undefined"].message
    assert not checks["x.citations.orphan"].ok and checks["x.citations.orphan"].line == 13
    assert not checks["x.citations.numbering"].ok and "[^2]" in checks["x.citations.numbering"].message
    assert checks["x.citations.duplicate"].ok and checks["x.citations.required"].ok


# ---- property: render -> parse is the identity on valid entries ----------

_text = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="*\"`"),
                min_size=1, max_size=40).map(str.strip).filter(bool)
_host = st.from_regex(r"[a-z][a-z0-9-]{0,10}\.example", fullmatch=True)
_path = st.from_regex(r"(/[A-Za-z0-9._~-]{0,12}){0,3}", fullmatch=True)


@st.composite
def _fields(draw) -> dict[str, str]:
    fields = {
        "title": draw(_text),
        "url": f"https://{draw(_host)}{draw(_path)}",
        "excerpt": draw(_text),
    }
    if draw(st.booleans()):
        fields["retrieved_at"] = draw(st.dates(min_value=date(1990, 1, 1), max_value=date(2100, 1, 1))).isoformat()
    if draw(st.booleans()):
        fields["source_type"] = draw(st.sampled_from(formats.SOURCE_TYPES))
    return fields


@settings(max_examples=150, deadline=None)
@given(number=st.integers(min_value=1, max_value=999), fields=_fields())
def test_render_then_parse_round_trips(number: int, fields: dict[str, str]) -> None:
    text = render_citation(number, fields)
    (citation,) = parse_citations(text)
    assert citation.number == number
    assert citation.title == fields["title"]
    assert citation.url == fields["url"]
    assert citation.excerpt == fields["excerpt"]
    assert citation.retrieved_at == fields.get("retrieved_at")
    assert citation.source_type == fields.get("source_type")
    assert citation_problems(citation) == []
    assert find_markers(text) == []


@settings(max_examples=100, deadline=None)
@given(numbers=st.lists(st.integers(min_value=1, max_value=50), max_size=12),
       noise=st.lists(_text, max_size=12))
def test_find_markers_finds_exactly_the_markers_written(numbers: list[int], noise: list[str]) -> None:
    # Noise without Markdown that would take the marker out of prose: brackets, a backslash
    # (which escapes the `[` after it), `<` (an HTML block or comment) and `~` (a `~~~` fence).
    words = [w.translate(str.maketrans("[]\\<~", "()/(-")) for w in noise] or ["x"]
    lines = [f"{words[i % len(words)]}[^{n}] end" for i, n in enumerate(numbers)]
    assert find_markers("\n".join(lines)) == [(n, i + 1) for i, n in enumerate(numbers)]
