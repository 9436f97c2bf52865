"""The one adapter between the client and the rules: the entry of every hook, the payload
checked and turned into a typed event (events.py), the handler of the event run on it, and the
decision (rules/decision.py) turned into the JSON line the client reads (claude-code-facts.md).
Nothing else in the hooks reads a payload's JSON or writes a decision's.

The payload. During a run part of a payload is written by models that may be hostile (a
path, a command, a prompt, a last message), and a payload the client would never send must
not switch a guard off. So stdin must be exactly one JSON object (UTF-8, no BOM, no
trailing bytes, no duplicate keys, nesting bounded), and every field a handler reads has
the type and size it should: strings are strings, `stop_hook_active` is a real boolean,
names are short printable ASCII, paths are bounded and free of NUL bytes, and no string
holds a lone surrogate (it cannot be encoded, so it would crash whoever writes it to a file
name or a log). Anything else raises `PayloadError`. Files a payload names (transcripts) are
read with `read_named_file`: a bounded prefix of a regular file, never a FIFO or a device.

Failures. Every failure of every event is judged here, in `run_hook`, and nowhere else: an
exception in a handler, the hook's own deadline, or a payload that is not what the client
sends is logged to `<data>/logs/hooks.log` (`log_failure`, which the handlers also use for
bookkeeping they survive), and then
- outside a research run, the hook stays quiet (a session that is not researching is never
  blocked by our defect);
- in a run, a deciding event refuses (PreToolUse denies, SubagentStop and Stop block) with a
  reason naming what went wrong and the way out, every time: a guard that a strange payload
  or our own bug turns off is not a guard. Events that decide nothing tell the user once per
  session.
Errors caused by the run's own files mostly never get here: the checks turn them into
failures with their own messages (findings_gate, rules/stop_gate).

The handler of an event is imported when its event runs (`handler`): a hook loads only its
own event's module, from handlers/.
"""
from __future__ import annotations

import importlib
import json
import os
import re
import resource
import signal
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, TextIO

from .. import formats
from ..core.clock import utc_stamp
from ..core.fsutil import NotRegularFile, read_regular_prefix
from ..core.paths import LOGS_DIR, any_run_open, data_dir, valid_session_id
from .events import EVENTS, HANDLER_NAMES, KIND_HANDLER_NAMES, AgentStart, AgentStop, HookEvent, SessionBoundary, Stop, ToolCall, ToolResult
from .rules.decision import NOTHING, AddContext, Allow, Block, Decision, Deny, Notice
from .state import Context, RecordError, Session, report_written

# The payload as read from stdin: the client's JSON object, before `check` and `event_from` turn it
# into a typed event (events.py); nothing past this module sees it. And the object printed back.
Payload = dict[str, Any]
ClientJSON = dict[str, object]

LOG_FILE = "hooks.log"
MAX_LOG_BYTES = 1_000_000
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


def hook_groups(event: str) -> list[Any]:
    """The hooks.json groups of `event` (read once per hook; [] when unreadable)."""
    try:
        groups = json.loads(_hooks_config().read_text(encoding="utf-8"))["hooks"].get(event, [])
    except (OSError, ValueError, KeyError, AttributeError):
        return []
    return groups if isinstance(groups, list) else []


