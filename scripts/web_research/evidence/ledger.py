"""The run ledger: one append-only record of what happened in a research run.

The plugin's hooks append one JSON line per event to
`<data>/runs/<key>/ledger.jsonl`, where `<data>` is the hooks' data directory
(core/paths.py `data_dir`) and `<key>` is derived from the run folder's
real path, so a later session resuming the same folder finds the same ledger.
It lives outside the run folder on purpose: the models of a run can rewrite
any file in the run folder (Bash), so evidence of where a file came from must
be kept where the guards forbid them to write.

Every entry is `{"at", "kind", "agent_id", "slug", ...}`. Kinds:

    seal       an artifact as it was produced: path (relative to the run folder),
               artifact (snapshot | snapshot_meta | archive | findings | brief | verdicts), sha256,
               and for snapshots url and snapshot_id
               (findings seals also carry the file's status: ok | empty | failed)
    written    a findings or verdicts file written: path, sha256 of the content written,
               by (agent: the tool call of the agent named; plugin: the plugin's own
               write, e.g. a stub); the owner's last write is what SubagentStop seals
    search     a WebSearch: query
    page_read  a page read: url, tool (fetch | WebFetch), snapshot_id, paging
    run_open   the hooks opened a run on the folder: resumed (true for start --resume)

Seals and writes count only from the run's opening on (`since_opened`): what the ledger
holds from before the last `run_open` of a new start (a previous run in the folder, or lines
planted before the run began) is no evidence of this run.

This module is the one place that reads and folds the ledger (`seals`,
`counts`); it has no knowledge of hooks. Appends take an exclusive lock on
`ledger.lock` beside the file and write each batch in one `write` on an
`O_APPEND` descriptor, so concurrent hooks never interleave lines.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from dataclasses import dataclass, fields as dataclass_fields
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, NamedTuple

from ..core.clock import utc_stamp
from ..core.locks import exclusive_lock


RUNS_DIR = "runs"
LEDGER_FILE = "ledger.jsonl"
LOCK_FILE = "ledger.lock"
# A run appends a few hundred lines; a ledger far beyond this is not ours to trust or parse.
MAX_LEDGER_BYTES = 16 * 1024 * 1024
MAX_FIELD_CHARS = 2000
LOCK_TIMEOUT_SECONDS = 15.0

SEAL = "seal"
WRITTEN = "written"
PLUGIN_WRITE = "plugin_write"  # guard/effects/plugin_writes.write_run_file: a file the plugin wrote for its owner
SEARCH = "search"
PAGE_READ = "page_read"
RUN_OPEN = "run_open"  # the hooks opened the room on this folder (`resumed`: a start --resume)

# What a seal covers (the `artifact` field).
SNAPSHOT = "snapshot"
SNAPSHOT_META = "snapshot_meta"
ARCHIVE = "archive"  # the page's WARC (sources/<id>.warc.gz), sealed with its text
FINDINGS = "findings"
BRIEF = "brief"
VERDICTS = "verdicts"
REPORT = "report"  # report.md, sealed when the Stop gate passes
PLAN = "plan"  # plan.md, sealed with it

# Who wrote a `written` entry's content.
BY_AGENT = "agent"
BY_PLUGIN = "plugin"


def run_key(run_dir: str | Path) -> str:
    """The ledger folder name of a run: a hash of the run folder's real path."""
    return hashlib.sha256(os.path.realpath(run_dir).encode("utf-8")).hexdigest()[:32]


def ledger_dir(data: Path, run_dir: str | Path) -> Path:
    return Path(data) / RUNS_DIR / run_key(run_dir)


def ledger_path(data: Path, run_dir: str | Path) -> Path:
    return ledger_dir(data, run_dir) / LEDGER_FILE


