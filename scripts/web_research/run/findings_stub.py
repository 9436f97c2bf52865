"""The findings frontmatter the plugin writes for a researcher: its stub, and the fields it fills in.

A researcher writes its findings body and its `status` (with a `reason` unless ok); the
fields it would otherwise copy come from code (formats.FINDINGS_PLUGIN_FIELDS):

- at dispatch the hook writes a stub: `status: failed` with `formats.FINDINGS_STUB_REASON`,
  the subtopic, the brief's hash and the start time, so a researcher cut off early leaves a
  failure the orchestrator can see (and `briefs` lists its brief again);
- at the researcher's stop the hook completes what it wrote (findings_reply.completed_text):
  subtopic and brief hash from the brief, `started_at` from the dispatch, `finished_at` now,
  and a `reason` dropped when the status is ok (a stale stub reason, or one that does not belong).

Pure functions of text, read without YAML (the dispatch hooks load this module); the hooks do
the reading and writing (guard/effects/plugin_writes.py).
"""
from __future__ import annotations

import json
import re
from typing import Any
from pathlib import Path

from ..formats import FINDINGS_FIELDS, FINDINGS_STUB_REASON, STATUS_FAILED, STATUSES
from ..core.fsutil import RunFileError, read_run_text

_QUOTED = ("subtopic", "reason")  # free text: written as double-quoted YAML (JSON) scalars
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9:.+_-]*")  # ok, sha256:<hex>, 2026-04-18T09:30:00Z


def _value(key: str, value: Any) -> str:
    """A YAML scalar for `value`: plain for a status, hash or timestamp, else double-quoted JSON
    (valid YAML), so any text a model wrote reads back as the same value."""
    if key not in _QUOTED and isinstance(value, str) and _PLAIN.fullmatch(value):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return json.dumps(str(value), ensure_ascii=False)


def render_frontmatter(fields: dict[str, Any]) -> str:
    """`---`, one `key: value` line per field (FINDINGS_FIELDS order first, then any other), `---`."""
    order = [k for k in FINDINGS_FIELDS if k in fields] + [k for k in fields if k not in FINDINGS_FIELDS]
    return "---\n" + "".join(f"{key}: {_value(key, fields[key])}\n" for key in order) + "---\n"


def stub_text(subtopic: str, brief_hash: str, started_at: str) -> str:
    """The stub a researcher's findings file holds from its dispatch until it writes its own."""
    return render_frontmatter({"status": STATUS_FAILED, "subtopic": subtopic, "brief_hash": brief_hash,
                               "started_at": started_at, "finished_at": started_at,
                               "reason": FINDINGS_STUB_REASON})


def still_to_dispatch(run_dir: Path | str, findings: Path | str) -> bool:
    """Whether a brief still needs a researcher: its findings file is missing, unreadable, has
    no status, or still holds the plugin's stub (the researcher never finished). A file its
    researcher wrote, ok, empty or failed, is that researcher's answer: its brief is done.
    Read with plain string operations (no YAML): a dispatch hook asks it."""
    try:
        text = read_run_text(Path(findings), Path(run_dir))
    except RunFileError:
        return True
    fields = _plain_fields(text)
    if fields.get("status") not in STATUSES:
        return True
    return fields.get("status") == STATUS_FAILED and fields.get("reason") == FINDINGS_STUB_REASON


def _plain_fields(text: str) -> dict[str, str]:
    """`key: value` lines of a frontmatter block, values unquoted: enough to read a status."""
    lines = text.removeprefix("\ufeff").split("\n", 200)
    if not lines or lines[0].strip() != "---":
        return {}
    out: dict[str, str] = {}
    for line in lines[1:200]:
        if line.strip() == "---":
            return out
        key, sep, value = line.partition(":")
        if sep and key.strip() and key == key.lstrip():
            out.setdefault(key.strip(), value.strip().strip("\"'"))
    return {}
