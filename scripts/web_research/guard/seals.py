"""Hook side of sealed provenance and the run ledger (see ../ledger.py, ../provenance.py).

The hook handlers (pre_tool_use.py, …) call in here at the moments an artifact is produced:

    a researcher's `fetch` returned        -> seal the snapshot (text and record)
    a researcher is let go at SubagentStop -> seal its findings file (passing or failed)
    a claim-checker is let go              -> seal its verdicts file
    `briefs` returned                      -> seal each brief
    a WebSearch / WebFetch returned        -> a `search` / `page_read` entry

Only this code writes seals; the sealed room (room.py) keeps every model of the
run away from them: no Bash but the plugin's own command lines, no write outside
each role's own files. After every seal the folder copy `<run>/.web-research/seals.json` is
rewritten for standalone audits.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .. import formats, ledger
from ..provenance import LEDGER, MAX_EVIDENCE_BYTES, SEALS_COPY_FILE, SealSource
from .registry import data_dir, write_run_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping

_SNAPSHOT_ID = re.compile(r"^[0-9a-f]{16}$")


def _ledger_entries(env: Mapping[str, str], run_dir: str) -> list[dict[str, Any]]:
    return ledger.read(ledger.ledger_path(data_dir(env), run_dir))


def record(env: Mapping[str, str], run_dir: str, entries: Iterable[Mapping[str, Any]]) -> None:
    """Append entries to the run's ledger; when any is a seal, refresh the folder copy."""
    entries = list(entries)
    if not entries:
        return
    data = data_dir(env)
    with ledger.locked(data, run_dir) as path:
        ledger.append(path, entries)
        if any(e.get("kind") == ledger.SEAL for e in entries):
            folded = ledger.seals(ledger.read(path))
            write_run_state(Path(run_dir), SEALS_COPY_FILE, ledger.seals_copy(run_dir, folded))


def seal_source(env: Mapping[str, str], run_dir: str) -> SealSource:
    """The seals the Stop gate checks against: the ledger's, and every file must have one."""
    return SealSource(ledger.seals(_ledger_entries(env, run_dir)), LEDGER, required=True)


def _seal(run_dir: str, rel: str, artifact: str, sha256: str, agent_id: object, slug: object,
          **fields: Any) -> dict[str, Any]:
    return ledger.entry(ledger.SEAL, agent_id, slug, artifact=artifact, path=rel, sha256=sha256, **fields)


# --- producers ----------------------------------------------------------------------

def after_fetch(env: Mapping[str, str], run_dir: str, url: str, offset: int, stdout: str,
                agent_id: object, slug: object, tool_use_id: object = None) -> None:
    """A researcher's fetch returned: a page_read entry, and seals for a snapshot it wrote now.

    The sha256 comes from fetch's own first output line (the client hands us the command's
    real stdout, which no model edits). A snapshot served "stored" earlier is not sealed
    again: whatever sealed it then still stands, and one that was never sealed stays so
    (someone placed it there by hand before the researcher asked for it)."""
    from ..commands.fetch_cmd import parse_seal_line  # lazy: hook start-up

    header = parse_seal_line(stdout)
    snapshot_id = header["snapshot_id"] if header and _SNAPSHOT_ID.match(header["snapshot_id"]) else None
    entries = [ledger.entry(ledger.PAGE_READ, agent_id, slug, tool="fetch", url=url, snapshot_id=snapshot_id,
                            paging=offset > 0, ok=snapshot_id is not None, tool_use_id=_call(tool_use_id))]
    if snapshot_id is not None and header and header["origin"] == "fetched":
        sources = Path(run_dir) / formats.SOURCES_DIR
        text_rel, meta_rel = f"{formats.SOURCES_DIR}/{snapshot_id}.txt", f"{formats.SOURCES_DIR}/{snapshot_id}.json"
        on_disk = ledger.file_sha256(sources / f"{snapshot_id}.txt", MAX_EVIDENCE_BYTES)
        entries.append(_seal(run_dir, text_rel, ledger.SNAPSHOT, header["sha256"], agent_id, slug,
                             url=url, snapshot_id=snapshot_id, file_matched=on_disk == header["sha256"]))
        meta = _snapshot_meta(sources / f"{snapshot_id}.json")
        if meta is not None and meta[0].get("sha256") == header["sha256"]:
            entries.append(_seal(run_dir, meta_rel, ledger.SNAPSHOT_META, meta[1], agent_id, slug,
                                 url=url, snapshot_id=snapshot_id))
    record(env, run_dir, entries)


def _snapshot_meta(path: Path) -> tuple[dict[str, Any], str] | None:
    """(the record, its file's sha256) of a snapshot record fetch just wrote."""
    digest = ledger.file_sha256(path, MAX_EVIDENCE_BYTES)
    if digest is None:
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return (meta, digest) if isinstance(meta, dict) else None


