"""What `finish` keeps between its runs, in `<run>/.web-research/finish.json`.

Its rounds of fixes and its waits for a claim-checker (report/finish.py counts them),
the numbering and the Sources section it last wrote (so a hand-written Sources is told
apart), the Gaps & Limitations lines it placed (taken out again before the current ones
go in), and its notes. (A `partials_told` list an older version kept is no longer read:
a partial claim now fails until it is narrowed or dropped.)

Only `finish` writes the file, in the plugin's state folder that no model may write;
it is still read as hostile: a field of the wrong type counts as absent, and a record
that cannot be read as none (rounds start again at 0).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict

from .. import formats
from ..core.fsutil import RunFileError, atomic_write_text, read_run_text

MAX_RECORD_BYTES = 1024 * 1024


class FinishRecord(TypedDict, total=False):
    runs: int  # times finish ran
    checker_waits: int  # runs that only waited for a claim-checker (free, up to a limit)
    fix_rounds: int  # runs that failed otherwise
    numbering: dict[str, str]  # footnote number -> the findings entry it stands for (`slug:n`)
    sources: str | None  # the Sources section finish last wrote
    gaps: list[str]  # the Gaps & Limitations lines finish last placed
    notes: list[str]  # shown with the next failing checks
    round_stamp: str  # report.md's inode, size and mtime when the last counted round of fixes ended


def record_path(run_dir: Path) -> Path:
    return Path(run_dir) / formats.RUN_STATE_DIR / formats.FINISH_RECORD_FILE


def _count(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def parse_record(value: Any) -> FinishRecord:
    """A record from its JSON value: each field kept only in its own shape."""
    if not isinstance(value, dict):
        return {}
    record: FinishRecord = {}
    for key in ("runs", "checker_waits", "fix_rounds"):
        if key in value:
            record[key] = _count(value[key])  # type: ignore[literal-required]
    numbering = value.get("numbering")
    if isinstance(numbering, dict):
        record["numbering"] = {str(k): v for k, v in numbering.items()
                               if str(k).isdigit() and isinstance(v, str) and ":" in v}
    if "sources" in value:
        record["sources"] = value["sources"] if isinstance(value["sources"], str) else None
    if isinstance(value.get("round_stamp"), str):
        record["round_stamp"] = value["round_stamp"]
    for key in ("gaps", "notes"):
        if key in value:
            record[key] = _strings(value[key])  # type: ignore[literal-required]
    return record


def read_record(run_dir: Path) -> FinishRecord:
    """What earlier runs of `finish` left; empty when there is none or it cannot be read."""
    try:
        value = json.loads(read_run_text(record_path(run_dir), Path(run_dir), MAX_RECORD_BYTES))
    except (RunFileError, ValueError):
        return {}
    return parse_record(value)


def write_record(run_dir: Path, record: FinishRecord) -> None:
    atomic_write_text(record_path(run_dir), json.dumps(record, ensure_ascii=False, indent=2) + "\n")
