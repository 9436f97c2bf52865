"""The blocks trafilatura leaves out are put back in reading order, and page furniture is not."""
from __future__ import annotations

from lxml import html

from web_research.evidence.extraction import extract_in_process
from web_research.evidence.page_blocks import (body_blocks, drop_invisible, locate_content, merge_missing, put_back,
                                               tidy_rows, whole_body)
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


def test_merge_adds_what_is_missing_at_each_of_its_places_after_the_block_before_it():
    # The page has "Beta" twice; the stored text reads as the page does, so it has it twice.
    text, added = merge_missing("Alpha\nGamma", ["Alpha", "Beta", "Gamma", "Beta", "Delta"])
    assert (text, added) == ("Alpha\nBeta\nGamma\nBeta\nDelta", 3)
    assert merge_missing("Alpha\nGamma", ["“Alpha”", "Gamma"]) == ("Alpha\nGamma", 0)  # found after normalization


def test_a_missing_block_goes_after_a_multi_line_block_not_inside_it():
    code = "x = 1\ny = 2\nprint(x + y)"
    text, added = merge_missing(f"Intro\n{code}\nOutro", ["Intro", code, "Dropped caption", "Outro"])
    assert (text, added) == (f"Intro\n{code}\nDropped caption\nOutro", 1)


LONG = ("This paragraph of the article says enough about the subject to be its main text. " * 2).strip()


def _text(*lines: str) -> str:
    return "\n".join(lines)


def _added(text: str, markup: str) -> list[str]:
    """The lines `put_back` adds to trafilatura's `text` for the page `markup`."""
    merged, added = put_back(text, html.document_fromstring(markup))
    new = [line for line in merged.split("\n") if line not in text.split("\n")]
    assert len(new) == added
    return new


def test_an_element_holding_the_content_is_not_furniture_whatever_its_class_says():
    # Classes such as "feature-footer-v2" on Wikipedia's body or "has-sidebar-left" on a theme's
    # wrapper name furniture, but the element holds the article: what it holds is put back.
    # (The scope is widened past it here, as content spread over two columns makes it.)
    page = (f'<html><body class="feature-footer-v2"><div class="wrap"><div class="main has-sidebar-left">'
            f'<p>Photo: A. Person</p><div class="text"><p>A {LONG}</p><p>B {LONG}</p><p>C {LONG}</p></div></div>'
            f'<div class="second"><p>D {LONG}</p><p>E {LONG}</p></div>'
            f'<div class="sidebar"><p>Sidebar text</p></div></div></body></html>')
    text = _text(*(f"{letter} {LONG}" for letter in "ABCDE"))
    content = locate_content(html.document_fromstring(page), text)
    assert content.scope.get("class") == "wrap" and content.region.get("class") == "text"
    assert _added(text, page) == ["Photo: A. Person"]


def test_inside_the_content_region_a_table_of_contents_and_a_box_are_content_but_hidden_text_is_not():
    page = (f'<html><body><nav><ul><li>Home</li><li>Docs</li></ul></nav><div id="content"><article>'
            f'<h1>Mozilla</h1><p>Intro {LONG}</p>'
            f'<div class="toc" role="navigation"><h2>Contents</h2><ul><li>1 History</li><li>2 Values</li></ul></div>'
            f'<h2>History</h2><p>Past {LONG}</p><aside class="newsletter"><p>Sign up for the newsletter</p></aside>'
            f'<p hidden>Hidden note</p><script>var x = "script text";</script>'
            f'<h2>Values</h2><p>Values {LONG}</p></article></div><footer><p>Copyright</p></footer></body></html>')
    text = _text("Mozilla", f"Intro {LONG}", "History", f"Past {LONG}", "Values", f"Values {LONG}")
    tree = html.document_fromstring(page)
    content = locate_content(tree, text)
    assert content.region is not None and content.region.tag == "article"
    assert content.scope.get("id") == "content"  # the region's parent
    assert _added(text, page) == ["Contents", "1 History", "2 Values", "Sign up for the newsletter"]
    merged, _ = put_back(text, tree)
    lines = merged.split("\n")
    assert lines.index("Contents") == lines.index(f"Intro {LONG}") + 1
    assert lines.index("Sign up for the newsletter") == lines.index(f"Past {LONG}") + 1


