"""The one adapter between the client and the rules: the payload checked and turned into a
typed event (events.py), and a decision (rules/decision.py) turned into the JSON line the
client reads (claude-code-facts.md). Nothing else in the hooks reads a payload's JSON or
writes a decision's.

The payload. During a run part of a payload is written by models that may be hostile (a
path, a command, a prompt, a last message), and a payload the client would never send must
not switch a guard off. So stdin must be exactly one JSON object (UTF-8, no BOM, no
trailing bytes, no duplicate keys, nesting bounded), and every field a handler reads has
the type and size it should: strings are strings, `stop_hook_active` is a real boolean,
names are short printable ASCII, paths are bounded and free of NUL bytes, and no string
holds a lone surrogate (it cannot be encoded, so it would crash whoever writes it to a file
name or a log). Anything else raises `PayloadError`, which the runner turns into a refusal
while a run is open (runner.py). Files a payload names (transcripts) are read with
`read_named_file`: a bounded prefix of a regular file, never a FIFO or a device.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping

from ..core.paths import valid_session_id
from .events import (AgentStart, AgentStop, HookEvent, SessionBoundary, Stop, ToolCall,
                     ToolResult)
from .rules.decision import AddContext, Allow, Block, Decision, Deny, Notice
from ..core.fsutil import NotRegularFile, read_regular_prefix

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


def load(raw: bytes, event: str) -> dict[str, Any]:
    """The payload of one `event` hook, parsed and checked (`PayloadError` otherwise)."""
    payload = parse(raw)
    check(payload, event)
    return payload


def parse(raw: bytes) -> dict[str, Any]:
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


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
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


def check(payload: dict[str, Any], event: str) -> None:
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


def _string(mapping: dict[str, Any], key: str, where: str) -> str | None:
    """`mapping[key]` when present (None when absent); anything but a string is refused."""
    if key not in mapping:
        return None
    value = mapping[key]
    if not isinstance(value, str):
        raise PayloadError(f"{where} is {_show(value)}, not a string")
    return value


def _name(mapping: dict[str, Any], key: str, where: str) -> None:
    value = _string(mapping, key, where)
    if value is None:
        return
    if len(value) > MAX_NAME_CHARS or not _NAME.fullmatch(value):
        raise PayloadError(f"{where} is {_show(value)}, not a name (at most {MAX_NAME_CHARS} printable "
                           "ASCII characters)")


def _path(mapping: dict[str, Any], key: str, where: str) -> None:
    value = _string(mapping, key, where)
    if value is None:
        return
    if "\x00" in value:
        raise PayloadError(f"{where} holds a NUL byte, which no file name can")
    if len(value.encode("utf-8")) > MAX_PATH_BYTES:
        raise PayloadError(f"{where} is {len(value.encode('utf-8'))} bytes long, over the "
                           f"{MAX_PATH_BYTES}-byte limit of a path")


def _text(mapping: dict[str, Any], key: str, where: str) -> None:
    value = _string(mapping, key, where)
    if value is None:
        return
    if key in TEXT_FIELDS and len(value) > MAX_MESSAGE_CHARS:
        raise PayloadError(f"{where} is {len(value)} characters, over the {MAX_MESSAGE_CHARS} limit")


def _bool(mapping: dict[str, Any], key: str, where: str) -> None:
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
    common: dict[str, Any] = {
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


def to_json(event: str, decision: Decision) -> dict[str, Any]:
    """The object the client reads for `decision` in `event` ({} prints nothing)."""
    if isinstance(decision, (Allow, Deny)):
        specific: dict[str, Any] = {"hookEventName": "PreToolUse",
                                    "permissionDecision": "allow" if isinstance(decision, Allow) else "deny",
                                    "permissionDecisionReason": _clip(decision.reason)}
        if isinstance(decision, Allow) and decision.updated_input is not None:
            specific["updatedInput"] = dict(decision.updated_input)
        return {"hookSpecificOutput": specific}
    if isinstance(decision, Block):
        out: dict[str, Any] = {"decision": "block", "reason": _clip(decision.reason)}
        if decision.system_message:
            out["systemMessage"] = _clip(decision.system_message)
        return out
    if isinstance(decision, Notice):
        return {"systemMessage": _clip(decision.message)}
    if isinstance(decision, AddContext):
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": _clip(decision.text)}}
    return {}


def serialize(decision: dict[str, Any]) -> str:
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
        holder[key] = _shorten(holder[key], len(json.dumps(holder[key])) - (len(line) - MAX_OUTPUT))
        line = json.dumps(decision)
    return line


def _texts(decision: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
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