def seal_findings(env: Mapping[str, str], run_dir: str, findings_path: str, agent_id: object,
                  slug: object) -> None:
    """A researcher is let go (or recorded as failed): seal its findings file as it is now."""
    rel = _relative(run_dir, findings_path)
    digest = ledger.file_sha256(Path(findings_path), MAX_EVIDENCE_BYTES) if rel else None
    if rel and digest:
        record(env, run_dir, [_seal(run_dir, rel, ledger.FINDINGS, digest, agent_id, slug)])


def seal_verdicts(env: Mapping[str, str], run_dir: str, verdicts_path: str, agent_id: object) -> None:
    """A claim-checker is let go: seal its verdicts file as it is now (nobody but the checker
    could write it; the seal keeps a later Bash command from changing a verdict)."""
    rel = _relative(run_dir, verdicts_path)
    digest = ledger.file_sha256(Path(verdicts_path), MAX_EVIDENCE_BYTES) if rel else None
    if rel and digest:
        record(env, run_dir, [_seal(run_dir, rel, ledger.VERDICTS, digest, agent_id, None)])


def seal_unsealed_findings(env: Mapping[str, str], run_dir: str, findings_path: str, agent_id: object,
                           slug: object) -> None:
    """`seal_findings`, unless the ledger already seals that file."""
    rel = _relative(run_dir, findings_path)
    if rel and rel not in ledger.seals(_ledger_entries(env, run_dir)):
        seal_findings(env, run_dir, findings_path, agent_id, slug)


def seal_briefs(env: Mapping[str, str], run_dir: str, briefs: Iterable[tuple[str, str]]) -> None:
    """`briefs` rendered these (brief_path, slug): seal each file as rendered."""
    entries = []
    for brief_path, slug in briefs:
        rel = _relative(run_dir, brief_path)
        digest = ledger.file_sha256(Path(brief_path), MAX_EVIDENCE_BYTES) if rel else None
        if rel and digest:
            entries.append(_seal(run_dir, rel, ledger.BRIEF, digest, None, slug))
    record(env, run_dir, entries)


def adopt_unsealed_run(env: Mapping[str, str], run_dir: str, kept: Iterable[str]) -> None:
    """A resumed run that no hook ever sealed (made outside Claude Code): seal what it keeps,
    the kept findings files and the page snapshots beside them, as they are now, marked
    `adopted`, so the Stop gate can require seals for the rest of the run. A run the ledger
    already knows gets nothing: a file unsealed there stays unsealed and fails at Stop."""
    if ledger.seals(_ledger_entries(env, run_dir)):
        return
    from ..provenance import evidence_files  # lazy: start-up

    kept_paths = {f"{formats.FINDINGS_DIR}/{slug}.md" for slug in kept}
    entries = []
    for rel, artifact in evidence_files(Path(run_dir)):
        if artifact in (ledger.SNAPSHOT, ledger.SNAPSHOT_META) or rel in kept_paths:
            digest = ledger.file_sha256(Path(run_dir) / rel, MAX_EVIDENCE_BYTES)
            if digest:
                entries.append(_seal(run_dir, rel, artifact, digest, None, None, adopted=True))
    record(env, run_dir, entries)


def after_web_tool(env: Mapping[str, str], run_dir: str, tool: str, tool_input: Mapping[str, Any],
                   agent_id: object, slug: object, tool_use_id: object = None) -> None:
    """A WebSearch or WebFetch returned: its result entry (the PreToolUse hook's entry with the
    same tool_use_id counted it against the budgets; see usage.py)."""
    if tool == "WebSearch":
        item = ledger.entry(ledger.SEARCH, agent_id, slug, query=str(tool_input.get("query") or ""),
                            tool_use_id=_call(tool_use_id))
    else:
        item = ledger.entry(ledger.PAGE_READ, agent_id, slug, tool="WebFetch",
                            url=str(tool_input.get("url") or ""), snapshot_id=None, paging=False, ok=True,
                            tool_use_id=_call(tool_use_id))
    record(env, run_dir, [item])


def _call(tool_use_id: object) -> str | None:
    return tool_use_id if isinstance(tool_use_id, str) else None


def _relative(run_dir: str, path: str) -> str | None:
    """`<folder>/<name>` of a file directly in one of the run's evidence folders, else None."""
    real = os.path.realpath(path)
    folder, name = os.path.split(real)
    parent = os.path.dirname(folder)
    if parent != os.path.realpath(run_dir):
        return None
    base = os.path.basename(folder)
    return f"{base}/{name}" if base in (formats.SOURCES_DIR, formats.FINDINGS_DIR, formats.BRIEFS_DIR,
                                        formats.CHECKS_DIR) else None
