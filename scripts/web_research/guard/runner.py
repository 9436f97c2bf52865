"""Entry point of every hook script: read the payload, decide, print, never crash.

Every failure of every event is judged here, in `run_hook`, and nowhere else: an
exception in a handler, the hook's own deadline, or a payload that is not what the
client sends (adapter.py: wrong types, broken JSON, a FIFO for a path) is logged
to `<data>/logs/hooks.log`, and then
- outside a research run, the hook stays quiet (a session that is not researching
  is never blocked by our defect);
- in a run, a deciding event refuses (PreToolUse denies, SubagentStop and Stop
  block) with a reason naming what went wrong and the way out, every time: a guard
  that a strange payload or our own bug turns off is not a guard. Events that decide
  nothing tell the user once per session.
Errors caused by the run's own files mostly never get here: the checks turn them
into failures with their own messages (findings_gate, stopgate).
"""
from __future__ import annotations

import json
import os
import sys
import importlib
import re
import resource
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, TextIO

from .failure_log import LOG_FILE, log_failure
from . import adapter as payloads
from .. import formats
from ..core.paths import LOGS_DIR, any_run_open, data_dir, valid_session_id
from .adapter import MAX_PAYLOAD_BYTES, PayloadError, event_from, serialize, session_of, to_json
from .events import EVENTS, HANDLER_NAMES
from .state import Context, RecordError, Session, now_iso
from .rules.decision import Block, Deny, NOTHING, Notice

if TYPE_CHECKING:
    from .rules.decision import Decision


HOOK_CWD_ENV = "WEB_RESEARCH_HOOK_CWD"
INTERNAL_ERROR_MARK = "internal-error-{session}"
DEADLINE_ENV = "WEB_RESEARCH_HOOK_DEADLINE"  # seconds; overrides the one derived from hooks.json
DEFAULT_TIMEOUT_SECONDS = 30.0
MAX_ADDRESS_SPACE = 2 * 1024 ** 3


def main(argv: list[str]) -> int:
    """`python -m web_research.guard EVENT` (guard/__main__.py): restore the session's folder,
    then run the hook of EVENT (its snake-case name, events.EVENTS); an unknown EVENT decides
    nothing."""
    cwd = os.environ.pop(HOOK_CWD_ENV, None)
    if cwd:
        try:
            os.chdir(cwd)
        except OSError:  # gone or unreadable: the payload's own cwd still says where the session is
            pass
    event = EVENTS.get(argv[1]) if len(argv) == 2 else None
    if event is None:
        return 0
    return run_hook(event, limits=True)


class HookDeadline(Exception):
    """The hook ran out of its own time; raised wherever it is (see `set_limits`)."""


def hook_timeout(event: str, payload: Mapping[str, Any], config_path: Path) -> float:
    """The client's timeout for this hook: the smallest `timeout` of the hooks.json
    groups whose matcher matches the payload (tool name, or agent type)."""
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


def set_limits(deadline: float, alarm_only: bool = False) -> None:
    """Bound the hook's wall time, CPU time and memory. `hooks/run` execs Python, so
    the client's own kill reaches this process; these limits end it first: SIGALRM
    raises HookDeadline at `deadline`, a CPU-bound loop that never returns to the
    interpreter dies of SIGXCPU, and an allocation past MAX_ADDRESS_SPACE raises
    MemoryError instead of swapping the machine."""
    def expire(_signum: int, _frame: Any) -> None:
        raise HookDeadline(f"the hook ran past its own deadline of {deadline:g} s")

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, deadline)
    if alarm_only:
        return
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


