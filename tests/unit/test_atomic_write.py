"""fsutil's atomic write: readers see the old file or the new one, never a part; nothing is
left behind; it never writes through a name someone planted; and it costs a hook no
tempfile import (tempfile brings shutil, random, bz2 and lzma)."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hook_harness import REPO
from web_research.core import fsutil


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_it_writes_and_replaces_leaving_no_temporary_file(tmp_path: Path):
    target = tmp_path / "deep" / "record.json"
    fsutil.atomic_write_text(target, "first\n")
    fsutil.atomic_write_text(target, "second ✓\n")
    assert target.read_bytes() == "second ✓\n".encode("utf-8")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600  # as tempfile.mkstemp made it
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


def test_a_name_already_taken_is_never_written_through(tmp_path: Path, monkeypatch):
    """A file or a symlink planted where the temporary file would go is left alone: the
    write takes another name (O_EXCL, O_NOFOLLOW)."""
    target = tmp_path / "record.json"
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    names = iter([b"\x01" * 6, b"\x01" * 6, b"\x02" * 6, b"\x03" * 6])
    monkeypatch.setattr(os, "urandom", lambda _n: next(names))
    planted_link = tmp_path / f".record.json.{'01' * 6}.tmp"
    planted_link.symlink_to(outside)
    fsutil.atomic_write_text(target, "mine\n")
    assert target.read_text() == "mine\n" and outside.read_text() == "untouched\n"
    assert planted_link.is_symlink()
    assert _leftovers(tmp_path) == [planted_link.name]


def test_it_gives_up_when_every_name_is_taken(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(os, "urandom", lambda n: b"\x07" * n)
    (tmp_path / f".record.json.{'07' * 6}.tmp").write_text("someone else's\n")
    with pytest.raises(FileExistsError):
        fsutil.atomic_write_text(tmp_path / "record.json", "mine\n")
    assert not (tmp_path / "record.json").exists()


def test_writing_imports_no_tempfile_nor_shutil(tmp_path: Path):
    code = ("import sys, pathlib; sys.path.insert(0, sys.argv[1]); from web_research.core import fsutil\n"
            "fsutil.atomic_write_text(pathlib.Path(sys.argv[2]) / 'x.json', '{}')\n"
            "print(sorted(m for m in ('tempfile', 'shutil', 'random') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(REPO / "scripts"), str(tmp_path)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out
