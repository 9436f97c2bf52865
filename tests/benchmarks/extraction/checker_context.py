"""Benchmark: does the claim-checker see a table row's header and a description's term? (issue 43)

For every page (the committed pages of `manifest.json`, or with `--held-out` the installed
held-out documentation pages of `held_out.json`), every table cell under a header row and every
definition (`dd` after a `dt`: a Sphinx signature, a PostgreSQL parameter) is quoted as a
researcher would, by its first words (those that stand once in the stored text: a quote found twice
means the first place to `verify`), and the context the checker would be shown is read as the
plugin reads it (`evidence/page_contexts.contexts`: the stored text's context with the page's
HTML structure from the bounded child). It counts the quotes whose context names the cell's
header row and the definition's term, against the stored text's context alone (no HTML), and
times both: the added cost per excerpt is the structure's (one child per page, as the checker
prompt pays it). Usage (from the repository root):

    .venv/bin/python tests/benchmarks/extraction/checker_context.py [--held-out] [--page NAME ...] [--missed]
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2] / "scripts"), str(HERE)]


from debian_pages import HELD_OUT  # noqa: E402
from web_research.evidence.excerpts import find_at_bounds, normalize  # noqa: E402
from web_research.evidence.extraction import extract_in_process  # noqa: E402
from web_research.evidence.matcher import StoredPage, find_excerpt  # noqa: E402
from web_research.evidence.page_contexts import Excerpt, contexts  # noqa: E402
from web_research.evidence.page_structure import _text, parse_page  # noqa: E402
from web_research.evidence.structure_child import PageRequest  # noqa: E402
from web_research.evidence.transport import FetchedPage  # noqa: E402

QUOTE_WORDS = 10  # a quote is the first words of a cell or a description
MIN_WORDS = 2


def _quote(text: str) -> str:
    return " ".join(text.split()[:QUOTE_WORDS]).rstrip(",;:")


def targets(tree) -> list[tuple[str, str, str]]:
    """(kind, quote, what its context must name) for each header-row table cell and each definition."""
    out: list[tuple[str, str, str]] = []
    for table in tree.iter("table"):
        rows = [r for r in table.iter("tr") if next(r.iterancestors("table"), None) is table]
        header = next((r for r in rows if r.getparent() is not None and r.getparent().tag == "thead"), None)
        if header is None and rows and all(c.tag == "th" for c in rows[0] if isinstance(c.tag, str)):
            header = rows[0]
        if header is None:
            continue
        columns = " | ".join(_text(c) for c in header if c.tag in ("td", "th"))
        for row in rows:
            if row is header:
                continue
            for cell in row:
                if cell.tag in ("td", "th") and len(_text(cell).split()) >= MIN_WORDS:
                    out.append(("cell", _quote(_text(cell)), columns))
    for dd in tree.iter("dd"):
        dt = dd.getprevious()
        while dt is not None and dt.tag != "dt":
            dt = dt.getprevious()
        first = next((p for p in dd if p.tag == "p"), None)
        text = _text(first) if first is not None else ""
        if dt is not None and len(text.split()) >= MIN_WORDS:
            out.append(("term", _quote(text), " ".join(_text(dt).rstrip("\u00b6#").split())))
    return out


def _once(quote: str, stored: StoredPage) -> bool:
    """Whether the quote stands once in the stored text: a quote found twice is the first place
    to verify, so which cell or definition it means is not the page's to say."""
    key = normalize(quote)
    first = find_at_bounds(stored.normalized, key, 0) if key else -1
    return first >= 0 and find_at_bounds(stored.normalized, key, first + 1) < 0


def measure(name: str, body: bytes, missed: list[str]) -> dict:
    stored = StoredPage(extract_in_process(FetchedPage("https://x/", "https://x/", 200, "text/html", None,
                                                       body)).text)
    tree = parse_page(body.decode("utf-8", "replace"))
    wanted = [(kind, quote, named) for kind, quote, named in (targets(tree) if tree is not None else [])
              if find_excerpt(quote, stored, spans=False).ok and _once(quote, stored)]
    html = PageRequest((), body=body)
    began = time.perf_counter()
    plain = contexts([Excerpt(stored, None, quote) for _, quote, _ in wanted])
    text_ms = (time.perf_counter() - began) * 1000
    began = time.perf_counter()
    rich = contexts([Excerpt(stored, html, quote) for _, quote, _ in wanted])
    html_ms = (time.perf_counter() - began) * 1000
    counts = {"cell": [0, 0, 0], "term": [0, 0, 0]}  # quotes, named with the HTML, named from the text alone
    for (kind, quote, named), with_html, alone in zip(wanted, rich, plain):
        counts[kind][0] += 1
        key = normalize(named)
        got = with_html.columns if kind == "cell" and with_html else (with_html.term if with_html else None)
        if got and key and key in normalize(got):
            counts[kind][1] += 1
        elif len(missed) < 400:
            missed.append(f"{name} {kind}: {quote!r} wanted {named!r}, got {got!r}")
        base = alone.columns if kind == "cell" and alone else (alone.term if alone else None)
        counts[kind][2] += bool(base and key and key in normalize(base))
    return {"name": name, "counts": counts, "excerpts": len(wanted), "text_ms": text_ms, "html_ms": html_ms}


def pages(held_out: bool, names: list[str]) -> list[tuple[str, bytes]]:
    if held_out:
        entries = json.loads(HELD_OUT.read_text())["pages"]
        return [(e["name"], Path(e["path"]).read_bytes()) for e in entries
                if Path(e["path"]).is_file() and (not names or e["name"] in names)]
    entries = json.loads((HERE / "manifest.json").read_text())["pages"]
    return [(e["name"], gzip.decompress((HERE / e["html"]).read_bytes())) for e in entries
            if not names or e["name"] in names]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--page", action="append", default=[])
    parser.add_argument("--missed", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    missed: list[str] = []
    rows = [measure(name, body, missed) for name, body in pages(args.held_out, args.page)]
    rows = [r for r in rows if r["excerpts"]]
    for kind, label in (("cell", "table cells: header row shown"), ("term", "definitions: term shown")):
        total = sum(r["counts"][kind][0] for r in rows)
        named = sum(r["counts"][kind][1] for r in rows)
        alone = sum(r["counts"][kind][2] for r in rows)
        if total:
            print(f"{label}: {named}/{total} = {100 * named / total:.1f}% "
                  f"(stored text alone: {alone}/{total} = {100 * alone / total:.1f}%)")
    per = [(r["html_ms"] - r["text_ms"]) / r["excerpts"] for r in rows]
    added = [r["html_ms"] - r["text_ms"] for r in rows]
    if rows:
        print(f"{len(rows)} pages, {sum(r['excerpts'] for r in rows)} excerpts; added by the structure, per page "
              f"(one child each) median / mean / max ms: {statistics.median(added):.0f} / "
              f"{statistics.mean(added):.0f} / {max(added):.0f}; per excerpt median / mean: "
              f"{statistics.median(per):.1f} / {statistics.mean(per):.1f}")
    if args.missed:
        print("\n".join(missed))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
