"""guard/context.py's locked_run: the handlers' one read-modify-write of the run record."""
from __future__ import annotations

from pathlib import Path

import pytest

from web_research.guard.context import locked_run
from web_research.guard.registry import Session, new_run


def _session(tmp_path: Path) -> tuple[Session, dict]:
    session = Session(tmp_path / "data", "session-1")
    with session.locked():
        session.open_run(new_run(str(tmp_path / "run"), {"started_at": "2026-12-01T00:00:00Z"}))
    snapshot = session.read()
    assert snapshot is not None
    return session, snapshot


def test_a_change_is_written_and_no_change_writes_nothing(tmp_path: Path):
    session, snapshot = _session(tmp_path)
    before = session.record_path.stat()
    with locked_run(session, snapshot) as run:
        assert run is not None
        run.get("agents")  # read only
    after = session.record_path.stat()  # a write replaces the file (atomically): a new inode
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    with locked_run(session, snapshot) as run:
        run.setdefault("agents", {})["a1"] = {"slug": "s", "blocks": 0, "state": "running"}
    assert session.read()["run"]["agents"]["a1"]["slug"] == "s"


def test_a_block_that_raises_writes_nothing(tmp_path: Path):
    session, snapshot = _session(tmp_path)
    before = session.record_path.read_text()
    with pytest.raises(RuntimeError):
        with locked_run(session, snapshot) as run:
            run["reservations"] = [{"slug": "s"}]
            raise RuntimeError("cut short")
    assert session.record_path.read_text() == before


def test_another_run_or_none_yields_none(tmp_path: Path):
    session, snapshot = _session(tmp_path)
    other = {"run": dict(snapshot["run"], started_at="2026-12-02T00:00:00Z")}
    with locked_run(session, other) as run:
        assert run is None
    with session.locked():
        session.archive(session.read(), "verified")
    with locked_run(session, snapshot) as run:
        assert run is None