@dataclass(frozen=True, slots=True)
class Entry:
    """One ledger line, typed: the fields every line has, then those of its kind (None where a
    kind has none). Read from the file by `read` and written to it by `append`, the only two
    places that see the line's JSON."""

    kind: str
    at: str = ""
    agent_id: str | None = None
    slug: str | None = None
    path: str | None = None  # seal, written, plugin_write: relative to the run folder
    artifact: str | None = None  # seal
    sha256: str | None = None  # seal, written, plugin_write
    status: str | None = None  # a findings seal: the file's status
    by: str | None = None  # written: BY_AGENT | BY_PLUGIN
    url: str | None = None  # page_read, denied, a snapshot's seal
    snapshot_id: str | None = None
    query: str | None = None  # search, denied
    tool: str | None = None  # page_read, denied: fetch | WebFetch | WebSearch
    tool_use_id: str | None = None
    phase: str | None = None  # a web call's entry written when the budgets allowed it
    rule: str | None = None  # denied: the budget rule that denied the call
    paging: bool | None = None
    ok: bool | None = None
    offset: int | None = None
    find: str | None = None  # page_read: the words of `fetch --find` (the windows around them were read)
    resumed: bool | None = None  # run_open

    def to_json(self) -> dict[str, Any]:
        """The line as written: the common fields always, the others when set."""
        out: dict[str, Any] = {"at": self.at, "kind": self.kind, "agent_id": self.agent_id, "slug": self.slug}
        for name in _KIND_FIELDS:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


_COMMON_FIELDS = ("kind", "at", "agent_id", "slug")
_KIND_FIELDS = tuple(f.name for f in dataclass_fields(Entry) if f.name not in _COMMON_FIELDS)
_BOOL_FIELDS = frozenset(("paging", "ok", "resumed"))


def _from_json(value: object) -> Entry | None:
    """The Entry of one parsed line; None for a line that is no entry (not an object, no string
    `kind`). A field of the wrong type reads as absent, as every fold of the ledger treats it."""
    if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
        return None
    typed: dict[str, Any] = {}
    for name in _KIND_FIELDS + ("at", "agent_id", "slug"):
        item = value.get(name)
        if name in _BOOL_FIELDS:
            ok = isinstance(item, bool)
        elif name == "offset":
            ok = isinstance(item, int) and not isinstance(item, bool)
        else:
            ok = isinstance(item, str)
        if ok:
            typed[name] = item
    return Entry(value["kind"], **typed)


def entry(kind: str, agent_id: object = None, slug: object = None, **fields: Any) -> Entry:
    """One ledger entry, stamped now. Long strings (queries, URLs) are cut so a line stays small."""
    cut = {key: value[:MAX_FIELD_CHARS] if isinstance(value, str) else value for key, value in fields.items()}
    return Entry(kind, utc_stamp(), agent_id if isinstance(agent_id, str) else None,
                 slug if isinstance(slug, str) else None, **cut)


