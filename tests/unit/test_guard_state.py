"""guard/state.py: the run record read once per hook as typed values, and its one
read-modify-write (Context.locked_run)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from web_research.guard.events import ToolCall
from web_research.guard.rules.budgets import RunLimits
from web_research.guard.state import Agent, Context, RecordError, Reservation, Run, Session, new_run

SESSION = "session-1"


def _context(tmp_path: Path) -> tuple[Session, Context]:
    session = Session(tmp_path / "data", SESSION)
    with session.locked():
        session.open_run(new_run(str(tmp_path / "run"), {}))
    ctx = Context(ToolCall("PreToolUse", SESSION, tool="Bash"), {"CLAUDE_PLUGIN_DATA": str(tmp_path / "data")})
    assert ctx.run is not None
    return session, ctx


def test_a_change_is_written_and_no_change_writes_nothing(tmp_path: Path):
    session, ctx = _context(tmp_path)
    before = session.record_path.stat()
    with ctx.locked_run() as run:
        assert run is not None and run.agents == {}  # read only
    after = session.record_path.stat()  # a write replaces the file (atomically): a new inode
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    with ctx.locked_run() as run:
        run.bind_agent("a1", "s", "running")
    assert session.read().agents == {"a1": Agent("s", 0, "running")}
    written = json.loads(session.record_path.read_text())["run"]["agents"]
    assert written == {"a1": {"slug": "s", "blocks": 0, "state": "running"}}


def test_a_block_that_raises_writes_nothing(tmp_path: Path):
    session, ctx = _context(tmp_path)
    before = session.record_path.read_text()
    with pytest.raises(RuntimeError):
        with ctx.locked_run() as run:
            run.reservations.append(Reservation("t", "s", 1.0))
            raise RuntimeError("cut short")
    assert session.record_path.read_text() == before


def test_another_run_or_none_yields_none(tmp_path: Path):
    session, ctx = _context(tmp_path)
    with session.locked():
        replaced = new_run(ctx.run.run_dir, {})
        replaced.started_at = "2026-12-02T00:00:00Z"
        session.open_run(replaced)
    with ctx.locked_run() as run:
        assert run is None
    with session.locked():
        session.archive(session.read(), "verified")
    with ctx.locked_run() as run:
        assert run is None


def test_the_record_is_read_once_per_hook(tmp_path: Path):
    session, ctx = _context(tmp_path)
    first = ctx.run
    session.record_path.unlink()
    assert ctx.run is first  # the snapshot every rule of this hook judges


def test_the_record_round_trips_through_its_json(tmp_path: Path):
    run = Run("/r", "2026-12-01T00:00:00Z", True, limits=RunLimits(5, 8, None), kept=["a"],
              reservations=[Reservation("t1", "a", 10.0, "ag")], dispatches={"a": 2}, started={"a": 10.0},
              agents={"ag": Agent("a", 1, "done")}, unattributed=["x"], abandon_reason="why")
    assert Run.from_json(json.loads(json.dumps(run.to_json()))).to_json() == run.to_json()
    assert run.to_json()["limits"] == [5, 8, None] and run.to_json()["reservations"] == [
        {"tool_use_id": "t1", "slug": "a", "since": 10.0, "agent_id": "ag"}]


@pytest.mark.parametrize("field, value", [("limits", [0, 8, None]), ("limits", [5, 8, "x"]), ("agents", ["a"]),
                                          ("reservations", "a"), ("dispatches", {"a": "2"}), ("stop", []),
                                          ("auto_proceed", 1), ("started", {"a": True})])
def test_a_field_the_hooks_did_not_write_is_an_error_naming_it(field: str, value: object):
    data = Run("/r").to_json()
    data[field] = value
    with pytest.raises(RecordError, match=rf"run\.{field}"):
        Run.from_json(data)


def test_a_record_that_is_no_json_object_is_no_run_and_one_that_names_no_folder_is_an_error(tmp_path: Path):
    session = Session(tmp_path, SESSION)
    session.dir.mkdir(parents=True)
    for text in ('{"run": []}', "[]", "{broken"):
        session.record_path.write_text(text)
        assert session.read() is None
    for text in ('{"run": {"run_dir": 3}}', '{"run": {}}'):
        session.record_path.write_text(text)
        with pytest.raises(RecordError, match=f"{session.record_path}: run.run_dir"):
            session.read()


def test_an_abandoned_run_leaves_its_marker_until_the_session_is_freed(tmp_path: Path):
    session, ctx = _context(tmp_path)
    with session.locked():
        session.archive(session.read(), "abandoned", closed=True)
    marker = session.closed_marker()
    assert session.read() is None and marker is not None
    assert (marker.outcome, marker.run_dir) == ("abandoned", ctx.run.run_dir)
    assert session.free() and not session.has_active_run() and session.closed_marker() is None
