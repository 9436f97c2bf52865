"""The extraction benchmark's measure (`tests/benchmarks/extraction/quotable.py`) counts what it says:
an element the stored text dropped is not quotable, text outside the main content is boilerplate."""
from __future__ import annotations

from benchmarks.extraction.quotable import boilerplate_share, coverage, main_element, parse

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
