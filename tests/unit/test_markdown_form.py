"""report.md and findings files are written in a closed set of Markdown forms (checks/markdown_form.py).

Issue 37, items 1 and 2: a statement placed where no check reads it (a second `# `, text
before TL;DR, an extra section, a setext heading, Gaps & Limitations, after the Sources, an
HTML block, a code block, an image, 21 nested quotes) or shown otherwise than it is read
(strikethrough, backspaces) ended verified. Each is now an error at its line naming what to
write instead. Two properties: a statement in any refused form, anywhere in a report built
from the bundled example, always fails verification; statements in every allowed form, in
Findings and Gaps, never do.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from example_run import BILLING, EXAMPLE_DIR, copy_example, findings_path, copy_example_to
from web_research import formats
from web_research.checks import checklist
from web_research.checks.claims import find_claims
from web_research.checks.findings import load_findings
from web_research.checks.report import parse_report
from web_research.guard.briefs_match import Brief
from web_research.guard.findings_gate import citation_problems
from web_research.view.html import render_markdown

REPORT = (EXAMPLE_DIR / formats.REPORT_FILE).read_text(encoding="utf-8")
LINES = REPORT.splitlines()
CITED = "Acme's indexed retention defaults to 15 days[^4]."  # a claim [^4]'s excerpt grounds


def _errors(run: Path, text: str) -> dict[str, object]:
    (run / formats.REPORT_FILE).write_text(text, encoding="utf-8")
    _parsed, checks = checklist.parse_and_check(run, extra=(checklist._claims_grounded,))
    return {c.id: c for c in checks if not c.ok and c.severity == "error"}


def _at(heading: str, block: str, after: bool = True) -> str:
    """The example report with `block` as a block of its own right after (or before) `heading`'s line."""
    index = LINES.index(heading)
    lines = list(LINES)
    if after:
        lines[index + 1:index + 1] = ["", *block.split("\n")]
    else:
        lines[index:index] = [*block.split("\n"), ""]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def run_copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("forms") / "run"
    copy_example_to(target)
    return target


def _form_ok(text: str) -> bool:
    from web_research.checks.markdown_form import report_form_check  # noqa: PLC0415 - (the test runs on old code too)

    return report_form_check(Path("report.md"), parse_report(text)).ok


def test_the_bundled_example_uses_only_allowed_forms(run_copy: Path) -> None:
    assert _errors(run_copy, REPORT) == {}
    assert _form_ok(REPORT)


# --- item 1: regions no check read ------------------------------------------------------------------

INVENTED = "Acme charges $0.42 per host."
REGIONS = [
    ("a second # heading in Findings", _at("### Billing units and retention tiers", f"# Pricing\n\n{INVENTED}"),
     "report.markdown", "a second `# ` heading"),
    ("a second # heading in TL;DR", _at("## Findings", f"# Note\n\n{INVENTED}", after=False),
     "report.markdown", "a second `# ` heading"),
    ("before TL;DR", _at("## TL;DR", INVENTED, after=False), "report.markdown", "text before `## TL;DR`"),
    ("an extra ## section", _at("## Gaps & Limitations", f"## Method\n\n{INVENTED}", after=False),
     "report.sections.extra", "'## Method'"),
    ("a setext heading", _at("### Billing units and retention tiers", f"{INVENTED}\n---"),
     "report.markdown", "underlined with"),
    ("Gaps & Limitations", _at("## Gaps & Limitations", f"- {INVENTED}"), "report.gaps.figures", "'$0.42 per host'"),
    ("after the last Sources entry", REPORT + f"\n{INVENTED}\n", "report.markdown", "text in Sources that is no entry"),
    ("an HTML block", _at("### Billing units and retention tiers", f"<div>\n{INVENTED}\n</div>"),
     "report.markdown", "an HTML block"),
    ("an HTML comment", _at("### Billing units and retention tiers", f"<!-- {INVENTED} -->"),
     "report.markdown", "an HTML block"),
    ("a fenced code block", _at("### Billing units and retention tiers", f"```\n{INVENTED}\n```"),
     "report.markdown", "a fenced code block"),
    ("an indented code block", _at("### Billing units and retention tiers", f"    {INVENTED}"),
     "report.markdown", "an indented code block"),
    ("an image with empty alt text", _at("### Billing units and retention tiers", "![](https://x.example/0.42.png)"),
     "report.markdown", "an image"),
    ("21 nested quotes", _at("### Billing units and retention tiers", ">" * 21 + " " + INVENTED),
     "report.markdown", "nested 4 deep"),
    ("a link reference definition", _at("### Billing units and retention tiers",
                                        f'[x]: https://x.example "{INVENTED}"'),
     "report.markdown", "a link reference definition"),
    ("a heading in a list", _at("### Billing units and retention tiers", f"- ### {INVENTED}"),
     "report.markdown", "a heading inside a list or quote"),
    ("a #### heading", _at("### Billing units and retention tiers", "#### Per-host prices"),
     "report.markdown", "a `#### ` heading"),
    ("a ### heading in Gaps", _at("## Gaps & Limitations", "### Open questions"),
     "report.markdown", "a `### ` heading outside Findings"),
    ("a table with no row", _at("### Billing units and retention tiers", "| Acme per host | $0.42 |\n|---|---|"),
     "report.markdown", "a table with no row"),
    ("a thematic break", _at("## Gaps & Limitations", "***", after=False), "report.markdown", "a thematic break"),
]


