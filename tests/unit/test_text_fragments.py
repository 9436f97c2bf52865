"""Text fragment links and TextQuoteSelectors (evidence/quote_links.py): the spec's encoding, and
the view's link to the live page opened in headless Chromium, where the passage is highlighted."""
from __future__ import annotations

import collections
import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from urllib.parse import unquote

import pytest

from example_run import SCRIPTS_DIR, copy_example_to
from page_server import PageServer
from web_research import formats
from web_research.cli import main
from web_research.evidence.quote_links import (content_quote_selector, encode_term, live_link, quote_selector,
                                              text_fragment)
from web_research.evidence.snapshots import find_snapshot
from web_research.exitcodes import EXIT_OK

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "observability-pricing"


def test_terms_are_percent_encoded_as_the_spec_asks() -> None:
    assert encode_term("don't wait") == "don%27t%20wait"
    assert encode_term("a-b, c&d") == "a%2Db%2C%20c%26d"
    assert encode_term("über “Pro” 20 €") == "%C3%BCber%20%E2%80%9CPro%E2%80%9D%2020%20%E2%82%AC"


def test_a_short_passage_goes_whole_a_long_one_as_its_edges() -> None:
    assert text_fragment("Ingest  is  billed per GB.") == ":~:text=Ingest%20is%20billed%20per%20GB."
    long = "one two three four five six seven eight nine ten"
    assert text_fragment(long) == ":~:text=one%20two%20three%20four,seven%20eight%20nine%20ten"
    assert text_fragment("  \n") is None


def test_no_term_crosses_a_block_and_no_mark_of_the_stored_text_is_in_it() -> None:
    """A browser finds a term only within one block (a line of the stored text; on a table row, a
    cell): a passage over two lines, cells or list items is a range of its first and last words."""
    assert text_fragment("Ingest is\nbilled per GB.") == ":~:text=Ingest%20is,billed%20per%20GB."
    row = "| Cold | $0.004 | 90 days |"
    assert text_fragment(row, row.index("Cold"), row.index("days") + 4) == ":~:text=Cold,90%20days"
    items = "Includes:\n- Unlimited buckets\n- Versioning with rules"
    assert text_fragment(items, items.index("Unlimited"), len(items)) == ":~:text=Unlimited%20buckets,Versioning%20with%20rules"
    table = "| Class | Price |\n|---|---|\n| Hot | $0.02 |"
    assert quote_selector(table, table.index("Class"), len(table) - 2)["exact"] == "Class Price Hot $0.02"


def test_a_prefix_only_when_the_start_occurs_earlier() -> None:
    page = "Plans differ. Ingest is billed per GB. Then: Ingest is billed per GB."
    at = page.rindex("Ingest")
    assert text_fragment(page, at) == ":~:text=per%20GB.%20Then%3A-,Ingest%20is%20billed%20per%20GB."
    first = page.index("Ingest")
    assert text_fragment(page, first, first + 24) == ":~:text=Ingest%20is%20billed%20per%20GB."
    # A browser matches without regard to case; the prefix is the block before when the start opens one.
    page = "The cold class is slow.\n| Hot | $0.02 | none |\n| Cold | $0.004 | 90 days |"
    assert text_fragment(page, page.index("Cold"), len(page) - 2) == ":~:text=none-,Cold,90%20days"


def test_a_content_quote_is_the_pages_text_content_with_cells_run_together() -> None:
    """textContent joins cells where the markup has no whitespace between them: `exact`, its prefix
    and its suffix are taken from it, so an annotation tool finds them; a word of one cell never runs
    into another word of the same cell, and the occurrence is the stored text's."""
    page = "Intro words here.\n| Hot | $0.02 |\n| Cold | $0.004 |\nAfter  the\ntable."
    content = "Intro words here.HotPrice $0.02ColdPrice $0.004After the table."
    content = content.replace("Price ", "")
    selector = content_quote_selector(page, page.index("Cold"), page.index("004") + 3, content)
    assert selector == {"type": "TextQuoteSelector", "exact": "Cold$0.004",
                        "prefix": "Intro words here.Hot$0.02", "suffix": "After the table."}
    assert "".join(selector[k] for k in ("prefix", "exact", "suffix")) in content
    assert content_quote_selector(page, page.index("After"), len(page), "After-the table.") is None
    twice = "Cold $0.004 first.\n| Cold | $0.004 |"
    at = twice.rindex("Cold")
    assert content_quote_selector(twice, at, len(twice) - 2, "Cold $0.004 first.Cold$0.004")["exact"] == "Cold$0.004"
    assert content_quote_selector(twice, 0, 11, "Cold $0.004 first.Cold$0.004")["prefix"] == ""


