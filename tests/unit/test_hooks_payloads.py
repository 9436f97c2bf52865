"""Hooks that hold under any payload, one test per class of failure the fuzz
run found (tests/fuzz/run_fuzz.py): in a run, exceptions, timeouts and unreadable
input refuse; outside a run, hooks stay quiet and fast; files a payload names are
read bounded; output fits the client's limit; the launcher classifies in linear time."""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from hook_harness import LAUNCHER, Harness, recording_interpreter

OUTPUT_LIMIT = 10_000  # claude-code-facts.md: hook output is capped at 10,000 characters


def raw_hook(h: Harness, event_script: str, raw: bytes, timeout: float = 60, **env: str):
    began = time.monotonic()
    proc = subprocess.run([str(LAUNCHER), event_script], input=raw, capture_output=True, env=h.env(**env),
                          timeout=timeout, cwd=h.project)
    out = proc.stdout.decode()
    value = json.loads(out) if out.strip() else {}
    if proc.returncode == 2 and not out:  # a SubagentStop block: feedback on stderr (guard/adapter.py)
        value = {"decision": "block", "reason": proc.stderr.decode()}
    specific = value.get("hookSpecificOutput") or {}
    decision = specific.get("permissionDecision") or value.get("decision")
    reason = specific.get("permissionDecisionReason") or value.get("reason") or ""
    return proc.returncode, decision, reason, out, time.monotonic() - began


def outside_write(h: Harness, **fields) -> dict:
    payload = h.write_call("agentA", str(h.project / "notes.md"))
    payload.update(fields)
    return payload


def failing_report(h: Harness) -> None:
    (h.run_dir / "report.md").write_text("# Research: nothing\n\nNo sections.\n", encoding="utf-8")


# --- exceptions nobody caught decided nothing ------------------------------------------

def test_3000_brackets_in_the_last_message_do_not_open_the_stop_gate(researcher):
    h, _ = researcher
    failing_report(h)
    payload = h.stop()
    payload["last_assistant_message"] = "[" * 3000
    result = h.hook(payload)
    assert result.decision == "block" and "fails verification" in result.reason, result
    assert "RecursionError" not in h.log()


@pytest.mark.parametrize("where", ["file_path", "cwd", "agent_id"])
def test_a_lone_surrogate_or_wrong_type_is_refused_in_a_run_and_says_why(researcher, where):
    h, _ = researcher
    payload = outside_write(h)
    if where == "file_path":
        payload["tool_input"]["file_path"] += "\ud800"
    elif where == "cwd":
        payload["cwd"] = 7
    else:
        payload["agent_id"] = ["agentA"]
    code, decision, reason, _, _ = raw_hook(h, "pre_tool_use", json.dumps(payload).encode("utf-8", "surrogatepass"))
    assert (code, decision) == (0, "deny")
    assert where in reason and "abandon" in reason and "not what Claude Code sends" in reason


def test_a_session_id_with_a_trailing_newline_is_no_session_id(researcher):
    """`^...$` let "<id>\\n" through as a session id, naming a session without a run."""
    h, _ = researcher
    payload = outside_write(h)
    payload["session_id"] += "\n"
    assert raw_hook(h, "pre_tool_use", json.dumps(payload).encode())[1] == "deny"


def test_a_dispatch_with_an_agent_type_that_is_no_name_is_refused(researcher):
    """"web-research:researcher\\n" is not our researcher, nor any agent: refused, not let by."""
    h, infos = researcher
    payload = h.agent_call(h.prompt_for(infos[1]), "toolu_1")
    payload["tool_input"]["subagent_type"] += "\n"
    code, decision, reason, _, _ = raw_hook(h, "pre_tool_use", json.dumps(payload).encode())
    assert (code, decision) == (0, "deny") and "subagent_type" in reason


def test_deep_nesting_anywhere_is_refused_in_a_run(researcher):
    h, _ = researcher
    text = json.dumps(outside_write(h))
    raw = (text[:-1] + ', "extra": ' + "[" * 100_000 + "]" * 100_000 + "}").encode()
    assert raw_hook(h, "pre_tool_use", raw)[1] == "deny"


def test_a_non_deciding_hook_that_fails_in_a_run_tells_the_user(researcher):
    h, _ = researcher
    payload = h.payload("PostToolUse", tool_name="WebSearch", tool_input={"query": 5}, tool_use_id="t")
    code, decision, _, out, _ = raw_hook(h, "post_tool_use", json.dumps(payload).encode())
    assert code == 0 and decision is None and "internal error" in json.loads(out)["systemMessage"]


# --- unbounded reads ---------------------------------------------------------------------