@pytest.mark.parametrize("name,text,check_id,says", REGIONS, ids=[r[0] for r in REGIONS])
def test_a_statement_where_no_check_read_it_is_an_error_at_its_line(run_copy: Path, name: str, text: str,
                                                                   check_id: str, says: str) -> None:
    errors = _errors(run_copy, text)
    assert check_id in errors, (name, sorted(errors))
    check = errors[check_id]
    assert says in check.message, check.message
    assert check.line is not None and check.line > 1
    if check_id == "report.markdown":
        assert f"Write only {formats.allowed_forms()}" in check.message  # the refusal names the allowed forms


# --- item 2: what is checked is what is shown ------------------------------------------------------

@pytest.mark.parametrize("claim,check_id,says", [
    ("Northwind Telemetry does ~~not~~ price per monitored host[^3].", "report.markdown", "strikethrough"),
    ("Northwind Telemetry does ~not~ price per monitored host[^3].", "report.markdown", "a pair of `~`"),
    ("Northwind Telemetry does not\b\b\b\b price per monitored host[^3].", "report.text.controls", "U+0008"),
    ("Northwind Telemetry does not\rNorthwind prices per monitored host[^3].", "report.text.controls", "U+000D"),
    ("Northwind Telemetry does n\u0336o\u0336t\u0336 price per monitored host[^3].", "report.text.controls", "U+0336"),
    ("Northwind Telemetry does n\u0338o\u0338t\u0338 price per monitored host[^3].", "report.text.controls", "U+0338"),
    ("Northwind Telemetry prices &#x2028;per monitored host[^3].", "report.markdown", "a character reference"),
    ("Northwind prices per host, as [its page](https://evil.example/pricing) says[^3].", "report.markdown",
     "a link to https://evil.example/pricing"),
    ("Northwind prices per host <s>not</s> per GB[^3].", "report.markdown", "inline HTML `<s>`"),
])
def test_a_statement_shown_otherwise_than_read_is_an_error(run_copy: Path, claim: str, check_id: str,
                                                           says: str) -> None:
    text = _at("### Billing units and retention tiers", claim)
    errors = _errors(run_copy, text)
    assert check_id in errors, sorted(errors)
    assert says in errors[check_id].message
    assert errors[check_id].line == LINES.index("### Billing units and retention tiers") + 3


def test_a_tilde_for_about_is_no_strikethrough() -> None:
    for claim in ("Discounts run ~10% to ~30%[^9].", "Discounts run ~10%[^9]."):
        text = _at("### Enterprise commitments and overages", claim)
        assert _form_ok(text), claim


def test_a_link_to_a_cited_page_and_crlf_line_ends_are_allowed(run_copy: Path) -> None:
    text = _at("### Billing units and retention tiers",
               "[Acme's retention page](https://docs.acme.example/logs/retention) says indexed retention "
               "defaults to 15 days[^4].")
    assert _errors(run_copy, text) == {}
    assert _errors(run_copy, text.replace("\n", "\r\n")) == {}


