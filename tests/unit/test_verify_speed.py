"""verify must stay fast: hooks and the skill run it after every report edit.

A generated run of 5 subtopics with 100 citations each (500 in the findings,
all 500 carried into the report) must verify in well under half a second,
measured as the whole subprocess, best of 3 runs.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from example_run import SCRIPTS_DIR
from web_research.briefs import brief_hash
from web_research.citation_entries import render_citation
from web_research.slug import slugify

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
SUBTOPICS = [f"Vendor group {n} pricing" for n in range(1, 6)]
PER_SUBTOPIC = 100


def _fields(n: int) -> dict[str, str]:
    return {
        "title": f"Pricing page {n} | Vendor Docs",
        "url": f"https://docs.vendor{n % 7}.example/pricing/logs/{n}",
        "excerpt": f"Log ingestion for plan {n} is billed per GB ingested, with retention priced separately.",
        "retrieved_at": "2026-04-18",
        "source_type": "official-docs",
    }


def make_large_run(root: Path) -> Path:
    run = root / "large-run"
    (run / "findings").mkdir(parents=True)
    (run / "briefs").mkdir()
    plan = ["# Plan", "", "## Research question", "", QUESTION, "", "## Subtopics", ""]
    for name in SUBTOPICS:
        plan += [f"### {name}", f"- What {name.lower()} charges per GB", ""]
    plan += ["## Synthesis approach", "", "Compare by vendor group.", "", "## Budget", "",
             "Searches per subagent: 5", ""]
    (run / "plan.md").write_text("\n".join(plan), encoding="utf-8")
    report_claims, report_entries = [], []
    number = 0
    for name in SUBTOPICS:
        slug = slugify(name)
        brief = f"Brief for {name}\n".encode()
        (run / "briefs" / f"{slug}.md").write_bytes(brief)
        claims, entries = [], []
        for local in range(1, PER_SUBTOPIC + 1):
            number += 1
            fields = _fields(number)
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
              + "\n\n## Gaps & Limitations\n\n- Normalising per-GB prices needs a workload profile.\n\n"
              + "## Sources\n\n" + "\n\n".join(report_entries) + "\n")
    (run / "report.md").write_text(report, encoding="utf-8")
    return run


def _timed_verify(run: Path) -> tuple[float, subprocess.CompletedProcess]:
    env = dict(os.environ, PYTHONPATH=str(SCRIPTS_DIR))
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "web_research", "verify", str(run), "--json"],
                            env=env, capture_output=True, text=True, timeout=60)
    return time.perf_counter() - start, result


@pytest.mark.benchmark
def test_verify_of_a_large_run_takes_under_half_a_second(tmp_path: Path) -> None:
    run = make_large_run(tmp_path)
    timings = []
    for _ in range(3):
        elapsed, result = _timed_verify(run)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr
        timings.append(elapsed)
    assert '"ok": true' in result.stdout
    assert result.stdout.count('"ok": true') > 5 * 10  # the checks really ran
    assert min(timings) < 0.5, f"verify took {min(timings):.3f}s (best of {timings})"
