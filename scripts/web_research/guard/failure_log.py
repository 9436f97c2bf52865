"""The hooks' own failure log, `<data>/logs/hooks.log`: one traceback per failure, the
file rotated once past `MAX_LOG_BYTES`. A module of its own (not runner.py's) so that
the handlers and gates that log a failure they survive need not import the runner,
which imports them.
"""
from __future__ import annotations

import os
import time
import traceback
from typing import Mapping

from ..core.paths import LOGS_DIR, data_dir


LOG_FILE = "hooks.log"
MAX_LOG_BYTES = 1_000_000


def log_failure(event: str, env: Mapping[str, str]) -> None:
    try:
        folder = data_dir(env) / LOGS_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOG_FILE
        if path.is_file() and path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {event} pid={os.getpid()}\n{traceback.format_exc()}\n")
    except Exception:  # logging must not turn a failed-open hook into a crashing one
        pass
