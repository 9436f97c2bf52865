"""Run-folder location, prior-run detection and rename-only archiving."""
from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from cli_support import snapshot_tree
from web_research.run import runfolder
from web_research.run.runfolder import (
    ArchiveError,
    archive_prior_run,
    has_prior_run,
    resolve_output_dir,
)

TODAY = datetime.date(2026, 4, 18)
NOW = datetime.datetime(2026, 4, 18, 9, 30, 5, tzinfo=datetime.timezone.utc)


def test_default_is_under_the_current_directory(tmp_path: Path) -> None:
    got = resolve_output_dir("What is X?", None, tmp_path, TODAY, {})
    assert got == tmp_path / ".beagle" / "research" / "2026-04-18-what-is-x"


def test_project_dir_env_wins_over_cwd(tmp_path: Path) -> None:
    project = tmp_path / "project"
    got = resolve_output_dir("What is X?", None, tmp_path / "elsewhere", TODAY, {"CLAUDE_PROJECT_DIR": str(project)})
    assert got == project / ".beagle" / "research" / "2026-04-18-what-is-x"


def test_root_env_replaces_default_root(tmp_path: Path) -> None:
    env = {"CLAUDE_PROJECT_DIR": str(tmp_path / "p"), "WEB_RESEARCH_ROOT": str(tmp_path / "root")}
    assert resolve_output_dir("Q", None, tmp_path, TODAY, env) == tmp_path / "root" / "2026-04-18-q"
    relative = {"CLAUDE_PROJECT_DIR": str(tmp_path / "p"), "WEB_RESEARCH_ROOT": "notes/research"}
    assert resolve_output_dir("Q", None, tmp_path, TODAY, relative) == tmp_path / "p" / "notes" / "research" / "2026-04-18-q"


def test_output_dir_verbatim_or_relative_to_cwd(tmp_path: Path) -> None:
    absolute = tmp_path / "abs" / "run"
    env = {"CLAUDE_PROJECT_DIR": "/nowhere", "WEB_RESEARCH_ROOT": "/nowhere/either"}
    assert resolve_output_dir("Q", str(absolute), Path("/"), TODAY, env) == absolute
    assert resolve_output_dir("Q", "sub/../run", tmp_path, TODAY, env) == tmp_path / "run"


def test_has_prior_run(tmp_path: Path) -> None:
    assert not has_prior_run(tmp_path / "missing")
    assert not has_prior_run(tmp_path)
    (tmp_path / "findings").mkdir()
    assert not has_prior_run(tmp_path)
    (tmp_path / "report.md").write_text("x")
    assert has_prior_run(tmp_path)
    (tmp_path / "report.md").unlink()
    (tmp_path / "plan.md").symlink_to(tmp_path / "gone")  # a dangling link still counts
    assert has_prior_run(tmp_path)


def _populate(run: Path) -> None:
    (run / "findings").mkdir(parents=True)
    (run / "plan.md").write_text("# plan\n")
    (run / "report.md").write_bytes(b"report \xe2\x9c\x93\n")
    (run / "findings" / "a.md").write_text("---\nstatus: ok\n---\n")
    (run / "briefs" / "deep" / "er").mkdir(parents=True)
    (run / "briefs" / "deep" / "er" / "x.md").write_bytes(os.urandom(64))
    (run / ".hidden").write_text("dotfile")
    earlier = run / ".archive-20250101-000000"
    (earlier / "findings").mkdir(parents=True)
    (earlier / "plan.md").write_text("old plan\n")
    (earlier / "findings" / "old.md").write_text("old findings\n")


