"""Helpers for tests of the command line and the run's inputs: a valid plan.md,
the CLI run in a subprocess with a clean environment, and snapshots of a folder tree."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPTS_DIR = REPO_ROOT / "scripts"
LAUNCHER = SCRIPTS_DIR / "web-research"

VALID_PLAN = """\
# Plan: logs pricing

## Research question

How do enterprise observability vendors price their logs tier in 2026?

## Subtopics

### 1. Pricing models
- Which units vendors bill logs by (GB ingested, events, hosts)
- Whether retention is priced separately

### 2. Enterprise discounts
* Published volume discounts
* Minimum commitments

## Synthesis approach

Compare the vendors side by side, then summarise the common patterns.

## Budget

- Tier: standard
- Subagents: 2
- Searches per subagent: 4
"""


def plan_text(
    question: str = "How do enterprise observability vendors price their logs tier in 2026?",
    subtopics: dict[str, list[str]] | None = None,
    budget_line: str | None = "Searches per subagent: 4",
    synthesis: str = "Compare the vendors side by side.",
) -> str:
    """A well-formed plan.md built from parts, for tests that vary one of them."""
    if subtopics is None:
        subtopics = {"Pricing models": ["Billing units"], "Enterprise discounts": ["Volume discounts"]}
    parts = ["# Plan", "", "## Research question", "", question, "", "## Subtopics", ""]
    for number, (name, bullets) in enumerate(subtopics.items(), start=1):
        parts.append(f"### {number}. {name}")
        parts.extend(f"- {bullet}" for bullet in bullets)
        parts.append("")
    parts += ["## Synthesis approach", "", synthesis, "", "## Budget", ""]
    if budget_line is not None:
        parts.append(budget_line)
    return "\n".join(parts) + "\n"


def snapshot_tree(root: Path) -> dict[str, bytes | None]:
    """Every path under root (dirs map to None, files to their bytes), relative to root."""
    result: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            result[os.path.relpath(os.path.join(dirpath, name), root)] = None
        for name in filenames:
            full = os.path.join(dirpath, name)
            result[os.path.relpath(full, root)] = Path(full).read_bytes()
    return result


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def clean_env(**overrides: str) -> dict[str, str]:
    """The test process's environment without variables that move the run folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "WEB_RESEARCH_ROOT")}
    env["PYTHONPATH"] = str(SCRIPTS_DIR)
    env.update(overrides)
    return env


def run_cli(args: list[str], cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None,
            launcher: bool = False) -> subprocess.CompletedProcess[str]:
    """Run `python -m web_research ARGS` (or the sh launcher) in a subprocess."""
    command = [str(LAUNCHER), *args] if launcher else [sys.executable, "-m", "web_research", *args]
    return subprocess.run(
        command, cwd=cwd, input=stdin, capture_output=True, text=True, encoding="utf-8",
        env=env if env is not None else clean_env(), timeout=60,
    )
