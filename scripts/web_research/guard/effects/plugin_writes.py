"""Files the plugin writes on a model's behalf, and the one record of each such write.

The hooks write every file a subagent's work leaves, for the model that owns it: a
researcher's findings stub (at dispatch), its findings file (from its reply, with the
frontmatter fields no model copies: subtopic, brief hash, times), and a claim-checker's
verdicts file (from its answer by number). No subagent writes a file of the run. Each goes
through `write_run_file`: written atomically, then recorded in the run ledger as a
`plugin_write` entry (path relative to the run, sha256 of the bytes, the owning agent), so
that a rule sealing "what the owner last wrote" can count the plugin's write as the
owner's. One call, so that rule has one place to look. The files written from a subagent's
reply, and sealed at once, are replies.py's.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Mapping

from ...core.fsutil import atomic_write_text, is_within
from ...evidence import ledger
from ...evidence.ledger import PLUGIN_WRITE  # the ledger's kind; ledger.last_written counts it as the owner's
from .seals import record

__all__ = ["PLUGIN_WRITE", "write_run_file"]


def write_run_file(env: Mapping[str, str], run_dir: str, path: str, text: str, agent_id: object,
                   slug: object) -> str:
    """Write `text` to `path` (inside the run) atomically and record the write in the ledger;
    the `sha256:` digest of what was written, as recorded."""
    if not is_within(Path(path).parent, Path(run_dir)):  # a folder linked elsewhere: never written through
        raise ValueError(f"{path}: its folder is not inside the run folder {run_dir}")
    digest = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    atomic_write_text(Path(path), text)
    try:
        rel = Path(path).resolve().relative_to(Path(run_dir).resolve()).as_posix()
    except ValueError:
        rel = str(path)
    record(env, run_dir, [ledger.entry(PLUGIN_WRITE, agent_id, slug, path=rel, sha256=digest)])
    return digest