# --- lead-in lines (item 10's honest form) ---------------------------------------------------------

@pytest.mark.parametrize("block", [
    "Acme's retention documentation gives these defaults:\n\n- indexed retention defaults to 15 days[^4].",
    "Acme's retention documentation gives these defaults:\n- indexed retention defaults to 15 days[^4].",
    "The retention options are:\n\n| Option | Price |\n|---|---|\n| 30-day | 1.6x the 15-day rate[^4] |",
    "- Retention:\n  - Acme's indexed retention defaults to 15 days[^4].",
])
def test_a_lead_in_before_its_list_or_table_is_no_uncited_claim(run_copy: Path, block: str) -> None:
    text = _at("### Billing units and retention tiers", block)
    assert _errors(run_copy, text) == {}
    lead = block.split(":")[0].lstrip("- ") + ":"
    claims = [c for c in find_claims(text) if c.text.startswith(lead)]
    assert claims, "the lead-in is read with the claim it introduces"


@pytest.mark.parametrize("block,check_id", [
    ("Acme's retention has 3 defaults:\n\n- indexed retention defaults to 15 days[^4].", "report.findings.uncited"),
    ("Acme is the cheapest. Its defaults are:\n\n- indexed retention defaults to 15 days[^4].",
     "report.findings.uncited"),
    ("Acme's retention documentation gives these defaults.\n\n- indexed retention defaults to 15 days[^4].",
     "report.findings.uncited"),
    ("Acme's retention documentation gives these defaults:\n\nIndexed retention defaults to 15 days[^4].",
     "report.findings.uncited"),
])
def test_a_lead_in_states_no_figure_is_one_sentence_and_introduces_a_list(run_copy: Path, block: str,
                                                                         check_id: str) -> None:
    assert check_id in _errors(run_copy, _at("### Billing units and retention tiers", block))


# --- findings files --------------------------------------------------------------------------------

@pytest.mark.parametrize("block,says", [
    ("<div>Acme charges $0.42 per host.</div>", "an HTML block"),
    ("```\nAcme charges $0.42 per host.\n```", "a fenced code block"),
    ("![](https://x.example/a.png)", "an image"),
    ("- Acme does ~~not~~ bill by GB ingested[^1].", "strikethrough"),
    ("#### Extra", "a `#### ` heading"),
])
def test_a_findings_file_is_held_to_the_same_forms_and_the_researcher_is_told(tmp_path: Path, block: str,
                                                                              says: str) -> None:
    run = copy_example(tmp_path)
    path = findings_path(run, BILLING)
    text = path.read_text(encoding="utf-8").replace("## Not established\n", f"{block}\n\n## Not established\n", 1)
    path.write_text(text, encoding="utf-8")
    bad = {c.id: c for c in checklist.run_checklist(run) if not c.ok}
    check = bad[f"findings.{BILLING}.markdown"]
    assert check.severity == "error" and says in check.message
    brief = Brief(slug=BILLING, brief_path=str(run / "briefs" / f"{BILLING}.md"), brief_hash="",
                  findings_path=str(path), text="")
    told = citation_problems(brief)
    assert any(says in problem for problem in told), told


