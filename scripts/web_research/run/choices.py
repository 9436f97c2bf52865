"""The person's choices at `start`, held by code: the question and the tier.

`start` records what it was given in `<run>/.web-research/start.json` (the question verbatim,
the tier, deepen) and the rules version the run is made under (checks/rules_version.py). plan.md
is the model's to fill in: it refines the subtopics, but the question and the tier stay the person's.
Everything that reads the tier (the briefs and their budgets, `estimate`, `gaps`, the hooks' limits,
the claim-checker requirement in verify) loads the plan through `load_run_plan` / `parse_run_plan`,
which refuse a plan whose question or `Tier:`
line differs from the record and say what to write (`budget.tier_refusal`). A different tier or question is a new run.

A folder without the record (a run made before it existed, or by hand) imposes nothing. Inside a
run nothing but `start` writes the record: the sealed room lets the main session write only
plan.md and report.md.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..core.fsutil import RunFileError, read_run_file
from ..formats import PLAN_FILE
from .budget import TIERS
from .plan import Plan, load_plan, parse_plan, start_record_path

MAX_RECORD_BYTES = 256 * 1024


@dataclass(frozen=True)
class StartRecord:
    """What `start` was given; None where the record holds nothing usable."""

    question: str | None
    tier: str | None
    deepen: bool | None
    rules_version: int | None = None  # checks/rules_version.py; None: not recorded (version 1)


NOTHING_RECORDED = StartRecord(None, None, None)


def read_start_record(run_dir: Path) -> StartRecord:
    """The record `start` wrote; every field None when there is none or it cannot be read."""
    try:
        data = json.loads(read_run_file(start_record_path(run_dir), Path(run_dir), MAX_RECORD_BYTES).decode("utf-8"))
    except (RunFileError, UnicodeDecodeError, ValueError):
        return NOTHING_RECORDED
    if not isinstance(data, dict):
        return NOTHING_RECORDED
    question, tier, deepen = data.get("research_question"), data.get("tier"), data.get("deepen")
    rules = data.get("rules_version")
    return StartRecord(question if isinstance(question, str) and question.strip() else None,
                       tier if isinstance(tier, str) and tier in TIERS else None,
                       deepen if isinstance(deepen, bool) else None,
                       rules if isinstance(rules, int) and not isinstance(rules, bool) and 1 <= rules < 10**6
                       else None)


def parse_run_plan(text: str, path: Path, record: StartRecord) -> Plan:
    """plan.md's text parsed and held to `start`'s record (PlanError names each difference)."""
    return parse_plan(text, path, record.question, record.tier, record.deepen)


def load_run_plan(run_dir: Path) -> Plan:
    """The run's plan.md, read and held to `start`'s record (PlanError, naming the file)."""
    run_dir = Path(run_dir)
    record = read_start_record(run_dir)
    return load_plan(run_dir / PLAN_FILE, run_dir, record.question, record.tier, record.deepen)