def hook_timeout(event: str, payload: Mapping[str, Any], groups: list[Any]) -> float:
    """The client's timeout for this hook: the smallest `timeout` of the hooks.json
    groups whose matcher matches the payload (tool name, or agent type)."""
    subject = payload.get("tool_name") if event in ("PreToolUse", "PostToolUse") else payload.get("agent_type")
    found = []
    try:
        for group in groups:
            matcher = group.get("matcher") or ""
            try:
                matches = matcher in ("", "*") or bool(re.fullmatch(matcher, str(subject or "")))
            except re.error:
                matches = False
            if matches:
                found += [float(h.get("timeout", DEFAULT_TIMEOUT_SECONDS)) for h in group.get("hooks", [])]
    except (AttributeError, TypeError, ValueError):  # a hooks.json edited by hand: the default
        return DEFAULT_TIMEOUT_SECONDS
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
             env: Mapping[str, str] | None = None, limits: bool = False, stderr: TextIO | None = None) -> int:
    """Read the payload, decide, print; never crash. `limits`: bound this process's time
    and memory (the hook scripts ask for it).

    This is the one place where failures are judged, for every event: an exception, the
    hook's own deadline or a payload that is not what the client sends (`check`) is
    logged, then refused while a run is open (`failure_decision`) and left quiet outside
    one. A SubagentStop block leaves as `subagent_feedback` says; every other decision is one
    JSON line on stdout, and the hook exits 0."""
    env = os.environ if env is None else env
    stdout = sys.stdout if stdout is None else stdout
    parsed: Payload | None = None
    raw = b""
    try:
        override = env.get(DEADLINE_ENV)
        groups = hook_groups(event) if limits and not override else []
        if limits:  # until the payload says which matcher applies: the event's smallest timeout
            set_limits(float(override) if override else own_deadline(hook_timeout(event, {}, groups)),
                       alarm_only=True)
        raw = _read_stdin(sys.stdin if stdin is None else stdin)
        parsed = parse(raw)
        if limits:
            set_limits(float(override) if override else own_deadline(hook_timeout(event, parsed, groups)))
        check(parsed, event)
        decision = handle(event, parsed, env)
    except Exception as exc:  # noqa: BLE001 - the one place every hook's failure is judged
        _stop_alarm()
        decision = _failed(event, parsed, raw, env, exc)
    _stop_alarm()
    feedback = subagent_feedback(event, decision)
    if feedback is not None:
        _write_feedback(feedback, env, stderr)
        return EXIT_FEEDBACK
    if decision:
        stdout.write(serialize(decision) + "\n")
    return 0


def handler_name(event: str, kind: str | None = None) -> str | None:
    """The module and function that handle the client's `event` for a call of `kind`
    (state.Context.kind; the tables are in events.py); None: an event that is not ours."""
    return KIND_HANDLER_NAMES.get((event, kind or "")) or HANDLER_NAMES.get(event)


def handler(event: str, kind: str | None = None) -> Callable[..., Decision] | None:
    """The handler of the client's `event` (e.g. "PreToolUse") for a call of `kind`
    (events.handler_name), its module imported now: the hook's one lazy import, so that a hook
    loads only what it runs."""
    name = handler_name(event, kind)
    if name is None:
        return None
    return getattr(importlib.import_module(f"{__package__}.handlers.{name}"), name)


def handle(event: str, payload: Mapping[str, Any], env: Mapping[str, str]) -> ClientJSON:
    """Run the handler of `event` on a checked payload: the client's JSON of its decision."""
    if payload.get("hook_event_name", event) != event:
        return {}
    ctx = Context(event_from(event, payload), env)
    run = handler(event, ctx.kind)
    return {} if run is None else to_json(event, run(ctx))


def _hooks_config() -> Path:
    return formats.PLUGIN_ROOT / "hooks" / "hooks.json"


def _read_stdin(stdin: Any) -> bytes:
    """At most one byte past the payload limit (payload.parse refuses more), as bytes."""
    source = getattr(stdin, "buffer", None)
    if source is not None:
        return source.read(MAX_PAYLOAD_BYTES + 1)
    return stdin.read(MAX_PAYLOAD_BYTES + 1).encode("utf-8", "surrogatepass")


def _failed(event: str, parsed: Payload | None, raw: bytes, env: Mapping[str, str],
            exc: BaseException) -> ClientJSON:
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
            handle.write(f"--- {utc_stamp()} {event} pid={os.getpid()}\n{text[:2000]}\n")
    except Exception:  # noqa: BLE001 - logging never turns a judged failure into a crash
        pass


DECIDING_EVENTS = ("PreToolUse", "SubagentStop", "Stop")


def _what(exc: BaseException) -> str:
    if isinstance(exc, PayloadError):
        return f"the hook's input is not what Claude Code sends: {str(exc)[:300]}"
    if isinstance(exc, HookDeadline):
        return str(exc)
    return f"an internal error, {type(exc).__name__}: {str(exc)[:200]}"


