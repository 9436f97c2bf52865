"""The blocks trafilatura leaves out are put back in reading order, and page furniture is not."""
from __future__ import annotations

from lxml import html

from web_research.evidence.extraction import extract_in_process
from web_research.evidence.page_blocks import body_blocks, merge_missing
from web_research.evidence.transport import FetchedPage

FILLER = "This paragraph explains the data loading options in enough words to count as real text. " * 3
# trafilatura drops a section whose id holds "footer" (seen on numpy.org's genfromtxt page).
DOCS_PAGE = f"""<html><body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><article>
<h1>Importing data</h1><p>{FILLER}</p>
<section id="the-skip-header-and-skip-footer-arguments"><h2>The skip_header and skip_footer arguments</h2>
<p>The presence of a header in the file can hinder data processing, so skip_header drops lines.</p></section>
<section id="types"><h2>Choosing the data type</h2><p>{FILLER}</p></section></article>
<div class="share-buttons"><p>Share on social media</p></div><footer><p>Copyright notice</p></footer></body></html>"""


def test_a_section_trafilatura_drops_is_stored_in_its_place_and_furniture_is_not():
    page = FetchedPage("https://docs.example/io", "https://docs.example/io", 200, "text/html", None,
                       DOCS_PAGE.encode("utf-8"))
    content = extract_in_process(page)
    lines = content.text.split("\n")
    heading = lines.index("The skip_header and skip_footer arguments")
    assert lines[heading + 1].startswith("The presence of a header in the file")
    assert lines.index("Importing data") < heading < lines.index("Choosing the data type")
    assert "Share on social media" not in content.text and "Copyright notice" not in content.text
    assert content.extractor.startswith("trafilatura ") and content.extractor.endswith("(+2 page blocks)")


def test_body_blocks_skip_navigation_hidden_elements_and_sharing_classes():
    tree = html.document_fromstring(
        "<html><body><header><p>Site name</p></header><ul><li>first <b>item</b><ul><li>nested</li></ul></li></ul>"
        "<p hidden>secret</p><div role='navigation'>Next page</div><p class='social'>Tweet</p><p>Last<br>line</p>"
        "</body></html>")
    assert body_blocks(tree) == ["first item", "nested", "Last line"]


def test_merge_adds_only_what_is_missing_once_after_the_block_before_it():
    text, added = merge_missing("Alpha\nGamma", ["Alpha", "Beta", "Gamma", "Beta", "Delta"])
    assert (text, added) == ("Alpha\nBeta\nGamma\nDelta", 2)
    assert merge_missing("Alpha\nGamma", ["“Alpha”", "Gamma"]) == ("Alpha\nGamma", 0)  # found after normalization


def test_a_missing_block_goes_after_a_multi_line_block_not_inside_it():
    code = "x = 1\ny = 2\nprint(x + y)"
    text, added = merge_missing(f"Intro\n{code}\nOutro", ["Intro", code, "Dropped caption", "Outro"])
    assert (text, added) == (f"Intro\n{code}\nDropped caption\nOutro", 1)
