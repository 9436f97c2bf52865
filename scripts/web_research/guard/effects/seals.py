"""Hook side of sealed provenance and the run ledger (see ../ledger.py, ../provenance.py).

The hook handlers (post_tool_use.py, subagent_stop.py, …) call in here at the moments an artifact is produced:

    a researcher's `fetch` returned        -> seal the snapshot (text, record and WARC), hashed
                                              from the stored files by this hook
    a findings file written                -> a `written` entry: the hash of what its owner
                                              (or the plugin, `record_written`) wrote
    a researcher is let go at SubagentStop -> seal its findings file (passing or failed)
                                              as its owner last wrote it
    a claim-checker's answer recorded      -> seal the verdicts file the plugin wrote from it
    `briefs` returned                      -> seal each brief
    the Stop gate passes                   -> seal report.md and plan.md
    a WebSearch / WebFetch returned        -> a `search` / `page_read` entry

Only this code writes seals; the sealed room (room.py) keeps every model of the
run away from them: no Bash but the plugin's own command lines, no write outside
each role's own files. After every seal the folder copy `<run>/.web-research/seals.json` is
rewritten for standalone audits.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from ... import formats
from ...core.fsutil import MAX_RUN_FILE_BYTES, read_bounded
from ...core.paths import data_dir
from ...evidence import ledger
from ...evidence.provenance import LEDGER, MAX_EVIDENCE_BYTES, SEALS_COPY_FILE, SealSource
from ...evidence.seal_line import parse_seal_line
from ...evidence.snapshots import ARCHIVE_SUFFIX
from ..state import write_run_state

_SNAPSHOT_ID = re.compile(r"^[0-9a-f]{16}$")


def ledger_entries(env: Mapping[str, str], run_dir: str) -> list[ledger.Entry]:
    return ledger.read(ledger.ledger_path(data_dir(env), run_dir))


def record(env: Mapping[str, str], run_dir: str, entries: Iterable[ledger.Entry]) -> None:
    """Append entries to the run's ledger; when any is a seal, refresh the folder copy."""
    entries = list(entries)
    if not entries:
        return
    data = data_dir(env)
    with ledger.locked(data, run_dir) as path:
        ledger.append(path, entries)
        if any(e.kind == ledger.SEAL for e in entries):
            folded = ledger.seals(ledger.read(path))
            write_run_state(Path(run_dir), SEALS_COPY_FILE, ledger.seals_copy(run_dir, folded))


def seal_source(env: Mapping[str, str], run_dir: str) -> SealSource:
    """The seals the Stop gate checks against: the ledger's, and every file must have one."""
    return SealSource(ledger.seals(ledger_entries(env, run_dir)), LEDGER, required=True)


def _seal(run_dir: str, rel: str, artifact: str, sha256: str, agent_id: object, slug: object,
          **fields: Any) -> ledger.Entry:
    return ledger.entry(ledger.SEAL, agent_id, slug, artifact=artifact, path=rel, sha256=sha256, **fields)


# --- producers ----------------------------------------------------------------------

