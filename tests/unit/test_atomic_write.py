"""fsutil's atomic write: readers see the old file or the new one, never a part; nothing is
left behind; the temporary file is the standard library's own (tempfile.mkstemp: created by
the call, never through a planted name), beside the target so that the rename is atomic."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from web_research.core import fsutil


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_it_writes_and_replaces_leaving_no_temporary_file(tmp_path: Path):
    target = tmp_path / "deep" / "record.json"
    fsutil.atomic_write_text(target, "first\n")
    fsutil.atomic_write_text(target, "second ✓\n")
    assert target.read_bytes() == "second ✓\n".encode("utf-8")
    assert _leftovers(target.parent) == []


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary(tmp_path: Path, monkeypatch):
    target = tmp_path / "record.json"
    target.write_text("old\n")

    def no_disk(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_disk)
    with pytest.raises(OSError):
        fsutil.atomic_write_text(target, "new\n")
    assert target.read_text() == "old\n" and _leftovers(tmp_path) == []


def test_the_temporary_file_is_a_new_owner_only_file_beside_the_target(tmp_path: Path, monkeypatch):
    target = tmp_path / "record.json"
    seen: list[tuple[Path, int]] = []
    written: list[int] = []
    real_replace, real_fchmod = os.replace, os.fchmod

    def watch(src, dst) -> None:
        seen.append((Path(src), stat.S_IMODE(os.stat(src).st_mode)))
        real_replace(src, dst)

    def watch_fchmod(fd, mode) -> None:  # called once the data is written and synced
        written.append(stat.S_IMODE(os.fstat(fd).st_mode))
        real_fchmod(fd, mode)

    monkeypatch.setattr(os, "replace", watch)
    monkeypatch.setattr(os, "fchmod", watch_fchmod)
    fsutil.atomic_write_text(target, "mine\n")
    [(temporary, _mode)] = seen
    assert temporary.parent == tmp_path and temporary.name.startswith(".record.json.")
    assert written == [0o600]  # owner-only while the data goes in
    assert target.read_text() == "mine\n" and _leftovers(tmp_path) == []


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_the_written_file_takes_the_users_usual_mode(tmp_path: Path, umask: int, mode: int):
    target = tmp_path / "report.html"
    old = os.umask(umask)
    try:
        assert fsutil.current_umask() == umask
        fsutil.atomic_write_text(target, "page\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == mode
