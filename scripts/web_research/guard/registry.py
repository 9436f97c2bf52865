"""The run registry: which research run a Claude Code session has open.

One JSON file per session, `<data>/sessions/<session_id>.json` (core/paths.py), exists exactly
while that session has an active run. The hook launcher only tests that the
file exists to decide whether to start Python at all, so a session that is not
researching never pays for more than a shell. Closed runs (verified, replaced
by a second `start`, given up) move to `<session_id>.history.json`.

Every read-modify-write happens under an exclusive lock (filelock) on
`<session_id>.lock`: hooks for concurrent tool calls run as concurrent
processes, and the researcher cap is only real if they cannot both read
"2 running" and both reserve the third slot.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterator, Mapping

from .. import formats
from ..core.paths import session_record, sessions_dir
from ..core.fsutil import atomic_write_text as write
from ..core.locks import exclusive_lock


RECORD_VERSION = 1
# Files a hook writes inside the run folder for the orchestrator and the verifier.
RUN_STATE_DIR = formats.RUN_STATE_DIR
SILENT_FAILURES_FILE = "silent-failures.json"
HISTORY_LIMIT = 50
LOCK_TIMEOUT_SECONDS = 15.0
CLOSED_KEY = "closed"  # a record with this key and no "run": a run abandoned this turn


class Session:
    """The files of one session's record."""

    def __init__(self, data: Path, session_id: str):
        self.record_path = session_record(data, session_id)  # ValueError for an id that is no file name
        self.session_id = session_id
        self.dir = sessions_dir(data)
        self.history_path = self.dir / f"{session_id}.history.json"
        self.lock_path = self.dir / f"{session_id}.lock"

    def has_active_run(self) -> bool:
        return self.record_path.is_file()

    @contextlib.contextmanager
    def locked(self, timeout: float = LOCK_TIMEOUT_SECONDS) -> Iterator["Session"]:
        """Hold the session's exclusive lock. Waits for other hooks to release it, but
        not forever: a stuck holder makes this hook fail (open) instead of hanging."""
        self.dir.mkdir(parents=True, exist_ok=True)
        with exclusive_lock(self.lock_path, timeout):
            yield self

    @contextlib.contextmanager
    def locked_record(self) -> Iterator[dict[str, Any] | None]:
        """The active record read under the session lock (None when there is none):
        every read-modify-write of a record goes through here, so concurrent hooks
        (three Agent calls in one message) never lose each other's changes."""
        with self.locked():
            yield self.read()

    def read(self) -> dict[str, Any] | None:
        """The active record, or None. A corrupt file reads as None (and is kept for diagnosis)."""
        try:
            data = json.loads(self.record_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get("run"), dict) else None

    def write(self, record: dict[str, Any]) -> None:
        record["updated_at"] = now_iso()
        atomic_write_text(self.record_path, json.dumps(record, indent=1, sort_keys=True) + "\n")

    def history(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.history_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return data if isinstance(data, list) else []

    def archive(self, record: dict[str, Any], outcome: str, closed: bool = False) -> None:
        """Move the active run to the history list and remove the active record. `closed`: put
        a closed marker in its place instead (`closed_marker`), in one atomic write, so that
        no hook ever sees the session free in between."""
        run = dict(record.get("run") or {})
        run["outcome"] = outcome
        run["closed_at"] = now_iso()
        history = (self.history() + [run])[-HISTORY_LIMIT:]
        atomic_write_text(self.history_path, json.dumps(history, indent=1, sort_keys=True) + "\n")
        if closed:
            marker = {"outcome": outcome, "run_dir": run.get("run_dir"), "at": run["closed_at"]}
            self.write({"version": RECORD_VERSION, "session_id": self.session_id, CLOSED_KEY: marker})
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.record_path)

    def closed_marker(self) -> dict[str, Any] | None:
        """The marker an abandoned run leaves until the Stop of its turn (`archive(closed=True)`),
        or None. The record file stays, so the hooks keep running for the session: no run is
        active (`read` is None), yet the room stays shut (guard/rules/after_abandon.py)."""
        try:
            data = json.loads(self.record_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        marker = data.get(CLOSED_KEY) if isinstance(data, dict) and not isinstance(data.get("run"), dict) else None
        return marker if isinstance(marker, dict) else None

    def free(self) -> bool:
        """Remove the closed marker (the turn it was left in ended); True when there was one.
        An active run's record is never touched here."""
        if not self.record_path.is_file():
            return False  # the common case, decided without taking (or creating) the lock
        with self.locked():
            if self.closed_marker() is None:
                return False
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.record_path)
            return True

    def open_run(self, run: dict[str, Any]) -> dict[str, Any] | None:
        """Make `run` the active run (call under the lock). A run already active in this
        session is archived as replaced and returned."""
        previous = self.read()
        if previous is not None:
            self.archive(previous, "replaced")
        self.write({"version": RECORD_VERSION, "session_id": self.session_id, "run": run})
        return previous


def new_run(run_dir: str, start_output: Mapping[str, Any]) -> dict[str, Any]:
    """The record of a run that `web-research start` just opened."""
    return {
        "run_dir": run_dir,
        "started_at": now_iso(),
        "auto_proceed": bool(start_output.get("auto_proceed")),
        "briefs": None,  # filled when `briefs` succeeds; see context.briefs_of
        "reservations": [],  # researcher slots: {"tool_use_id", "slug", "since", "agent_id"}
        "dispatches": {},  # slug -> how many researchers were dispatched for it
        "agents": {},  # agent_id -> {"slug", "blocks", "state"}
        "silent_failures": [],
        "stop": {"blocks": 0, "last_failures": []},
    }


def atomic_write_text(path: Path, text: str) -> None:
    """fsutil's atomic write, imported on first write (read-only hooks never need it)."""
    write(path, text)


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def write_run_state(run_dir: Path, name: str, data: Any) -> Path:
    """Write `<run>/.web-research/<name>` atomically (files the orchestrator and verifier read)."""
    path = Path(run_dir) / RUN_STATE_DIR / name
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path