def internal_error_notice(payload: Mapping[str, Any], env: Mapping[str, str]) -> Decision:
    """Tell the user, once per session, that the guard failed on its own bug in an event
    that decides nothing (PostToolUse, SubagentStart, SessionStart/End); later failures
    are only logged. Deciding events refuse instead (`failure_decision`)."""
    session = payload.get("session_id")
    folder = data_dir(env) / LOGS_DIR
    mark = folder / INTERNAL_ERROR_MARK.format(session=session if valid_session_id(session) else "unknown")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.close(os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError:
        return NOTHING
    return Notice("web-research: the guard hit an internal error and decided nothing for this event (its "
                  f"checks may be inactive); details in {folder / LOG_FILE}.")


def run_hook(event: str, stdin: Any = None, stdout: TextIO | None = None,
             env: Mapping[str, str] | None = None, limits: bool = False) -> int:
    """Read the payload, decide, print; never crash. `limits`: bound this process's time
    and memory (the hook scripts ask for it).

    This is the one place where failures are judged, for every event: an exception, the
    hook's own deadline or a payload that is not what the client sends (adapter.py) is
    logged, then refused while a run is open (`failure_decision`) and left quiet outside
    one."""
    env = os.environ if env is None else env
    stdout = sys.stdout if stdout is None else stdout
    parsed: dict[str, Any] | None = None
    raw = b""
    try:
        override = env.get(DEADLINE_ENV)
        if limits:  # until the payload says which matcher applies: the event's smallest timeout
            set_limits(float(override) if override else own_deadline(hook_timeout(event, {}, _hooks_config())),
                       alarm_only=True)
        raw = _read_stdin(sys.stdin if stdin is None else stdin)
        parsed = payloads.parse(raw)
        if limits:
            set_limits(float(override) if override else own_deadline(hook_timeout(event, parsed, _hooks_config())))
        payloads.check(parsed, event)
        decision = handle(event, parsed, env)
    except Exception as exc:  # noqa: BLE001 - the one place every hook's failure is judged
        _stop_alarm()
        decision = _failed(event, parsed, raw, env, exc)
    _stop_alarm()
    if decision:
        stdout.write(serialize(decision) + "\n")
    return 0


def handler(event: str) -> Callable[..., Decision] | None:
    """The handler of the client's `event` (e.g. "PreToolUse"), its module imported now."""
    name = HANDLER_NAMES.get(event)
    if name is None:
        return None
    return getattr(importlib.import_module(f"{__package__}.{name}"), name)


def handle(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """Run the handler of `event` on a checked payload: the client's JSON of its decision."""
    run = handler(event)
    if run is None or payload.get("hook_event_name", event) != event:
        return {}
    return to_json(event, run(Context(event_from(event, payload), env)))


def _hooks_config() -> Path:
    return formats.PLUGIN_ROOT / "hooks" / "hooks.json"


def _read_stdin(stdin: Any) -> bytes:
    """At most one byte past the payload limit (payload.parse refuses more), as bytes."""
    source = getattr(stdin, "buffer", None)
    if source is not None:
        return source.read(MAX_PAYLOAD_BYTES + 1)
    return stdin.read(MAX_PAYLOAD_BYTES + 1).encode("utf-8", "surrogatepass")


def _failed(event: str, parsed: dict[str, Any] | None, raw: bytes, env: Mapping[str, str],
            exc: BaseException) -> dict[str, Any]:
    """Log the failure, then the client's JSON of what the hook says about it (`failure_decision`)."""
    if isinstance(exc, PayloadError):
        _log_line(event, env, f"refused payload: {exc}")
    else:
        log_failure(event, env)
    try:
        return to_json(event, failure_decision(event, parsed, raw, env, exc))
    except Exception:  # noqa: BLE001 - judging the failure failed too: refuse, since a run may be open
        log_failure(f"{event} (judging a failure)", env)
        return to_json(event, _refusal(event, f"{_what(exc)}; then judging that failed too", None, None))


def _log_line(event: str, env: Mapping[str, str], text: str) -> None:
    try:
        folder = data_dir(env) / LOGS_DIR
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / LOG_FILE, "a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(f"--- {now_iso()} {event} pid={os.getpid()}\n{text[:2000]}\n")
    except Exception:  # noqa: BLE001 - logging never turns a judged failure into a crash
        pass


DECIDING_EVENTS = ("PreToolUse", "SubagentStop", "Stop")


def _what(exc: BaseException) -> str:
    if isinstance(exc, PayloadError):
        return f"the hook's input is not what Claude Code sends: {str(exc)[:300]}"
    if isinstance(exc, HookDeadline):
        return str(exc)
    return f"an internal error, {type(exc).__name__}: {str(exc)[:200]}"


def failure_decision(event: str, parsed: dict[str, Any] | None, raw: bytes, env: Mapping[str, str],
                     exc: BaseException) -> Decision:
    """What a hook that failed says. Outside a run: nothing (a session that is not
    researching never hears of us). In a run (this session's record exists; or, when the
    payload does not say which session it is, any session's): a deciding event refuses,
    naming what went wrong and what to do, every time; the others tell the user once."""
    sid = parsed.get("session_id") if parsed is not None else session_of(raw)
    session = Session(data_dir(env), sid) if valid_session_id(sid) else None
    if session is not None:
        in_run = session.has_active_run()
    else:
        in_run = any_run_open(data_dir(env))
    if not in_run:
        return _start_notice(event, parsed, raw, exc)
    if event not in DECIDING_EVENTS:
        return internal_error_notice(parsed or {}, env)
    try:
        run = session.read() if session is not None else None
    except RecordError:  # the record itself is what failed: the refusal names no folder
        run = None
    return _refusal(event, _what(exc), run.run_dir if run is not None else None, env)


def _start_notice(event: str, parsed: dict[str, Any] | None, raw: bytes, exc: BaseException) -> Decision:
    """No run is open, but this may have been our start command: a run that was not
    recorded has no guards, so say so rather than stay quiet."""
    if event != "PostToolUse" or b"web-research" not in raw or b"start" not in raw:
        return NOTHING
    return Notice("web-research: a research run may have started but the guard could not record it "
                  f"({_what(exc)}), so its checks are inactive; see the hooks' log.")


def _refusal(event: str, what: str, run_dir: str | None, env: Mapping[str, str] | None) -> Decision:
    log = data_dir(env or os.environ) / LOGS_DIR / LOG_FILE
    program = os.path.join((env or {}).get("CLAUDE_PLUGIN_ROOT") or str(_hooks_config().parent.parent),
                           "scripts", "web-research")
    folder = f'"{run_dir}"' if run_dir else '"<run folder>"'
    give_up = (f'To give the run up instead, run "{program}" abandon {folder} --reason "<why>" and tell '
               "the user what happened.")
    if event == "PreToolUse":
        return Deny(
            f"web-research could not check this tool call while a research run is open ({what}), so it was "
            "refused. Retry it once, exactly as your instructions write it. If it is refused again, stop and "
            f"tell the user (details in {log}). {give_up}")
    if event == "SubagentStop":
        return Block(
            f"web-research could not check this stop while a research run is open ({what}). Make sure your "
            "output file is written as your instructions say, then reply with your final line again. "
            f"(Details in {log}.)",
            "web-research: the guard could not check a subagent's stop; it was asked to finish again.")
    if run_dir is not None and not _report_exists(run_dir):
        return Notice(f"web-research: the Stop gate could not run ({what}); no report.md yet, "
                      f"so nothing was checked. Details in {log}.")
    return Block(
        f"web-research's Stop gate could not check the report while the run is open ({what}), so the "
        f'stop is not accepted. Run "{program}" finish {folder} and do what it prints. {give_up}',
        "web-research: the Stop gate failed on its own error; the agent was asked to finish or abandon the run.")


def _report_exists(run_dir: str) -> bool:
    from .stop import report_written  # lazy: the hook entry loads only its own event's handler module

    try:
        return report_written(run_dir)
    except (OSError, ValueError):
        return True


def _stop_alarm() -> None:
    if signal.getitimer(signal.ITIMER_REAL)[0]:
        signal.setitimer(signal.ITIMER_REAL, 0)