def test_a_findings_file_with_control_characters_fails(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    path = findings_path(run, BILLING)
    path.write_text(path.read_text(encoding="utf-8").replace("bills logs in two parts", "bills\x1b[8m logs in two"),
                    encoding="utf-8")
    bad = {c.id for c in checklist.run_checklist(run) if not c.ok}
    assert f"findings.{BILLING}.text.controls" in bad
    assert load_findings(path).doc is not None


# --- the view --------------------------------------------------------------------------------------

def test_the_view_shows_refused_forms_as_the_text_they_are_written_with() -> None:
    html, _starts = render_markdown("Acme does ~~not~~ charge &#36;5 ![alt](data:image/png;base64,AA) "
                                    "[a page](https://evil.example/x)\n\n```\ncode\n```\n\nTitle\n---\n")
    assert "<s>" not in html and "<del>" not in html and "~~not~~" in html
    assert "<img" not in html and "<pre>" not in html
    assert "&amp;#36;5" in html  # the reference as written, not a dollar sign
    assert "evil.example" not in html.split("a page")[0][-80:] and 'href="https://evil.example' not in html
    assert "<h2" not in html


# --- the properties --------------------------------------------------------------------------------

def _invented(value: int) -> str:
    return f"Acme charges ${value // 100}.{value % 100:02d} per host"


REFUSED = [
    lambda s: f"<div>{s}.</div>",
    lambda s: f"<!-- {s}. -->",
    lambda s: f"It is {s}<br>.",
    lambda s: f"```\n{s}.\n```",
    lambda s: f"~~~\n{s}.\n~~~",
    lambda s: f"    {s}.",
    lambda s: f"![{s}](https://x.example/a.png)",
    lambda s: f"![](https://x.example/{len(s)}.png)",
    lambda s: f"Acme bills per GB ~~{s}~~[^2].",
    lambda s: f"Acme bills per GB ~{s}~[^2].",
    lambda s: f"Acme bills per GB &#8203;{s}[^2].",
    lambda s: f"# {s}",
    lambda s: f"#### {s}",
    lambda s: f"{s}.\n===",
    lambda s: f"{s}.\n---",
    lambda s: f"## Notes\n\n{s}.",
    lambda s: "> " * 4 + f"{s}.",
    lambda s: "- a\n  - b\n    - c\n      - " + f"{s}.",
    lambda s: ">" * 21 + f" {s}.",
    lambda s: f'[note]: https://x.example "{s}"',
    lambda s: f"- ### {s}",
    lambda s: f"| {s} |\n|---|",
    lambda s: f"Acme bills per GB, see [{s}](https://evil.example/)[^2].",
    lambda s: f"Acme bills per GB\b\b\b\b\b\b {s}[^2].",
    lambda s: f"Acme bills per GB\u2028{s}[^2].",
    lambda s: f"- {s}.",  # in Gaps, before TL;DR or after Sources: refused; in TL;DR or Findings: uncited
    lambda s: f'Acme bills per GB, see [its page](https://docs.acme.example/logs/retention "{s}")[^2].',
    lambda s: f"| Vendor | {s} |\n|---|---|\n| Acme bills per GB[^2] | |",
    lambda s: f"| Vendor | Unit |\n|---|---|\n| Acme | bills per GB[^2] | {s} |",  # beyond the header: dropped
    lambda s: "Acme bills per GB[^2] https://docs.acme.example/logs/retention" + "\u2800" * 40 + f" {s}.",
    lambda s: "Acme bills per GB[^2]" + "\u3164" * 40 + f" {s}.",
]


@st.composite
def refused_report(draw) -> str:
    """The example report with a statement of an invented figure, in a refused form, at any block boundary."""
    statement = _invented(draw(st.integers(10_001, 99_999)))
    block = draw(st.sampled_from(REFUSED))(statement)
    boundaries = [i for i, line in enumerate(LINES) if not line.strip()] + [len(LINES)]
    at = draw(st.sampled_from(boundaries))
    lines = list(LINES)
    lines[at:at] = ["", *block.split("\n"), ""]
    return "\n".join(lines) + "\n"


ALLOWED = [
    lambda c: c,
    lambda c: f"- {c}",
    lambda c: f"1. {c}",
    lambda c: f"> {c}",
    lambda c: f"- Retention:\n  - Acme:\n    - {c}",
    lambda c: f"Acme's retention documentation gives this default:\n\n- {c}",
    lambda c: f"| Vendor | Retention |\n|---|---|\n| Acme | {c} |",
    lambda c: f"| Vendor | Retention |\n|---|---|\n| Acme | {c} | |",  # an empty cell beyond the header hides nothing
    lambda c: c.replace("indexed", "`indexed`"),
    lambda c: c.replace("indexed retention", "*indexed retention*").replace("15 days", "**15 days**"),
    lambda c: c.replace("Acme's", "[Acme's](https://docs.acme.example/logs/retention)"),
    lambda c: c.replace("defaults to", "defaults\\\nto"),
]
GAPS_ALLOWED = [  # the forms Gaps & Limitations takes (checks/gaps_prose.py)
    "- The pages read do not state Northwind's retention prices.",
    f"- {CITED}",
    "- No page read gives a *Northwind* price for bullet 1.2.",
]


@st.composite
def allowed_report(draw) -> str:
    """The example report with a few cited, grounded statements in allowed forms in Findings, and Gaps lines."""
    lines = list(LINES)
    for _ in range(draw(st.integers(1, 3))):
        heading = draw(st.sampled_from(["### Billing units and retention tiers",
                                        "### Enterprise commitments and overages"]))
        block = draw(st.sampled_from(ALLOWED))(CITED)
        at = lines.index(heading) + 1
        lines[at:at] = ["", *block.split("\n")]
    gaps = draw(st.lists(st.sampled_from(GAPS_ALLOWED), max_size=2))
    at = lines.index("## Sources") - 1
    lines[at:at] = gaps
    return "\n".join(lines) + "\n"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=refused_report())
