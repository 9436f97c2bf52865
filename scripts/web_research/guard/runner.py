"""Entry point of every hook script: read the payload, decide, print, never crash.

Failing open is for our own bugs only: an exception in a handler is logged to
`<data>/logs/hooks.log` and the hook decides nothing (exit 0), so a defect in the
plugin can never block a user's session; the first such failure in a session is
announced to the user. Errors caused by the run's own files never get here: the
checks turn them into failures (findings_gate, stopgate), so the gates hold.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping, TextIO

LOG_FILE = "hooks.log"
MAX_LOG_BYTES = 1_000_000


def log_failure(event: str, env: Mapping[str, str]) -> None:
    import traceback  # lazy: start-up

    from .registry import LOGS_DIR, data_dir, now_iso  # lazy: hook start-up

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


INTERNAL_ERROR_MARK = "internal-error-{session}"
DEADLINE_ENV = "WEB_RESEARCH_HOOK_DEADLINE"  # seconds; overrides the one derived from hooks.json
DEFAULT_TIMEOUT_SECONDS = 30.0
MAX_ADDRESS_SPACE = 2 * 1024 ** 3


class HookDeadline(Exception):
    """The hook ran out of its own time; raised wherever it is (see `set_limits`)."""


def hook_timeout(event: str, payload: Mapping[str, Any], config_path: Path) -> float:
    """The client's timeout for this hook: the smallest `timeout` of the hooks.json
    groups whose matcher matches the payload (tool name, or agent type)."""
    import re  # lazy: start-up

    try:
        groups = json.loads(config_path.read_text(encoding="utf-8"))["hooks"].get(event, [])
    except (OSError, ValueError, KeyError, AttributeError):
        return DEFAULT_TIMEOUT_SECONDS
    subject = payload.get("tool_name") if event in ("PreToolUse", "PostToolUse") else payload.get("agent_type")
    found = []
    for group in groups:
        matcher = group.get("matcher") or ""
        try:
            matches = matcher in ("", "*") or bool(re.fullmatch(matcher, str(subject or "")))
        except re.error:
            matches = False
        if matches:
            found += [float(h.get("timeout", DEFAULT_TIMEOUT_SECONDS)) for h in group.get("hooks", [])]
    return min(found) if found else DEFAULT_TIMEOUT_SECONDS


def own_deadline(timeout: float) -> float:
    """Seconds this process gives itself: the client's timeout less a margin in which
    a check cut short still reports its failure and releases the lock."""
    return max(1.0, timeout - max(3.0, min(10.0, timeout / 4)))


def set_limits(deadline: float) -> None:
    """Bound the hook's wall time, CPU time and memory. `hooks/run` execs Python, so
    the client's own kill reaches this process; these limits end it first: SIGALRM
    raises HookDeadline at `deadline`, a CPU-bound loop that never returns to the
    interpreter dies of SIGXCPU, and an allocation past MAX_ADDRESS_SPACE raises
    MemoryError instead of swapping the machine."""
    import resource  # lazy: start-up
    import signal  # lazy: start-up

    def expire(_signum: int, _frame: Any) -> None:
        raise HookDeadline(f"the hook ran past its own deadline of {deadline:g} s")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, deadline)
    cpu_seconds = _ceil(deadline) + 2
    for limit, value in ((resource.RLIMIT_CPU, cpu_seconds), (resource.RLIMIT_AS, MAX_ADDRESS_SPACE)):
        try:
            soft, hard = resource.getrlimit(limit)
            if soft == resource.RLIM_INFINITY or soft > value:
                resource.setrlimit(limit, (value, hard))
        except (ValueError, OSError):
            pass


def _ceil(number: float) -> int:
    """math.ceil, without loading math (a shared library) into every hook."""
    whole = int(number)
    return whole + 1 if whole < number else whole


def internal_error_notice(payload: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """Tell the user, once per session, that the guard failed on its own bug and decided
    nothing; later failures are only logged."""
    from .registry import LOGS_DIR, data_dir, valid_session_id  # lazy: hook start-up

    session = payload.get("session_id")
    folder = data_dir(env) / LOGS_DIR
    mark = folder / INTERNAL_ERROR_MARK.format(session=session if valid_session_id(session) else "unknown")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.close(os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError:
        return {}
    return {"systemMessage": "web-research: the guard hit an internal error and decided nothing for this "
                             f"event (its checks may be inactive); details in {folder / LOG_FILE}."}


def run_hook(event: str, stdin: TextIO | None = None, stdout: TextIO | None = None,
             env: Mapping[str, str] | None = None, limits: bool = False) -> int:
    """`limits`: bound this process's time and memory (the hook scripts ask for it)."""
    env = os.environ if env is None else env
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    payload: Any = {}
    try:
        payload = json.loads(stdin.read() or "{}")
        if not isinstance(payload, dict):
            return 0
        if limits:
            from .. import formats  # lazy: hook start-up

            override = env.get(DEADLINE_ENV)
            set_limits(float(override) if override else own_deadline(
                hook_timeout(event, payload, formats.PLUGIN_ROOT / "hooks" / "hooks.json")))
        from .events import handle  # lazy: hook start-up

        decision = handle(event, payload, env)
    except Exception:
        _stop_alarm()
        log_failure(event, env)
        decision = internal_error_notice(payload if isinstance(payload, dict) else {}, env)
    _stop_alarm()
    if decision:
        stdout.write(json.dumps(decision) + "\n")
    return 0


def _stop_alarm() -> None:
    import signal  # lazy: start-up

    if signal.getitimer(signal.ITIMER_REAL)[0]:
        signal.setitimer(signal.ITIMER_REAL, 0)