def test_the_directive_follows_the_urls_own_fragment() -> None:
    assert live_link("https://a.example/p", ":~:text=x") == "https://a.example/p#:~:text=x"
    assert live_link("https://a.example/p#top", ":~:text=x") == "https://a.example/p#top:~:text=x"
    assert live_link("https://a.example/p", None) == "https://a.example/p"


def test_a_quote_selector_takes_the_pages_own_characters_with_context() -> None:
    page = "x" * 40 + "the vendor’s plan" + "y" * 40
    assert quote_selector(page, 40, 57) == {"type": "TextQuoteSelector", "exact": "the vendor’s plan",
                                            "prefix": "x" * 32, "suffix": "y" * 32}
    page = "Intro words here.\n| Hot | $0.02 |\n| Cold | $0.004 |\nAfter  the\ntable."
    assert quote_selector(page, page.index("Cold"), page.index("004") + 3) == {
        "type": "TextQuoteSelector", "exact": "Cold $0.004", "prefix": "Intro words here. Hot $0.02 ",
        "suffix": " After the table."}


# --- In the browser ---------------------------------------------------------------------------

CHROMIUM = os.environ.get("WEB_RESEARCH_CHROMIUM", "/usr/bin/chromium")
GREEN = (0, 200, 0)
PASSAGE = ("The vendor’s “Pro” plan costs 20 € per GB — über-fast ingest, she said: don't wait for the "
           "“Enterprise” tier.")