def test_archive_moves_the_run_and_leaves_everything_else(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _populate(run)
    before = snapshot_tree(run)
    earlier_before = snapshot_tree(run / ".archive-20250101-000000")

    archive = archive_prior_run(run, NOW)

    assert archive == run / ".archive-20260418-093005"
    assert sorted(os.listdir(run)) == [".archive-20250101-000000", ".archive-20260418-093005", ".hidden"]
    after_archive = snapshot_tree(archive)
    moved = {k: v for k, v in before.items() if not k.startswith((".archive-", ".hidden"))}
    assert after_archive == moved  # every run file byte-identical in the archive
    assert snapshot_tree(run / ".archive-20250101-000000") == earlier_before
    assert (run / ".hidden").read_text() == "dotfile"  # not the run's: stays in place


def test_archive_name_clash_adds_suffix(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "plan.md").write_text("1")
    first = archive_prior_run(run, NOW)
    (run / "plan.md").write_text("2")
    second = archive_prior_run(run, NOW)
    (run / "plan.md").write_text("3")
    third = archive_prior_run(run, NOW)
    assert [first.name, second.name, third.name] == [
        ".archive-20260418-093005", ".archive-20260418-093005-2", ".archive-20260418-093005-3",
    ]
    assert [(p / "plan.md").read_text() for p in (first, second, third)] == ["1", "2", "3"]


def test_archive_stamp_is_utc(tmp_path: Path) -> None:
    (tmp_path / "plan.md").write_text("x")
    plus_two = datetime.timezone(datetime.timedelta(hours=2))
    archive = archive_prior_run(tmp_path, datetime.datetime(2026, 4, 18, 1, 0, 0, tzinfo=plus_two))
    assert archive.name == ".archive-20260417-230000"


def test_archive_never_copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "run"
    _populate(run)
    inode = os.stat(run / "briefs" / "deep" / "er" / "x.md").st_ino
    import shutil

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("archiving must rename, not copy or delete")

    for name in ("copy", "copy2", "copyfile", "copytree", "move", "rmtree"):
        monkeypatch.setattr(shutil, name, forbidden)
    monkeypatch.setattr(os, "remove", forbidden)
    monkeypatch.setattr(os, "unlink", forbidden)
    monkeypatch.setattr(os, "rmdir", forbidden)
    archive = archive_prior_run(run, NOW)
    assert os.stat(archive / "briefs" / "deep" / "er" / "x.md").st_ino == inode


@pytest.mark.parametrize("fail_after", [0, 1, 2, 3])
def test_interrupted_archive_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_after: int) -> None:
    run = tmp_path / "run"
    _populate(run)
    before = snapshot_tree(run)
    real_rename = os.rename
    calls = {"n": 0}

    def flaky_rename(src: object, dst: object) -> None:
        if calls["n"] >= fail_after:
            raise OSError(28, "No space left on device")
        calls["n"] += 1
        real_rename(src, dst)

    monkeypatch.setattr(runfolder.os, "rename", flaky_rename)
    with pytest.raises(ArchiveError) as info:
        archive_prior_run(run, NOW)
    archive = info.value.archive
    assert archive.parent == run and str(archive) in str(info.value)

    in_archive = snapshot_tree(archive)
    in_place = {k: v for k, v in snapshot_tree(run).items() if not k.startswith(archive.name)}
    missing = object()
    for rel, content in before.items():
        if rel.startswith(".archive-20250101-000000"):
            assert in_place.get(rel, missing) == content, rel  # the earlier archive never moves
            continue
        here = in_place.get(rel, missing) == content
        there = in_archive.get(rel, missing) == content
        assert here != there, f"{rel}: in place={here}, in archive={there}"
    assert len(os.listdir(archive)) == fail_after


def test_entries_to_archive_lists_only_run_owned_names(tmp_path: Path) -> None:
    (tmp_path / ".archive-20250101-000000").mkdir()
    (tmp_path / ".archive-looks-like-one.txt").write_text("a file, not an archive")
    (tmp_path / "plan.md").write_text("x")
    (tmp_path / "notes.md").write_text("the user's")
    assert runfolder.entries_to_archive(tmp_path) == ["plan.md"]
    assert runfolder.entries_to_archive(tmp_path / "missing") == []


def test_refresh_leaves_a_folder_without_run_artifacts_alone(tmp_path):
    """`refresh` pointed at an ordinary project folder must not archive the project."""
    import json as _json
    import os as _os
    import subprocess
    import sys
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "main.py").write_text("print('hi')\n")
    repo = Path(__file__).resolve().parents[2]
    env = dict(_os.environ, PYTHONPATH=str(repo / "scripts"))
    out = subprocess.run(
        [sys.executable, "-m", "web_research", "start", "--question", "Q?", "--output-dir", str(project), "--refresh"],
        capture_output=True, text=True, env=env, check=True,
    )
    assert _json.loads(out.stdout)["archived_to"] is None
    assert (project / "src" / "main.py").read_text() == "print('hi')\n"
    assert not any(p.name.startswith(".archive-") for p in project.iterdir())


def test_holds_run_artifacts_sees_a_findings_folder_without_a_plan(tmp_path):
    from web_research.run.runfolder import holds_run_artifacts
    assert not holds_run_artifacts(tmp_path)
    (tmp_path / "findings").mkdir()
    assert holds_run_artifacts(tmp_path)
