"""Small file-system helpers shared by every writer in the package.

Writes are atomic (temporary file in the same folder, fsync, rename) so that a
crash never leaves a half-written plan, brief, snapshot or run record behind.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Callable

from .. import formats


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see either the old or the new file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Beside `path` (a rename within one folder is atomic), created by this call, owner-only
    # while it is written; it then takes the mode any new file of the user's gets (umask).
    import tempfile  # lazy: a hook that only reads (most of a run's) never writes a file

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            os.fchmod(handle.fileno(), 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def current_umask() -> int:
    """The process's umask, read without changing it (Linux's /proc), else by setting it back."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_text(path: Path, text: str) -> None:
    """UTF-8 text variant of `atomic_write_bytes` (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8"))


def is_within(child: Path, parent: Path) -> bool:
    """True when `child` resolves to `parent` or a path below it (symlinks resolved)."""
    try:
        Path(child).resolve().relative_to(Path(parent).resolve())
    except ValueError:
        return False
    return True


# --- Reading run files ------------------------------------------------------------

# Bound on any Markdown file of a run (plan, brief, findings, report). Real ones
# are tens of kilobytes; the bound only stops a planted giant from costing
# verify (and the Stop hook) seconds and memory.
MAX_RUN_FILE_BYTES = 4 * 1024 * 1024

_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


# What a run file that cannot be used is, in a word or two (`RunFileError.state`): the one
# vocabulary `status`, `gaps`, `verify` and `claims` show, from the one reader below.
STATE_MISSING = "missing"
STATE_TOO_LARGE = "too large"
STATE_NOT_UTF8 = "not UTF-8"
STATE_SYMLINK = "symbolic link"
STATE_LINK_LOOP = "link loop"
STATE_NOT_REGULAR = "not a regular file"
STATE_UNREADABLE = "unreadable"


class RunFileError(Exception):
    """A run file that must not or cannot be read. `reason` says why in words that
    never quote the file's content; `state` is one of the STATE_* words; `missing` is
    True when nothing is there at all."""

    def __init__(self, path: Path, reason: str, missing: bool = False, state: str | None = None,
                 line: int | None = None) -> None:
        self.path = Path(path)
        self.reason = reason
        self.line = line  # where in the file, when one place is at fault (a byte that is not UTF-8)
        self.missing = missing
        self.state = state or (STATE_MISSING if missing else STATE_UNREADABLE)
        super().__init__(f"{path}: {reason}")


def _kind(mode: int) -> str:
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")


def read_run_file(path: Path, run_dir: Path, max_bytes: int = MAX_RUN_FILE_BYTES) -> bytes:
    """The bytes of `path`, which must be a regular file whose real path lies inside
    `run_dir`, and at most `max_bytes` long; `RunFileError` otherwise.

    Every reader of a run folder goes through here, because everything in a run
    folder may have been planted by a model: a symlink to a file outside (whose
    lines would be echoed back in check messages), a FIFO or device (a read that
    never returns), a file of gigabytes. The file is opened without following a
    final symlink and without blocking, then checked on the open descriptor, so
    it cannot be swapped between the check and the read.
    """
    path = Path(path)
    try:
        root = Path(run_dir).resolve()
        os.lstat(path)
    except FileNotFoundError:
        raise RunFileError(path, "does not exist", missing=True) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise RunFileError(path, f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        real = Path(os.path.realpath(path, strict=True))
    except FileNotFoundError:  # the entry is there (lstat), so it is a link to nothing
        raise RunFileError(path, "is a symbolic link to a file that does not exist", state=STATE_SYMLINK) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RunFileError(path, "is a symbolic link loop (it never reaches a file)",
                               state=STATE_LINK_LOOP) from None
        raise RunFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    if not _inside(real, root):
        raise RunFileError(path, "leads outside the run folder (a symbolic link); only files inside "
                                 "the run folder are read", state=STATE_SYMLINK)
    link = link_below(path, run_dir)
    if link is not None:
        raise RunFileError(path, link_reason(link), state=STATE_SYMLINK)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(real, flags)
    except FileNotFoundError:
        raise RunFileError(path, "does not exist", missing=True) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RunFileError(path, "is a symbolic link that changed while it was read", state=STATE_SYMLINK) from None
        raise RunFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RunFileError(path, f"is {_kind(info.st_mode)}, not a regular file; only regular files are read",
                               state=STATE_NOT_REGULAR)
        opened = _opened_path(fd)
        if opened is not None and not _inside(opened, root):
            raise RunFileError(path, "leads outside the run folder; only files inside the run folder are read",
                               state=STATE_SYMLINK)
        if info.st_size > max_bytes:
            raise RunFileError(path, f"is {info.st_size} bytes, over the {max_bytes}-byte limit for this file",
                               state=STATE_TOO_LARGE)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1024 * 1024, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:  # grew since fstat
                raise RunFileError(path, f"is over the {max_bytes}-byte limit for this file", state=STATE_TOO_LARGE)
        return b"".join(chunks)
    except OSError as exc:
        raise RunFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def read_run_text(path: Path, run_dir: Path, max_bytes: int = MAX_RUN_FILE_BYTES) -> str:
    """`read_run_file` decoded as UTF-8; a file that is not UTF-8 is a `RunFileError` too."""
    return decode_run_text(path, read_run_file(path, run_dir, max_bytes))


def decode_run_text(path: Path, data: bytes) -> str:
    """`data`, read from `path`, decoded as UTF-8; a `RunFileError` naming the line and column of
    the first byte that is not UTF-8 otherwise (for a reader that keeps the bytes as well)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise RunFileError(path, f"is not UTF-8 text: line {line}, column {column} holds the byte "
                                 f"0x{data[exc.start]:02x}, which UTF-8 text cannot hold there; save the file as UTF-8",
                           state=STATE_NOT_UTF8, line=line) from None