# As a model may retype it: straight and curly apostrophes swapped; the link must use the page's own.
EXCERPT = PASSAGE.replace("vendor’s", "vendor's").replace("don't", "don’t")
LIVE_PAGE = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vendor pricing</title>
<style>::target-text {{ background-color: rgb{GREEN}; color: black; }} p {{ margin: 0 0 1em; }}</style></head>
<body><article><h1>Vendor pricing</h1>
<p>Plans at a glance. The vendor’s “Pro” plan was renamed in March, and the tiers were merged.</p>
{"".join(f"<p>Filler paragraph {n} about ingest volumes, retention days and the invoices that follow.</p>" for n in range(60))}
<p id="passage">{PASSAGE}</p>
{"".join(f"<p>Closing paragraph {n} on support hours and regional data centres.</p>" for n in range(30))}
</article></body></html>"""


def _pixels(png: bytes) -> list[tuple[int, int, int]]:
    """Every pixel of a non-interlaced 8-bit RGB(A) PNG (Playwright's screenshots)."""
    pos, idat = 8, b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        data = png[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, _, colour = struct.unpack(">IIBB", data[:10])
        elif kind == b"IDAT":
            idat += data
    bpp = {2: 3, 6: 4}[colour]
    raw, stride, out, prev, i = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.extend(tuple(line[x:x + 3]) for x in range(0, stride, bpp))
        prev = line
    return out


def _green_share(page, selector: str) -> float:
    """The share of the element's pixels painted in the ::target-text colour (scrolled into view)."""
    counts = collections.Counter(_pixels(page.locator(selector).screenshot()))
    return counts[GREEN] / max(1, sum(counts.values()))


@pytest.fixture(scope="module")
def chromium():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (the test extra)")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        if os.environ.get("WEB_RESEARCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required, but there is no Chromium at {CHROMIUM}")
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian package chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        try:
            yield browser
        finally:
            browser.close()


@pytest.mark.browser
def test_the_views_link_opens_the_live_page_with_the_passage_highlighted(chromium, tmp_path, capsys) -> None:
    pytest.importorskip("trafilatura")
    run = tmp_path / "run"
    copy_example_to(run)
    with PageServer() as server:
        url = server.serve("/vendor", LIVE_PAGE, content_type="text/html; charset=utf-8")
        assert main(["fetch", url, "--run", str(run), "--allow-loopback"]) == EXIT_OK, capsys.readouterr().err
        capsys.readouterr()
        stored = find_snapshot(run, url).text()
        assert PASSAGE in stored
        report = run / formats.REPORT_FILE
        text = report.read_text(encoding="utf-8")
        text = text.replace("https://docs.acme.example/logs/pricing", url, 1).replace(
            "Log Management is billed on two dimensions: data ingested, per GB, and events indexed, per million events.",
            EXCERPT, 1)
        report.write_text(text, encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "web_research", "view", str(run)], capture_output=True, text=True,
                              env={"PYTHONPATH": str(SCRIPTS_DIR), "PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr

        page = chromium.new_page(viewport={"width": 1000, "height": 700})
        page.goto((run / formats.REPORT_VIEW_FILE).as_uri())
        href = page.locator("li#fn-1 a.card-title, li[data-fn='1'] a.card-title").first.get_attribute("href")
        base, _, fragment = href.partition("#")
        assert base == url
        # The page's own characters (its apostrophe, not the excerpt's), encoded; the passage is long, so a
        # range of its first and last words; "The vendor’s “Pro” plan" occurs earlier, so a prefix.
        directive = fragment.removeprefix(":~:text=")
        prefix, start, end = directive.split(",")
        assert unquote(start) == "The vendor’s “Pro” plan" and unquote(end) == "for the “Enterprise” tier."
        assert prefix.endswith("-") and unquote(prefix[:-1]) == "invoices that follow."
        assert "%E2%80%99" in start and "%2D" not in start and "'" not in start
        page.click("sup.fn-ref a[data-fn='1']")
        panel_link = page.locator("#panel a.live-link")
        assert panel_link.get_attribute("href") == href

        live = chromium.new_page(viewport={"width": 1000, "height": 700})
        live.goto(href)
        live.wait_for_function("window.scrollY > 0", timeout=5000)
        live.wait_for_timeout(300)  # the highlight is painted after the scroll
        assert _green_share(live, "#passage") > 0.2
        assert _green_share(live, "p:nth-of-type(1)") == 0  # the earlier "Pro plan": the prefix ruled it out
        # Without the fragment nothing is highlighted (the colour is the fragment's, not the page's).
        live.goto("about:blank")
        live.goto(url)
        assert _green_share(live, "#passage") == 0


# Issue 45: a table row, list items and a definition, as the page shows them. The markup puts
# line breaks between cells and items, as pages written by hand or by templates do.
STRUCTURED_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Storage pricing</title>
<style>::target-text { background-color: rgb%s; color: black; } p, li, dd, td { margin: 0 0 1em; }</style></head>
<body><main><article><h1>Storage pricing</h1>
<p id="intro">Prices for each storage class are listed below. The cold class is cheap but slow to read back.</p>
%s
<table id="prices">
<thead><tr><th>Class</th><th>Price per GB</th><th>Minimum duration</th></tr></thead>
<tbody>
<tr id="hot">
  <td>Hot</td>
  <td>$0.020</td>
  <td>none</td>
</tr>
<tr id="cold">
  <td>Cold</td>
  <td>$0.004</td>
  <td>90 days</td>
</tr>
</tbody>
</table>
<p>Each plan includes the following for every account:</p>
<ul id="features">
  <li>Unlimited buckets in every region</li>
  <li>Versioning with lifecycle rules</li>
  <li>Server-side encryption by default</li>
</ul>
<dl id="terms">
  <dt>Durability</dt>
  <dd>Eleven nines over a given year for every class.</dd>
  <dt>Availability</dt>
  <dd>Three nines for the hot class in a given month.</dd>
</dl>
%s
</article></main></body></html>""" % (GREEN, "".join(f"<p>Filler paragraph {n} about ingest volumes, retention "
                                                      "days and the invoices that follow.</p>" for n in range(40)),
                                      "".join(f"<p>Closing paragraph {n} on support hours.</p>" for n in range(30)))
# (excerpt as a person or a model writes it, the element the passage is in, an element that must stay plain)
STRUCTURED_PASSAGES = [
    ("Cold $0.004 90 days", "#cold", "#intro"),  # the row as a person reads it: no pipes
    ("Versioning with lifecycle rules Server-side encryption by default", "#features", "#hot"),  # two items
    ("Durability Eleven nines over a given year for every class.", "#terms", "#features"),  # a term and its description
]


# The same page as a minifier or a template engine writes it: no whitespace between tags, so the page's
# textContent runs the cells, items, terms and descriptions together ("Cold$0.00490 days"), though a
# browser shows them apart; annotation tools anchor a quote against that textContent.
COMPACT_PAGE = re.sub(r">\s+<", "><", STRUCTURED_PAGE)


@pytest.mark.browser
@pytest.mark.parametrize("markup", [STRUCTURED_PAGE, COMPACT_PAGE], ids=["spaced", "compact"])
def test_table_list_and_definition_passages_are_highlighted_and_annotated_as_shown(chromium, tmp_path, capsys,
                                                                                   markup) -> None:
    """The live link and the annotation's quote are the page's own text: each link highlights its
    passage in Chromium, and each `exact` (with its prefix and suffix), as the export builds it from
    the page's WARC, is in the page's textContent as Chromium computes it. The stored text's own marks
    (pipes, list dashes) in either would find nothing: checked too, and so is the shown text on the
    compact page (what `exact` was before it was taken from the textContent)."""
    pytest.importorskip("trafilatura")
    from web_research.evidence.matcher import StoredPage, find_excerpt
    from web_research.report.export import archived_html, text_content

    run = tmp_path / "run"
    copy_example_to(run)
    with PageServer() as server:
        url = server.serve("/storage", markup, content_type="text/html; charset=utf-8")
        assert main(["fetch", url, "--run", str(run), "--allow-loopback"]) == EXIT_OK, capsys.readouterr().err
        capsys.readouterr()
        stored = StoredPage(find_snapshot(run, url).text())
        assert "| Cold | $0.004 | 90 days |" in stored.text  # the stored text draws the table
        archived = text_content(archived_html(find_snapshot(run, url)) or "")
        assert archived is not None
        live = chromium.new_page(viewport={"width": 1000, "height": 700})
        live.goto(url)
        content = " ".join(live.evaluate("document.body.textContent").split())
        assert " ".join(archived.split()) == content  # the export reads textContent as Chromium does
        for excerpt, where, elsewhere in STRUCTURED_PASSAGES:
            found = find_excerpt(excerpt, stored)
            assert found.ok, (excerpt, found)
            start, end = found.spans[0][0], found.spans[-1][1]
            selector = content_quote_selector(stored.text, start, end, archived)
            assert selector is not None, excerpt
            assert selector["exact"] in content and "|" not in selector["exact"], selector
            assert selector["prefix"] + selector["exact"] + selector["suffix"] in content, selector
            shown = quote_selector(stored.text, start, end)["exact"]
            assert (shown in content) == (markup is STRUCTURED_PAGE), shown
            assert " ".join(stored.text[start:end].split()) not in content  # the stored form is not the page's
            link = live_link(url, text_fragment(stored.text, start, end))
            live.goto("about:blank")
            live.goto(link)
            live.wait_for_function("window.scrollY > 0", timeout=5000)
            live.wait_for_timeout(300)  # the highlight is painted after the scroll
            assert _green_share(live, where) > 0.02, (excerpt, link)
            assert _green_share(live, elsewhere) == 0, (excerpt, link)
            # The passage as one term (how the link was built before issue 45) finds nothing.
            whole = live_link(url, ":~:text=" + encode_term(" ".join(stored.text[start:end].split())))
            live.goto("about:blank")
            live.goto(whole)
            live.wait_for_timeout(300)
            assert live.evaluate("window.scrollY") == 0 and _green_share(live, where) == 0, whole
