"""Extraction settings that cost time in every `fetch` child without changing the text."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import web_research

SCRIPTS = Path(web_research.__file__).resolve().parents[1]
# A code sample's output such as "(np.int64(0), np.int64(1))" has enough digits for htmldate's
# extensive date search to hand it to dateparser, whose first use builds its patterns (about
# 2 s, paid again in each extraction child). Only the page's title is taken from the metadata.
PAGE = ("<html><head><title>Indexing</title></head><body><article><h1>Indexing</h1>"
        "<p>Indexing an array with two integer arrays returns the elements at those positions.</p>"
        "<p>(np.int64(0), np.int64(1))</p></article></body></html>")
PROBE = f"""
import sys
from web_research.evidence.extraction import extract_in_process
from web_research.evidence.transport import FetchedPage
page = FetchedPage("https://docs.example/i", "https://docs.example/i", 200, "text/html", None, {PAGE.encode()!r})
content = extract_in_process(page)
assert "(np.int64(0), np.int64(1))" in content.text and content.title == "Indexing", content
print(sorted(name for name in sys.modules if name.split(".")[0] == "dateparser"))
"""


def test_extracting_a_page_does_not_load_the_date_parser():
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS))
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_text_the_page_hides_is_not_stored_so_the_sentence_around_it_can_be_quoted():
    # Wikipedia marks dated claims with an "[update]" link hidden by an inline style; kept, it
    # splits the sentence a reader sees, and the excerpt check refuses the sentence.
    from web_research.evidence.excerpts import match_excerpt
    from web_research.evidence.extraction import extract_in_process
    from web_research.evidence.transport import FetchedPage

    filler = "The economy of the country grew steadily over the decade, led by exports and services. " * 3
    sentence = "As at 2017, the country was ranked fourth in the strength of its democratic institutions."
    markup = (f"<html><head><title>Economy</title></head><body><article><h1>Economy</h1><p>{filler}</p>"
              f'<p>As at 2017<sup class="noprint" style="display:none;">[<a href="/edit">update</a>]</sup>, the'
              f" country was ranked fourth in the strength of its democratic institutions.</p><p>{filler}</p>"
              f"</article></body></html>")
    content = extract_in_process(FetchedPage("https://wiki.example/e", "https://wiki.example/e", 200, "text/html",
                                             None, markup.encode()))
    assert "update" not in content.text
    assert match_excerpt(sentence, content.text).ok
