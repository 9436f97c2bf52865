"""An exclusive lock between processes (the hooks of one session run in parallel).

`filelock` is imported where the lock is taken, inside the function for the hooks' sake: it
brings 37 modules (threading, logging, decimal, ...), and the hook entry with no run open (our
command named in a session without one) loads this module but never locks. Imported at the
top it made that path load 198 modules instead of 161 and import for 62 ms instead of 48 ms
(least of 9 runs, `python -X importtime`, load 2.5); a hook in a run takes a lock and loads
it either way.
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def exclusive_lock(lock_path: Path, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on `lock_path` (created 0600, never through a symbolic link).
    Waits for the holder, but not forever: after `timeout` seconds it raises TimeoutError, so
    a stuck hook makes the next one fail (open) rather than hang."""
    from filelock import FileLock, Timeout  # lazy: only where a lock is taken (module docstring)

    lock = FileLock(lock_path, mode=0o600, thread_local=False)
    try:
        lock.acquire(timeout=timeout, poll_interval=0.01)
    except Timeout:
        raise TimeoutError(f"{lock_path} held for more than {timeout} s") from None
    try:
        yield
    finally:
        lock.release()
