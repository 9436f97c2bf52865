"""The hook tests' harness (no tests here): drive hooks/run as a subprocess
with a private CLAUDE_PLUGIN_DATA, and build real runs with the real CLI."""
from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[2]
LAUNCHER = REPO / "hooks" / "run"
CLI = REPO / "scripts" / "web-research"
EXAMPLE_RUN = REPO / "examples" / "observability-pricing"
RECORDED = json.loads((REPO / "tests" / "fixtures" / "hook-payloads.json").read_text(encoding="utf-8"))
RESEARCHER = "web-research:researcher"
SCRIPT_OF = {
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
}

def recording_interpreter(folder: Path) -> tuple[Path, Path]:
    """(an executable standing in for the plugin's Python, its log): it only drains stdin and
    notes each start as a line `started <its arguments>`; the log exists once it has run."""
    log = folder / "python-started.log"
    program = folder / "recording-python"
    program.write_text(f"#!/bin/sh\necho \"started $*\" >> '{log}'\ncat > /dev/null\n")
    program.chmod(0o755)
    return program, log


QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
SUBTOPICS = ["Billing units", "Retention tiers", "Enterprise commitments", "Cost controls", "Rehydration"]


def plan_text(subtopics: list[str]) -> str:
    parts = ["# Research plan\n\n## Research question\n\n" + QUESTION + "\n\n## Subtopics\n"]
    for name in subtopics:
        parts.append(f"\n### {name}\n- What {name.lower()} cost, with a date\n")
    parts.append("\n## Synthesis approach\n\nCompare the vendors by subtopic.\n\n## Budget\n\n"
                 "Tier: standard\nSearches per subagent: 5\n")  # the tier start records by default
    return "".join(parts)


def recorded(event: str, tool_name: str | None = None, in_agent: bool | None = None) -> dict[str, Any]:
    """A deep copy of the first recorded payload of `event` (and tool)."""
    for item in RECORDED:
        payload = item["payload"]
        if item["event"] != event:
            continue
        if tool_name is not None and payload.get("tool_name") != tool_name:
            continue
        if in_agent is not None and ("agent_type" in payload) != in_agent:
            continue
        return copy.deepcopy(payload)
    raise LookupError((event, tool_name, in_agent))


AGENT_RESULTS = json.loads((REPO / "tests" / "fixtures" / "agent-results.json").read_text(encoding="utf-8"))["cases"]


def agent_result(agent_id: str, reply: str, case: str = "researcher") -> dict[str, Any]:
    """A foreground Agent call's `tool_response` in the shape the pinned client returns (a copy of
    the recorded `case`, tests/fixtures/agent-results.json) with `reply` as the subagent's last reply."""
    response = copy.deepcopy(next(c for c in AGENT_RESULTS if c["case"] == case)["payload"]["tool_response"])
    notes = response["harnessNoteCount"]
    response["content"] = response["content"][:notes] + [{"type": "text", "text": reply}]
    response["agentId"] = agent_id
    return response


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _hash_of(path: str) -> str:
    from web_research.run.brief_prompt import brief_hash

    return brief_hash(Path(path).read_bytes())


def files_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


@dataclass
class HookResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any] | None:
        """The decision as the client reads it: the JSON line on stdout, or a SubagentStop block
        sent as feedback (exit code 2, its text on stderr: guard/adapter.py subagent_feedback)."""
        if self.returncode == 2:
            assert self.stdout == "", self.stdout  # exit 2: the client would not read stdout
            return {"decision": "block", "reason": self.stderr}
        return json.loads(self.stdout) if self.stdout.strip() else None

    @property
    def decision(self) -> str | None:
        out = self.json or {}
        if "hookSpecificOutput" in out:
            return out["hookSpecificOutput"].get("permissionDecision")
        return out.get("decision")

    @property
    def updated_input(self) -> dict[str, Any] | None:
        """The tool input a PreToolUse hook put in place of the model's (`updatedInput`)."""
        return ((self.json or {}).get("hookSpecificOutput") or {}).get("updatedInput")

    @property
    def reason(self) -> str:
        out = self.json or {}
        if "hookSpecificOutput" in out:
            return out["hookSpecificOutput"].get("permissionDecisionReason", "")
        return out.get("reason", "")