@contextlib.contextmanager
def locked(data: Path, run_dir: str | Path, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator[Path]:
    """Hold the run ledger's exclusive lock (appends and the folder copy of the seals)."""
    folder = ledger_dir(data, run_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(folder / LOCK_FILE, timeout):
        yield folder / LEDGER_FILE


def append(path: Path, entries: Iterable[Entry]) -> None:
    """Append entries as JSON lines in one write (call under `locked`)."""
    data = "".join(json.dumps(e.to_json(), ensure_ascii=False, sort_keys=True) + "\n" for e in entries)
    if not data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data.encode("utf-8"))
    finally:
        os.close(fd)


def read(path: Path, max_bytes: int = MAX_LEDGER_BYTES) -> list[Entry]:
    """Every well-formed entry of a ledger (none when it does not exist). Bounded: only
    the first `max_bytes` are read; a malformed or cut line is skipped."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(max_bytes)
    except OSError:
        return []
    out = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        item = _from_json(value)
        if item is not None:
            out.append(item)
    return out


class Seal(NamedTuple):
    """The seals of one file: its latest sealed state, and every hash it was sealed with
    (two researchers fetching one URL each seal what fetch wrote; both are genuine)."""

    path: str  # relative to the run folder, "/" separated
    artifact: str
    sha256: str  # the latest seal
    at: str
    agent_id: str | None = None
    slug: str | None = None
    url: str | None = None
    hashes: frozenset[str] = frozenset()
    status: str | None = None  # a findings file's status when it was sealed

    def accepts(self, sha256: str) -> bool:
        return sha256 in self.hashes or sha256 == self.sha256

    def as_dict(self) -> dict[str, Any]:
        return {"artifact": self.artifact, "sha256": self.sha256, "at": self.at, "agent_id": self.agent_id,
                "slug": self.slug, "url": self.url, "hashes": sorted(self.hashes), "status": self.status}


def since_opened(entries: Iterable[Entry]) -> list[Entry]:
    """The entries from the last opening of the run by a new `start` on (that `run_open` line
    included); a resumed opening continues the run, so it starts nothing. A ledger without any
    `run_open` (written before the hooks recorded one) is taken whole."""
    items = list(entries)
    opened = [index for index, item in enumerate(items)
              if item.kind == RUN_OPEN and item.resumed is not True]
    return items[opened[-1]:] if opened else items


def seals(entries: Iterable[Entry]) -> dict[str, Seal]:
    """path -> Seal, folded in ledger order (the latest seal of a path is its state). Only seals
    written since the run opened count (`since_opened`)."""
    out: dict[str, Seal] = {}
    for item in since_opened(entries):
        path, sha, artifact = item.path, item.sha256, item.artifact
        if item.kind != SEAL or path is None or sha is None or artifact is None:
            continue
        previous = out.get(path)
        hashes = (previous.hashes if previous else frozenset()) | {sha}
        out[path] = Seal(path, artifact, sha, item.at, item.agent_id, item.slug, item.url, hashes, item.status)
    return out


def last_written(entries: Iterable[Entry], path: str, agent_id: object) -> str | None:
    """The sha256 of the last content written to `path` (relative to the run) by its owner:
    the agent `agent_id` through its own tool call, or the plugin itself. None when neither
    wrote it. A write by anyone else, or from before the run opened, is skipped."""
    found = None
    for item in since_opened(entries):
        if item.kind not in (WRITTEN, PLUGIN_WRITE) or item.path != path:
            continue
        if item.kind == PLUGIN_WRITE or item.by == BY_PLUGIN \
                or (item.by == BY_AGENT and item.agent_id == agent_id):
            found = item.sha256 if item.sha256 is not None else ""
    return found


def seals_from_copy(data: Any) -> dict[str, Seal]:
    """The seals of a folder copy (`<run>/.web-research/seals.json`), as `seals_copy` wrote them."""
    items = data.get("seals") if isinstance(data, dict) else None
    out: dict[str, Seal] = {}
    for path, value in (items.items() if isinstance(items, dict) else ()):
        if not isinstance(path, str) or not isinstance(value, dict):
            continue
        sha, artifact = value.get("sha256"), value.get("artifact")
        if not (isinstance(sha, str) and isinstance(artifact, str)):
            continue
        hashes = frozenset(h for h in value.get("hashes") or () if isinstance(h, str)) | {sha}
        out[path] = Seal(path, artifact, sha, str(value.get("at") or ""), _str(value.get("agent_id")),
                         _str(value.get("slug")), _str(value.get("url")), hashes, _str(value.get("status")))
    return out


def seals_copy(run_dir: str | Path, folded: Mapping[str, Seal]) -> dict[str, Any]:
    """What the hooks write to `<run>/.web-research/seals.json` for standalone audits."""
    return {"version": 1, "run_dir": str(run_dir),
            "note": ("A copy of the seals the web-research hooks keep outside this folder. It is only as "
                     "trustworthy as this folder: whoever can edit the folder can edit this file."),
            "seals": {path: seal.as_dict() for path, seal in sorted(folded.items())}}


def counts(entries: Iterable[Entry]) -> dict[str | None, dict[str, int]]:
    """agent_id -> {kind: number of entries} (the main agent is None)."""
    out: dict[str | None, dict[str, int]] = {}
    for item in entries:
        per = out.setdefault(item.agent_id, {})
        per[item.kind] = per.get(item.kind, 0) + 1
    return out


def file_sha256(path: Path, max_bytes: int) -> str | None:
    """`sha256:<hex>` of a regular file's bytes (a symlink is not followed), or None when it
    is missing, not a regular file, unreadable or larger than `max_bytes`."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        digest = hashlib.sha256()
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(1 << 20, remaining))
            if not chunk:
                break
            digest.update(chunk)
            remaining -= len(chunk)
        if remaining <= 0:
            return None
        return "sha256:" + digest.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None
