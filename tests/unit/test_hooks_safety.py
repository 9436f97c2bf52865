"""A researcher's file must not open the gates: hostile run files fail their checks,
no hook holds the session lock while it reads run files, a hook past its time
limit takes its Python process down with it, and in a run even the plugin's own
errors refuse rather than decide nothing (adapter.failure_decision)."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from hook_harness import LAUNCHER, Harness
from test_frontmatter_reader import billion_laughs


def test_a_billion_laughs_reply_is_blocked_at_subagent_stop_within_seconds(researcher):
    h, infos = researcher
    stub = Path(infos[0]["findings_path"]).read_text(encoding="utf-8")
    began = time.monotonic()
    result = h.reply("agentA", "---\nstatus: ok\n" + billion_laughs() + "---\nNothing cited.\n")
    assert time.monotonic() - began < 10
    assert result.decision == "block"
    assert "line 3 of your reply: anchors (&a) are not allowed in frontmatter" in result.reason
    assert Path(infos[0]["findings_path"]).read_text(encoding="utf-8") == stub


def test_a_findings_fifo_is_neither_a_hang_nor_sealed(researcher):
    """A FIFO where the findings file goes: a reply without findings leaves it unsealed, and a
    reply with findings replaces it (written atomically, never opened)."""
    h, infos = researcher
    path = Path(infos[0]["findings_path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # the plugin's stub, written at dispatch
    os.mkfifo(path)
    began = time.monotonic()
    assert h.reply("agentA", "done").decision == "block"
    assert h.reply("agentA", h.findings_reply()).stdout == ""
    assert time.monotonic() - began < 30
    assert path.is_file() and "Nothing cited." in path.read_text(encoding="utf-8")


def _stuck_subagent_stop(h: Harness, agent_id: str) -> dict:
    """A SubagentStop whose transcript is a FIFO nobody writes: reading it blocks."""
    fifo = h.tmp / f"stuck-{agent_id}.jsonl"
    os.mkfifo(fifo)
    payload = h.subagent_stop(agent_id)
    payload["agent_transcript_path"] = str(fifo)
    return payload


def test_a_hook_stuck_reading_files_does_not_hold_the_session_lock(researcher):
    """A transcript FIFO that nobody writes no longer holds anyone: the stop naming it is
    refused at once (not read: payload.read_named_file), and a dispatch alongside it
    goes through."""
    h, infos = researcher
    stuck = h.spawn(_stuck_subagent_stop(h, "agentZ"), "stuck")
    try:
        began = time.monotonic()
        result = h.hook(h.agent_call(h.prompt_for(infos[1]), "toolu_1"))
        assert result.decision == "allow", result
        assert time.monotonic() - began < 8
        assert len(h.record()["run"]["reservations"]) == 2
        out, err = stuck.communicate(timeout=15)
        # a SubagentStop block: exit 2, its text on stderr (guard/adapter.py subagent_feedback)
        assert (stuck.returncode, out) == (2, "") and "not a regular file" in err
    finally:
        if stuck.poll() is None:
            stuck.kill()
            stuck.communicate(timeout=10)


def test_a_hook_past_its_own_deadline_in_a_run_refuses_and_says_so(researcher):
    """The session lock held elsewhere: the dispatch waits past the hook's own deadline,
    and is denied, naming it (it used to decide nothing)."""
    import fcntl

    h, infos = researcher
    fd = os.open(h.data / "sessions" / f"{h.sid}.lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        began = time.monotonic()
        result = h.hook(h.agent_call(h.prompt_for(infos[1]), "toolu_1"), WEB_RESEARCH_HOOK_DEADLINE="2")
    finally:
        os.close(fd)
    assert time.monotonic() - began < 10
    assert result.returncode == 0 and result.decision == "deny" and "deadline of 2 s" in result.reason
    assert "HookDeadline" in h.log()


def test_a_hung_guard_holds_a_tool_call_at_most_30_seconds():
    """No hook builds the Python environment (the `web-research` command does), so no tool
    call's hook needs a long timeout: a guard that hangs fails closed within 30 s (its own
    deadline is a quarter less), not after minutes. The Stop and SubagentStop gates verify a
    whole run and keep their longer bounds."""
    import json

    config = json.loads((LAUNCHER.parent / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    long = [(event, group.get("matcher"), hook["timeout"])
            for event in ("PreToolUse", "PostToolUse", "SubagentStart", "SessionStart", "SessionEnd")
            for group in config.get(event, []) for hook in group["hooks"] if hook.get("timeout", 60) > 30]
    assert long == []


def test_killing_the_launcher_at_its_timeout_kills_the_python_it_started(tmp_path: Path):
    """The client kills `hooks/run` when the hook times out; no process may outlive it."""
    h = Harness(tmp_path)
    h.start_run()
    pidfile = tmp_path / "python.pid"
    fake = tmp_path / "fake-python"
    fake.write_text(f"#!/bin/sh\necho $$ > '{pidfile}'\nexec sleep 60\n")
    fake.chmod(0o755)
    env = h.env(WEB_RESEARCH_PYTHON=str(fake))
    launcher = subprocess.Popen([str(LAUNCHER), "stop"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, cwd=h.project)
    launcher.stdin.write(b'{"session_id": "%s", "hook_event_name": "Stop"}' % h.sid.encode())
    launcher.stdin.close()
    deadline = time.monotonic() + 20
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    python_pid = int(pidfile.read_text())
    try:
        launcher.send_signal(signal.SIGTERM)
        launcher.wait(timeout=10)
        time.sleep(0.2)
        with pytest.raises(ProcessLookupError):
            os.kill(python_pid, 0)
    finally:
        try:
            os.kill(python_pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_check_broken_by_the_runs_files_fails_instead_of_opening_the_gate(monkeypatch, tmp_path: Path):
    from web_research.guard import findings_gate
    from web_research.guard.handlers import stop as stopgate
    from web_research.guard.briefs_match import Brief

    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    path = tmp_path / "findings" / "x.md"
    path.parent.mkdir()
    path.write_text("---\nstatus: ok\n---\n", encoding="utf-8")

    def overflow(*_args, **_kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(findings_gate, "load_findings", overflow)
    brief = Brief("x", str(tmp_path / "briefs" / "x.md"), "sha256:" + "0" * 64, str(path), "")
    assert findings_gate.findings_problems(brief) == [
        f"{path}: could not be checked (RecursionError: maximum recursion depth exceeded)"]
    monkeypatch.setattr(stopgate, "run_checklist", overflow)
    failures = stopgate.verifier_failures(tmp_path)
    assert len(failures) == 1 and "[verify.incomplete]" in failures[0] and "RecursionError" in failures[0]
    assert "RecursionError" in (tmp_path / "data" / "logs" / "hooks.log").read_text()


# --- the write guard checks the key the tool really writes ------------------------------

@pytest.mark.parametrize("tool_input", [
    {"notebook_path": "{home}/evil.ipynb", "file_path": "{own}", "new_source": "x"},
    {"notebook_path": "{home}/evil.ipynb", "new_source": "x"},
    {"file_path": "{own}", "new_source": "x"},
])
def test_notebook_edit_is_judged_by_its_notebook_path(researcher, tool_input):
    h, infos = researcher
    filled = {k: v.format(home=h.home, own=infos[0]["findings_path"]) for k, v in tool_input.items()}
    result = h.hook(h.payload("PreToolUse", "agentA", tool_name="NotebookEdit", tool_input=filled,
                              tool_use_id="toolu_nb"))
    assert result.decision == "deny", result


def test_a_write_naming_a_second_path_elsewhere_is_denied(researcher):
    """The main session's own file (report.md), with a second path named beside it."""
    h, infos = researcher
    own = str(h.run_dir / "report.md")
    for extra in ({"notebook_path": str(h.home / "x.ipynb")}, {"path": str(h.home / ".bashrc")}):
        result = h.hook(h.payload("PreToolUse", None, tool_name="Write",
                                  tool_input={"file_path": own, "content": "x", **extra}, tool_use_id="toolu_w"))
        assert result.decision == "deny" and "name only file_path" in result.reason, extra
    ok = h.hook(h.payload("PreToolUse", None, tool_name="MultiEdit",
                          tool_input={"file_path": own, "edits": [{"old_string": "a", "new_string": "b"}]},
                          tool_use_id="toolu_m"))
    assert ok.decision is None  # left to the client: the main session may edit report.md


def test_the_orchestrator_cannot_reach_findings_through_notebook_path(researcher):
    h, infos = researcher
    result = h.hook(h.payload("PreToolUse", tool_name="NotebookEdit", tool_use_id="toolu_nb",
                              tool_input={"notebook_path": infos[0]["findings_path"], "new_source": "x"}))
    assert result.decision == "deny"