def test_a_statement_in_any_refused_form_anywhere_always_fails(run_copy: Path, text: str) -> None:
    assert _errors(run_copy, text), text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=allowed_report())
def test_statements_in_every_allowed_form_pass(run_copy: Path, text: str) -> None:
    errors = _errors(run_copy, text)
    assert errors == {}, (text, {k: v.message for k, v in errors.items()})


def test_the_line_finish_writes_when_nothing_is_cited_is_allowed_in_sources() -> None:
    text = REPORT.split("## Sources")[0] + f"## Sources\n\n{formats.REPORT_NO_SOURCES}\n"
    assert _form_ok(text)
    assert not _form_ok(text + "\nAcme charges $0.42 per host.\n")


# --- issue 43: blank-looking characters, link titles, header cells over nothing --------------------

HIDDEN = "and charges $250,000 per year"
BLANKS = [
    ("braille blanks after a bare URL", "https://docs.acme.example/logs/retention" + "\u2800" * 60 + " " + HIDDEN,
     "U+2800 BRAILLE PATTERN BLANK"),
    ("Hangul fillers", "\u3164" * 40 + HIDDEN, "U+3164 HANGUL FILLER"),
    ("a Hangul choseong filler", "\u115f" + HIDDEN, "U+115F HANGUL CHOSEONG FILLER"),
    ("a Hangul jungseong filler", "\u1160" + HIDDEN, "U+1160 HANGUL JUNGSEONG FILLER"),
    ("a halfwidth Hangul filler", "\uffa0" + HIDDEN, "U+FFA0 HALFWIDTH HANGUL FILLER"),
    ("a run of em spaces", "\u2003" * 80 + HIDDEN, "U+2003 EM SPACE"),
    ("a run of no-break spaces", " \u00a0\u00a0\u00a0" + HIDDEN, "U+00A0 NO-BREAK SPACE"),
    ("a soft hyphen", "de\u00adfault", "U+00AD SOFT HYPHEN"),
    ("a zero-width space", "15\u200bdays", "U+200B ZERO WIDTH SPACE"),
    ("a word joiner", "15\u2060days", "U+2060 WORD JOINER"),
    # the held-out audit's, and the classes they stand for (core/text.invisible_kind)
    ("a Khitan filler", "\U00016fe4" * 30 + HIDDEN, "U+16FE4 KHITAN SMALL SCRIPT FILLER"),
    ("a musical null notehead", "\U0001d159" * 30 + HIDDEN, "U+1D159 MUSICAL SYMBOL NULL NOTEHEAD"),
    ("a variation selector", "15\ufe00days", "U+FE00 VARIATION SELECTOR-1"),
    ("a supplementary variation selector", "15\U000e0100days", "U+E0100 VARIATION SELECTOR-17"),
    ("variation selectors smuggled after an emoji", "\u2705\ufe0f\ufe0f\ufe0e", "U+FE0F VARIATION SELECTOR-16"),
    ("a selector after a letter", "15 days\ufe0f", "U+FE0F VARIATION SELECTOR-16"),
    ("a private-use character", "\ue000" * 20 + HIDDEN, "U+E000 private-use"),
    ("a supplementary private-use character", "\U00100000" + HIDDEN, "U+100000 private-use"),
    ("a tag character", "15\U000e0041days", "U+E0041 TAG LATIN CAPITAL LETTER A"),
    ("a reserved default-ignorable", "15\U000e0fffdays", "U+E0FFF default-ignorable"),
    ("a noncharacter", "15\ufdd0days", "U+FDD0 noncharacter"),
    ("a Mongolian free variation selector", "15\u180bdays", "U+180B MONGOLIAN FREE VARIATION SELECTOR ONE"),
    ("a zero-width joiner between Latin letters", "da\u200dys", "U+200D ZERO WIDTH JOINER"),
    ("an ideographic space run", "\u3000\u3000" + HIDDEN, "U+3000 IDEOGRAPHIC SPACE"),
]