def failure_decision(event: str, parsed: Payload | None, raw: bytes, env: Mapping[str, str],
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


def _start_notice(event: str, parsed: Payload | None, raw: bytes, exc: BaseException) -> Decision:
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
    try:
        return report_written(run_dir)
    except (OSError, ValueError):
        return True


def _stop_alarm() -> None:
    if signal.getitimer(signal.ITIMER_REAL)[0]:
        signal.setitimer(signal.ITIMER_REAL, 0)


# --- the payload ------------------------------------------------------------------------

MAX_PAYLOAD_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 32
MAX_PATH_BYTES = 4096
MAX_NAME_CHARS = 256
MAX_MESSAGE_CHARS = 4 * 1024 * 1024
MAX_TRANSCRIPT_PREFIX = 4 * 1024 * 1024  # a subagent's transcript starts with its prompt

PATH_FIELDS = ("transcript_path", "agent_transcript_path", "cwd")
NAME_FIELDS = ("session_id", "hook_event_name", "agent_id", "agent_type", "tool_name", "tool_use_id",
               "source", "reason")
TEXT_FIELDS = ("last_assistant_message",)
BOOL_FIELDS = ("stop_hook_active",)
# tool_input keys the handlers read, with the type each must have when present
INPUT_PATHS = ("file_path", "notebook_path")
INPUT_NAMES = ("subagent_type",)
INPUT_TEXTS = ("command", "prompt", "description", "query", "url", "content",
               "old_string", "new_string", "new_source")
INPUT_BOOLS = ("run_in_background",)

_NAME = re.compile(r"[\x21-\x7e]*")  # printable ASCII without spaces: ids, agent types, tool names
_SESSION_KEY = re.compile(rb'"session_id"\s*:\s*"([^"\\]{0,256})"')


class PayloadError(ValueError):
    """The payload is not what the client sends; the message says which field and why."""


def load(raw: bytes, event: str) -> Payload:
    """The payload of one `event` hook, parsed and checked (`PayloadError` otherwise)."""
    payload = parse(raw)
    check(payload, event)
    return payload


def parse(raw: bytes) -> Payload:
    """Exactly one JSON object, in UTF-8, with no duplicate keys and bounded nesting."""
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise PayloadError(f"the payload is {len(raw)} bytes, over the {MAX_PAYLOAD_BYTES}-byte limit")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PayloadError(f"the payload is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if text.startswith("\ufeff"):
        raise PayloadError("the payload starts with a byte-order mark")
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise PayloadError(f"the payload nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # JSONDecodeError: truncated, trailing bytes; or a duplicate key
        raise PayloadError(f"the payload is not one JSON object ({exc})") from None
    if not isinstance(value, dict):
        raise PayloadError(f"the payload is a JSON {type(value).__name__}, not an object")
    _check_tree(value)
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> Payload:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise ValueError(f"the key {twice[:40]!r} appears twice")
    return result


def _check_tree(value: Any) -> None:
    """Nesting at most MAX_DEPTH, and no lone surrogate in any key or string except inside
    `tool_response` (what a tool returned: a page may hold one; no handler writes it out)."""
    stack: list[tuple[Any, int, bool]] = [(value, 1, True)]
    while stack:
        item, depth, strict = stack.pop()
        if depth > MAX_DEPTH:
            raise PayloadError(f"the payload nests deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            for key, child in item.items():
                if strict:
                    _encodable(key, "a key")
                if isinstance(child, (dict, list)):
                    stack.append((child, depth + 1, strict and not (depth == 1 and key == "tool_response")))
                elif strict and isinstance(child, str):
                    _encodable(child, f"the value of {key[:40]!r}")
        elif isinstance(item, list):
            for child in item:
                if isinstance(child, (dict, list)):
                    stack.append((child, depth + 1, strict))
                elif strict and isinstance(child, str):
                    _encodable(child, "a list item")


def _encodable(text: str, what: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise PayloadError(f"{what} holds a lone surrogate (\\u{ord(text[_surrogate(text)]):04x}), "
                               "which is not text") from None


def _surrogate(text: str) -> int:
    return next(i for i, char in enumerate(text) if 0xD800 <= ord(char) <= 0xDFFF)


def check(payload: Payload, event: str) -> None:
    """Each field a handler reads has its type and size (absent is fine, except session_id)."""
    if not valid_session_id(payload.get("session_id")):
        raise PayloadError(f"session_id is {_show(payload.get('session_id'))}, not a session id")
    named = payload.get("hook_event_name", event)
    if named != event:
        raise PayloadError(f"hook_event_name is {_show(named)}, not {event}")
    for key in NAME_FIELDS:
        _name(payload, key, key)
    for key in PATH_FIELDS:
        _path(payload, key, key)
    for key in TEXT_FIELDS:
        _text(payload, key, key)
    for key in BOOL_FIELDS:
        _bool(payload, key, key)
    if "background_tasks" in payload and not isinstance(payload["background_tasks"], list):
        raise PayloadError(f"background_tasks is {_show(payload['background_tasks'])}, not a list")
    if "tool_input" in payload:
        tool_input = payload["tool_input"]
        if not isinstance(tool_input, dict):
            raise PayloadError(f"tool_input is {_show(tool_input)}, not an object")
        tool_input = {k: v for k, v in tool_input.items() if v is not None}  # null: an optional field left out
        for key in INPUT_NAMES:
            _name(tool_input, key, f"tool_input.{key}")
        for key in INPUT_PATHS:
            _path(tool_input, key, f"tool_input.{key}")
        for key in INPUT_TEXTS:
            _text(tool_input, key, f"tool_input.{key}")
        for key in INPUT_BOOLS:
            _bool(tool_input, key, f"tool_input.{key}")
        if "edits" in tool_input and not isinstance(tool_input["edits"], list):
            raise PayloadError(f"tool_input.edits is {_show(tool_input['edits'])}, not a list")


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "an object"}.get(
        type(value), f"a {type(value).__name__}")


def _string(mapping: Payload, key: str, where: str) -> str | None:
    """`mapping[key]` when present (None when absent); anything but a string is refused."""
    if key not in mapping:
        return None
    value = mapping[key]
    if not isinstance(value, str):
        raise PayloadError(f"{where} is {_show(value)}, not a string")
    return value


def _name(mapping: Payload, key: str, where: str) -> None:
    value = _string(mapping, key, where)
    if value is None:
        return
    if len(value) > MAX_NAME_CHARS or not _NAME.fullmatch(value):
        raise PayloadError(f"{where} is {_show(value)}, not a name (at most {MAX_NAME_CHARS} printable "
                           "ASCII characters)")


def _path(mapping: Payload, key: str, where: str) -> None:
    value = _string(mapping, key, where)
    if value is None:
        return
    if "\x00" in value:
        raise PayloadError(f"{where} holds a NUL byte, which no file name can")
    if len(value.encode("utf-8")) > MAX_PATH_BYTES:
        raise PayloadError(f"{where} is {len(value.encode('utf-8'))} bytes long, over the "
                           f"{MAX_PATH_BYTES}-byte limit of a path")


def _text(mapping: Payload, key: str, where: str) -> None:
    value = _string(mapping, key, where)
    if value is None:
        return
    if key in TEXT_FIELDS and len(value) > MAX_MESSAGE_CHARS:
        raise PayloadError(f"{where} is {len(value)} characters, over the {MAX_MESSAGE_CHARS} limit")


def _bool(mapping: Payload, key: str, where: str) -> None:
    if key in mapping and not isinstance(mapping[key], bool):
        raise PayloadError(f"{where} is {_show(mapping[key])}, not true or false")


def session_of(raw: bytes) -> str | None:
    """The one session id written in a payload that did not parse, when every
    `"session_id"` in it says the same; else None (the session is unknown)."""
    found = {match.group(1) for match in _SESSION_KEY.finditer(raw[:MAX_PAYLOAD_BYTES])}
    if len(found) != 1 or raw.count(b'"session_id"') != len(_SESSION_KEY.findall(raw[:MAX_PAYLOAD_BYTES])):
        return None
    try:
        return found.pop().decode("ascii")
    except UnicodeDecodeError:
        return None


def read_named_file(path: str, max_bytes: int = MAX_TRANSCRIPT_PREFIX) -> bytes | None:
    """At most `max_bytes` from the start of a file a payload names (a transcript), read by
    fsutil.read_regular_prefix. None when it does not exist; `PayloadError` when it is no
    regular file (a FIFO, a device, a directory, a symbolic link) or cannot be read: the
    client names only its own transcripts, so anything else is input the hook cannot trust."""
    try:
        return read_regular_prefix(path, max_bytes)[0]
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise PayloadError(f"{path[:200]} is not a regular file, so it is not a transcript") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name (check() refuses those first)
        raise PayloadError(f"{path[:200]} cannot be read ({getattr(exc, 'strerror', None) or exc})") from None


# --- payload -> event ------------------------------------------------------------------

MAX_TEXT = 9000  # the client truncates hook output at 10,000 characters
MAX_OUTPUT = 9500  # characters of the JSON line printed (after escaping), below the client's 10,000
TEXT_KEYS = ("permissionDecisionReason", "reason", "systemMessage", "additionalContext")


def _str(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) else None


def event_from(name: str, payload: Mapping[str, Any]) -> HookEvent:
    """The typed event of a payload payload.check() accepted for the client's event `name`."""
    common: Payload = {
        "name": name, "session_id": payload["session_id"], "cwd": _str(payload, "cwd"),
        "transcript_path": _str(payload, "transcript_path"), "agent_id": _str(payload, "agent_id"),
        "agent_type": _str(payload, "agent_type")}
    if name in ("PreToolUse", "PostToolUse"):
        tool_input = payload.get("tool_input")
        call = {**common, "tool": _str(payload, "tool_name"), "tool_use_id": _str(payload, "tool_use_id"),
                "tool_input": tool_input if isinstance(tool_input, dict) else {}}
        if name == "PreToolUse":
            return ToolCall(**call)
        return ToolResult(**call, response=payload.get("tool_response"))
    if name == "SubagentStart":
        return AgentStart(**common)
    if name == "SubagentStop":
        return AgentStop(**common, agent_transcript_path=_str(payload, "agent_transcript_path"),
                         last_message=_str(payload, "last_assistant_message"),
                         stop_hook_active=payload.get("stop_hook_active") is True)
    if name == "Stop":
        tasks = payload.get("background_tasks")
        return Stop(**common, last_message=_str(payload, "last_assistant_message"),
                    stop_hook_active=payload.get("stop_hook_active") is True,
                    background_tasks=tuple(tasks) if isinstance(tasks, list) else None)
    return SessionBoundary(**common)


# --- decision -> JSON ------------------------------------------------------------------

def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 20] + "\n[... truncated]"


def to_json(event: str, decision: Decision) -> ClientJSON:
    """The object the client reads for `decision` in `event` ({} prints nothing)."""
    if isinstance(decision, (Allow, Deny)):
        specific: ClientJSON = {"hookEventName": "PreToolUse",
                                    "permissionDecision": "allow" if isinstance(decision, Allow) else "deny",
                                    "permissionDecisionReason": _clip(decision.reason)}
        if isinstance(decision, Allow) and decision.updated_input is not None:
            specific["updatedInput"] = dict(decision.updated_input)
        return {"hookSpecificOutput": specific}
    if isinstance(decision, Block):
        out: ClientJSON = {"decision": "block", "reason": _clip(decision.reason)}
        if decision.system_message:
            out["systemMessage"] = _clip(decision.system_message)
        return out
    if isinstance(decision, Notice):
        return {"systemMessage": _clip(decision.message)}
    if isinstance(decision, AddContext):
        context: dict[str, Any] = {"hookSpecificOutput": {"hookEventName": event,
                                                          "additionalContext": _clip(decision.text)}}
        if decision.system_message:
            context["systemMessage"] = _clip(decision.system_message)
        return context
    return {}


def serialize(decision: ClientJSON) -> str:
    """The JSON line to print: at most MAX_OUTPUT characters once escaped (a non-ASCII
    character is six), so the client never cuts a decision; the longest texts are
    shortened by their escaped size and say so."""
    line = json.dumps(decision)
    texts = sum(len(json.dumps(holder[key])) for holder, key in _texts(decision))
    if len(line) - texts + 200 * len(_texts(decision)) > MAX_OUTPUT:
        return line  # the rest (an updatedInput) is too long by itself: cutting the reasons cannot help
    for _ in range(len(TEXT_KEYS) * 2):
        if len(line) <= MAX_OUTPUT:
            break
        holder, key = max(_texts(decision), key=lambda hk: len(json.dumps(hk[0][hk[1]])), default=(None, ""))
        if holder is None:
            break
        holder[key] = _shorten(str(holder[key]), len(json.dumps(holder[key])) - (len(line) - MAX_OUTPUT))
        line = json.dumps(decision)
    return line


def _texts(decision: ClientJSON) -> list[tuple[ClientJSON, str]]:
    found = [(decision, k) for k in TEXT_KEYS if isinstance(decision.get(k), str)]
    specific = decision.get("hookSpecificOutput")
    if isinstance(specific, dict):
        found += [(specific, k) for k in TEXT_KEYS if isinstance(specific.get(k), str)]
    return found


def _shorten(text: str, budget: int) -> str:
    """The longest prefix of `text` that, with a note of what was cut, is at most
    `budget` characters as a JSON string (quotes included)."""
    def note(cut: int) -> str:
        return f"\n[... {cut} more characters cut: hook output is limited to {MAX_OUTPUT} characters]"

    room = budget - len(json.dumps(note(len(text))))
    used, keep = 0, 0
    for char in text:
        used += 1 if " " <= char <= "~" and char not in '"\\' else len(json.dumps(char)) - 2
        if used > room:
            break
        keep += 1
    return text[:keep] + note(len(text) - keep)


# --- a subagent's feedback ---------------------------------------------------------------

EXIT_FEEDBACK = 2  # the client's "blocking error" code: stderr is the model's to read
FEEDBACK_FD_ENV = "WEB_RESEARCH_FEEDBACK_FD"  # hooks/run: the client's stderr (the hook's own goes to its log)


def subagent_feedback(event: str, decision: ClientJSON) -> str | None:
    """A SubagentStop block as the text to send the subagent once; None for any other decision.

    Claude Code 2.1.328 hands a subagent a JSON block's `reason` twice, as "Stop hook feedback"
    and again as a "SubagentStop hook blocking error"; the same text on stderr with exit code 2
    reaches it once, as the feedback (claude-code-facts.md). The person sees neither."""
    if event != "SubagentStop" or decision.get("decision") != "block":
        return None
    return str(decision.get("reason") or "")  # within MAX_TEXT already (to_json)


def _write_feedback(text: str, env: Mapping[str, str], stderr: TextIO | None) -> None:
    """`text` to the client's stderr: the descriptor hooks/run kept for it (FEEDBACK_FD_ENV), else
    this process's stderr (a test's stream, a hook run by hand)."""
    if stderr is not None:
        stderr.write(text)
        return
    data = text.encode("utf-8", "backslashreplace")
    number = env.get(FEEDBACK_FD_ENV, "")
    if number.isdigit():
        try:
            while data:
                data = data[os.write(int(number), data):]
            return
        except OSError:
            pass
    sys.stderr.write(text)
    sys.stderr.flush()


# --- the hooks' failure log --------------------------------------------------------------

def log_failure(event: str, env: Mapping[str, str]) -> None:
    try:
        folder = data_dir(env) / LOGS_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / LOG_FILE
        if path.is_file() and path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        with open(path, "a", encoding="utf-8") as handle:
            import traceback  # lazy: only a failure is logged with its traceback

            handle.write(f"--- {utc_stamp()} {event} pid={os.getpid()}\n{traceback.format_exc()}\n")
    except Exception:  # logging must not turn a failed-open hook into a crashing one
        pass
