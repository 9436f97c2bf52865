"""Helpers for tests that start from the bundled example run (checklist, verify, status, findings, report).

Every checklist test starts from a copy of the bundled example run, which
passes verify, and breaks it in one place.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from web_research import formats
from web_research.checks.checklist import parse_and_check
from web_research.core.result import Check
from web_research.evidence import ledger

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPTS_DIR = REPO_ROOT / "scripts"
EXAMPLE_DIR = REPO_ROOT / "examples" / "observability-pricing"

BILLING = "billing-units-and-retention-tiers"
COMMITMENTS = "enterprise-commitments-and-overages"
COST = "cost-controls-for-high-volume-logs"  # the failed subtopic, named in Gaps


def copy_example(tmp_path: Path, name: str = "run", sealed: bool = False) -> Path:
    """A fresh copy of the example run under tmp_path (see `copy_example_to`)."""
    return copy_example_to(tmp_path / name, sealed)


def copy_example_to(target: Path, sealed: bool = False) -> Path:
    """A copy of the example run at `target`. The example is sealed as a run is (its
    `.web-research/seals.json`); a test that changes the copy's evidence to check one rule would
    also fail every seal it breaks, so the copy leaves the seals out unless `sealed`: verify then
    warns once (`provenance.sealed`: not verifiable), or `reseal` seals the changed copy."""
    shutil.copytree(EXAMPLE_DIR, target)
    if not sealed:
        (target / ".web-research" / "seals.json").unlink()
    return target


def reseal(run: Path) -> Path:
    """Seal `run` as the hooks of a run seal what it produces (tests/example_evidence.py): a copy
    of the example changed to be another run, checked as that run would be."""
    sys.path.insert(0, str(REPO_ROOT / "tests"))
    try:
        import example_evidence
    finally:
        sys.path.remove(str(REPO_ROOT / "tests"))
    example_evidence.seal(run)
    return run


def findings_path(run: Path, slug: str) -> Path:
    return run / formats.FINDINGS_DIR / f"{slug}.md"


def replace_once(path: Path, old: str, new: str) -> None:
    """Replace the only occurrence of `old` in the file (fails the test otherwise)."""
    text = path.read_text(encoding="utf-8")
    count = text.count(old)
    assert count == 1, f"{path.name}: expected exactly one {old!r}, found {count}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    """1-based number of the line holding the n-th occurrence of `needle`."""
    seen = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not found {occurrence} time(s) in {path}")


def unsealed_copy_warning(check: Check) -> bool:
    """The one warning an unsealed copy of the example gets (`copy_example`): no record of seals."""
    return (check.id == "provenance.sealed" and not check.ok and check.severity == "warning"
            and check.message.startswith("provenance: not verifiable:"))


def failing(checks: list[Check]) -> dict[str, Check]:
    """The failing checks by id (errors and warnings), but for the not-verifiable warning of an
    unsealed copy (`copy_example` leaves the example's seals out so that a test breaks one thing):
    the copy's, not the defect's. A test of that warning reads it with `unsealed_copy_warning`."""
    bad = [c for c in checks if not c.ok and not unsealed_copy_warning(c)]
    ids = [c.id for c in bad]
    assert len(ids) == len(set(ids)), f"duplicate check ids: {ids}"
    return {c.id: c for c in bad}


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `python -m web_research ARGS` the way the launcher does."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SCRIPTS_DIR) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONIOENCODING", "utf-8")
    return subprocess.run([sys.executable, "-m", "web_research", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=60)


def builtin_checks(run: Path) -> list[Check]:
    """The checklist without the extra groups (page-snapshot integrity has its
    own tests), so a defect in one of our rules shows only our check."""
    return parse_and_check(run, extra=())[1]


def seal_run(run: Path, entries: list[ledger.Entry]) -> None:
    """Write a built run's seals as the hooks keep them: `entries` (the snapshots' seals) plus one
    seal per findings file and brief, folded into `.web-research/seals.json`, the copy verify reads."""
    entries = list(entries)
    for folder, artifact, pattern in (("findings", ledger.FINDINGS, "*.md"), ("briefs", ledger.BRIEF, "*.md"),
                                      (formats.CHECKS_DIR, ledger.VERDICTS, "verdicts-*.json")):
        for path in sorted((run / folder).glob(pattern)):
            entries.append(ledger.entry(ledger.SEAL, None, path.stem, artifact=artifact,
                                        path=f"{folder}/{path.name}", sha256=ledger.file_sha256(path, 1 << 24)))
    (run / ".web-research").mkdir()
    copy = ledger.seals_copy(run, ledger.seals(entries))
    (run / ".web-research" / "seals.json").write_text(json.dumps(copy, indent=2), encoding="utf-8")


def judge_statements(run: Path, verdict: str = "supported") -> Path | None:
    """Answer the claim-checker's next prompt for `run` as a checker would, `verdict` for every
    claim and statement of absence it lists, written where the hooks write it; None when nothing
    awaits a verdict. For a test whose run carries honest statements of absence: every tier
    judges them (checks/absence.py)."""
    from web_research.report.claim_checker import parse_answer, prompt_for_run, verdicts_json

    prompt, _why = prompt_for_run(run, parse_and_check(run, extra=())[0])
    if prompt is None:
        return None
    answer = "\n".join(f"{n} {verdict}: as the passages shown say" for n in range(1, len(prompt.keys) + 1))
    verdicts, problems = parse_answer(answer, prompt.keys)
    assert not problems, problems
    path = Path(prompt.verdicts_path)
    path.parent.mkdir(exist_ok=True)
    path.write_text(verdicts_json(verdicts), encoding="utf-8")
    return path


def without_verdicts(run: Path) -> Path:
    """A copy of the example made another run's: its `checks/` (the verdicts a person gave the
    example's statements of absence, EXAMPLE_ANSWER in tests/example_evidence.py) taken out, so the
    first checker of the copy (given a Tier line, say) judges its claims and statements afresh."""
    shutil.rmtree(run / formats.CHECKS_DIR, ignore_errors=True)
    return run
