"""The hooks' rules (guard/rules/) are pure: each takes values and returns a decision, so each
is tested here with no file, no run folder and no hook process; and the folder holds no call
that reaches the file system, the clock or another process."""
from __future__ import annotations

import ast
from argparse import Namespace
from pathlib import Path

import pytest

from web_research import formats
from web_research.guard import adapter
from web_research.guard.briefs_match import Brief
from web_research.guard.commandline import PluginCommand
from web_research.guard.events import AgentStop, Stop, ToolCall, ToolResult
from web_research.guard.rules import budgets, dispatch, room, stop_gate
from web_research.guard.rules.after_abandon import refusal_after_abandon
from web_research.guard.rules.decision import NOTHING, AddContext, Allow, Block, Deny, Notice
from web_research.guard.state import Run, StopState
from web_research.metrics.usage import AgentUsage

RULES = Path(__file__).resolve().parents[2] / "scripts" / "web_research" / "guard" / "rules"
RUN = "/runs/r"
PROGRAM = "/plugin/scripts/web-research"
# Calls that reach outside the values a rule is given.
IO_CALLS = {"open", "realpath", "abspath", "getcwd", "exists", "lexists", "isfile", "isdir", "is_file",
            "is_dir", "read_text", "read_bytes", "write_text", "scandir", "listdir", "stat", "lstat", "time",
            "run", "Popen", "getenv", "expanduser", "resolve"}


