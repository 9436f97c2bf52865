"""verify must stay fast: hooks and the skill run it after every report edit.

A generated run of 5 subtopics with 100 citations each (500 in the findings,
all 500 carried into the report) must verify at the cost of a bounded number of
bare interpreter starts (CPU time of the whole subprocess, best of N, measured
interleaved with `python -c pass`); the tests after the timing count the work
itself (scans, normalizations, matches, imports), which no load can make flaky.

`make_large_run(root, pages=100)` backs every citation with a page snapshot
written by the product's own writer (`snapshots.store_snapshot`, as `fetch`
does), each page quoted by one citation of every findings file, and seals them
in the folder copy the hooks keep (`.web-research/seals.json`, built with
`ledger.seals_copy`): so the excerpt-in-page and provenance checks run too, as
in a standalone `web-research verify RUN` of a finished run.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from example_run import SCRIPTS_DIR, judge_statements, seal_run
from web_research.run.briefs import brief_hash
from web_research.checks.citation_entries import render_citation
from web_research.core.slug import slugify

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
SUBTOPICS = [f"Vendor group {n} pricing" for n in ("one", "two", "three", "four", "five")]  # no figure: plan.names
PER_SUBTOPIC = 100


def _fields(n: int) -> dict[str, str]:
    return {
        "title": f"Pricing page {n} | Vendor Docs",
        "url": f"https://docs.vendor{n % 7}.example/pricing/logs/{n}",
        "excerpt": f"Log ingestion for plan {n} is billed per GB ingested, with retention priced separately.",
        "retrieved_at": "2026-04-18",
        "source_type": "official-docs",
    }


RETRIEVED_AT = "2026-04-18T09:05:31+00:00"
FILLER = ("Storage tiers, support plans and regional availability are described in the sections "
          "below; contact sales for volume commitments. ")


def _page_fields(n: int, page: int) -> dict[str, str]:
    """Citation `n` quotes page `page` (one of `pages`), as a researcher copies it from the fetch output."""
    return {
        "title": f"Logs pricing {page} | Vendor Docs",
        "url": f"https://docs.vendor{page % 7}.example/pricing/logs/{page}",
        "excerpt": f"Log ingestion for plan {n} is billed per GB ingested, with retention priced separately.",
        "retrieved_at": RETRIEVED_AT[:10],
        "source_type": "official-docs",
    }


def _store_pages(run: Path, quoted: dict[int, list[str]]) -> list:
    """One snapshot per page, its text holding every excerpt quoted from it among filler
    paragraphs (about 6 KB a page), and the seals the hooks would give them."""
    from web_research.evidence import ledger
    from web_research.evidence.snapshots import store_snapshot

    entries = []
    for page, excerpts in sorted(quoted.items()):
        fields = _page_fields(0, page)
        paragraphs = [FILLER * 8]
        for excerpt in excerpts:
            paragraphs += [excerpt, FILLER * 4]
        snap = store_snapshot(run, requested_url=fields["url"], final_url=fields["url"], title=fields["title"],
                              status=200, content_type="text/html; charset=utf-8", retrieved_at=RETRIEVED_AT,
                              text="\n\n".join(paragraphs), extractor="trafilatura 2.0.0")
        for path, artifact in ((snap.text_path, ledger.SNAPSHOT), (snap.meta_path, ledger.SNAPSHOT_META)):
            entries.append(ledger.entry(ledger.SEAL, "agent", None, artifact=artifact, path=f"sources/{path.name}",
                                        sha256=ledger.file_sha256(path, 1 << 24), url=fields["url"]))
    return entries


def make_large_run(root: Path, pages: int | None = None) -> Path:
    """The large run; with `pages`, every citation is backed by one of that many sealed snapshots."""
    run = root / ("large-run" if pages is None else f"large-run-{pages}-pages")
    (run / "findings").mkdir(parents=True)
    (run / "briefs").mkdir()
    plan = ["# Plan", "", "## Research question", "", QUESTION, "", "## Subtopics", ""]
    for name in SUBTOPICS:
        plan += [f"### {name}", f"- What {name.lower()} charges per GB", ""]
    plan += ["## Synthesis approach", "", "Compare by vendor group.", "", "## Budget", "",
             "Searches per subagent: 5", ""]
    (run / "plan.md").write_text("\n".join(plan), encoding="utf-8")
    report_claims, report_entries = [], []
    quoted: dict[int, list[str]] = {}  # page -> the excerpts quoted from it
    number = 0
    for name in SUBTOPICS:
        slug = slugify(name)
        brief = f"Brief for {name}\n".encode()
        (run / "briefs" / f"{slug}.md").write_bytes(brief)
        claims, entries = [], []
        for local in range(1, PER_SUBTOPIC + 1):
            number += 1
            fields = _fields(number) if pages is None else _page_fields(number, (local - 1) % pages + 1)
            if pages is not None:
                quoted.setdefault((local - 1) % pages + 1, []).append(fields["excerpt"])
            claims.append(f"- Plan {number} bills per GB ingested[^{local}].")
            entries.append(render_citation(local, fields, indent="      "))
            report_claims.append(f"- Plan {number} bills per GB ingested[^{number}].")
            report_entries.append(render_citation(number, fields, indent="      "))
        frontmatter = (f'---\nstatus: ok\nsubtopic: "{name}"\nbrief_hash: {brief_hash(brief)}\n'
                       "started_at: 2026-04-18T09:00:00Z\nfinished_at: 2026-04-18T09:10:00Z\n---\n")
        body = f"\n# {name}\n\n" + "\n".join(claims) + "\n\n## Sources\n\n" + "\n\n".join(entries) + "\n"
        (run / "findings" / f"{slug}.md").write_text(frontmatter + body, encoding="utf-8")
    report = (f"# Research: {QUESTION}\n\n## TL;DR\n\n- One[^1]\n- Two[^2]\n- Three[^3]\n\n## Findings\n\n"
              + "\n".join(report_claims)
              + "\n\n## Gaps & Limitations\n\n- The pages read do not state per-GB prices in one unit.\n\n"
              + "## Sources\n\n" + "\n\n".join(report_entries) + "\n")
    (run / "report.md").write_text(report, encoding="utf-8")
    entries = _store_pages(run, quoted) if pages is not None else None
    assert judge_statements(run) is not None  # its statement of absence, judged against the stored pages
    if entries is not None:
        seal_run(run, entries)
    return run


RUNS = 7
# CPU time (user + system) of `verify RUN --json` over that of a bare `python -c pass`, best
# of RUNS each, interleaved, so load from other processes hits both alike (two busy loops on
# the 2-core development machine left the ratios unchanged). Measured there, this way: before
# the verifier's speed work about 21x (no snapshots) and 27x (100 snapshots); after it about 17.5x
# and 20.5x, PyYAML's import (frontmatter) ~2x of that. Reading every Markdown file through one
# real parser (markdown-it-py with its footnote plugin) in place of a line scanner: the 330 KB of
# Markdown here (1,000 citation entries, 1,000 claims) cost 83-95 ms of parsing and 16 ms of
# import in process, and the ratios went from 18-20x to 26x and 29x (main and this change
# measured side by side, load average ~17 on the 2 cores). The bounds leave 25% for another
# machine; the counting tests below catch the specific regressions (reparses, rematches, YAML).
MAX_CPU_RATIO = {"no snapshots": 32.0, "100 sealed snapshots": 36.0}

def _cpu_ms(argv: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    """CPU time of a process: less at the mercy of other processes on a busy machine than wall time."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000, result


