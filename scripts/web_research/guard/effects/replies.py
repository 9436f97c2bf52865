"""What a subagent's reply becomes: a researcher's findings file, a claim-checker's verdicts file,
each written by the plugin (plugin_writes.write_run_file) and sealed at once with what it holds.
No subagent writes a file of the run; this is the only way either file comes to be, besides the
findings stub written at dispatch (findings_bookkeeping.py).
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Mapping

from ...checks.findings import load_findings
from ...core.fsutil import RunFileError, read_run_file
from ...evidence import ledger
from ...report.claim_checker import verdicts_json
from .plugin_writes import write_run_file
from .seals import ledger_entries, relative, seal_findings, seal_verdicts


def write_verdicts(env: Mapping[str, str], run_dir: str, path: str, verdicts: list[tuple[str, str, str]],
                   agent_id: object) -> None:
    """A claim-checker's answer, mapped to its claim keys, as its verdicts file: written and
    sealed at once. This is the only way a verdicts file comes to be (a checker writes no file)."""
    written = write_run_file(env, run_dir, path, verdicts_json(verdicts), agent_id, None)
    seal_verdicts(env, run_dir, path, agent_id, sha256=written)


def write_findings(env: Mapping[str, str], run_dir: str, path: str, text: str, agent_id: object,
                   slug: object) -> None:
    """A researcher's reply, completed with the plugin's fields (run/findings_reply.py), as its
    findings file: written and sealed at once, with its status. This is the only way a findings
    file other than the stub comes to be (a researcher writes no file)."""
    written = write_run_file(env, run_dir, path, text, agent_id, slug)
    seal_findings(env, run_dir, path, agent_id, slug, sha256=written, status=findings_status(path, written))


def seal_unsealed_findings(env: Mapping[str, str], run_dir: str, findings_path: str, agent_id: object,
                           slug: object) -> None:
    """`seal_findings` as `agent_id` (or the plugin) last wrote the file, unless its latest seal
    is that very write (or nothing of the owner's is there to seal). A brief dispatched again
    has a new stub over the earlier attempt's sealed file: that seal is not this write's."""
    rel = relative(run_dir, findings_path)
    if not rel:
        return
    entries = ledger_entries(env, run_dir)
    written = ledger.last_written(entries, rel, agent_id)
    sealed = ledger.seals(entries).get(rel)
    if written and (sealed is None or sealed.sha256 != written):
        seal_findings(env, run_dir, findings_path, agent_id, slug, sha256=written,
                      status=findings_status(findings_path, written))


def findings_status(findings_path: str, sha256: str | None = None) -> str | None:
    """The `status` of a findings file (None when unreadable, or when its bytes no longer hash
    to `sha256`): kept with its seal, so a dispatch can tell a final `ok` file without parsing."""
    path = Path(findings_path)
    try:
        data = read_run_file(path, path.parent.parent)
    except RunFileError:
        return None
    if sha256 is not None:
        if "sha256:" + hashlib.sha256(data).hexdigest() != sha256:
            return None
    try:
        found = load_findings(path, data.decode("utf-8"))
    except Exception:  # noqa: BLE001 - a hostile file: no status
        return None
    status = found.frontmatter.get("status") if isinstance(found.frontmatter, dict) else None
    return status if isinstance(status, str) else None
