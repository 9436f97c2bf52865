"""One Markdown parser for every command (markdown_doc): what is a citation and what is not.

Each test states a case a line scanner gets wrong or a label form the report drafts use,
and checks it through the functions the checks call (markers, entries, claims, sections).
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from web_research.checks.citation_entries import find_markers, parse_citations
from web_research.checks.claims import find_claims
from web_research.core.markdown_doc import CODE, HTML, REF, TEXT, parse_markdown


# --- what is not a citation ------------------------------------------------------------------

@pytest.mark.parametrize("name,text", [
    ("fenced code", "Prose[^1].\n\n```\nA claim[^2].\n```\n"),
    ("tilde fence", "Prose[^1].\n\n~~~markdown\nA claim[^2].\n~~~\n"),
    ("indented code", "Prose[^1].\n\n    A claim[^2] in an indented code block.\n"),
    ("code span", "Prose[^1] and `a claim[^2]` shown as code.\n"),
    ("code span over two backticks", "Prose[^1] and ``a `claim`[^2]`` shown as code.\n"),
    ("HTML comment", "Prose[^1].\n\n<!-- a claim[^2] -->\n"),
    ("HTML comment over lines", "Prose[^1].\n\n<!--\nA claim[^2].\n-->\n"),
    ("inline HTML comment", "Prose[^1] <!-- and a claim[^2] --> ends here.\n"),
    ("escaped bracket", "Prose[^1] and \\[^2] written literally.\n"),
])
def test_a_footnote_in_code_or_a_comment_is_not_a_citation(name: str, text: str) -> None:
    assert find_markers(text) == [(1, 1)], name
    claims = find_claims(text)
    assert [c.footnotes for c in claims] == [(1,)], name
    # A code span's words are part of the claim (a figure in one is read); its marker cites nothing.
    assert "claim" not in claims[0].text or name.startswith("code span"), name


@pytest.mark.parametrize("text", [
    "```\n[^1]: **Title**: in a fence\n```\n",
    "<!--\n[^1]: **Title**: in a comment\n-->\n",
    "    [^1]: **Title**: in an indented code block\n",
])
def test_a_definition_in_code_or_a_comment_is_not_an_entry(text: str) -> None:
    assert parse_citations(text) == [] and find_markers(text) == []


def test_a_definition_is_not_a_use_and_its_excerpt_is_not_a_claim() -> None:
    text = ("Acme bills per GB[^1].\n\n## Sources\n\n"
            '[^1]: **Title**: T [^2]\n      **URL**: https://a.example/\n      **Excerpt**: "Billed [^3] per GB."\n')
    assert find_markers(text) == [(1, 1)]
    assert [c.text for c in find_claims(text)] == ["Acme bills per GB."]
    (entry,) = parse_citations(text)
    assert entry.excerpt == "Billed [^3] per GB." and entry.line == 5 and entry.end_line == 7


# --- label forms -------------------------------------------------------------------------------

def test_a_draft_label_is_a_reference_and_a_definition_like_a_number() -> None:
    text = ("Acme bills per GB[^billing-units:3] and Lumen per host[^7].\n\n"
            "[^billing-units:3]: **Title**: T\n")
    doc = parse_markdown(text)
    assert [(r.label, r.line) for r in doc.references] == [("billing-units:3", 1), ("7", 1)]
    assert [(d.label, d.line) for d in doc.definitions] == [("billing-units:3", 3)]
    # Citation numbers stay numbers; a claim keeps every label it uses.
    assert find_markers(text) == [(7, 1)] and parse_citations(text) == []
    (claim,) = find_claims(text)
    assert claim.footnotes == (7,) and claim.labels == ("billing-units:3", "7")


@pytest.mark.parametrize("text,labels", [
    ("a[^1] b[^12] c[^007]", ["1", "12", "007"]),
    ("a[^x:1]", ["x:1"]),
    ("a[^ 1] b[^1 ] c[^] d[^\n1]", []),  # whitespace or nothing in a label: no reference
    ("a[^1][^2]", ["1", "2"]),
])
def test_label_forms(text: str, labels: list[str]) -> None:
    assert [r.label for r in parse_markdown(text + "\n").references] == labels


def test_an_undefined_reference_is_still_a_use_and_an_unused_definition_still_an_entry() -> None:
    """The plugin's defaults would drop both (the undefined and orphan checks need them)."""
    text = "Cited[^2].\n\n[^1]: **Title**: never used\n"
    assert find_markers(text) == [(2, 1)]
    assert [c.number for c in parse_citations(text)] == [1]


# --- structure ---------------------------------------------------------------------------------

def test_sections_headings_and_items_come_from_the_parser() -> None:
    text = ("# Title\n\n## TL;DR\n\n- one[^1]\n  - nested\n- two\n\n> ## Quoted heading\n\n"
            "Sources\n-------\n\n```\n## In code\n```\n")
    doc = parse_markdown(text)
    assert [(s.name, s.line, s.end) for s in doc.sections(2)] == [("TL;DR", 3, 10), ("Sources", 11, 16)]
    assert [(i.line, i.end, i.depth) for i in doc.items] == [(5, 6, 0), (6, 6, 1), (7, 7, 0)]


