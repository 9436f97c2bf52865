"""Resuming an interrupted run: what to keep and what to dispatch again.

The approval record `briefs` writes, and the errors below, live in run/resume.py.

`start --resume` reads the folder and decides (`assess`), changing nothing:

- not a run (no folder, no readable plan.md)                  -> NotARun
- plan.md or a brief differs from what was approved            -> PlanChanged
- an approved plan with no record of seals at all (a folder the
  plugin's hooks never sealed, or whose records are gone)       -> NotARun
- a subtopic whose findings file has status ok, passes the
  frontmatter checks, names its brief's hash and whose seal
  accepts its bytes                                              -> keep
- anything else (missing, a stub, failed, empty, broken,
  written for another brief, changed after it was sealed,
  sealed by nobody)                                              -> dispatch

Nothing is adopted: a file is kept only because the plugin sealed it, never
because of where it lies. A run with no approval record but with briefs that
the current plan renders byte for byte counts as approved (runs made before the
record existed). Seals come from the run ledger when this process can find it,
else from the folder copy (`start` runs in the Bash tool, without the hooks'
data directory); the hooks judge them again from the ledger alone (the
PreToolUse hook refuses a run the ledger does not know, the PostToolUse hook
keeps only what the ledger's seals confirm), and the Stop gate checks the
ledger either way.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .. import formats
from ..core.fsutil import RunFileError, read_run_file
from ..core.paths import data_dir
from ..evidence import ledger
from ..evidence.provenance import load_folder_copy
from ..run.briefs import brief_path, compose_agent_prompt, render_brief
from ..run.choices import parse_run_plan, read_start_record
from ..run.plan import Plan, PlanError
from ..run.resume import NO_RECORD, NotARun, PlanChanged, read_approval, sha256_of
from .findings import findings_checks, load_findings

MAX_WHY_CHARS = 300  # a reason quoted from a findings file stays short in start's output


@dataclass
class Assessment:
    run_dir: Path
    question: str
    tier: str | None
    approved: bool
    keep: list[str] = field(default_factory=list)
    dispatch: list[str] = field(default_factory=list)
    why: dict[str, str] = field(default_factory=dict)  # slug -> why it is dispatched again
    briefs: list[dict[str, str]] = field(default_factory=list)  # as `briefs` prints them, for every subtopic

    def to_json(self) -> dict[str, Any]:
        return {"approved": self.approved, "keep": self.keep, "dispatch": self.dispatch, "why": self.why}


def _seals(run_dir: Path, env: Mapping[str, str]) -> Mapping[str, Any] | None:
    """The run's seals: the ledger's when this process finds it, else the folder copy's."""
    entries = ledger.read(ledger.ledger_path(data_dir(env), run_dir))
    folded = ledger.seals(entries)
    return folded if folded else load_folder_copy(run_dir).seals


def _brief_bytes(run_dir: Path, slug: str) -> bytes | None:
    try:
        return read_run_file(run_dir / formats.BRIEFS_DIR / f"{slug}.md", run_dir)
    except RunFileError:
        return None


def _plan(run_dir: Path) -> tuple[Plan, bytes]:
    if not run_dir.is_dir():
        raise NotARun(f"{run_dir}: no such folder; expected the folder of an earlier run")
    plan_path = run_dir / formats.PLAN_FILE
    try:
        data = read_run_file(plan_path, run_dir)
    except RunFileError as error:
        raise NotARun(f"{plan_path}: {'missing' if error.missing else error.reason}; expected the run's "
                      f"{formats.PLAN_FILE}, so {run_dir} holds no run to resume") from None
    try:
        return parse_run_plan(data.decode("utf-8"), plan_path, read_start_record(run_dir)), data
    except (PlanError, UnicodeDecodeError) as error:
        raise NotARun(f"{error}; a plan that does not parse cannot be resumed") from None