@pytest.mark.parametrize("name,hidden,says", BLANKS, ids=[b[0] for b in BLANKS])
def test_a_blank_looking_character_is_refused_at_its_line_with_its_name(run_copy: Path, name: str, hidden: str,
                                                                      says: str) -> None:
    text = _at("### Billing units and retention tiers", CITED.replace("[^4].", f" {hidden}[^4]."))
    errors = _errors(run_copy, text)
    check = errors["report.text.blank"]
    assert says in check.message and check.line == LINES.index("### Billing units and retention tiers") + 3


@pytest.mark.parametrize("honest", [
    CITED.replace("15 days", "15\u00a0days"),  # a no-break space between a figure and its unit
    CITED.replace("Acme's", "Acme\u2019s"),  # a typographic apostrophe
    CITED.replace("defaults to", "defaults\u2009to"),  # one thin space
    CITED.replace("Acme's", "\u26a0\ufe0f Acme's"),  # an emoji's presentation selector, once, after it
    CITED.replace("Acme's", "\U0001f468\u200d\U0001f4bb Acme's"),  # an emoji sequence
    CITED.replace("Acme's", "Acme's (\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645)"),  # Persian's ZWNJ
    CITED.replace("Acme's", "Acme's (\u65e5\u672c\u3000\u8a9e, caf\u00e9, \u0627\u0644\u0639\u0631\u0628\u064a\u0629)"),
])
def test_the_honest_forms_of_those_characters_pass(run_copy: Path, honest: str) -> None:
    assert _errors(run_copy, _at("### Billing units and retention tiers", honest)) == {}


# Every class of core/text.invisible_kind, and the places a check reads in report.md: each is refused
# wherever it stands (blank_check reads the whole file, Sources titles included, and a findings file
# the same way), and honest text in other scripts passes.
INVISIBLE_RANGES = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
                    (0x200B, 0x200D), (0x2060, 0x2065), (0x206A, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F),
                    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
                    (0xE0000, 0xE0FFF), (0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD), (0xFDD0, 0xFDEF),
                    (0x2800, 0x2800), (0x16FE4, 0x16FE4), (0x1D159, 0x1D159), (0x0600, 0x0605), (0x110BD, 0x110BD),
                    (0x13430, 0x1343F), (0x0378, 0x0379)]
PLACES = {  # a line of the example report -> where in it the character goes
    "claim": "Acme Observability bills two dimensions",
    "heading": "### Billing units and retention tiers",
    "tldr": "- Vendors bill logs by different units",
    "gaps": "- No page read gives a price for rehydrating archived logs.",
    "sources title": "[^1]: **Title**: ",
}
HONEST_SCRIPTS = [(0x00C0, 0x00FF), (0x0100, 0x017F), (0x0391, 0x03C9), (0x0410, 0x044F), (0x05D0, 0x05EA),
                  (0x0621, 0x064A), (0x0905, 0x0939), (0x3041, 0x3096), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3),
                  (0x1F600, 0x1F64F), (0x2200, 0x22FF), (0x20A0, 0x20C0)]


def _code_point(ranges):
    return st.sampled_from(ranges).flatmap(lambda r: st.integers(r[0], r[1])).map(chr)


