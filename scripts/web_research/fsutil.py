"""Small file-system helpers shared by every writer in the package.

Writes are atomic (temporary file in the same folder, fsync, rename) so that a
crash never leaves a half-written plan, brief, snapshot or run record behind.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see either the old or the new file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


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