def test_blocks_are_put_back_around_the_article_but_not_from_the_site_around_it():
    # The region is the story's body; its parent holds the byline; the rail beside the story is
    # site furniture that no class names.
    page = (f'<html><body><div class="layout"><div class="story"><div class="meta"><p>By A. Writer</p></div>'
            f'<div class="story-body"><p>One {LONG}</p><p>Two {LONG}</p><p>Three {LONG}</p></div></div>'
            f'<div class="rail"><p>Most popular: an unrelated story</p></div></div></body></html>')
    text = _text(f"One {LONG}", f"Two {LONG}", f"Three {LONG}")
    assert _added(text, page) == ["By A. Writer"]


def test_the_scope_widens_to_hold_most_of_the_content_when_it_is_spread_over_a_layout():
    # The region holds 60% of what trafilatura kept, a second column 35%: blocks are put back
    # from the element holding at least 90%, so the second column's dropped block comes back.
    page = (f'<html><body><div class="wrap"><div class="main"><div class="text"><p>A {LONG}</p>'
            f'<p>B {LONG}</p><p>C {LONG}</p></div></div><div class="second"><p>D {LONG}</p><p>E {LONG}</p>'
            f'<p>Dropped cell</p></div></div><div class="other"><p>Outside the wrap</p></div></body></html>')
    text = _text(*(f"{letter} {LONG}" for letter in "ABCDE"))
    content = locate_content(html.document_fromstring(page), text)
    assert content.region is not None and content.region.get("class") == "text"
    assert content.scope.get("class") == "wrap"
    assert _added(text, page) == ["Dropped cell"]


def test_a_block_found_only_inside_a_longer_word_or_number_is_put_back():
    # LWN's tables: a cell "22" is not quotable from "22,134", nor "SUSE" from "openSUSE".
    text = "In all, 22,134 changesets came from openSUSE and others."
    merged, added = merge_missing(text, [text, "22", "SUSE"])
    assert (merged.split("\n")[1:], added) == (["22", "SUSE"], 2)


def test_a_block_whose_words_stand_only_inside_another_block_is_put_back_at_its_place():
    # The page's blocks do not overlap: "others" as a block of its own is not the word at the end
    # of the paragraph before it.
    text = "In all, 22,134 changesets came from openSUSE and others.\nTotals"
    merged, added = merge_missing(text, ["In all, 22,134 changesets came from openSUSE and others.", "others", "Totals"])
    assert (merged.split("\n"), added) == (["In all, 22,134 changesets came from openSUSE and others.", "others",
                                            "Totals"], 1)


# Issue 36: on an API reference page, signatures trafilatura dropped went after a short block
# ("New in version 3.11.", "Note") found far ahead, or after a line that ends inside a paragraph.
PARAGRAPH = "This method is used by the internals and is not expected to be\nused by end-user code."


def test_a_short_block_found_far_ahead_does_not_take_the_blocks_after_it_there():
    text = _text("A first paragraph of the reference page.", PARAGRAPH, "Note", "A last paragraph of the page.")
    blocks = ["A first paragraph of the reference page.", "Note", "when() → float | None¶",
              " ".join(PARAGRAPH.split()), "Note", "A last paragraph of the page."]
    merged, added = merge_missing(text, blocks)
    assert merged == _text("A first paragraph of the reference page.", "Note", "when() → float | None¶", PARAGRAPH,
                           "Note", "A last paragraph of the page.")
    assert added == 2


