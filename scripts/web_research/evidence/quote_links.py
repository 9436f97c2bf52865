"""An excerpt as the web points at a passage: a text fragment link and a W3C TextQuoteSelector.

Both are built from the passage as the stored page writes it (the page's own characters, found by
the one excerpt matcher, evidence/matcher.py), not from the excerpt as a model typed it: a
browser and an annotation tool look for the page's curly quotes and accents, not a retyped
straight quote.

- `text_fragment(passage, page, at)`: `:~:text=[prefix-,]start[,end]` (the WICG Scroll to
  Text Fragment directive, https://wicg.github.io/scroll-to-text-fragment/): a short passage
  whole, a longer one as its first and last words (a range, which may cross the page's blocks);
  a prefix only when the start words occur earlier in the page. Each term is percent-encoded as
  the spec asks: every character but the unreserved ASCII ones, and `-`, `,` and `&` always.
- `live_link(url, fragment)`: the page's URL with the directive after its own fragment.
- `quote_selector(page, start, end)`: {type, exact, prefix, suffix} of the Web Annotation Data
  Model (https://www.w3.org/TR/annotation-model/#text-quote-selector).
"""
from __future__ import annotations

from urllib.parse import quote

WHOLE_WORDS = 8  # a passage of at most this many words goes whole into the directive
EDGE_WORDS = 4  # else its first and last this many words
PREFIX_WORDS = 3
CONTEXT_CHARS = 32  # a TextQuoteSelector's prefix and suffix


def encode_term(term: str) -> str:
    """A directive term, percent-encoded (UTF-8); `-` too, which would mark a prefix or suffix."""
    return quote(term, safe="").replace("-", "%2D")


def _words(text: str) -> list[str]:
    return text.split()


def text_fragment(passage: str, page: str = "", at: int = 0) -> str | None:
    """The text directive (`:~:text=...`) that finds `passage`, which starts at `at` in `page`
    (the stored text, for the prefix); None for a passage with no words."""
    words = _words(passage)
    if not words:
        return None
    if len(words) <= WHOLE_WORDS:
        terms = [" ".join(words)]
    else:
        terms = [" ".join(words[:EDGE_WORDS]), " ".join(words[-EDGE_WORDS:])]
    directive = ",".join(encode_term(t) for t in terms)
    before = page[:at]
    if page and terms[0] in " ".join(_words(before)):
        prefix = _words(before)[-PREFIX_WORDS:]
        if prefix:
            directive = f"{encode_term(' '.join(prefix))}-,{directive}"
    return ":~:text=" + directive


def live_link(url: str, fragment: str | None) -> str:
    """`url` with the text directive: after its own fragment, or after a new `#`."""
    if not fragment:
        return url
    return f"{url}{fragment}" if "#" in url else f"{url}#{fragment}"


def quote_selector(page: str, start: int, end: int) -> dict[str, str]:
    """The TextQuoteSelector of `page[start:end]`, with up to CONTEXT_CHARS on each side."""
    return {"type": "TextQuoteSelector", "exact": page[start:end],
            "prefix": page[max(0, start - CONTEXT_CHARS):start], "suffix": page[end:end + CONTEXT_CHARS]}