def _assigned_code_point(ranges):
    """Honest text holds assigned characters only: U+03A2, inside the Greek range, is unassigned and
    refused as blank-looking (an unassigned code point shows as nothing or a box)."""
    import unicodedata

    return _code_point(ranges).filter(lambda ch: unicodedata.category(ch) != "Cn")


@settings(max_examples=80, deadline=None)
@given(ch=_code_point(INVISIBLE_RANGES), place=st.sampled_from(sorted(PLACES)), repeat=st.integers(1, 3))
def test_every_invisible_class_is_refused_wherever_a_check_reads(ch: str, place: str, repeat: int) -> None:
    from web_research.checks.text_controls import blank_check, bidi_check

    line = next(n for n, text in enumerate(LINES) if text.startswith(PLACES[place]))
    lines = list(LINES)
    cut = len(PLACES[place]) + 4
    lines[line] = lines[line][:cut] + ch * repeat + lines[line][cut:]
    text = "\n".join(lines) + "\n"
    refused = [c for c in (blank_check("report", Path("report.md"), text),
                           bidi_check("report", Path("report.md"), text)) if not c.ok]
    assert refused and refused[0].line == line + 1, (hex(ord(ch)), place)


@settings(max_examples=60, deadline=None)
@given(text=st.lists(_assigned_code_point(HONEST_SCRIPTS), min_size=1, max_size=40).map("".join),
       spaced=st.sampled_from([" ", "\u00a0", "\u2009", "\u3000", "\u202f"]))
def test_honest_text_in_other_scripts_passes(text: str, spaced: str) -> None:
    from web_research.core.text import blank_chars, strip_invisible

    line = f"Acme {text}{spaced}{text[::-1]} bills per GB."
    assert blank_chars(line) == ([], 0)
    assert strip_invisible(line) == line
    assert blank_chars(f"{line} 1\ufe0f\u20e3 \u2764\ufe0f\u200d\U0001f525") == ([], 0)  # a keycap, an emoji sequence


def test_the_invisible_tables_are_unicodes() -> None:
    """core/text.py writes Default_Ignorable_Code_Point and Cf out as ranges (UNICODE_VERSION): they
    are the `regex` module's (a newer Unicode than this Python's), and the classes hold every
    private-use, surrogate and unassigned code point this Python knows."""
    import unicodedata

    import regex

    from web_research.core import text as core_text

    every = "".join(map(chr, range(0x110000)))
    ignorable = [m.start() for m in regex.finditer(r"\p{Default_Ignorable_Code_Point}", every)]
    fmt = [m.start() for m in regex.finditer(r"\p{Cf}", every)]
    assert {c for low, high in core_text._IGNORABLE_RANGES for c in range(low, high + 1)} == set(ignorable)
    assert {ord(ch) for ch in core_text.FORMAT_CHARS} == set(fmt)
    assert all(core_text.invisible_kind(chr(c)) in (core_text.IGNORABLE, core_text.FORMAT) for c in ignorable)
    for code in range(0xA0, 0x110000, 29):  # one code point in 29, every block touched
        ch = chr(code)
        if unicodedata.category(ch) in ("Co", "Cs", "Cn", "Cf"):
            assert core_text.invisible_kind(ch) is not None, hex(code)


def test_a_findings_file_with_blank_looking_characters_fails_and_the_researcher_is_told(tmp_path: Path) -> None:
    run = copy_example(tmp_path)
    path = findings_path(run, BILLING)
    text = path.read_text(encoding="utf-8").replace("bills logs in two parts", "bills logs in two parts" + "\u2800" * 30
                                                    + " " + HIDDEN, 1)
    path.write_text(text, encoding="utf-8")
    bad = {c.id: c for c in checklist.run_checklist(run) if not c.ok}
    check = bad[f"findings.{BILLING}.text.blank"]
    assert check.severity == "error" and "U+2800" in check.message
    assert check.line == next(n for n, line in enumerate(text.splitlines(), 1) if "\u2800" in line)
    brief = Brief(slug=BILLING, brief_path=str(run / "briefs" / f"{BILLING}.md"), brief_hash="",
                  findings_path=str(path), text="")
    assert any("U+2800 BRAILLE PATTERN BLANK" in problem for problem in citation_problems(brief))