def after_fetch(env: Mapping[str, str], run_dir: str, url: str, offset: int, stdout: str,
                agent_id: object, slug: object, tool_use_id: object = None, find: str | None = None) -> None:
    """A researcher's fetch returned (`find`: its --find words): a page_read entry, and seals for a
    snapshot it wrote now.

    The seal is the hash of the stored file, computed here: a printed line proves nothing
    (whoever makes a command print can make it print a seal). fetch's first output line only
    names the snapshot and says whether it was fetched now; the file is sealed when its hash
    agrees with the hash fetch printed and its record names the URL asked for (anything else
    means the file is not what this fetch wrote, and it stays unsealed). A snapshot served
    "stored" earlier is not sealed again: whatever sealed it then still stands, and one that
    was never sealed stays so (someone placed it there by hand before the researcher asked)."""
    header = parse_seal_line(stdout)
    snapshot_id = header["snapshot_id"] if header and _SNAPSHOT_ID.match(header["snapshot_id"]) else None
    entries = [ledger.entry(ledger.PAGE_READ, agent_id, slug, tool="fetch", url=url, snapshot_id=snapshot_id,
                            paging=offset > 0, ok=snapshot_id is not None, tool_use_id=_call(tool_use_id),
                            find=find)]
    if snapshot_id is not None and header and header["origin"] == "fetched":
        sources = Path(run_dir) / formats.SOURCES_DIR
        text_rel, meta_rel = f"{formats.SOURCES_DIR}/{snapshot_id}.txt", f"{formats.SOURCES_DIR}/{snapshot_id}.json"
        on_disk = ledger.file_sha256(sources / f"{snapshot_id}.txt", MAX_EVIDENCE_BYTES)
        meta = _snapshot_meta(sources / f"{snapshot_id}.json")
        if on_disk is not None and on_disk == header["sha256"] and meta is not None \
                and meta[0].get("sha256") == on_disk and meta[0].get("requested_url") == url:
            entries.append(_seal(run_dir, text_rel, ledger.SNAPSHOT, on_disk, agent_id, slug,
                                 url=url, snapshot_id=snapshot_id))
            entries.append(_seal(run_dir, meta_rel, ledger.SNAPSHOT_META, meta[1], agent_id, slug,
                                 url=url, snapshot_id=snapshot_id))
            archive = meta[0].get("archive")
            name = f"{snapshot_id}{ARCHIVE_SUFFIX}"
            if isinstance(archive, dict) and archive.get("file") == name:
                digest = ledger.file_sha256(sources / name, MAX_EVIDENCE_BYTES)
                if digest is not None and digest == archive.get("sha256"):
                    entries.append(_seal(run_dir, f"{formats.SOURCES_DIR}/{name}", ledger.ARCHIVE, digest,
                                         agent_id, slug, url=url, snapshot_id=snapshot_id))
    record(env, run_dir, entries)


def _snapshot_meta(path: Path) -> tuple[Mapping[str, object], str] | None:
    """(the record, its file's sha256) of a snapshot record fetch just wrote."""
    digest = ledger.file_sha256(path, MAX_EVIDENCE_BYTES)
    if digest is None:
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return (meta, digest) if isinstance(meta, dict) else None


def record_written(env: Mapping[str, str], run_dir: str, path: str, sha256: str | None, agent_id: object = None,
                   slug: object = None, by: str = ledger.BY_PLUGIN) -> None:
    """`path` (a findings file of the run) now holds content hashing to `sha256`,
    written by the plugin itself (`by` plugin: a stub, a stamp) or by the agent `agent_id`'s
    own tool call (`by` agent, from the PostToolUse hook). At its owner's SubagentStop the file
    on disk must equal the last of these writes: what else changed it is not the owner's.
    `sha256` None (the file could not be hashed) records a write no content can match."""
    rel = relative(run_dir, path)
    if rel and rel.split("/", 1)[0] in (formats.FINDINGS_DIR, formats.CHECKS_DIR):
        record(env, run_dir, [ledger.entry(ledger.WRITTEN, agent_id, slug, path=rel, by=by,
                                           sha256=sha256 if sha256 else "unreadable")])


def owner_written(env: Mapping[str, str], run_dir: str, path: str, agent_id: object) -> tuple[str | None, str | None]:
    """(the hash of the last content `agent_id` or the plugin wrote to `path`, or None when
    neither wrote it; the hash of the file on disk now, or None)."""
    rel = relative(run_dir, path)
    if rel is None:
        return None, None
    written = ledger.last_written(ledger_entries(env, run_dir), rel, agent_id)
    return written, ledger.file_sha256(Path(path), MAX_EVIDENCE_BYTES)


def written_problem(path: str, written: str | None, on_disk: str | None) -> str | None:
    """Why the file at `path` is not what its owner wrote (None when it is, or when it is
    missing: the findings gate reports a missing file on its own)."""
    if on_disk is None:
        return None
    if written is None:
        return (f"{path}: no Write of yours to this file was recorded, so what is there was put by something "
                "else; write it now with the Write tool")
    if written != on_disk:
        return (f"{path}: the file is not what you last wrote with the Write tool (something else changed it "
                "after your write); write it again with the Write tool")
    return None