def _check_approval(run_dir: Path, plan: Plan, plan_bytes: bytes) -> bool:
    """True when the plan was approved as it is now; PlanChanged when it was approved otherwise."""

    record = read_approval(run_dir)
    if record is not None:
        if record["plan_sha256"] != sha256_of(plan_bytes):
            raise PlanChanged(f"{run_dir / formats.PLAN_FILE}: hashes to {sha256_of(plan_bytes)}, but the plan "
                              f"approved at {record.get('approved_at')} hashed to {record['plan_sha256']} "
                              f"({formats.RUN_STATE_DIR}/{formats.APPROVAL_FILE}); a plan changed after approval "
                              "cannot be resumed: restore it, or start a new run")
        for slug, approved_hash in sorted(record["briefs"].items()):
            data = _brief_bytes(run_dir, slug)
            if data is None or sha256_of(data) != approved_hash:
                state = "is missing" if data is None else f"hashes to {sha256_of(data)}"
                raise PlanChanged(f"{run_dir / formats.BRIEFS_DIR / (slug + '.md')}: {state}; the approved brief "
                                  f"hashed to {approved_hash}; briefs are never edited")
        return True
    rendered = [(brief_path(run_dir, s), render_brief(plan, s, run_dir).encode("utf-8")) for s in plan.subtopics]
    present = [(path, data, _brief_bytes(run_dir, path.stem)) for path, data in rendered]
    if all(found is None for _p, _d, found in present):
        return False  # never got past the review gate
    for path, data, found in present:
        if found != data:
            raise PlanChanged(f"{path}: {'missing' if found is None else 'differs from what plan.md renders'}; "
                              "the briefs were rendered from another plan, so plan.md changed after approval")
    return True


def _findings_verdict(run_dir: Path, slug: str, subtopic: str, brief: bytes,
                      seals: Mapping[str, Any] | None) -> tuple[bool, str]:
    """(keep it, why not) for one subtopic's findings file."""

    rel = f"{formats.FINDINGS_DIR}/{slug}.md"
    path = run_dir / rel
    try:
        data = read_run_file(path, run_dir)
        found = load_findings(path, data.decode("utf-8"))
    except RunFileError as error:
        return False, "missing" if error.missing else error.reason
    except UnicodeDecodeError:
        return False, "not UTF-8 text"
    if found.frontmatter is None:
        return False, "no readable frontmatter (a stub cut off mid-write, or not a findings file)"
    status = found.frontmatter.get("status")
    if status != formats.STATUS_OK:
        reason = found.frontmatter.get("reason")
        return False, (f"status {status}" + (f": {reason}" if isinstance(reason, str) else ""))[:MAX_WHY_CHARS]
    problems = [c for c in findings_checks(slug, subtopic, found, brief) if not c.ok and c.severity == "error"]
    if problems:
        return False, "; ".join(c.message for c in problems[:3])[:MAX_WHY_CHARS]
    seal = (seals or {}).get(rel)
    if seal is None:
        return False, "no researcher of this run sealed it (nothing is kept that the plugin did not seal)"
    if not seal.accepts(sha256_of(data)):
        return False, f"changed after it was sealed at {seal.at}"
    return True, ""


def assess(run_dir: Path, env: Mapping[str, str], seals: Mapping[str, Any] | None = None) -> Assessment:
    """What `start --resume` does with `run_dir` (see the module docstring). Reads only.
    `seals`: the seals to judge by (the hooks pass the ledger's); default: found from `env`."""

    run_dir = Path(run_dir)
    plan, plan_bytes = _plan(run_dir)
    approved = _check_approval(run_dir, plan, plan_bytes)
    result = Assessment(run_dir, plan.question, plan.tier, approved)
    if approved and seals is None:
        seals = _seals(run_dir, env)
        if seals is None:
            raise NotARun(f"{run_dir}: {NO_RECORD}")
    for subtopic in plan.subtopics:
        slug = subtopic.slug
        brief = _brief_bytes(run_dir, slug) if approved else None
        if brief is None:
            result.dispatch.append(slug)
            result.why[slug] = "the plan is not approved yet" if not approved else "no brief"
            continue
        result.briefs.append({
            "subtopic": subtopic.name, "slug": slug,
            "brief_path": str(run_dir / formats.BRIEFS_DIR / f"{slug}.md"), "brief_hash": sha256_of(brief),
            "findings_path": str(run_dir / formats.FINDINGS_DIR / f"{slug}.md"),
            "prompt": compose_agent_prompt(brief.decode("utf-8"), sha256_of(brief)),
        })
        keep, why = _findings_verdict(run_dir, slug, subtopic.name, brief, seals)
        if keep:
            result.keep.append(slug)
        else:
            result.dispatch.append(slug)
            result.why[slug] = why
    return result