@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_a_transcript_path_naming_a_fifo_or_device_is_not_read(researcher, target):
    h, _ = researcher
    path = h.tmp / "fifo"
    if target == "fifo":
        os.mkfifo(path)
    payload = h.subagent_stop("agentA")
    payload["agent_transcript_path"] = str(path) if target == "fifo" else target
    code, decision, reason, _, seconds = raw_hook(h, "subagent_stop", json.dumps(payload).encode())
    assert (code, decision) == (2, "block") and seconds < 8, reason
    assert "MemoryError" not in h.log() and "HookDeadline" not in h.log()


def test_a_nul_in_a_write_path_is_refused_not_a_crash(researcher):
    h, _ = researcher
    payload = outside_write(h)
    payload["tool_input"]["file_path"] = str(h.run_dir / "findings" / "x\x00.md")
    code, decision, reason, _, _ = raw_hook(h, "pre_tool_use", json.dumps(payload).encode())
    assert (code, decision) == (0, "deny") and "NUL" in reason
    assert "Traceback" not in h.log()


# --- output the client may drop --------------------------------------------------------

def test_a_deny_for_a_long_non_ascii_path_fits_the_clients_limit_and_says_it_was_cut(researcher):
    h, _ = researcher
    payload = h.write_call("agentA", "/tmp/" + "\u0436" * 2000)  # 4 KB in UTF-8: a valid path
    payload["tool_input"]["file_path"] = "/tmp/" + "\u0436" * 2000
    code, decision, reason, out, _ = raw_hook(h, "pre_tool_use", json.dumps(payload).encode())
    assert (code, decision) == (0, "deny")
    assert len(out.rstrip("\n")) <= OUTPUT_LIMIT
    from web_research.guard.adapter import serialize, to_json
    from web_research.guard.rules.decision import Deny

    long = serialize(to_json("PreToolUse", Deny("\u0436" * 9000)))
    assert len(long) <= OUTPUT_LIMIT and "more characters cut" in json.loads(long)[
        "hookSpecificOutput"]["permissionDecisionReason"]


def test_a_decision_whose_updated_input_alone_is_too_long_keeps_its_reason():
    from web_research.guard.adapter import serialize, to_json
    from web_research.guard.rules.decision import Allow

    decision = to_json("PreToolUse", Allow("the brief, put in place", {"prompt": "b" * 20_000}))
    assert json.loads(serialize(decision)) == decision


# --- the launcher's shell parsing --------------------------------------------------------

def test_a_session_id_crossing_byte_512_is_still_this_session(researcher):
    h, _ = researcher
    payload = outside_write(h)
    sid = payload.pop("session_id")
    for pad in (480, 490, 500, 505):
        raw = json.dumps({"pad": "p" * pad, "session_id": sid, **payload}).encode()
        assert raw_hook(h, "pre_tool_use", raw)[1] == "deny", pad


@pytest.mark.parametrize("order", ["other-first", "other-last"])
def test_a_repeated_session_id_is_refused_in_a_run(researcher, order):
    h, _ = researcher
    text = json.dumps(outside_write(h))
    other = '"session_id": "not-researching-0000"'
    raw = ("{" + other + ", " + text[1:]) if order == "other-first" else (text[:-1] + ", " + other + "}")
    assert raw_hook(h, "pre_tool_use", raw.encode())[1] == "deny"


def _fake_python(h: Harness) -> tuple[dict[str, str], Path]:
    """The environment that makes the launcher start an interpreter that only records it was started."""
    fake, mark = recording_interpreter(h.tmp)
    return {"WEB_RESEARCH_PYTHON": str(fake)}, mark


def test_the_launcher_classifies_a_payload_in_linear_time(tmp_path: Path):
    """session_id 100 KB and 5 MB into the payload of a session that is not researching,
    while another session has a run (before: 48 s for 100 KB, 10 MB never finished)."""
    h = Harness(tmp_path)
    (h.data / "sessions").mkdir(parents=True)
    (h.data / "sessions" / "other-session.json").write_text("{}")
    env, mark = _fake_python(h)
    base = h.write_call(None, str(h.project / "x.md"))
    sid = base.pop("session_id")
    for size in (100_000, 5_000_000):
        raw = (json.dumps({**base, "pad": "p" * size})[:-1] + f', "session_id": "{sid}"}}').encode()
        seconds = raw_hook(h, "pre_tool_use", raw, **env)[4]
        assert seconds < 5, (size, seconds)
        first = json.dumps({"session_id": sid, **base, "pad": "p" * size}).encode()
        assert raw_hook(h, "pre_tool_use", first, **env)[4] < 5
    assert mark.read_text().count("started") == 2  # only the unclassified payloads reached Python


