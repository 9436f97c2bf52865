"""Resuming an interrupted run: what to keep, what to dispatch again, and the approval record.

A run is approved when `briefs` renders it: the skill runs `briefs` only after the
user confirmed the plan (or with auto_proceed). `briefs` then records the plan's
hash and every brief's hash in `<run>/.web-research/approval.json`
(`record_approval`), and leaves that file untouched while the plan stays the same,
so a resumed run keeps it byte for byte.

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

import datetime
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .. import formats
from ..core.fsutil import RunFileError, atomic_write_text, read_run_file
from ..core.paths import data_dir
from ..evidence import ledger
from ..evidence.provenance import load_folder_copy

APPROVAL_VERSION = 1
MAX_WHY_CHARS = 300  # a reason quoted from a findings file stays short in start's output


class NotARun(ValueError):
    """The folder holds no research run that can be resumed."""


class PlanChanged(ValueError):
    """plan.md or a brief changed after the plan was approved."""


def sha256_of(data: bytes) -> str:
    return formats.BRIEF_HASH_PREFIX + hashlib.sha256(data).hexdigest()


def approval_path(run_dir: Path) -> Path:
    return Path(run_dir) / formats.RUN_STATE_DIR / formats.APPROVAL_FILE


# --- the approval record -------------------------------------------------------------

def approval_record(plan_bytes: bytes, briefs: Mapping[str, str], now: datetime.datetime) -> dict[str, Any]:
    """What `briefs` records: the approved plan's hash and each brief's (slug -> brief_hash)."""
    return {"version": APPROVAL_VERSION, "plan_sha256": sha256_of(plan_bytes), "briefs": dict(sorted(briefs.items())),
            "approved_at": now.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def read_approval(run_dir: Path) -> dict[str, Any] | None:
    """The approval record, or None when there is none or it is unusable."""
    try:
        data = json.loads(read_run_file(approval_path(run_dir), Path(run_dir), 1024 * 1024).decode("utf-8"))
    except (RunFileError, UnicodeDecodeError, ValueError):
        return None
    if not (isinstance(data, dict) and isinstance(data.get("plan_sha256"), str)
            and isinstance(data.get("briefs"), dict)):
        return None
    return data


def record_approval(run_dir: Path, briefs: Mapping[str, str], now: datetime.datetime | None = None) -> Path:
    """Record that plan.md as it is now was approved with these briefs. An existing record
    for the same plan and briefs is left byte for byte."""
    run_dir = Path(run_dir)
    plan_bytes = read_run_file(run_dir / formats.PLAN_FILE, run_dir)
    current = read_approval(run_dir)
    if current is not None and current.get("plan_sha256") == sha256_of(plan_bytes) \
            and current.get("briefs") == dict(briefs):
        return approval_path(run_dir)
    record = approval_record(plan_bytes, briefs, now or datetime.datetime.now(datetime.timezone.utc))
    atomic_write_text(approval_path(run_dir), json.dumps(record, indent=1, sort_keys=True) + "\n")
    return approval_path(run_dir)


# --- assessing a folder ----------------------------------------------------------------

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


def _plan(run_dir: Path):  # -> tuple[Plan, bytes]
    from .choices import parse_run_plan, read_start_record  # lazy: the checker's side, only in hooks that check files
    from .plan import PlanError  # lazy: the checker's side, only in hooks that check files

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


def _check_approval(run_dir: Path, plan: Any, plan_bytes: bytes) -> bool:
    """True when the plan was approved as it is now; PlanChanged when it was approved otherwise."""
    from .briefs import brief_path, render_brief  # lazy: the checker's side, only in hooks that check files

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
    from ..checks.findings import findings_checks, load_findings  # lazy: the checker's side, only in hooks that check files

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


NO_RECORD = ("the plugin has no record of this run's seals (its hooks never sealed anything here, or their "
             "records are gone), so nothing in it can be kept as evidence. Start a new run in this folder with "
             "refresh: true (the old files are archived, not deleted), or check the folder with verify")


def unknown_run_refusal(run_dir: Path | str, ledger_knows: bool) -> dict[str, str] | None:
    """The one rule every form of `start --resume` is judged by (the skill's heredoc, the flags
    `--resume --output-dir`, any other spelling the CLI accepts): a folder the plugin's run
    ledger does not know is no run to resume, whatever its folder copy of the seals says. The
    refusal is the JSON `start` prints for it; None when the ledger knows the folder."""
    if ledger_knows:
        return None
    return {"error": formats.ERROR_NOT_A_RUN, "detail": f"{run_dir}: {NO_RECORD}"}


def assess(run_dir: Path, env: Mapping[str, str], seals: Mapping[str, Any] | None = None) -> Assessment:
    """What `start --resume` does with `run_dir` (see the module docstring). Reads only.
    `seals`: the seals to judge by (the hooks pass the ledger's); default: found from `env`."""
    from .briefs import compose_agent_prompt  # lazy: the checker's side, only in hooks that check files

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
