"""Reader for the CLI's `--output-format stream-json --verbose --include-hook-events` output.

Tests assert on what the user would see: the final result, the tool calls
made, and, with hook events included, each hook's output and the decision it
took (block, deny, systemMessage). This module turns the JSON lines into
those few questions.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable


@dataclass
class StreamLog:
    events: list[dict[str, Any]]
    bad_lines: list[str]

    @classmethod
    def read(cls, path: Path) -> "StreamLog":
        """Read the JSON lines and, when present, the arrival time of each (the
        sidecar `.times` file the sandbox wrapper writes) into the key `_t`."""
        events, bad = [], []
        text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
        times_path = path.with_suffix(".times")
        times = times_path.read_text().split() if times_path.exists() else []
        for index, line in enumerate(text.split("\n")):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                bad.append(line)
                continue
            if index < len(times):
                event["_t"] = float(times[index])
            events.append(event)
        return cls(events, bad)

    # --- the end of the session --------------------------------------------
    def result_event(self) -> dict[str, Any] | None:
        for ev in reversed(self.events):
            if ev.get("type") == "result":
                return ev
        return None

    def final_text(self) -> str:
        ev = self.result_event()
        return str(ev.get("result", "")) if ev else ""

    # --- messages ------------------------------------------------------------
    def assistant_blocks(self, main_only: bool = False) -> Iterable[dict[str, Any]]:
        for ev in self.events:
            if ev.get("type") != "assistant":
                continue
            if main_only and ev.get("parent_tool_use_id"):
                continue
            for block in (ev.get("message") or {}).get("content") or []:
                yield block

    def tool_uses(self, name: str | None = None, main_only: bool = False) -> list[dict[str, Any]]:
        return [b for b in self.assistant_blocks(main_only)
                if b.get("type") == "tool_use" and (name is None or b.get("name") == name)]

    def tool_results(self) -> list[dict[str, Any]]:
        out = []
        for ev in self.events:
            if ev.get("type") != "user":
                continue
            for block in (ev.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append(block)
        return out

    def tool_result_text(self, tool_use_id: str) -> str:
        for block in self.tool_results():
            if block.get("tool_use_id") == tool_use_id:
                content = block.get("content")
                if isinstance(content, list):
                    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
                return str(content)
        return ""

    # --- hooks ----------------------------------------------------------------
    def hook_events(self, event: str | None = None) -> list[dict[str, Any]]:
        """`system` events the CLI emits around each hook (started/response)."""
        out = []
        for ev in self.events:
            if ev.get("type") == "system" and str(ev.get("subtype", "")).startswith("hook"):
                if event is None or ev.get("hook_event") == event or ev.get("hook_event_name") == event:
                    out.append(ev)
        return out

    def hook_responses(self, event: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.hook_events(event) if e.get("subtype") == "hook_response"]

    @staticmethod
    def decision_of(ev: dict[str, Any]) -> dict[str, Any]:
        """The hook's JSON decision (parsed stdout), a block sent as exit code 2 with its text on
        stderr (a SubagentStop's: guard/adapter.py subagent_feedback), or {} when it decided nothing."""
        if ev.get("exit_code") == 2 and not str(ev.get("stdout") or "").strip():
            return {"decision": "block", "reason": str(ev.get("stderr") or "")}
        out = str(ev.get("output") or ev.get("stdout") or "").strip()
        if out.startswith("{"):
            try:
                return json.loads(out)
            except json.JSONDecodeError:
                return {}
        return {}

    def blocks(self, event: str) -> list[dict[str, Any]]:
        """Hook responses on `event` that blocked (JSON decision or exit code 2)."""
        found = []
        for ev in self.hook_responses(event):
            decision = self.decision_of(ev)
            if decision.get("decision") == "block" or ev.get("exit_code") == 2:
                found.append(ev)
        return found

    def denials(self) -> list[dict[str, Any]]:
        found = []
        for ev in self.hook_responses("PreToolUse"):
            spec = self.decision_of(ev).get("hookSpecificOutput") or {}
            if spec.get("permissionDecision") == "deny" or ev.get("exit_code") == 2:
                found.append(ev)
        return found

    def hook_timings(self) -> list[tuple[str, float]]:
        """(hook_name, seconds) for every hook run, from its started/response events."""
        started = {e.get("hook_id"): e for e in self.hook_events() if e.get("subtype") == "hook_started"}
        out = []
        for ev in self.hook_responses():
            begin = started.get(ev.get("hook_id"))
            if begin is not None and "_t" in begin and "_t" in ev:
                out.append((str(ev.get("hook_name")), ev["_t"] - begin["_t"]))
        return out

    def hook_contexts(self, tool: str | None = None) -> list[str]:
        """The `additionalContext` the PostToolUse hooks gave the model (of `tool`'s calls), in order."""
        out = []
        for ev in self.hook_responses("PostToolUse"):
            if tool is not None and not str(ev.get("hook_name", "")).startswith(f"PostToolUse:{tool}"):
                continue
            context = (self.decision_of(ev).get("hookSpecificOutput") or {}).get("additionalContext")
            if isinstance(context, str):
                out.append(context)
        return out

    def system_messages(self) -> list[str]:
        """What hooks showed the user (`systemMessage`), as the CLI reports it."""
        return [str(e.get("content", "")) for e in self.events
                if e.get("type") == "system" and e.get("subtype") == "informational"]

    def hook_system_messages(self, event: str) -> list[str]:
        """`systemMessage` values the hooks on `event` emitted (whether or not the CLI displayed them)."""
        return [str(self.decision_of(e).get("systemMessage")) for e in self.hook_responses(event)
                if self.decision_of(e).get("systemMessage")]

    def hook_summaries(self) -> list[str]:
        return [f"{e.get('hook_event') or e.get('hook_event_name')}:{e.get('exit_code')}:"
                f"{str(e.get('output') or e.get('stdout') or '')[:160]}"
                for e in self.hook_responses()]