def test_blocks_go_at_a_block_boundary_splitting_a_line_never_inside_a_paragraph():
    # trafilatura wrote the end of one block and the start of a paragraph on one line, and the
    # paragraph goes on over the next: the signature goes between them, not after the line.
    text = "New in version 3.11. " + PARAGRAPH
    merged, added = merge_missing(text, ["New in version 3.11.", "get_coro()¶", " ".join(PARAGRAPH.split())])
    assert (merged, added) == (_text("New in version 3.11.", "get_coro()¶", PARAGRAPH), 1)


def test_a_short_block_is_placed_only_where_it_stands_apart_not_inside_a_sentence():
    # "Note" inside trafilatura's line of other text is not the block "Note": taken there, the
    # signature after it would split that sentence.
    text = _text(f"Intro {LONG}", "A line of other text where Note stands inside a sentence.", f"End {LONG}")
    merged, added = merge_missing(text, [f"Intro {LONG}", "Note", "signature()¶", f"End {LONG}"])
    assert merged == _text(f"Intro {LONG}", "Note", "signature()¶",
                           "A line of other text where Note stands inside a sentence.", f"End {LONG}")
    assert added == 2


def test_a_garbled_copy_of_the_blocks_put_back_is_replaced_by_them():
    # PostgreSQL's SET page: trafilatura reorders a definition's inline code and emphasis.
    garbled = "- SET SCHEMA ' is an alias for value'SET search_path TO .  Only one\n   schema can be named. value"
    block = "SET SCHEMA 'value' is an alias for SET search_path TO value. Only one schema can be named."
    merged, added = merge_missing(_text("- SCHEMA", garbled, "- NAMES"), ["SCHEMA", block, "NAMES"])
    assert (merged, added) == (_text("- SCHEMA", block, "- NAMES"), 1)
    # Text with letters of its own between the same blocks is kept, the block put back before it.
    other = "- A line trafilatura found elsewhere, quite unlike it."
    merged, added = merge_missing(_text("- SCHEMA", other, "- NAMES"), ["SCHEMA", block, "NAMES"])
    assert (merged, added) == (_text("- SCHEMA", block, other, "- NAMES"), 1)


def test_a_one_word_block_is_found_as_a_word_where_searching_for_it_gives_up():
    # A table cell "'d'" after hundreds of words holding the letter: found as the cell it is,
    # so nothing is put back (and the row is not taken for a garbled copy of it).
    text = _text("add " * 600, "| Conversion | Meaning |", "| 'd' | Signed integer decimal. |")
    merged, added = merge_missing(text, ["add " * 600, "Conversion", "Meaning", "'d'", "Signed integer decimal."])
    assert (merged, added) == (text, 0)


def test_docbook_navigation_is_furniture():
    tree = html.document_fromstring(
        '<html><body><div class="navheader"><table><tr><td>Prev</td><td>Up</td></tr></table></div>'
        '<div class="refentry"><p>Text</p></div><div class="navfooter"><p>Next</p></div></body></html>')
    assert body_blocks(tree) == ["Text"]


def test_a_code_block_put_back_keeps_its_lines():
    tree = html.document_fromstring("<html><body><p>Text</p><pre>\nSELECT 1\n  FROM t;  <br>-- done\n</pre></body></html>")
    assert body_blocks(tree) == ["Text", "SELECT 1\n  FROM t;\n-- done"]


def test_runs_of_spaces_in_table_rows_are_made_one_and_other_lines_keep_theirs():
    text = "|     lower ( text )         → text | Converts   it |\n    indented code   line\n| x |"
    assert tidy_rows(text) == "| lower ( text ) → text | Converts it |\n    indented code   line\n| x |"
    page = FetchedPage("https://docs.example/f", "https://docs.example/f", 200, "text/html", None, (
        f"<html><body><article><p>{FILLER}</p><table><tr><th>Function</th></tr><tr><td><p>\n        <code>lower</code> "
        "( <code>text</code> )\n        → <code>text</code>\n       </p>\n       <p>\n        Converts the string to lower"
        f" case.\n       </p></td></tr></table><p>{FILLER}</p></article></body></html>").encode("utf-8"))
    stored = extract_in_process(page).text
    assert "| lower ( text ) → text Converts the string to lower case. |" in stored.split("\n"), stored