def seal_findings(env: Mapping[str, str], run_dir: str, findings_path: str, agent_id: object,
                  slug: object, sha256: str | None = None, status: str | None = None) -> None:
    """A researcher is let go (or recorded as failed): seal its findings file as its owner last
    wrote it (`sha256`; a file changed since then fails its seal), or, with no hash given,
    as it is now. `status`: the file's status, kept with the seal (a file sealed `ok` is final)."""
    rel = relative(run_dir, findings_path)
    digest = sha256 or (ledger.file_sha256(Path(findings_path), MAX_EVIDENCE_BYTES) if rel else None)
    if rel and digest:
        record(env, run_dir, [_seal(run_dir, rel, ledger.FINDINGS, digest, agent_id, slug,
                                    **({"status": status} if isinstance(status, str) else {}))])


def seal_verdicts(env: Mapping[str, str], run_dir: str, verdicts_path: str, agent_id: object,
                  sha256: str) -> None:
    """Seal the verdicts file the plugin wrote from a checker's answer, as it wrote it (`sha256`):
    a verdict changed afterwards, by anything, fails `provenance.sealed`."""
    rel = relative(run_dir, verdicts_path)
    if rel:
        record(env, run_dir, [_seal(run_dir, rel, ledger.VERDICTS, sha256, agent_id, None)])


def sealed_ok_findings(env: Mapping[str, str], run_dir: str,
                       seals: Mapping[str, ledger.Seal] | None = None) -> set[str]:
    """Paths (relative to the run) of findings files whose latest seal says `status: ok` and
    that still match it: a researcher's final result, never dispatched again nor written over.
    A file changed since its seal is no result at all (it fails verify): its brief may be
    researched again, and the new researcher's file is sealed anew. `seals`: the ledger's, when
    the caller has read them."""
    seals = ledger.seals(ledger_entries(env, run_dir)) if seals is None else seals
    return {rel for rel, seal in seals.items()
            if seal.artifact == ledger.FINDINGS and seal.status == formats.STATUS_OK
            and seal.accepts(_small_file_sha256(Path(run_dir) / rel))}


def _small_file_sha256(path: Path) -> str:
    """`sha256:<hex>` of a findings-sized regular file (no link followed), "" when unreadable."""
    found = read_bounded(path, MAX_RUN_FILE_BYTES)
    if found is None or found[1]:
        return ""
    return "sha256:" + hashlib.sha256(found[0]).hexdigest()


def ledger_knows(env: Mapping[str, str], run_dir: str) -> bool:
    """Whether the plugin's own records hold anything of this run (a run the hooks managed)."""
    return bool(ledger_entries(env, run_dir))


def seal_at_pass(env: Mapping[str, str], run_dir: str, hashes: Mapping[str, str]) -> None:
    """The Stop gate passed: seal report.md and plan.md as they were verified (`hashes`: name
    -> sha256), so a later verify names either if it changes."""
    artifacts = {formats.REPORT_FILE: ledger.REPORT, formats.PLAN_FILE: ledger.PLAN}
    record(env, run_dir, [_seal(run_dir, name, artifacts[name], sha, None, None)
                          for name, sha in sorted(hashes.items()) if name in artifacts and sha])


def seal_briefs(env: Mapping[str, str], run_dir: str, briefs: Iterable[tuple[str, str]]) -> None:
    """`briefs` rendered these (brief_path, slug): seal each file as rendered."""
    entries = []
    for brief_path, slug in briefs:
        rel = relative(run_dir, brief_path)
        digest = ledger.file_sha256(Path(brief_path), MAX_EVIDENCE_BYTES) if rel else None
        if rel and digest:
            entries.append(_seal(run_dir, rel, ledger.BRIEF, digest, None, slug))
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


def relative(run_dir: str, path: str) -> str | None:
    """`<folder>/<name>` of a file directly in one of the run's evidence folders, else None."""
    real = os.path.realpath(path)
    folder, name = os.path.split(real)
    parent = os.path.dirname(folder)
    if parent != os.path.realpath(run_dir):
        return None
    base = os.path.basename(folder)
    return f"{base}/{name}" if base in (formats.SOURCES_DIR, formats.FINDINGS_DIR, formats.BRIEFS_DIR,
                                        formats.CHECKS_DIR) else None
