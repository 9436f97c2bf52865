"""Benchmark: how much of real pages' main content the stored text lets a researcher quote.

Runs the plugin's extraction (`evidence.extraction.extract_page`, the bounded child
process `fetch` uses) on every page in `manifest.json` and prints, per page and in
total, the share of the main content's paragraphs, list items, code blocks, table
cells and headings found in the stored text (`quotable.py`), the extraction time,
and the share of stored text that is not main content (boilerplate kept).
Exits 1 when a target is missed. Usage (from the repository root):

    .venv/bin/python tests/benchmarks/extraction/run.py [--page NAME ...] [--missed] [--json FILE]
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

from debian_pages import load_held_out  # noqa: E402
from quotable import KINDS, Coverage, Order, boilerplate_share, coverage, main_element, page_order, parse  # noqa: E402
from web_research.evidence.extraction import extract_in_process, extract_page  # noqa: E402
from web_research.evidence.transport import FetchedPage  # noqa: E402

TARGET_OVERALL = 0.99
TARGET_PER_KIND = 0.97
# Reading order: on the committed pages every kept unit in order and none split; on the held-out pages
# (`debian_pages.py`), which the rules were not written against, at least this share in order.
TARGET_ORDER_HELD_OUT = 0.999


def measure(entry: dict, show_missed: int, in_process: bool = False) -> dict:
    """One page: extract it as `fetch` does, then measure coverage, order and boilerplate."""
    body = gzip.decompress((HERE / entry["html"]).read_bytes()) if "html" in entry else Path(entry["path"]).read_bytes()
    main_spec = entry["main"]
    if "file" in main_spec:
        main = main_element(parse(gzip.decompress((HERE / main_spec["file"]).read_bytes()).decode("utf-8")), "/*")
    else:
        main = main_element(parse(body), main_spec.get("xpath"))
    page = FetchedPage(requested_url=entry["origin_url"], final_url=entry["origin_url"], status=200,
                       content_type="text/html", charset=None, body=body)
    start = time.perf_counter()
    extracted = (extract_in_process if in_process else extract_page)(page)
    seconds = time.perf_counter() - start
    result = coverage(main, extracted.text, keep_missed=show_missed)
    return {"name": entry["name"], "site": entry["site"], "seconds": seconds, "coverage": result,
            "order": page_order(main, extracted.text, keep_examples=show_missed),
            "boilerplate": boilerplate_share(main, extracted.text), "chars": len(extracted.text),
            "extractor": extracted.extractor}


def _pct(value: float | None) -> str:
    return "    -" if value is None else f"{100 * value:5.1f}"


def report(rows: list[dict], show_missed: bool, held_out: bool) -> tuple[Coverage, list[str]]:
    """Print the per-page table and the totals; return the total and the targets missed."""
    kinds = list(KINDS)
    print(f"{'page':22} {'all%':>5} " + " ".join(f"{k[:9]:>9}" for k in kinds)
          + f" {'order%':>6} {'split':>5} {'time s':>6} {'boiler%':>7}")
    total = Coverage()
    order = Order()
    for row in rows:
        cov: Coverage = row["coverage"]
        total.add(cov)
        order.add(row["order"])
        cells = " ".join(f"{_pct(cov.share(k)):>5}/{cov.total[k]:<3}" for k in kinds)
        print(f"{row['name'][:22]:22} {_pct(cov.share())} {cells} {_pct(row['order'].share()):>6} {row['order'].split:5} "
              f"{row['seconds']:6.2f} {_pct(row['boilerplate']):>7}")
        if show_missed:
            for kind, text in cov.missed:
                print(f"    missed {kind}: {text}")
            for text in row["order"].out_of_order:
                print(f"    out of order: {text}")
            for text in row["order"].split_units:
                print(f"    split: {text}")
    times = [row["seconds"] for row in rows]
    boiler = [row["boilerplate"] for row in rows]
    print()
    print(f"pages {len(rows)}, sites {len({row['site'] for row in rows})}, extractor {rows[0]['extractor']}")
    print(f"overall {_pct(total.share())}% of {sum(total.total.values())} elements (target {100 * TARGET_OVERALL:g}%)")
    for kind in kinds:
        print(f"  {kind:11} {_pct(total.share(kind))}% of {total.total[kind]} (target {100 * TARGET_PER_KIND:g}%)")
    shares = [row["coverage"].share() for row in rows]
    pages_below = sum(1 for share in shares if share is not None and share < TARGET_OVERALL)  # 0% counts too
    print(f"pages below {100 * TARGET_OVERALL:g}%: {pages_below}")
    in_order = order.share() or 0
    print(f"in page order: {order.in_order} of {order.kept} kept units ({100 * in_order:.2f}%), "
          f"pages with a unit out of order {sum(1 for row in rows if row['order'].in_order < row['order'].kept)}; "
          f"units split by foreign text: {order.split} (on {sum(1 for row in rows if row['order'].split)} pages)")
    print(f"time per page: median {statistics.median(times):.2f} s, mean {statistics.mean(times):.2f} s, "
          f"max {max(times):.2f} s")
    print(f"boilerplate kept (share of stored text not in the main content): median {_pct(statistics.median(boiler))}%, "
          f"mean {_pct(statistics.mean(boiler))}%")
    missed = []
    if (total.share() or 0) < TARGET_OVERALL:
        missed.append(f"overall {_pct(total.share()).strip()}% < {100 * TARGET_OVERALL:g}%")
    missed += [f"{kind} {_pct(total.share(kind)).strip()}% < {100 * TARGET_PER_KIND:g}%" for kind in kinds
               if total.share(kind) is not None and total.share(kind) < TARGET_PER_KIND]
    if held_out and in_order < TARGET_ORDER_HELD_OUT:
        missed.append(f"in page order {100 * in_order:.2f}% < {100 * TARGET_ORDER_HELD_OUT:g}%")
    if not held_out and (order.in_order < order.kept or order.split):
        missed.append(f"in page order {100 * in_order:.2f}% < 100% or {order.split} units split")
    return total, missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", action="append", help="only this page (repeatable)")
    parser.add_argument("--missed", action="store_true", help="list elements not found, per page")
    parser.add_argument("--json", type=Path, help="also write the per-page figures to this file")
    parser.add_argument("--held-out", action="store_true",
                        help="measure the held-out pages (held_out.json, read from the installed Debian packages)")
    parser.add_argument("--in-process", action="store_true", help="extract in this process, not in the bounded child")
    args = parser.parse_args(argv)
    if args.held_out:
        entries, notes = load_held_out()
        for note in notes:
            print(f"skipped {note}")
        if not entries:
            print("no held-out page is installed (apt-get install python3.11-doc postgresql-doc-15)")
            return 1
    else:
        entries = json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))["pages"]
    if args.page:
        entries = [e for e in entries if e["name"] in args.page]
    rows = [measure(entry, 5 if args.missed else 0, args.in_process) for entry in entries]
    total, missed = report(rows, args.missed, args.held_out)
    if args.json:
        args.json.write_text(json.dumps([
            {"name": r["name"], "site": r["site"], "seconds": round(r["seconds"], 3), "boilerplate": round(r["boilerplate"], 4),
             "total": r["coverage"].total, "found": r["coverage"].found, "kept_units": r["order"].kept,
             "in_order": r["order"].in_order, "split": r["order"].split} for r in rows], indent=1) + "\n")
    if missed:
        print("TARGET MISSED: " + "; ".join(missed))
        return 1
    print("targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
