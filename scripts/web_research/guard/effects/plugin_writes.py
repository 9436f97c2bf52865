"""Files the plugin writes on a model's behalf, and the one record of each such write.

The hooks write three kinds of run file for the models that own them: a researcher's
findings stub (at dispatch), the frontmatter fields it does not have to copy (subtopic,
brief hash, times: at its stop), and a claim-checker's verdicts file (from its answer by
number). Each goes through `write_run_file`: written atomically, then recorded in the
run ledger as a `plugin_write` entry (path relative to the run, sha256 of the bytes, the
owning agent), so that a rule sealing "what the owner last wrote" can count the plugin's
write as the owner's. One call, so that rule has one place to look.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Mapping

from ...evidence.ledger import PLUGIN_WRITE  # the ledger's kind; ledger.last_written counts it as the owner's


__all__ = ["PLUGIN_WRITE", "write_run_file", "write_verdicts"]


def write_run_file(env: Mapping[str, str], run_dir: str, path: str, text: str, agent_id: object,
                   slug: object) -> str:
    """Write `text` to `path` (inside the run) atomically and record the write in the ledger;
    the `sha256:` digest of what was written, as recorded."""
    from ...evidence import ledger  # lazy: hook start-up
    from ...core.fsutil import atomic_write_text  # lazy: hook start-up
    from .seals import record  # lazy: hook start-up

    digest = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    atomic_write_text(Path(path), text)
    try:
        rel = Path(path).resolve().relative_to(Path(run_dir).resolve()).as_posix()
    except ValueError:
        rel = str(path)
    record(env, run_dir, [ledger.entry(PLUGIN_WRITE, agent_id, slug, path=rel, sha256=digest)])
    return digest


def write_verdicts(env: Mapping[str, str], run_dir: str, path: str, verdicts: list[tuple[str, str, str]],
                   agent_id: object) -> None:
    """A claim-checker's answer, mapped to its claim keys, as its verdicts file: written and
    sealed at once. This is the only way a verdicts file comes to be (a checker writes no file)."""
    from ...checks.verdicts import verdicts_json  # lazy: hook start-up
    from .seals import seal_verdicts  # lazy: hook start-up

    written = write_run_file(env, run_dir, path, verdicts_json(verdicts), agent_id, None)
    seal_verdicts(env, run_dir, path, agent_id, sha256=written)
