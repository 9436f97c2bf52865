"""Scenario: a deep run whose first wave leaves bullets uncovered, then one second wave.

Each scripted researcher establishes only the first point of its brief, so the
first wave leaves 1.2 and 2.2 `not-established`. The orchestrator follows
SKILL.md: `gaps`, then (tier deep) a `## Second wave` appended to plan.md with
one subtopic per uncovered bullet, `briefs` again (the first wave's briefs
unchanged), the two new researchers dispatched under the same hooks, `gaps`
again (all covered), a report that folds the second wave in, and `verify`
passes with every `report.coverage.<id>` check backed by a citation.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats

QUESTION = "How do log vendors structure ingestion and commitment pricing?"
FIRST_WAVE = [
    {"name": "Ingestion pricing", "establish": ["Which unit vendors bill ingestion by",
                                                "Which vendors publish overage rates"]},
    {"name": "Commitment terms", "establish": ["What annual commitment the enterprise tier requires",
                                               "What discount a multi-year commitment earns"]},
]
SECOND_WAVE = [
    {"name": "Overage rate cards", "establish": ["1.2: the vendors' published rate cards"]},
    {"name": "Multiyear discount schedules", "establish": ["2.2: discount schedules in contract terms"]},
]

SESSIONS = {"second-wave": lambda run: run(RunSpec(
    prompt=f"/web-research --auto --tier deep {QUESTION}", scenario="scripted.research:build",
    scenario_args={"subtopics": FIRST_WAVE, "second_wave": SECOND_WAVE}, timeout=150.0))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("second-wave")
    outcome.ended_cleanly(result)
    return result


@pytest.fixture(scope="module")
def run_dir(run) -> Path:
    return outcome.run_dir(run)


def _gaps_states(output: str) -> dict[str, str]:
    return dict(re.findall(r"^(\d+\.\d+)\s+(covered|partly|not-established|missing)\b", output, flags=re.M))


def test_the_first_wave_leaves_bullets_uncovered_and_the_second_covers_them(run):
    runs = outcome.told(run, "gaps")  # given by the plugin when each wave's last researcher returned
    assert len(runs) == 2, runs
    first, second = (_gaps_states(output) for output in runs)
    assert first == {"1.1": "covered", "1.2": "not-established", "2.1": "covered", "2.2": "not-established"}
    assert second == {"1.1": "covered", "1.2": "covered", "2.1": "covered", "2.2": "covered"}


def test_the_second_wave_is_appended_to_the_plan_and_its_briefs_are_new(run, run_dir):
    plan = (run_dir / formats.PLAN_FILE).read_text()
    assert plan.count("## Second wave") == 1
    assert "### Overage rate cards\n- 1.2: the vendors' published rate cards" in plan
    # the Agent calls the plugin gave: rendered from the plan's Write, then from the second wave's
    listings = [[json.loads(m) for m in re.findall(r"^Agent (\{.*\})$", text, flags=re.M)]
                for text in outcome.told(run, "briefs")]
    assert len(listings) == 2, listings
    first = [Path(b["prompt"].split(" ", 1)[1]).stem for b in listings[0]]
    # only what is still to dispatch: the second wave's new briefs
    wave2 = [Path(b["prompt"].split(" ", 1)[1]).stem for b in listings[1]]
    assert sorted(wave2) == ["multiyear-discount-schedules", "overage-rate-cards"] and not set(wave2) & set(first)
    seals = json.loads((run_dir / formats.RUN_STATE_DIR / "seals.json").read_text())["seals"]
    for slug in first:  # the first wave's briefs are byte for byte what was sealed when they were rendered
        path = run_dir / formats.BRIEFS_DIR / f"{slug}.md"
        assert seals[f"{formats.BRIEFS_DIR}/{slug}.md"]["sha256"] == outcome.sha256(path)
    for slug, target in (("overage-rate-cards", "1.2"), ("multiyear-discount-schedules", "2.2")):
        assert f"\n- {target} " in (run_dir / formats.BRIEFS_DIR / f"{slug}.md").read_text()


def test_second_wave_researchers_ran_under_the_hooks_and_wrote_sealed_findings(run, run_dir):
    groups = outcome.researcher_dispatches(run)
    assert [sorted(u["input"]["description"] for u in g) for g in groups] == [
        ["Commitment terms", "Ingestion pricing"], ["Multiyear discount schedules", "Overage rate cards"]]
    for slug in ("overage-rate-cards", "multiyear-discount-schedules"):
        text = (run_dir / formats.FINDINGS_DIR / f"{slug}.md").read_text()
        assert "status: ok" in text
        assert f"brief_hash: {outcome.sha256(run_dir / formats.BRIEFS_DIR / f'{slug}.md')}" in text
        assert re.search(r"^### (1|2)\.2 ", text, flags=re.M), text


def test_the_report_folds_the_second_wave_in_and_verify_passes(run, run_dir):
    report = (run_dir / formats.REPORT_FILE).read_text()
    # a second wave's names are no headings (report-template.md): its claims go under the first wave's
    assert "### Overage rate cards" not in report and "### Multiyear discount schedules" not in report
    assert "### Ingestion pricing" in report and "### Commitment terms" in report
    gaps = report.split("## Gaps & Limitations", 1)[1].split("## Sources", 1)[0]
    assert "1.2" not in gaps and "2.2" not in gaps  # covered by citations, not admitted as gaps
    checked = subprocess.run([str(outcome.CORE), "verify", str(run_dir), "--json"], capture_output=True,
                             text=True, timeout=60)
    verify = json.loads(checked.stdout)
    assert checked.returncode == 0 and verify["ok"], checked.stdout
    coverage = {c["id"]: c for c in verify["checks"] if c["id"].startswith("report.coverage.")}
    assert sorted(coverage) == [f"report.coverage.{i}" for i in ("1.1", "1.2", "2.1", "2.2")]
    assert all(c["ok"] and "cited source" in c["message"] for c in coverage.values())
