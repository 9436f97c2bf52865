"""Hook payload mutations, and the scenarios they are applied to (no tests here).

A scenario is a real run (opened by the real `start`, briefs rendered by the real
`briefs`, through `hooks/run` like the client does) plus one clean payload whose
refusal (deny or block) holds. A mutation turns that payload into the raw bytes a
hostile or broken client could send: wrong types, odd sizes, deep nesting, broken
encodings, duplicate keys, odd paths (NUL, FIFO, /dev/zero, long non-ASCII),
session_id moved across the launcher's old 512-byte window. Under every mutation
the refusal must hold while the run is open; with no run anywhere the hook must be
quiet and fast. Used by `tests/fuzz/run_fuzz.py` (the whole list, with figures) and
`tests/unit/test_hooks_payload_fuzz.py` (hypothesis, bounded).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))

from hook_harness import LAUNCHER, REPO, SCRIPT_OF, SUBTOPICS, Harness  # noqa: E402

CYRILLIC = "\u0436" * 9000
SURROGATE = "\ud800"
PATH_KEYS = ("transcript_path", "agent_transcript_path", "cwd", "file_path", "notebook_path")
HOOK_TIMEOUTS = {"PreToolUse": 30, "SubagentStop": 60, "Stop": 120}  # hooks.json (Bash: 180)
CLIENT_OUTPUT_LIMIT = 10_000  # claude-code-facts.md: hook output is capped at 10,000 characters


@dataclass
class Scenario:
    name: str
    event: str
    payload: dict[str, Any]
    refusal: str  # "deny" | "block"


def build_run(tmp: Path) -> tuple[Harness, list[Scenario]]:
    """A real run with two briefs, one researcher dispatched and started, a failing
    report.md; and the clean payloads each refused."""
    h = Harness(tmp)
    h.start_run()
    infos = h.render_briefs(SUBTOPICS[:2])
    assert h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_0")).decision == "allow"
    h.start_agent("agentA", h.prompt_for(infos[0]))
    (h.run_dir / "report.md").write_text("# Research: nothing\n\nNo sections.\n", encoding="utf-8")
    fifo = tmp / "fifo"
    os.mkfifo(fifo)
    (tmp / "a-dir").mkdir()
    os.symlink("/dev/zero", tmp / "zero-link")
    outside = str(h.project / "notes.md")
    scenarios = [
        Scenario("researcher-write-outside", "PreToolUse", h.write_call("agentA", outside), "deny"),
        Scenario("researcher-bash-curl", "PreToolUse", h.bash("PreToolUse", "curl https://example.com", agent_id="agentA"), "deny"),
        Scenario("dispatch-wrong-prompt", "PreToolUse", h.agent_call("Research whatever you like.", "toolu_9"), "deny"),
        Scenario("orchestrator-websearch", "PreToolUse", h.payload(
            "PreToolUse", tool_name="WebSearch", tool_input={"query": "observability pricing"},
            tool_use_id="toolu_ws"), "deny"),
        Scenario("researcher-no-findings", "SubagentStop", h.subagent_stop("agentA"), "block"),
        Scenario("stop-failing-report", "Stop", h.stop(), "block"),
    ]
    return h, scenarios


def start_scenario(h: Harness) -> Scenario:
    """Refused with no run at all: a start whose output_dir is the filesystem root."""
    return Scenario("start-bad-args", "PreToolUse", h.bash("PreToolUse", h.start_command(Path("/"))), "deny")


# --- mutations ----------------------------------------------------------------------

def _dump(payload: Any, **kwargs: Any) -> bytes:
    return json.dumps(payload, **kwargs).encode("utf-8", "surrogatepass")


def _with(payload: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(payload))
    if key.startswith("tool_input."):
        copy.setdefault("tool_input", {})[key.split(".", 1)[1]] = value
    else:
        copy[key] = value
    return copy


def _nested(depth: int, leaf: str = "x") -> str:
    return "[" * depth + json.dumps(leaf) + "]" * depth


def field_values(key: str, value: Any, tmp: Path) -> Iterator[tuple[str, Any]]:
    """Values a field may be replaced with."""
    for label, other in (("int", 7), ("float", 1.5), ("null", None), ("true", True), ("list", [value]),
                         ("dict", {"v": value}), ("bigint", 10 ** 40), ("empty-list", [])):
        if label == "true" and isinstance(value, bool):
            continue  # stop_hook_active: true is a real value (the client's second stop), not a mutation
        yield label, other
    if isinstance(value, str):
        yield "surrogate", value + SURROGATE
        yield "nul", value[:3] + "\x00" + value[3:]
        yield "cyrillic-9000", CYRILLIC
        yield "100k", value + "a" * 100_000
        yield "newline", value + "\n"
    if key.rsplit(".", 1)[-1] in PATH_KEYS:
        yield "fifo", str(tmp / "fifo")
        yield "dev-zero", "/dev/zero"
        yield "zero-link", str(tmp / "zero-link")
        yield "directory", str(tmp / "a-dir")
        yield "cyrillic-path", "/tmp/" + CYRILLIC
    if key == "stop_hook_active":
        for text in ("false", "true", "", "0"):
            yield f"str-{text or 'empty'}", text
        yield "one", 1
    if key == "last_assistant_message":
        yield "brackets-3000", "[" * 3000
        yield "braces-3000", "{" * 3000


def mutations(payload: dict[str, Any], tmp: Path) -> Iterator[tuple[str, bytes]]:
    """(label, raw stdin) for every mutation of `payload`."""
    keys = [k for k in payload if k != "tool_input"] + [f"tool_input.{k}" for k in payload.get("tool_input", {})]
    for key in keys:
        current = payload["tool_input"][key.split(".", 1)[1]] if key.startswith("tool_input.") else payload[key]
        for label, value in field_values(key, current, tmp):
            yield f"{key}={label}", _dump(_with(payload, key, value))
    if "tool_input" in payload:
        for label, value in (("int", 3), ("str", "x"), ("list", [payload["tool_input"]]), ("null", None)):
            yield f"tool_input={label}", _dump(_with(payload, "tool_input", value))
    clean = _dump(payload)
    text = clean.decode("utf-8")
    # nesting (raw text: json.dumps itself would recurse)
    for depth in (100, 3000, 100_000):
        yield f"nested-extra-{depth}", (text[:-1] + f', "extra": {_nested(depth)}}}').encode()
        if "tool_input" in payload:
            inner = json.dumps(payload["tool_input"])[:-1] + f', "deep": {_nested(depth)}}}'
            yield f"nested-tool-input-{depth}", (text.replace(json.dumps(payload["tool_input"]), inner, 1)).encode()
    # encodings and framing
    yield "bom", b"\xef\xbb\xbf" + clean
    yield "trailing-garbage", clean + b"garbage"
    yield "trailing-object", clean + b"\n{}"
    yield "trailing-nul", clean + b"\x00"
    yield "truncated-half", clean[: len(clean) // 2]
    yield "truncated-last", clean[:-1]
    yield "empty", b""
    yield "not-object", b"[1, 2]"
    yield "utf16", json.dumps(payload).encode("utf-16")
    yield "invalid-utf8", clean.replace(b'"cwd": "', b'"cwd": "\xff', 1)
    yield "pretty", _dump(payload, indent=2)
    yield "compact", _dump(payload, separators=(",", ":"))
    yield "ascii-escaped", json.dumps(payload, ensure_ascii=True).replace("e", "\\u0065").encode()
    # duplicate keys (json: the last wins; the launcher read the first)
    for key in ("session_id", "hook_event_name", "tool_name", "agent_type", "agent_id", "stop_hook_active"):
        if key not in payload:
            continue
        pair = f'"{key}": {json.dumps(payload[key])}'
        for label, other in (("other", '"other-session-0000"' if key == "session_id" else '"Read"'),
                             ("int", "7")):
            yield f"dup-{key}-{label}-last", (text[:-1] + f', "{key}": {other}}}').encode()
            yield f"dup-{key}-{label}-first", ("{" + f'"{key}": {other}, ' + text[1:]).encode()
        del pair
    # where session_id sits
    rest = {k: v for k, v in payload.items() if k != "session_id"}
    sid = json.dumps(payload["session_id"])
    for pad in (470, 490, 500, 505):
        head = json.dumps({"pad": "p" * pad})[:-1]
        yield f"session-id-at-{pad}", (head + f', "session_id": {sid}, ' + json.dumps(rest)[1:]).encode()
    yield "session-id-after-100k", (json.dumps({**rest, "pad": "p" * 100_000})[:-1] + f', "session_id": {sid}}}').encode()
    yield "session-id-after-1m", (json.dumps({**rest, "pad": "p" * 1_000_000})[:-1] + f', "session_id": {sid}}}').encode()
    yield "session-id-repeated-same", (text[:-1] + f', "session_id": {sid}}}').encode()
    yield "session-id-key-escaped", text.replace('"session_id"', '"session\\u005fid"', 1).encode()
    yield "big-10m", (text[:-1] + f', "pad": "{"q" * 10_000_000}"}}').encode()


# --- running one hook -----------------------------------------------------------------

@dataclass
class Outcome:
    label: str
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    new_log: str

    @property
    def hung(self) -> bool:
        return self.returncode is None

    @property
    def output(self) -> dict[str, Any] | None:
        if self.returncode == 2 and not self.stdout:  # a SubagentStop block, sent as feedback on stderr
            return {"decision": "block", "reason": self.stderr}
        try:
            value = json.loads(self.stdout) if self.stdout.strip() else None
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    @property
    def decision(self) -> str | None:
        out = self.output or {}
        specific = out.get("hookSpecificOutput")
        if isinstance(specific, dict):
            return specific.get("permissionDecision")
        return out.get("decision")

    @property
    def crashed(self) -> bool:
        """A Python exception reached the runner (logged traceback), or the process failed."""
        return (not self.hung and self.returncode not in (0, 2)) or "Traceback" in self.new_log \
            or "Traceback" in self.stderr or (self.stdout.strip() != "" and self.output is None)

    @property
    def oversize(self) -> bool:
        return len(self.stdout) > CLIENT_OUTPUT_LIMIT


def run_hook(h: Harness, event: str, raw: bytes, label: str = "", timeout: float = 25.0,
             env: dict[str, str] | None = None, launcher: Path = LAUNCHER) -> Outcome:
    log = h.data / "logs" / "hooks.log"
    before = log.stat().st_size if log.exists() else 0
    began = time.monotonic()
    proc = subprocess.Popen([str(launcher), SCRIPT_OF[event]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env or h.env(), cwd=h.project, start_new_session=True)
    try:
        out, err = proc.communicate(raw, timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        code = None
    seconds = time.monotonic() - began
    new_log = ""
    if log.exists():
        with open(log, "rb") as handle:
            handle.seek(before)
            new_log = handle.read(200_000).decode("utf-8", "replace")
    return Outcome(label, code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), seconds, new_log)


Check = Callable[[Outcome], bool]
__all__ = ["REPO", "Scenario", "build_run", "start_scenario", "mutations", "run_hook", "Outcome"]