def test_a_link_title_is_refused_and_the_same_link_without_it_passes(run_copy: Path) -> None:
    link = "[Acme's retention page](https://docs.acme.example/logs/retention{}) says indexed retention " \
           "defaults to 15 days[^4]."
    attack = _at("### Billing units and retention tiers", link.format(' "Acme was fined $2 million for hidden fees"'))
    check = _errors(run_copy, attack)["report.markdown"]
    assert "a link title" in check.message and "Acme was fined" in check.message
    assert check.line == LINES.index("### Billing units and retention tiers") + 3
    assert _errors(run_copy, _at("### Billing units and retention tiers", link.format(""))) == {}
    html, _starts = render_markdown(link.format(" 'Acme was fined'"))
    assert "Acme was fined" not in html  # and the view shows no tooltip


@pytest.mark.parametrize("table", [
    "| Vendor | Indexed retention default | Acme was fined $2 million |\n|---|---|---|\n"
    "| Acme | 15 days[^4] | |",
    "| Vendor | Indexed retention default | Note |\n|---|---|---|\n| Acme | 15 days[^4] |",
])
def test_a_header_cell_over_an_empty_column_is_refused(run_copy: Path, table: str) -> None:
    check = _errors(run_copy, _at("### Billing units and retention tiers", table))["report.markdown"]
    assert "a table header cell" in check.message and "over a column no row fills" in check.message
    assert check.line == LINES.index("### Billing units and retention tiers") + 3


@pytest.mark.parametrize("table", [
    "| Vendor | Indexed retention default |\n|---|---|\n| Acme | 15 days[^4] |",
    "| Vendor | Indexed retention default | Source |\n|---|---|---|\n| Acme | 15 days | [^4] |",
    "| Vendor | Indexed retention default | |\n|---|---|---|\n| Acme | 15 days[^4] | |",
    # the audit's honest form: a first header cell left empty over the row labels
    "|  | Indexed retention default |\n|---|---|\n| Acme | 15 days[^4] |",
])
def test_honest_tables_pass_and_a_column_of_references_is_read_with_its_header(run_copy: Path, table: str) -> None:
    text = _at("### Billing units and retention tiers", table)
    assert _errors(run_copy, text) == {}
    if table.startswith("|  |"):  # its columns counted from the empty cell on: a cell beyond them is still refused
        beyond = _at("### Billing units and retention tiers", table + " Acme was fined |")
        assert "more cells than its header" in _errors(run_copy, beyond)["report.markdown"].message
        return
    [claim] = [c for c in find_claims(text) if c.text.startswith("Vendor: Acme")]
    assert ("Source" in claim.text) == ("Source" in table)


def test_a_header_over_a_column_of_references_is_read_and_so_checked(run_copy: Path) -> None:
    table = ("| Vendor | Indexed retention default | Fined $2 million |\n|---|---|---|\n"
             "| Acme | 15 days | [^4] |")
    errors = _errors(run_copy, _at("### Billing units and retention tiers", table))
    assert "report.claims.grounded" in errors, sorted(errors)  # the header's figure is grounded like any other


def test_blank_looking_characters_are_found_in_linear_time_and_counted_whole() -> None:
    """A hostile file is bounded (formats.MAX_MARKDOWN_BYTES), not kind: half a million blanks,
    or a long run of ASCII spaces, is read in one pass, and the refusal counts every one."""
    import time

    from web_research.checks.text_controls import blank_check
    from web_research.core.text import blank_chars

    started = time.perf_counter()
    places, total = blank_chars(" " * 200_000 + "\u00e9" + "\u2800" * 200_000 + "a \u2003b", 6)
    assert total == 200_001 and places[0] == (200_001, "U+2800 BRAILLE PATTERN BLANK")
    check = blank_check("report", Path("report.md"), "\ufeff# R\n" + "\u2800" * 10)
    assert check.line == 2 and "and 4 more" in check.message  # a byte-order mark that opens a file is no blank
    assert time.perf_counter() - started < 5  # about 0.1 s on an idle core