# --- Symbolic links in a run folder: one rule for every reader -------------------------

def link_below(path: str | Path, run_dir: str | Path) -> str | None:
    """The first part of `path` below `run_dir` that is a symbolic link (the file itself, or a
    folder on the way to it), relative to `run_dir`; None when there is none.

    A run's evidence is read only where it is. A link, even one that stays inside the run
    folder, lets one file stand for another (`findings/` linked to a folder the seals never
    cover, a snapshot linked to a page of another URL), so no reader follows one and the
    checklist fails each (`evidence_links`). Only the parts below `run_dir` count: the run
    folder itself may be reached through a link the person chose."""
    base = os.path.abspath(run_dir)
    target = os.path.abspath(path)
    rel = os.path.relpath(target, base)
    if rel == "." or rel == ".." or rel.startswith(".." + os.sep):
        # Spelled through another path to the run folder: resolve the folder, keep the parts below.
        real_base = os.path.realpath(base)
        parts: list[str] = []
        here = target
        while os.path.realpath(here) != real_base:
            parent = os.path.dirname(here)
            if parent == here:
                return None  # not below the run folder at all: the caller's outside check decides
            parts.insert(0, os.path.basename(here))
            here = parent
        rel = os.path.join(*parts) if parts else "."
        if rel == ".":
            return None
        base = here
    current = base
    for part in rel.split(os.sep):
        current = os.path.join(current, part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return os.path.relpath(current, base)
        except OSError:
            return None  # missing (or unreadable) from here on: nothing further to follow
    return None


def link_reason(link: str) -> str:
    """Why a file reached through the link `link` (relative to the run folder) is not read."""
    return (f"is reached through a symbolic link ({link}); a run's files are read only where they are, "
            "never through a link (replace the link with the file or folder itself)")


def evidence_links(run_dir: str | Path, max_entries: int = 10000) -> list[str]:
    """Every symbolic link among the run's evidence folders (`formats.EVIDENCE_NAMES`) and the
    entries directly inside them, relative to the run folder, sorted. plan.md and report.md are
    left out: every verify reads both, and their readers already fail a link there by the same
    rule (one defect, one check). Bounded: at most `max_entries` entries of each folder."""
    found: list[str] = []
    for name in formats.EVIDENCE_NAMES:
        if name in (formats.PLAN_FILE, formats.REPORT_FILE):
            continue
        path = os.path.join(run_dir, name)
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if stat.S_ISLNK(mode):
            found.append(name)
            continue
        if not stat.S_ISDIR(mode):
            continue
        try:
            with os.scandir(path) as entries:
                for count, entry in enumerate(entries):
                    if count >= max_entries:
                        break
                    if entry.is_symlink():
                        found.append(f"{name}/{entry.name}")
        except OSError:
            continue
    return sorted(found)


def _inside(real: Path, root: Path) -> bool:
    return real == root or root in real.parents


def _opened_path(fd: int) -> Path | None:
    """Where the open descriptor really points (Linux), to catch a path swapped after the check."""
    link = f"/proc/self/fd/{fd}"
    try:
        return Path(os.readlink(link))
    except OSError:
        return None


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a directory or a symbolic link, not a regular file."""


def read_regular_prefix(path: str | Path, max_bytes: int) -> tuple[bytes, bool]:
    """(at most `max_bytes` bytes, whether the file was longer) of a regular file: the last
    component is never followed as a symlink and a FIFO never blocks (O_NOFOLLOW|O_NONBLOCK,
    the type checked on the open descriptor). Raises FileNotFoundError when it is missing,
    NotRegularFile when it is no regular file, OSError (or ValueError for a NUL in the name)
    when it cannot be read; callers decide what each means."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                 | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
        return data[:max_bytes], len(data) > max_bytes
    finally:
        os.close(fd)


def read_bounded(path: str | Path, max_bytes: int) -> tuple[bytes, bool] | None:
    """read_regular_prefix for a file outside any run folder (the plugin's data, a
    transcript), where any problem means "nothing to read": None when it is missing, not a
    regular file or unreadable."""
    try:
        return read_regular_prefix(path, max_bytes)
    except (OSError, ValueError):
        return None


def newest_regular_files(folder: str | Path, wanted: Callable[[str], bool], limit: int) -> list[str]:
    """Paths of the newest `limit` regular files (no symlinks) in `folder` whose names
    `wanted` accepts, newest first; [] when the folder cannot be read. Bounded, so a folder
    filled by someone else cannot make a hook read without end."""
    found: list[tuple[float, str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not wanted(entry.name):
                    continue
                try:
                    if entry.is_file(follow_symlinks=False):
                        found.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
                except OSError:
                    continue
    except OSError:
        return []
    found.sort(reverse=True)
    return [path for _, path in found[:limit]]