def test_an_unclassifiable_payload_reaches_python_only_when_a_run_is_open(tmp_path: Path):
    h = Harness(tmp_path)
    env, mark = _fake_python(h)
    raw = b"\xef\xbb\xbf" + json.dumps(h.write_call(None, "/x")).encode()
    raw_hook(h, "pre_tool_use", raw, **env)
    assert not mark.exists()  # no run anywhere: the shell ends it
    (h.data / "sessions").mkdir(parents=True)
    (h.data / "sessions" / "other-session.json").write_text("{}")
    (h.data / "sessions" / f"{h.sid}.history.json").write_text("[]")
    raw_hook(h, "pre_tool_use", json.dumps(h.write_call(None, "/x")).encode(), **env)
    assert not mark.exists()  # surely this session, which has no run
    raw_hook(h, "pre_tool_use", raw, **env)
    assert mark.read_text().count("started") == 1


@pytest.mark.parametrize("command", [
    "cd {root}/scripts && ./web-research start --args-file args.yaml",
    "{root}/scripts/web-research start --args-file - < args.yaml",
    "bash {root}/scripts/web-research start --args-file -",
])
def test_every_form_of_start_reaches_python(tmp_path: Path, command: str):
    h = Harness(tmp_path)
    env, mark = _fake_python(h)
    payload = h.bash("PostToolUse", command.format(root=Path(LAUNCHER).parents[1]), "{}")
    raw_hook(h, "post_tool_use", json.dumps(payload).encode(), **env)
    assert mark.read_text().count("started") == 1


# --- loose fields --------------------------------------------------------------------------

@pytest.mark.parametrize("event", ["SubagentStop", "Stop"])
def test_stop_hook_active_must_be_a_real_boolean(researcher, event):
    """"false" is not false, nor true: a repeated Stop with the same failures and
    `stop_hook_active: "false"` was let go as if the client had said true."""
    h, _ = researcher
    failing_report(h)
    if event == "Stop":
        assert h.hook(h.stop()).decision == "block"  # the first block: the same failures again next time
    payload = h.subagent_stop("agentA") if event == "SubagentStop" else h.stop()
    payload["stop_hook_active"] = "false"
    script = "subagent_stop" if event == "SubagentStop" else "stop"
    code, decision, reason, _, _ = raw_hook(h, script, json.dumps(payload).encode())
    assert (code, decision) == (2 if event == "SubagentStop" else 0, "block") and "stop_hook_active" in reason


@pytest.mark.parametrize("framing", ["bom", "trailing", "truncated", "cut-in-session-id"])
def test_a_broken_stdin_refuses_in_a_run_and_is_quiet_outside(researcher, tmp_path: Path, framing):
    h, _ = researcher
    clean = json.dumps(outside_write(h)).encode()
    raw = {"bom": b"\xef\xbb\xbf" + clean, "trailing": clean + b"garbage", "truncated": clean[:-5],
           "cut-in-session-id": clean[:len('{"session_id": "5')]}[framing]  # found by the property test
    code, decision, reason, _, _ = raw_hook(h, "pre_tool_use", raw)
    assert (code, decision) == (0, "deny") and "not what Claude Code sends" in reason
    assert "Traceback" not in h.log()
    idle = Harness(tmp_path / "idle")
    assert raw_hook(idle, "pre_tool_use", raw)[1:4] == (None, "", "")


def test_a_broken_payload_of_a_session_without_a_run_is_quiet_even_in_python(researcher, tmp_path: Path):
    """It mentions our start (so the launcher sends it to Python) and names a session
    that has no run: nothing is said, though another session's run is open."""
    h, _ = researcher
    other = Harness(tmp_path / "other", session_id="not-researching-1111")
    other.data = h.data
    payload = other.bash("PreToolUse", other.start_command())
    payload["agent_id"] = 12
    assert raw_hook(other, "pre_tool_use", json.dumps(payload).encode())[1:4] == (None, "", "")


def test_command_line_parsing_is_bounded_before_shlex():
    from web_research.guard.commandline import CommandRejected, parse_plugin_command

    root = Path(LAUNCHER).parents[1]
    command = f'"{root}/scripts/web-research" fetch "https://example.com" --run "/tmp/r" ' + "'a' " * 2_500_000
    began = time.monotonic()
    with pytest.raises(CommandRejected, match="characters long"):
        parse_plugin_command(command, root)
    assert time.monotonic() - began < 1
    with pytest.raises(CommandRejected, match="NUL"):  # os.path.realpath raised ValueError on it
        parse_plugin_command(f'"{root}/scripts/web-research\x00" verify "/tmp/r"', root)
