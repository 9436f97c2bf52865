"""Pages of two documentation sets installed from Debian packages, read where they lie.

The benchmark's held-out set (`held_out.json`): pages the page-order rules of
`evidence/page_blocks.py` were not written against, drawn with a fixed seed from the
Python 3.11 documentation (package python3.11-doc, PSF licence) and the PostgreSQL 15
documentation (package postgresql-doc-15, PostgreSQL licence), many of them API and SQL
reference pages (definition lists of signatures, DocBook synopses and tables). They are not
copied into the repository: `run.py --set held-out` reads them from /usr/share/doc when the
packages are installed, and checks each file's SHA-256 so a figure is always of the same page.
The development set (pages looked at when writing the rules) is drawn after it, from what is
left, and its pages are committed with the others (`manifest.json`).

    .venv/bin/python tests/benchmarks/extraction/debian_pages.py --write   # rebuild held_out.json
    .venv/bin/python tests/benchmarks/extraction/debian_pages.py --add-development   # copy the development pages
"""
from __future__ import annotations

import gzip
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELD_OUT = HERE / "held_out.json"
SEED = 36  # issue 36
SETS = {
    "python": {"package": "python3.11-doc", "root": "/usr/share/doc/python3.11/html",
               "licence": "PSF-2.0 (Python Software Foundation License Version 2), Debian package python3.11-doc",
               "origin": "https://docs.python.org/3.11/", "main": "//div[@role='main']"},
    "postgresql": {"package": "postgresql-doc-15", "root": "/usr/share/doc/postgresql-doc-15/html",
                   "licence": "PostgreSQL Licence, Debian package postgresql-doc-15",
                   "origin": "https://www.postgresql.org/docs/15/", "main": "//body/div[@id]"},
}
# The pages issue 36 reports damage on: development pages, never held out.
ISSUE_PAGES = ("python/library/asyncio-task.html", "python/library/stdtypes.html",
               "postgresql/sql-set.html", "postgresql/install-procedure.html")
SKIP_PYTHON = ("genindex", "search.html", "py-modindex.html", "contents.html", "_static/", "_sources/",
               "_downloads/", "_images/", "includes/")


def _pool() -> dict[str, list[str]]:
    """Candidate pages, by group, as "set/relative path", sorted."""
    python = Path(SETS["python"]["root"])
    postgres = Path(SETS["postgresql"]["root"])
    py = sorted(str(p.relative_to(python)) for p in python.rglob("*.html"))
    py = [p for p in py if not any(p.startswith(s) or s in p for s in SKIP_PYTHON)]
    pg = sorted(p.name for p in postgres.glob("*.html"))
    groups = {
        "python library": [f"python/{p}" for p in py if p.startswith("library/")],
        "python other": [f"python/{p}" for p in py if not p.startswith("library/")],
        "postgresql sql": [f"postgresql/{p}" for p in pg if p.startswith("sql-")],
        "postgresql other": [f"postgresql/{p}" for p in pg if not p.startswith("sql-")],
    }
    return {name: [p for p in pages if p not in ISSUE_PAGES] for name, pages in groups.items()}


HELD_OUT_SIZES = {"python library": 45, "python other": 15, "postgresql sql": 30, "postgresql other": 30}
DEVELOPMENT_SIZES = {"python library": 8, "python other": 2, "postgresql sql": 4, "postgresql other": 4}


def draw() -> tuple[list[str], list[str]]:
    """The held-out pages, then the development pages (the issue's pages and a draw from the rest)."""
    rng = random.Random(SEED)
    pool = _pool()
    held = {name: rng.sample(pages, HELD_OUT_SIZES[name]) for name, pages in pool.items()}
    rest = {name: [p for p in pages if p not in held[name]] for name, pages in pool.items()}
    development = list(ISSUE_PAGES) + [p for name, pages in rest.items() for p in rng.sample(pages, DEVELOPMENT_SIZES[name])]
    return sorted(p for pages in held.values() for p in pages), development


def _version(package: str) -> str:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def entry(page: str) -> dict:
    """A manifest entry for "set/relative path"."""
    name, relative = page.split("/", 1)
    spec = SETS[name]
    path = Path(spec["root"]) / relative
    return {"name": f"{name}-{relative.removesuffix('.html').replace('/', '-')}", "origin_url": spec["origin"] + relative,
            "site": spec["origin"].split("/")[2], "package": spec["package"], "package_version": _version(spec["package"]),
            "path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "licence": spec["licence"],
            "main": {"xpath": spec["main"]}}


def load_held_out() -> tuple[list[dict], list[str]]:
    """The held-out entries whose file is installed and unchanged, and a note for each that is not."""
    entries, notes = [], []
    for item in json.loads(HELD_OUT.read_text(encoding="utf-8"))["pages"]:
        path = Path(item["path"])
        if not path.is_file():
            notes.append(f"{item['name']}: {path} is not installed (package {item['package']})")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != item["sha256"]:
            notes.append(f"{item['name']}: {path} differs from the page measured ({item['package']} "
                         f"{item['package_version']})")
        else:
            entries.append(item)
    return entries, notes


def add_development(development: list[str]) -> int:
    """Copy the development pages into `pages/` (gzipped) and list them in `manifest.json`; the number added."""
    manifest_path = HERE / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    names = {item["name"] for item in manifest["pages"]}
    added = 0
    for page in development:
        item = entry(page)
        if item["name"] in names:
            continue
        item["html"] = f"pages/{item['name']}.html.gz"
        (HERE / item["html"]).write_bytes(gzip.compress(Path(item["path"]).read_bytes(), 9, mtime=0))
        item["set"] = "development pages of issue 36 (page order)"
        manifest["pages"].append(item)
        added += 1
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return added


def main(argv: list[str]) -> int:
    held, development = draw()
    if "--add-development" in argv:
        print(f"added {add_development(development)} development pages to manifest.json")
    if "--write" in argv:
        HELD_OUT.write_text(json.dumps({"seed": SEED, "sizes": HELD_OUT_SIZES, "pages": [entry(p) for p in held]},
                                       indent=1) + "\n", encoding="utf-8")
        print(f"wrote {len(held)} pages to {HELD_OUT}")
    if "--development" in argv:
        print("\n".join(development))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
