"""The extraction benchmark's measure (`tests/benchmarks/extraction/quotable.py`) counts what it says:
an element the stored text dropped is not quotable, text outside the main content is boilerplate."""
from __future__ import annotations

from benchmarks.extraction.quotable import boilerplate_share, coverage, longest_chain, main_element, page_order, parse

PAGE = """<!doctype html><html><body><nav><ul><li>Home</li><li>About us</li></ul></nav>
<main><h2>Install</h2><p>Run the installer with “--user” — it takes a minute.</p>
<p>A second paragraph that the extractor drops.</p>
<ul><li>first item<ul><li>nested item</li></ul></li></ul>
<pre>pip install thing
thing --help</pre>
<table><tr><th>Size</th><td>10 MB</td></tr></table></main></body></html>"""


def test_a_dropped_paragraph_lowers_coverage_and_the_rest_is_found_after_normalization():
    main = main_element(parse(PAGE))
    stored = ("Install\nRun the installer with \"--user\" - it takes a minute.\n- first item\n  - nested item\n"
              "pip install thing\nthing --help\n| Size | 10 MB |")
    result = coverage(main, stored)
    assert result.total == {"paragraph": 2, "list item": 2, "code block": 1, "table cell": 2, "heading": 1}
    assert result.found["paragraph"] == 1
    assert result.missed == [("paragraph", "A second paragraph that the extractor drops.")]
    assert result.share() == 7 / 8
    assert coverage(main, stored + "\nA second paragraph that the extractor drops.").share() == 1.0


def test_an_element_must_be_found_at_word_boundaries():
    main = main_element(parse("<main><p>costs $1,000</p><td>10 MB</td></main>"))
    assert coverage(main, "it costs $1,000,000 for 110 MB").share() == 0.0


def test_boilerplate_is_the_share_of_stored_text_outside_the_main_content():
    main = main_element(parse(PAGE))
    assert boilerplate_share(main, "Install\n- first item") == 0.0
    assert boilerplate_share(main, "Install\nHome page footer") == len("Home page footer") / len("InstallHome page footer")


ORDERED = """<main><h2>Timeout</h2><p>This method is used by the internals and is not expected to be used
by end-user code.</p><dl><dt>when() → float | None¶</dt><dd><p>Return the current deadline.</p></dd></dl>
<ul><li><p>A nested paragraph.</p>The item's own text, after it.</li></ul>
<table><tr><td>d</td><td>Signed integer decimal.</td></tr></table></main>"""
IN_ORDER = ("Timeout\nThis method is used by the internals and is not expected to be\nused by end-user code.\n"
            "when() → float | None¶\nReturn the current deadline.\n- A nested paragraph.\nThe item's own text, after it."
            "\n| d | Signed integer decimal. |")


def test_units_in_the_pages_order_each_whole_count_as_in_order():
    order = page_order(main_element(parse(ORDERED)), IN_ORDER)
    # Eight units, the definition term and a list item's own text after its nested paragraph included;
    # the one-letter cell is found as a word of its own.
    assert (order.kept, order.in_order, order.split) == (8, 8, 0)


def test_a_block_put_back_inside_a_paragraph_splits_it_and_stands_out_of_order():
    spliced = IN_ORDER.replace("\nused by end-user code.", "\nReturn the current deadline.\nused by end-user code.", 1)
    spliced = spliced.replace("¶\nReturn the current deadline.\n- A", "¶\n- A")
    order = page_order(main_element(parse(ORDERED)), spliced)
    assert order.split == 1 and order.split_units == ["This method is used by the internals and is not expected to be "
                                                      "used by end-user code."]
    # The paragraph is not kept whole; the definition put back inside it stands before its term
    # (one of the two is out of order).
    assert (order.kept, order.in_order) == (7, 6)
    assert order.out_of_order in (["Return the current deadline."], ["when() → float | None¶"])
    moved = IN_ORDER.replace("when() → float | None¶\n", "").replace("Signed integer decimal. |",
                                                                    "Signed integer decimal. |\nwhen() → float | None¶")
    order = page_order(main_element(parse(ORDERED)), moved)
    assert (order.kept, order.in_order, order.split, order.out_of_order) == (8, 7, 0, ["when() → float | None¶"])


def test_the_longest_chain_takes_one_place_per_unit_and_the_most_units():
    # Three units; the first has two places, one of which would push the other two out.
    assert longest_chain([[(50, 60), (0, 5)], [(10, 20)], [(30, 40)]]) == [True, True, True]
    assert longest_chain([[(50, 60)], [(10, 20)], [(30, 40)]]) == [False, True, True]
    assert sum(longest_chain([[(0, 10)], [(5, 15)]])) == 1  # overlapping places: one unit only