class Harness:
    """One fake Claude Code session against the real launcher and the real CLI."""

    def __init__(self, tmp: Path, session_id: str = "5650be0e-2909-4fcc-bf5a-3f789e9bb873"):
        self.tmp = tmp
        self.sid = session_id
        self.data = tmp / "plugin-data"
        self.home = tmp / "home"
        self.project = tmp / "project"
        self.run_dir = self.project / "research"
        self.transcripts = tmp / "transcripts"
        for folder in (self.home, self.project, self.transcripts):
            folder.mkdir(parents=True, exist_ok=True)
        self.transcript = self.transcripts / f"{self.sid}.jsonl"

    # --- environment and invocation --------------------------------------------
    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "CLAUDE_PLUGIN_DATA": str(self.data),
            "CLAUDE_PLUGIN_ROOT": str(REPO),
            "CLAUDE_PROJECT_DIR": str(self.project),
            "CLAUDE_CODE_SESSION_ID": self.sid,
        }
        env.update(extra)
        return env

    def hook(self, payload: dict[str, Any], launcher: Path = LAUNCHER, **env: str) -> HookResult:
        script = SCRIPT_OF[payload["hook_event_name"]]
        proc = subprocess.run([str(launcher), script], input=json.dumps(payload), capture_output=True,
                              text=True, env=self.env(**env), timeout=120, cwd=self.project)
        return HookResult(proc.returncode, proc.stdout, proc.stderr)

    def spawn(self, payload: dict[str, Any], name: str) -> subprocess.Popen:
        """Start a hook without waiting (for concurrency tests); read it with communicate()."""
        script = SCRIPT_OF[payload["hook_event_name"]]
        stdin = self.tmp / f"{name}.json"
        stdin.write_text(json.dumps(payload), encoding="utf-8")
        with open(stdin, encoding="utf-8") as handle:
            return subprocess.Popen([str(LAUNCHER), script], stdin=handle, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=self.env(), cwd=self.project)

    # --- payloads ---------------------------------------------------------------
    def payload(self, event: str, agent_id: str | None = None, **fields: Any) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "session_id": self.sid,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "hook_event_name": event,
        }
        if agent_id is not None:
            payload["agent_id"] = agent_id
            payload["agent_type"] = RESEARCHER
        payload.update(fields)
        return payload

    def bash(self, event: str, command: str, stdout: str | None = None, agent_id: str | None = None) -> dict:
        fields: dict[str, Any] = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "toolu_bash"}
        if event == "PostToolUse":
            fields["tool_response"] = {"stdout": stdout or "", "stderr": "", "interrupted": False}
        return self.payload(event, agent_id, **fields)

    def agent_call(self, prompt: str, tool_use_id: str, event: str = "PreToolUse",
                   response: dict[str, Any] | None = None) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "tool_name": "Agent",
            "tool_input": {"description": "research", "prompt": prompt, "subagent_type": RESEARCHER,
                           "run_in_background": False},
            "tool_use_id": tool_use_id,
        }
        if response is not None:
            fields["tool_response"] = response
        return self.payload(event, **fields)

    def write_call(self, agent_id: str | None, file_path: str, tool: str = "Write") -> dict[str, Any]:
        return self.payload("PreToolUse", agent_id, tool_name=tool,
                            tool_input={"file_path": file_path, "content": "x"}, tool_use_id="toolu_w")

    def subagent_stop(self, agent_id: str, stop_hook_active: bool = False, agent_type: str = RESEARCHER,
                      message: str = "done") -> dict:
        payload = self.payload("SubagentStop", agent_id, stop_hook_active=stop_hook_active,
                               agent_transcript_path=str(self.agent_transcript(agent_id)),
                               last_assistant_message=message)
        payload["agent_type"] = agent_type
        return payload

    def stop(self, stop_hook_active: bool = False, background_tasks: list | None = None,
             message: str | None = None) -> dict[str, Any]:
        """A Stop whose last message is, by default, finish's return object for the run (SKILL.md)."""
        if message is None:
            from web_research.run.return_object import return_object  # noqa: PLC0415

            message = json.dumps(return_object(self.run_dir))
        return self.payload("Stop", stop_hook_active=stop_hook_active, last_assistant_message=message,
                            background_tasks=[] if background_tasks is None else background_tasks)

    # --- commands as the skill writes them --------------------------------------
    def start_command(self, output_dir: Path | None = None, refresh: bool = False) -> str:
        lines = [f'research_question: "{QUESTION}"', f"output_dir: {output_dir or self.run_dir}",
                 "auto_proceed: true"]
        if refresh:
            lines.append("refresh: true")
        body = "\n".join(lines)
        return f"\"{CLI}\" start --args-file - <<'WEB_RESEARCH_ARGS'\n{body}\nWEB_RESEARCH_ARGS"

    def core_command(self, sub: str, directory: Path | None = None) -> str:
        return f'"{CLI}" {sub} "{directory or self.run_dir}"'

    def shell(self, command: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=self.project,
                              env=self.env(), timeout=120)

    # --- building a run -----------------------------------------------------------
    def start_run(self, output_dir: Path | None = None, refresh: bool = False) -> dict[str, Any]:
        """Run the real start command and feed its PostToolUse to the hook."""
        command = self.start_command(output_dir, refresh)
        proc = self.shell(command)
        assert proc.returncode == 0, proc.stderr + proc.stdout
        result = self.hook(self.bash("PostToolUse", command, proc.stdout))
        assert result.returncode == 0 and result.stdout == "", result
        return json.loads(proc.stdout)

    def render_briefs(self, subtopics: list[str]) -> list[dict[str, Any]]:
        (self.run_dir / "plan.md").write_text(plan_text(subtopics), encoding="utf-8")
        command = self.core_command("briefs")
        proc = self.shell(command)
        assert proc.returncode == 0, proc.stderr
        result = self.hook(self.bash("PostToolUse", command, proc.stdout))
        # the orchestrator is given the Agent calls to make, one per brief still to dispatch
        context = (result.json or {}).get("hookSpecificOutput", {}).get("additionalContext", "") if result.stdout else ""
        listed = json.loads(proc.stdout)
        assert result.returncode == 0 and context.count("\nAgent {") == min(len(listed), 3), result
        # `briefs` lists subtopic, brief_path and findings_path; the tests also want each brief's
        # slug and hash, computed here from the file as the hooks compute them.
        return [{**item, "slug": Path(item["brief_path"]).stem, "brief_hash": _hash_of(item["brief_path"])}
                for item in json.loads(proc.stdout)]

    def prompt_for(self, brief: dict[str, Any]) -> str:
        text = Path(brief["brief_path"]).read_text(encoding="utf-8")
        return f"{text.rstrip()}\n\nBrief hash: {brief.get('brief_hash') or _hash_of(brief['brief_path'])}\n"

    def agent_transcript(self, agent_id: str) -> Path:
        return self.transcripts / self.sid / "subagents" / f"agent-{agent_id}.jsonl"

    def start_agent(self, agent_id: str, prompt: str) -> None:
        """What Claude Code writes when a subagent starts: its transcript, prompt first."""
        path = self.agent_transcript(agent_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [{"type": "user", "agentId": agent_id, "message": {"role": "user", "content": prompt}},
                 {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}}]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    def findings_text(self, brief: dict[str, Any], status: str = "ok", **overrides: str | None) -> str:
        """A findings document: every frontmatter field (`overrides` replace or, None, drop one),
        then a body with nothing cited."""
        fields: dict[str, str | None] = {
            "status": status,
            "subtopic": json.dumps(brief["subtopic"]),
            "brief_hash": brief.get("brief_hash") or _hash_of(brief["brief_path"]),
            "started_at": "2026-04-18T09:02:11Z",
            "finished_at": "2026-04-18T09:09:47Z",
            "reason": None if status == "ok" else '"no source reachable"',
        }
        fields.update(overrides)
        front = "".join(f"{k}: {v}\n" for k, v in fields.items() if v is not None)
        return f"---\n{front}---\n\nNothing cited.\n"

    def write_findings(self, brief: dict[str, Any], status: str = "ok", **overrides: str | None) -> Path:
        """Put a findings file in the run folder (a finished run's file, as the plugin would have
        written it from a reply; no hook sees this write)."""
        path = Path(brief["findings_path"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.findings_text(brief, status, **overrides), encoding="utf-8")
        return path

    @staticmethod
    def findings_reply(status: str = "ok", reason: str | None = None, body: str = "Nothing cited.\n") -> str:
        """A researcher's final reply as its brief shows it: the frontmatter it writes (status, and
        reason unless ok), then its findings."""
        front = f"status: {status}\n" + (f"reason: {json.dumps(reason)}\n" if reason is not None else "")
        return f"---\n{front}---\n\n{body}"

    def reply(self, agent_id: str, text: str | None = None, stop_hook_active: bool = False) -> "HookResult":
        """The researcher `agent_id` stops with `text` (default: an `ok` reply citing nothing) as its
        last message: its SubagentStop."""
        message = self.findings_reply() if text is None else text
        return self.hook(self.subagent_stop(agent_id, stop_hook_active=stop_hook_active, message=message))

    # --- state --------------------------------------------------------------------
    @property
    def record_path(self) -> Path:
        return self.data / "sessions" / f"{self.sid}.json"

    def record(self) -> dict[str, Any] | None:
        return json.loads(self.record_path.read_text()) if self.record_path.exists() else None

    def history(self) -> list[dict[str, Any]]:
        path = self.data / "sessions" / f"{self.sid}.history.json"
        return json.loads(path.read_text()) if path.exists() else []

    def log(self) -> str:
        path = self.data / "logs" / "hooks.log"
        return path.read_text() if path.exists() else ""

    def copy_example_run(self, sealed: bool = True, verdicts: bool = True) -> None:
        """Put the bundled, passing example run into the run folder; `sealed`: and seal its
        briefs and findings files as the hooks would have when they were produced. `verdicts`:
        with the verdicts a person gave its statements of absence (`checks/`); without, a copy
        given a Tier line is a run whose first checker judges its claims and statements afresh."""
        for name in ("plan.md", "report.md", "briefs", "findings", "sources") + (("checks",) if verdicts else ()):
            source = EXAMPLE_RUN / name
            target = self.run_dir / name
            if source.is_dir():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(source, target)
            else:
                shutil.copy2(source, target)
        # The example is a run made by hand, with no record of start's inputs: its plan holds its
        # own question and no Tier line, so no record of the harness's start may be held to it.
        (self.run_dir / ".web-research" / "start.json").unlink(missing_ok=True)
        if sealed:
            self.seal_as_produced()

    def seal_as_produced(self, snapshots: bool = True) -> None:
        """Seal every snapshot, brief and findings file of the run folder through the hooks' own
        code (snapshots as a researcher's fetch returning them)."""
        from web_research.commands.fetch_cmd import render_window
        from web_research.evidence import ledger
        from web_research.guard.effects import seals
        from web_research.evidence.snapshots import load_snapshot

        env = self.env()
        for meta in sorted((self.run_dir / "sources").glob("*.json")) if snapshots else ():
            snap = load_snapshot(meta)
            stdout = render_window(snap, snap.text(), self.run_dir, 0, 4000, False)
            seals.after_fetch(env, str(self.run_dir), snap.requested_url, 0, stdout, "agent-fetch", None)
        seals.seal_briefs(env, str(self.run_dir), [(str(p), p.stem) for p in sorted((self.run_dir / "briefs").glob("*.md"))])
        for path in sorted((self.run_dir / "findings").glob("*.md")):
            seals.seal_findings(env, str(self.run_dir), str(path), None, path.stem)
        for path in sorted((self.run_dir / "checks").glob("verdicts-*.json")):  # the example's statements of absence
            seals.seal_verdicts(env, str(self.run_dir), str(path), None, ledger.file_sha256(path, 1 << 20))


class PreparedHarnesses:
    """Harness states that take several processes to reach (a run opened by the real `start`,
    briefs rendered, a researcher dispatched), each built once by its `build` and handed to every
    later test as a fresh copy at the same absolute path, since the records, ledger and seals
    name their paths. The folder a test used is moved aside (kept for a look after a failure),
    so nothing it left, or a process it left running, reaches the next test. Use one per test
    module: the state stays young (a dispatch reservation expires after an hour, rules/dispatch.py)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._built: dict[str, Any] = {}
        self._used = 0

    def get(self, key: str, build: Callable[[Harness], Any]) -> tuple[Harness, Any]:
        """(a harness in the state `build` left, a copy of what `build` returned)."""
        live, template = self.folder / key / "harness", self.folder / key / "template"
        if key not in self._built:
            value = build(Harness(live))
            shutil.copytree(live, template, symlinks=True)
            self._built[key] = value
        else:
            self._used += 1
            live.rename(self.folder / key / f"used-{self._used}")
            shutil.copytree(template, live, symlinks=True)
        return Harness(live), copy.deepcopy(self._built[key])
