"""An abandoned run: the way out of the sealed room, and why it never counts as verified.

`web-research abandon DIR --reason "..."` writes `<run>/.web-research/abandoned.json`
(when, and the reason the person gave); the hooks then close the session's room
(PostToolUse) so the Stop gate lets the session go. Every reader of a run (verify,
status, the Stop gate) sees the record and fails the run as abandoned: giving up is
a way out, never a way to a pass.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypedDict

from .. import formats
from ..core.fsutil import RunFileError, read_run_file
from ..core.result import fail, ok


MAX_REASON_CHARS = 1000
CHECK_ID = "run.abandoned"


class Abandonment(TypedDict, total=False):
    """The record `abandon` writes; read back as the file holds it (readers check each field's type)."""

    version: int
    abandoned_at: str
    reason: str


def record_path(run_dir: Path) -> Path:
    return Path(run_dir) / formats.RUN_STATE_DIR / formats.ABANDONED_FILE


def clean_reason(raw: str) -> str:
    """The reason on one line, control characters blanked; ValueError when it says nothing
    or is too long."""
    text = " ".join("".join(c if c.isprintable() else " " for c in raw).split())
    if not text:
        raise ValueError("--reason: expected the reason the run is abandoned, got nothing")
    if len(text) > MAX_REASON_CHARS:
        raise ValueError(f"--reason: at most {MAX_REASON_CHARS} characters, got {len(text)}")
    return text


def read_record(run_dir: Path) -> Abandonment | None:
    """The abandonment record, or None when the run was not abandoned. A record that exists
    but cannot be read still marks the run abandoned (its presence is the fact)."""
    path = record_path(run_dir)
    try:
        data = json.loads(read_run_file(path, Path(run_dir), 64 * 1024).decode("utf-8"))
    except RunFileError as exc:
        return None if exc.missing else {"reason": f"(unreadable record: {exc.reason})"}
    except (UnicodeDecodeError, ValueError):
        return {"reason": "(unreadable record)"}
    return data if isinstance(data, dict) else {"reason": "(unreadable record)"}


def abandoned_checks(run_dir: Path, _parsed: Any = None) -> list[Any]:
    """One check: fails when the run was abandoned (a check group of the checklist)."""
    record = read_record(run_dir)
    path = str(record_path(run_dir))
    if record is None:
        return [ok(CHECK_ID, "the run was not abandoned", path)]
    when = record.get("abandoned_at") if isinstance(record.get("abandoned_at"), str) else "an unknown time"
    reason = str(record.get("reason") or "")[:MAX_REASON_CHARS]
    return [fail(CHECK_ID, f"the run was abandoned at {when} ({reason}); an abandoned run is never verified",
                 path)]
