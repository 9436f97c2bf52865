"""Sealed provenance: is every piece of evidence still what was produced?

Page snapshots, findings files and briefs are sealed (their SHA-256 recorded
in the run ledger, see ledger.py) by the plugin's hooks at the moment they are
produced. A model that rewrites a snapshot, recomputes its `sha256` and
`chars`, and edits the matching excerpt leaves a folder that agrees with
itself; only a record kept outside the folder shows the change. This module
compares the files with their seals:

    provenance.sealed   error   a file changed after it was sealed (names the
                                file and the time of the seal), a sealed file
                                is gone, or (when seals are required) a snapshot
                                or findings or verdicts file no producer in this run sealed;
                                an unsealed brief is a warning; report.md and
                                plan.md changed after the Stop gate passed and
                                sealed them. One passing check otherwise: the
                                provenance line.

Seals come from the ledger (the Stop gate inside a run: required) or from the
folder copy `.web-research/seals.json` (standalone verify). A folder copy is
only as trustworthy as the folder it sits in, and the line says so; with no
copy at all (a run made before seals, a folder made by hand) the line is a warning: the evidence
is not verifiable.
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from .. import formats
from ..core.result import Check, fail, ok
from .ledger import (ARCHIVE, BRIEF, FINDINGS, PLAN, REPORT, SNAPSHOT, SNAPSHOT_META, VERDICTS, Seal,
                     file_sha256, seals_from_copy)
from ..core.fsutil import link_below
from typing import Mapping, NamedTuple


CHECK_ID = "provenance.sealed"
RUN_STATE_DIR = ".web-research"
SEALS_COPY_FILE = "seals.json"
MAX_EVIDENCE_BYTES = 64 * 1024 * 1024
MAX_COPY_BYTES = 8 * 1024 * 1024
MAX_LISTED = 50

LEDGER = "ledger"
FOLDER_COPY = "folder-copy"
COPY_CAVEAT = ("a copy in the folder is only as trustworthy as the folder it sits in: whoever can edit "
               "the folder can edit the copy")


class SealSource(NamedTuple):
    """Where the seals come from. `seals` None: none found. `required`: every snapshot and
    findings file must be sealed (inside a run, where the hooks sealed each one)."""

    seals: Mapping[str, Seal] | None
    origin: str  # LEDGER | FOLDER_COPY
    required: bool
    problem: str | None = None  # why the folder copy could not be read


def seals_copy_path(run_dir: Path) -> Path:
    return Path(run_dir) / RUN_STATE_DIR / SEALS_COPY_FILE


def load_folder_copy(run_dir: Path) -> SealSource:
    """The seals of `<run>/.web-research/seals.json`, read as hostile input (bounded, a
    regular file, never a link)."""
    path = seals_copy_path(run_dir)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return SealSource(None, FOLDER_COPY, False)
    except OSError as exc:
        return SealSource(None, FOLDER_COPY, False, f"cannot open: {exc.strerror or exc}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return SealSource(None, FOLDER_COPY, False, "not a regular file")
        if info.st_size > MAX_COPY_BYTES:
            return SealSource(None, FOLDER_COPY, False, f"larger than {MAX_COPY_BYTES} bytes")
        raw = os.read(fd, MAX_COPY_BYTES + 1)
    except OSError as exc:
        return SealSource(None, FOLDER_COPY, False, f"cannot read: {exc.strerror or exc}")
    finally:
        os.close(fd)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return SealSource(None, FOLDER_COPY, False, f"not JSON ({exc})")
    if not isinstance(data, dict) or not isinstance(data.get("seals"), dict):
        return SealSource(None, FOLDER_COPY, False, "expected an object with a 'seals' object")
    return SealSource(seals_from_copy(data), FOLDER_COPY, False)


def evidence_files(run_dir: Path) -> list[tuple[str, str]]:
    """(path relative to the run folder, artifact) of every file a seal should cover."""
    run_dir = Path(run_dir)
    groups = ((formats.SOURCES_DIR, "*.txt", SNAPSHOT), (formats.SOURCES_DIR, "*.json", SNAPSHOT_META),
              (formats.SOURCES_DIR, "*.warc.gz", ARCHIVE),
              (formats.FINDINGS_DIR, "*.md", FINDINGS), (formats.BRIEFS_DIR, "*.md", BRIEF),
              (formats.CHECKS_DIR, formats.VERDICTS_FILE_PREFIX + "*.json", VERDICTS))
    out = []
    for folder, pattern, artifact in groups:
        base = run_dir / folder
        # A linked folder is not followed (fsutil's one rule; the checklist's provenance.links fails it):
        # the seals of what it should hold then fail as gone.
        if base.is_dir() and link_below(base, run_dir) is None:
            out.extend((f"{folder}/{p.name}", artifact) for p in sorted(base.glob(pattern)))
    return out


_WHAT = {SNAPSHOT: "page snapshot", SNAPSHOT_META: "page snapshot record", ARCHIVE: "page archive (WARC)",
         FINDINGS: "findings file",
         BRIEF: "brief", VERDICTS: "claim-checker verdicts file", REPORT: "report", PLAN: "plan"}
# Sealed only at the end (the Stop gate passed): checked when sealed, never required before.
_SEALED_AT_PASS = {formats.REPORT_FILE: REPORT, formats.PLAN_FILE: PLAN}
_PRODUCER = {SNAPSHOT: "no researcher's fetch in this run produced it",
             SNAPSHOT_META: "no researcher's fetch in this run produced it",
             ARCHIVE: "no researcher's fetch in this run produced it",
             FINDINGS: "no researcher of this run left it when it stopped",
             BRIEF: "the briefs command of this run did not render it",
             VERDICTS: "no claim-checker of this run left it when it stopped"}


def _sealed_by(seal: Seal) -> str:
    if seal.artifact in (REPORT, PLAN):
        return f"sealed at {seal.at or 'an unknown time'}, when the run passed verification"
    if seal.artifact == VERDICTS:
        who = " by a claim-checker"
    else:
        who = f" by the researcher for {seal.slug}" if seal.slug else ""
    source = f" from {seal.url}" if seal.url else ""
    return f"sealed at {seal.at or 'an unknown time'}{who}{source}"


def provenance_checks(run_dir: Path, source: SealSource) -> "list[Check]":
    """Every evidence file against its seal; see the module docstring for the rules."""
    run_dir = Path(run_dir)
    where = ("the plugin's run ledger" if source.origin == LEDGER
             else f"{RUN_STATE_DIR}/{SEALS_COPY_FILE}; {COPY_CAVEAT}")
    files = evidence_files(run_dir)
    for name, artifact in _SEALED_AT_PASS.items():
        if source.seals is not None and name in source.seals and os.path.lexists(run_dir / name):
            files.append((name, artifact))
    if source.seals is None:
        if source.required:
            seals: Mapping[str, Seal] = {}
        else:
            why = f" ({RUN_STATE_DIR}/{SEALS_COPY_FILE}: {source.problem})" if source.problem else ""
            return [fail(CHECK_ID, f"provenance: not verifiable: this folder has no readable record of seals{why}, "
                                   "so nothing shows that its snapshots and findings are what the plugin's fetch "
                                   "and researchers produced (a run made before seals, a copy without "
                                   f"{RUN_STATE_DIR}/{SEALS_COPY_FILE}, or evidence made by hand)",
                         seals_copy_path(run_dir) if source.problem else run_dir, severity="warning")]
    else:
        seals = source.seals
    strict = source.required or source.seals is not None
    checks: list[Check] = []
    intact = 0
    on_disk = {rel for rel, _ in files}
    for rel, artifact in files:
        seal = seals.get(rel)
        path = run_dir / rel
        what = _WHAT[artifact]
        if seal is None:
            if strict:
                severity = "warning" if artifact == BRIEF else "error"
                checks.append(fail(CHECK_ID, f"{rel}: {what} is not sealed: {_PRODUCER[artifact]}. Evidence "
                                             "is produced only by the plugin, never by hand", path,
                                   severity=severity))
            continue
        digest = file_sha256(path, MAX_EVIDENCE_BYTES)
        if digest is None or not seal.accepts(digest):
            state = "cannot be read or is not a regular file" if digest is None else "changed"
            checks.append(fail(CHECK_ID, f"{rel}: {what} {state} after it was {_sealed_by(seal)}; "
                                         "evidence is never edited", path))
            continue
        intact += 1
    for rel, seal in sorted(seals.items()):
        if rel not in on_disk and seal.artifact in _WHAT and _inside(run_dir, rel):
            checks.append(fail(CHECK_ID, f"{rel}: {_WHAT[seal.artifact]} was {_sealed_by(seal)} and is gone",
                               run_dir / rel))
    if len(checks) > MAX_LISTED:
        more = len(checks) - MAX_LISTED
        checks = checks[:MAX_LISTED] + [fail(CHECK_ID, f"... and {more} more file(s) fail their seals", run_dir)]
    if not any(c.severity == "error" for c in checks):
        checks.insert(0, ok(CHECK_ID, f"provenance: {intact} file(s) sealed and intact (seals from {where})",
                            run_dir))
    else:
        bad = sum(1 for c in checks if c.severity == "error")
        checks.append(fail(CHECK_ID, f"provenance: {bad} file(s) changed since sealed, gone or unsealed, "
                                     f"{intact} sealed and intact (seals from {where})", run_dir))
    return checks


def _inside(run_dir: Path, rel: str) -> bool:
    parts = Path(rel).parts
    return bool(parts) and not Path(rel).is_absolute() and ".." not in parts \
        and (len(parts) == 2 or rel in _SEALED_AT_PASS)