def test_the_rules_reach_no_file_no_clock_and_no_process():
    found = []
    for path in sorted(RULES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in IO_CALLS:
                    found.append(f"{path.name}:{node.lineno} {name}()")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                found += [f"{path.name}:{node.lineno} imports {n}" for n in names
                          if n.split(".")[-1] in ("subprocess", "registry", "seals", "fsutil", "ledger", "time")]
    assert found == []


def command(sub: str, run_dir: str | None = RUN, **args) -> PluginCommand:
    return PluginCommand(sub, Namespace(command=sub, **args), run_dir)


# --- the room ------------------------------------------------------------------------

def test_each_role_runs_only_its_own_commands_on_its_own_run():
    assert room.bash_refusal(room.ORCHESTRATOR, command("verify"), "", RUN, PROGRAM, False) is None
    assert room.bash_refusal(room.RESEARCHER, command("fetch", url="https://a.example"), "", RUN, PROGRAM,
                             False) is None
    other_folder = room.bash_refusal(room.ORCHESTRATOR, command("verify", "/elsewhere"), "", RUN, PROGRAM, False)
    assert "its folder must be this run's folder /runs/r" in other_folder
    assert "must run in the foreground" in room.bash_refusal(room.ORCHESTRATOR, command("verify"), "", RUN,
                                                             PROGRAM, True)
    assert "is not one of them (unquoted ';')" in room.bash_refusal(room.ORCHESTRATOR, None, "unquoted ';'", RUN,
                                                                   PROGRAM, False)
    assert "only the page-snapshot command" in room.bash_refusal(room.RESEARCHER, command("verify"), "", RUN,
                                                                 PROGRAM, False)
    assert room.bash_refusal(room.CHECKER, command("verify"), "", RUN, PROGRAM, False) == room.CHECKER_REFUSAL
    assert "a person's command" in room.bash_refusal(room.ORCHESTRATOR, command("recheck"), "", RUN, PROGRAM, False)


def test_the_room_compares_run_folders_as_the_handler_resolved_them():
    parsed = command("status", "/real/r")
    assert room.bash_refusal(room.ORCHESTRATOR, parsed, "", "/link/r", PROGRAM, False) is not None
    assert room.bash_refusal(room.ORCHESTRATOR, parsed, "", "/link/r", PROGRAM, False, real_run_dir="/real/r") is None


def test_only_the_main_session_dispatches_and_only_the_plugins_agents():
    assert room.dispatch_refusal(room.ORCHESTRATOR, "web-research:researcher", PROGRAM, RUN) is None
    assert room.dispatch_refusal(room.ORCHESTRATOR, "web-research:claim-checker", PROGRAM, RUN) is None
    refusal = room.dispatch_refusal(room.ORCHESTRATOR, None, PROGRAM, RUN)
    assert "so it would run general-purpose" in refusal
    assert formats.dispatch_call(formats.DISPATCH_BRIEF_PROMPT) in refusal  # the exact form expected
    assert formats.dispatch_call(f"{formats.DISPATCH_CHECK_LABEL} {RUN}") in refusal
    assert "only the main session dispatches" in room.dispatch_refusal(room.RESEARCHER, "web-research:researcher",
                                                                       PROGRAM, RUN)


def test_tools_that_only_read_are_free_and_every_other_is_denied_with_what_is_allowed():
    assert room.tool_refusal("Read", room.RESEARCHER, PROGRAM, RUN) is None
    assert "MCP tool" in room.tool_refusal("mcp__x__write", room.ORCHESTRATOR, PROGRAM, RUN)
    assert "abandon" in room.tool_refusal("Skill", room.ORCHESTRATOR, PROGRAM, RUN)  # the way out, to the main session
    assert "abandon" not in room.tool_refusal("NewTool", room.RESEARCHER, PROGRAM, RUN)
    assert room.role_of(None) == room.ORCHESTRATOR and room.role_of("web-research:researcher") == room.RESEARCHER
    assert room.role_of("web-research:claim-checker") == room.CHECKER and room.role_of("Explore") == room.OTHER


def test_the_main_session_writes_plan_and_report_and_the_plan_only_below_its_second_wave():
    assert room.orchestrator_write_refusal(f"{RUN}/report.md", RUN, True, None, PROGRAM) is None
    assert "cannot be checked" in room.orchestrator_write_refusal(f"{RUN}/plan.md", RUN, True, None, PROGRAM)
    plan = "# Plan\n\n## Subtopics\n\n### A\n"  # the text above the second wave (the handler splits plan.md)
    assert room.orchestrator_write_refusal(f"{RUN}/plan.md", RUN, True, (plan, plan + "\n"), PROGRAM) is None
    assert "change nothing above" in room.orchestrator_write_refusal(
        f"{RUN}/plan.md", RUN, True, (plan, plan.replace("### A", "### C")), PROGRAM)
    assert "plan.md is final" in room.second_wave_refusal(plan, plan, second_wave_rendered=True)
    assert room.edited_text("Edit", {"old_string": "### A", "new_string": "### Z"}, plan) == plan.replace("A", "Z")
    assert room.edited_text("Edit", {"old_string": "###", "new_string": "x"}, plan + "###") is None  # not once
    assert room.in_protected("/plugin/data/x", ["/plugin/data"]) and not room.in_protected("/plugin/database", ["/plugin/data"])


def test_after_abandon_the_turn_only_reads_or_starts_again():
    assert refusal_after_abandon("Read", False, RUN, PROGRAM) is None
    assert refusal_after_abandon("Bash", True, RUN, PROGRAM) is None
    assert "was abandoned in this turn" in refusal_after_abandon("Bash", False, RUN, PROGRAM)
    assert "Write is not" in refusal_after_abandon("Write", False, RUN, PROGRAM)


# --- dispatch ------------------------------------------------------------------------

def briefs(*slugs: str) -> list[Brief]:
    return [Brief(s, f"{RUN}/briefs/{s}.md", f"sha256:{n:064x}", f"{RUN}/findings/{s}.md", f"Brief {s}\n")
            for n, s in enumerate(slugs, 1)]


def test_a_dispatch_names_one_brief_takes_a_slot_and_the_fourth_waits():
    run = Run(RUN)
    four = briefs("a", "b", "c", "d")
    for n, brief in enumerate(four[:3]):
        decision = dispatch.decide_dispatch(run, {"prompt": f"Brief: {brief.brief_path}"}, f"t{n}", four, 10.0)
        assert decision.action == "allow" and decision.brief == brief and decision.updated_input is not None
    decision = dispatch.decide_dispatch(run, {"prompt": f"Brief: {four[3].brief_path}"}, "t3", four, 10.0)
    assert decision.action == "deny" and "3 researchers are already running" in decision.reason
    assert dispatch.release(run, tool_use_id="t0") and run.dispatches == {"a": 1, "b": 1, "c": 1}
    again = dispatch.decide_dispatch(run, {"prompt": f"Brief: {four[1].brief_path}"}, "t4", four, 10.0)
    assert again.action == "deny" and "already running" in again.reason


def test_a_dispatch_of_a_final_or_kept_file_or_past_the_runs_cap_is_denied():
    two = briefs("a", "b")
    run = Run(RUN, kept=["b"])
    prompt = {"prompt": f"Brief: {two[0].brief_path}"}
    assert "sealed with status ok" in dispatch.decide_dispatch(run, prompt, "t", two, 0.0,
                                                               sealed_ok={"findings/a.md"}).reason
    assert "kept when this run was resumed" in dispatch.decide_dispatch(
        run, {"prompt": f"Brief: {two[1].brief_path}"}, "t", two, 0.0).reason
    run = Run(RUN, dispatches={"b": 1, "x": 1})
    assert "the most its plan allows (2" in dispatch.decide_dispatch(run, prompt, "t", two, 0.0,
                                                                      max_dispatches=2).reason


# --- budgets -------------------------------------------------------------------------

def test_searches_and_page_reads_stop_at_the_budget_and_repeats_are_loops():
    fresh = AgentUsage("agent")
    assert budgets.decide_search(fresh, 1, "log pricing").allowed
    assert budgets.decide_page_read(fresh, 1, "https://a.example/p").allowed
    assert budgets.decide_search(fresh, 0, "log pricing").rule == budgets.SEARCH_BUDGET
    assert budgets.decide_page_read(fresh, 0, "https://a.example/p").rule == budgets.PAGE_BUDGET
    assert not budgets.orchestrator_verdict().allowed
    assert budgets.max_dispatches(3, 1) == 8


# --- the stop gate -------------------------------------------------------------------

def test_the_stop_gate_waits_passes_blocks_and_never_loops():
    state = StopState()
    assert stop_gate.decide_stop(state, None, False).action == "wait"
    assert stop_gate.decide_stop(state, [], False).action == "pass"
    assert stop_gate.decide_stop(state, ["x"], False).action == "block" and state.blocks == 1
    assert stop_gate.decide_stop(state, ["x"], True).action == "release"  # the same failures again
    assert stop_gate.decide_stop(StopState(), ["x"], False, declared_unverified=True).action == "release"
    assert stop_gate.decide_stop(StopState(blocks=stop_gate.MAX_STOP_BLOCKS), ["y"], False).action == "release"
    expected = {"report": "/r/report.md", "verified": True}
    assert stop_gate.returns_object('Done:\n```json\n{"report": "/r/report.md", "verified": true}\n```', expected)
    assert not stop_gate.returns_object('{"report": "/r/other.md", "verified": true}', expected)


# --- the adapter: payload -> event, decision -> JSON ---------------------------------

def test_the_adapter_types_each_event_and_writes_each_decision_as_the_client_reads_it():
    base = {"session_id": "s1", "cwd": "/p", "agent_id": 7, "hook_event_name": "x"}
    call = adapter.event_from("PreToolUse", {**base, "tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert isinstance(call, ToolCall) and call.tool == "Bash" and call.text("command") == "ls" and call.agent_id is None
    result = adapter.event_from("PostToolUse", {**base, "tool_name": "Bash", "tool_response": {"stdout": "{}"}})
    assert isinstance(result, ToolResult) and result.stdout == "{}"
    stop = adapter.event_from("Stop", {**base, "background_tasks": [], "stop_hook_active": True})
    assert isinstance(stop, Stop) and stop.background_tasks == () and stop.stop_hook_active
    gone = adapter.event_from("SubagentStop", {**base, "last_assistant_message": "done"})
    assert isinstance(gone, AgentStop) and gone.last_message == "done" and not gone.stop_hook_active

    assert adapter.to_json("PreToolUse", Deny("no")) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}
    assert adapter.to_json("PreToolUse", Allow("yes", {"prompt": "p"}))["hookSpecificOutput"]["updatedInput"] == {
        "prompt": "p"}
    assert adapter.to_json("Stop", Block("fix", "told")) == {"decision": "block", "reason": "fix", "systemMessage": "told"}
    assert adapter.to_json("Stop", Notice("hi")) == {"systemMessage": "hi"}
    assert adapter.to_json("SubagentStart", AddContext("clock")) == {"hookSpecificOutput": {
        "hookEventName": "SubagentStart", "additionalContext": "clock"}}
    assert adapter.to_json("Stop", NOTHING) == {}


@pytest.mark.parametrize("decision", [Deny("x" * 20_000), Block("x" * 20_000)])
def test_a_long_reason_is_clipped_where_the_client_would_cut_it(decision):
    out = adapter.to_json("PreToolUse", decision)
    text = out.get("reason") or out["hookSpecificOutput"]["permissionDecisionReason"]
    assert len(text) <= adapter.MAX_TEXT and text.endswith("[... truncated]")
