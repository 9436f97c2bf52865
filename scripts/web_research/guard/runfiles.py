"""Reading a file of the run folder from a hook: regular files only, bounded.

Every file in a run folder may have been written by a model, so a hook never
opens one in a way that can hang (a FIFO, a device) or read without limit.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_RUN_FILE_BYTES = 4 * 1024 * 1024


class RunFileError(Exception):
    """The file cannot be used; the message says why (for a problem line)."""


def read_run_file(path: str | Path, limit: int = MAX_RUN_FILE_BYTES) -> bytes:
    """The bytes of a regular file (symlinks followed), at most `limit` of them."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise RunFileError("the file does not exist") from None
    except OSError as exc:
        raise RunFileError(f"cannot be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RunFileError("is not a regular file")
        if info.st_size > limit:
            raise RunFileError(f"is {info.st_size} bytes; at most {limit} are read")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise RunFileError(f"grew past {limit} bytes while being read")
        return b"".join(chunks)
    except OSError as exc:
        raise RunFileError(f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
