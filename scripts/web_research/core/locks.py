"""An exclusive lock between processes (the hooks of one session run in parallel).

Its own module, so that only the modules that take a lock (the run ledger, the session
registry) load `filelock` and what it brings (threading, logging, ...); a hook that only
reads pays nothing for it.
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

from filelock import FileLock, Timeout


@contextlib.contextmanager
def exclusive_lock(lock_path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on `lock_path` (created 0600, never through a symbolic link).
    Waits for the holder, but not forever: after `timeout` seconds it raises TimeoutError, so
    a stuck hook makes the next one fail (open) rather than hang."""
    lock = FileLock(lock_path, mode=0o600, thread_local=False)
    try:
        lock.acquire(timeout=timeout, poll_interval=0.01)
    except Timeout:
        raise TimeoutError(f"{lock_path} held for more than {timeout} s") from None
    try:
        yield
    finally:
        lock.release()
