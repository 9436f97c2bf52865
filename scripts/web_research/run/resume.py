"""Resuming an interrupted run: the approval record, and the refusal of a folder the plugin never sealed.

A run is approved when `briefs` renders it: the skill runs `briefs` only after the
user confirmed the plan (or with auto_proceed). `briefs` then records the plan's
hash and every brief's hash in `<run>/.web-research/approval.json`
(`record_approval`), and leaves that file untouched while the plan stays the same,
so a resumed run keeps it byte for byte.

What `start --resume` keeps and dispatches again is judged with the findings checks,
so it lives above them (checks/resume.py); this module holds what the hooks need on
every call without loading the checker: the approval record, the errors a resume
raises, and the one rule that refuses a folder the run ledger does not know.
"""
from __future__ import annotations

import datetime
import hashlib
import json
from pathlib import Path
from typing import Mapping, TypedDict

from .. import formats
from ..core.fsutil import RunFileError, atomic_write_text, read_run_file

APPROVAL_VERSION = 1


class Approval(TypedDict):
    """The approval record (`read_approval` checks the two hashes' shapes; the rest is as written)."""

    version: int
    plan_sha256: str
    briefs: dict[str, str]  # slug -> brief_hash
    approved_at: str


class NotARun(ValueError):
    """The folder holds no research run that can be resumed."""


class PlanChanged(ValueError):
    """plan.md or a brief changed after the plan was approved."""


def sha256_of(data: bytes) -> str:
    return formats.BRIEF_HASH_PREFIX + hashlib.sha256(data).hexdigest()


def approval_path(run_dir: Path) -> Path:
    return Path(run_dir) / formats.RUN_STATE_DIR / formats.APPROVAL_FILE


# --- the approval record -------------------------------------------------------------

def approval_record(plan_bytes: bytes, briefs: Mapping[str, str], now: datetime.datetime) -> Approval:
    """What `briefs` records: the approved plan's hash and each brief's (slug -> brief_hash)."""
    return {"version": APPROVAL_VERSION, "plan_sha256": sha256_of(plan_bytes), "briefs": dict(sorted(briefs.items())),
            "approved_at": now.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}


def read_approval(run_dir: Path) -> Approval | None:
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