@pytest.mark.benchmark
@pytest.mark.parametrize("variant", sorted(MAX_CPU_RATIO))
def test_verify_of_a_large_run_costs_a_bounded_number_of_interpreter_starts(tmp_path: Path, variant: str) -> None:
    run = make_large_run(tmp_path, pages=100 if variant == "100 sealed snapshots" else None)
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS_DIR))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure as a user runs it: from compiled modules
    _cpu_ms([sys.executable, "-m", "web_research", "verify", str(run)], env)  # warm-up: compiles, fills caches
    verify, bare = [], []
    for _ in range(RUNS):
        elapsed, result = _cpu_ms([sys.executable, "-m", "web_research", "verify", str(run), "--json"], env)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr
        verify.append(elapsed)
        bare.append(_cpu_ms([sys.executable, "-c", "pass"], env)[0])
    assert result.stdout.count('"ok": true') > 5 * 10  # the checks really ran
    if variant == "100 sealed snapshots":
        assert "1000 verified verbatim" in result.stdout and "211 file(s) sealed and intact" in result.stdout  # and its verdicts file
    ratio = min(verify) / min(bare)
    assert ratio <= MAX_CPU_RATIO[variant], (
        f"verify {min(verify):.0f} ms of CPU vs python {min(bare):.0f} ms: {ratio:.1f}x (best of {RUNS})")


# --- deterministic: the work verify does, counted rather than timed -------------------

def test_each_markdown_file_is_scanned_once(tmp_path: Path) -> None:
    """The citation parser, the marker finder, the claim finder, the per-file and per-section
    checks share one Markdown parse of each file (markdown_doc.parse_markdown): 5 findings, the
    report and plan.md."""
    from web_research.checks.checklist import run_checklist
    from web_research.core.markdown_doc import parse_markdown

    run = make_large_run(tmp_path, pages=100)
    parse_markdown.cache_clear()
    checks = run_checklist(run)
    assert not [c for c in checks if not c.ok and c.severity == "error"]
    assert parse_markdown.cache_info().misses == len(SUBTOPICS) + 2, parse_markdown.cache_info()


def test_each_page_is_read_and_normalized_once_and_each_excerpt_matched_once(tmp_path: Path, monkeypatch) -> None:
    """1000 citations (the report repeats its findings' 500) against 100 pages: each page's
    text is normalized once, and an excerpt the report repeats is not matched again."""
    from web_research.evidence import matcher
    from web_research.checks import integrity
    from web_research.checks.checklist import run_checklist

    run = make_large_run(tmp_path, pages=100)
    normalized: list[int] = []
    matched: list[str] = []
    real_fold, real_find = matcher.fold, integrity.find_excerpt

    def counting_fold(text: str) -> str:  # a page is normalized by folding it whole (its lines kept for its readings)
        normalized.append(len(text))
        return real_fold(text)

    def counting_find(excerpt: str, page, **kwargs):
        matched.append(excerpt)
        return real_find(excerpt, page, **kwargs)

    monkeypatch.setattr(matcher, "fold", counting_fold)
    monkeypatch.setattr(integrity, "find_excerpt", counting_find)
    checks = run_checklist(run)
    assert any(c.id == "report.citations.verbatim" and c.ok and "all 500" in c.message for c in checks)
    pages = [n for n in normalized if n > 2000]  # page texts are ~6 KB; titles and excerpts are short
    assert len(pages) == 100, len(pages)
    assert len(matched) == 500 and len(set(matched)) == 500
