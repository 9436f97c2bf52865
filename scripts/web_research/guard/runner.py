"""Entry point of every hook script: read the payload, decide, print, never crash.

Failing open is for our own bugs only: an exception in a handler is logged to
`<data>/logs/hooks.log` and the hook decides nothing (exit 0, no output), so a
defect in the plugin can never block a user's session.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Any, Mapping, TextIO

LOG_FILE = "hooks.log"
MAX_LOG_BYTES = 1_000_000


def log_failure(event: str, env: Mapping[str, str]) -> None:
    import traceback

    from .registry import LOGS_DIR, data_dir, now_iso

    try:
        folder = data_dir(env) / LOGS_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOG_FILE
        if path.is_file() and path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"--- {now_iso()} {event} pid={os.getpid()}\n{traceback.format_exc()}\n")
    except Exception:  # logging must not turn a failed-open hook into a crashing one
        pass


def run_hook(event: str, stdin: TextIO | None = None, stdout: TextIO | None = None,
             env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    try:
        payload: Any = json.loads(stdin.read() or "{}")
        if not isinstance(payload, dict):
            return 0
        from .events import handle

        decision = handle(event, payload, env)
    except Exception:
        log_failure(event, env)
        return 0
    if decision:
        stdout.write(json.dumps(decision) + "\n")
    return 0