def test_nothing_found_puts_back_the_whole_body_outside_furniture():
    tree = html.document_fromstring("<html><body><nav>Menu</nav><p>Only text</p></body></html>")
    content = locate_content(tree, "Unrelated extracted text")
    assert content == whole_body(tree) and body_blocks(tree, content) == ["Only text"]


def test_a_header_footer_or_aside_inside_an_article_is_its_own_not_the_sites():
    # HTML's landmark rules: a header or footer is the site's banner or footer only outside
    # article, section, aside, nav and main; an aside is complementary only outside the first four.
    tree = html.document_fromstring(
        "<html><body><header><p>Site name</p></header><article><header><p>Standfirst</p></header>"
        "<p>Text</p><aside><p>About the author</p></aside></article>"
        "<main><aside><p>Related stories</p></aside><footer><p>Filed under: tests</p></footer></main>"
        "<footer><p>Copyright</p></footer></body></html>")
    assert body_blocks(tree) == ["Standfirst", "Text", "About the author", "Filed under: tests"]
    # The same when blocks are put back from the article itself (the region's parent here):
    # the article around them counts even though the walk starts inside it.
    page = (f'<html><body><main><article id="story"><header><p>Standfirst of the story</p></header>'
            f'<div class="story-body"><p>One {LONG}</p><p>Two {LONG}</p></div>'
            f'<aside><p>About the author</p></aside></article></main></body></html>')
    text = _text(f"One {LONG}", f"Two {LONG}")
    assert locate_content(html.document_fromstring(page), text).scope.get("id") == "story"
    assert _added(text, page) == ["Standfirst of the story", "About the author"]


def test_a_text_holding_a_small_part_of_the_page_locates_no_content():
    # A front page of teasers, where trafilatura kept one (5% of the body's text): the content
    # is not located, so blocks are put back from the whole body. With three (15%) it is.
    page = ('<html><body><div class="lead">' + "".join(f"<p>Story {n}: {LONG}</p>" for n in range(3)) + "</div>"
            + "".join(f'<div class="teaser"><p>Story {n}: {LONG}</p></div>' for n in range(3, 20)) + "</body></html>")
    tree = html.document_fromstring(page)
    assert locate_content(tree, f"Story 0: {LONG}") == whole_body(tree)
    located = locate_content(tree, _text(*(f"Story {n}: {LONG}" for n in range(3))))
    assert located.region is not None and located.region.get("class") == "lead"


def test_elements_a_reader_never_sees_are_removed_with_their_text_but_not_what_follows():
    tree = html.document_fromstring(
        '<html><body><p>As at 2017<sup style="color: grey; display : none !important">[update]</sup>, the country'
        ' ranked fourth.</p><div hidden>Hidden panel</div><p style="visibility:hidden">Invisible</p>'
        '<p style="display:none-ish">Odd style, shown</p></body></html>')
    assert drop_invisible(tree) == 3
    assert body_blocks(tree) == ["As at 2017, the country ranked fourth.", "Odd style, shown"]


def test_a_code_block_trafilatura_ran_together_gets_its_lines_back():
    # trafilatura writes a definition's example on the line of the sentence before it.
    text = _text("Example: async def main(): async with timeout(10): await task()", "After the example.")
    code = "async def main():\n    async with timeout(10):\n        await task()"
    merged, added = merge_missing(text, ["Example:", code, "After the example."])
    assert (merged, added) == (_text("Example:", code, "After the example."), 0)
    kept = _text("Example:", code, "After the example.")
    assert merge_missing(kept, ["Example:", code, "After the example."]) == (kept, 0)  # lines kept: unchanged