def test_file_lines_start_at_first_line_and_spans_keep_their_kind() -> None:
    doc = parse_markdown("Uses `code` and <b>html</b>\nthen[^4].\n", 20)
    (block,) = doc.blocks
    assert block.line == 20 and block.end == 21
    kinds = [(s.kind, s.text) for s in block.spans if s.kind in (CODE, HTML, REF)]
    assert kinds == [(CODE, "code"), (HTML, "<b>"), (HTML, "</b>"), (REF, "4")]
    assert [s.line for s in block.spans if s.kind == REF] == [21]
    assert "".join(s.text for s in block.spans if s.kind == TEXT) == "Uses  and htmlthen."


def test_each_text_is_parsed_once() -> None:
    text = "Only once[^1].\n"
    parse_markdown.cache_clear()
    find_markers(text)
    parse_citations(text)
    find_claims(text)
    assert parse_markdown.cache_info().misses == 1


def test_a_markdown_file_over_the_parse_limit_is_refused_by_name(tmp_path) -> None:
    """Parsing is linear but not cheap (1 to 10 us a byte here): a report or findings file
    over formats.MAX_MARKDOWN_BYTES fails its `readable` check instead of being parsed."""
    from example_run import COMMITMENTS, copy_example, findings_path

    from web_research import formats
    from web_research.checks.checklist import run_checklist

    run = copy_example(tmp_path)
    filler = "\n\nPadding paragraph.\n" * (formats.MAX_MARKDOWN_BYTES // 20 + 1)
    for path in (run / formats.REPORT_FILE, findings_path(run, COMMITMENTS)):
        path.write_text(path.read_text(encoding="utf-8") + filler, encoding="utf-8")
    failing = {c.id: c for c in run_checklist(run) if not c.ok and c.severity == "error"}
    for check_id in ("report.readable", f"findings.{COMMITMENTS}.readable"):
        assert f"over the {formats.MAX_MARKDOWN_BYTES}-byte limit" in failing[check_id].message, failing


@pytest.mark.parametrize("unit", ["[", "[a](", "*a ", "_a", "`a``", "[^1]", "<a ", "|x|y|\n", "x\n", "- x\n  "])
def test_hostile_markdown_parses_in_linear_time(unit: str) -> None:
    """Sixteen times the text costs about sixteen times the CPU (at most twice that), not 256:
    no quadratic case among the patterns that break naive Markdown parsers, ours included (a
    line of 8,000 `[^1]` once cost 52x, each reference rescanning its line).

    CPU time on a shared virtual machine can be inflated several times over for a while (a CI run
    saw 12x for 4x the text of a linear case), and noise only ever adds: so the collector is
    paused, the two sizes are measured alternately, and the best of each is taken over as many
    rounds (up to 9) as it takes to meet the bound. A superlinear parser never meets it."""
    import gc
    import time

    def text(size: int) -> str:
        return (unit * (size // len(unit)))[:size] + "\n"

    def cpu(source: str) -> float:
        parse_markdown.cache_clear()
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            parse_markdown(source)
            return time.process_time() - start
        finally:
            gc.enable()

    small_text, large_text = text(2_000), text(32_000)
    small = large = float("inf")
    for _ in range(9):
        small, large = min(small, cpu(small_text)), min(large, cpu(large_text))
        if large < 32 * max(small, 0.0005):
            break
    # Linear is 16x (15x to 17x measured); n^1.25 is 32x; quadratic is 256x.
    assert large < 32 * max(small, 0.0005), (unit, small, large)


def test_lines_are_the_ones_markdown_it_numbers() -> None:
    """CR LF and CR end a line; a form feed or U+2028 (which str.splitlines would break at) do not."""
    doc = parse_markdown("a\u2028b[^1]\r\nc\x0c[^2]\rd[^3]\n")
    assert [(r.label, r.line, r.column) for r in doc.references] == [("1", 1, 3), ("2", 2, 2), ("3", 3, 1)]
    assert doc.last_line == 3


_WORDS = st.sampled_from(["alpha", "beta", "[^1]", "[^2]", "[^note]", "x[^3]", "*em*", "`code`", "[^1][^2]"])
_PREFIXES = st.sampled_from(["", "> ", "- ", "1. ", "> - ", "   "])


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.lists(_WORDS, min_size=1, max_size=8).map(" ".join), min_size=1, max_size=6),
       prefix=_PREFIXES)
def test_every_reference_points_at_its_own_text_in_the_file(lines: list[str], prefix: str) -> None:
    """Line and column of each `[^n]`, however many share a line and whatever container the
    paragraph sits in: the file's text at that place is the reference itself."""
    indent = " " * len(prefix) if prefix.strip() not in (">", "> -") else prefix.replace("-", " ")
    source = "\n".join([prefix + lines[0]] + [indent + line for line in lines[1:]]) + "\n"
    doc = parse_markdown(source)
    file_lines = source.split("\n")
    expected = sum(line.count("[^") for line in lines)
    assert len(doc.references) == expected, (source, doc.references)
    for ref in doc.references:
        assert file_lines[ref.line - 1].startswith(f"[^{ref.label}]", ref.column), (source, ref)
