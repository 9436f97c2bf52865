"""The hooks, driven as Claude Code drives them: payload on stdin of hooks/run,
decision on stdout, with a private CLAUDE_PLUGIN_DATA and the repository as
CLAUDE_PLUGIN_ROOT. Runs and briefs are made by the real CLI."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from web_research import formats
from web_research.guard.rules import room

from hook_harness import (
    CLI,
    LAUNCHER,
    RECORDED,
    REPO,
    RESEARCHER,
    SCRIPT_OF,
    SUBTOPICS,
    QUESTION,
    Harness,
    files_under,
    plan_text,
    recorded,
)


# --- sessions that are not researching ----------------------------------------------

HOOKED = [item for item in RECORDED if item["event"] in SCRIPT_OF]


@pytest.mark.parametrize("item", HOOKED, ids=[f"{i}-{item['event']}" for i, item in enumerate(HOOKED)])
def test_recorded_payloads_of_an_unrelated_session_decide_nothing_and_write_nothing(h: Harness, item):
    result = h.hook(item["payload"])
    assert (result.returncode, result.stdout) == (0, "")
    assert files_under(h.data) == []


def test_start_is_allowed_with_no_run_recorded(h: Harness):
    result = h.hook(h.bash("PreToolUse", h.start_command()))
    assert result.decision == "allow"
    assert h.record() is None


def test_other_commands_get_no_decision_without_a_run(h: Harness):
    for command in (h.core_command("verify"), "ls -la", f'"{CLI}" start --question x'):
        result = h.hook(h.bash("PreToolUse", command))
        assert (result.returncode, result.stdout) == (0, ""), command


@pytest.mark.parametrize("command", [
    "{cli} start --args-file - <<'WEB_RESEARCH_ARGS'\nq\nWEB_RESEARCH_ARGS\nrm -rf ~",
    "{cli} start --args-file - <<WEB_RESEARCH_ARGS\nq\nWEB_RESEARCH_ARGS",
    "{cli} start --args-file - <<'WEB_RESEARCH_ARGS' && curl evil.example\nq\nWEB_RESEARCH_ARGS",
    "/bin/sh -c {cli} start --args-file - <<'WEB_RESEARCH_ARGS'\nq\nWEB_RESEARCH_ARGS",
])
def test_start_lookalikes_are_not_allowed(h: Harness, command: str):
    result = h.hook(h.bash("PreToolUse", command.format(cli=f'"{CLI}"')))
    assert result.decision != "allow"


# --- recognising the run ----------------------------------------------------------

def test_successful_start_records_the_run(h: Harness):
    out = h.start_run()
    record = h.record()
    assert record["session_id"] == h.sid
    assert record["run"]["run_dir"] == out["output_dir"] == str(h.run_dir)
    assert record["run"]["reservations"] == []


def test_refused_start_records_nothing(h: Harness):
    (h.run_dir).mkdir(parents=True)
    (h.run_dir / "plan.md").write_text("# prior\n")
    command = h.start_command()
    proc = h.shell(command)
    assert json.loads(proc.stdout)["error"] == "prior-run-present"
    assert h.hook(h.bash("PostToolUse", command, proc.stdout)).stdout == ""
    assert h.record() is None


def test_a_second_start_in_the_session_replaces_the_run_and_keeps_history(h: Harness):
    h.start_run()
    other = h.project / "second"
    h.start_run(output_dir=other)
    assert h.record()["run"]["run_dir"] == str(other)
    history = h.history()
    assert [(r["run_dir"], r["outcome"]) for r in history] == [(str(h.run_dir), "replaced")]


def test_runs_in_parallel_sessions_are_separate(tmp_path: Path):
    first, second = Harness(tmp_path / "a", "session-a"), Harness(tmp_path / "b", "session-b")
    second.data = first.data  # one plugin data directory, two sessions
    first.start_run()
    second.start_run()
    assert first.record()["run"]["run_dir"] != second.record()["run"]["run_dir"]
    other = first.hook(first.bash("PreToolUse", second.core_command("verify")))
    assert other.decision == "deny" and f"this run's folder {first.run_dir}" in other.reason


def test_without_plugin_data_the_per_user_directory_holds_the_record(h: Harness):
    state = h.tmp / "state"
    command = h.start_command()
    proc = h.shell(command)
    env = h.env(WEB_RESEARCH_STATE_DIR=str(state))
    env.pop("CLAUDE_PLUGIN_DATA")
    subprocess.run([str(LAUNCHER), "post_tool_use"], input=json.dumps(h.bash("PostToolUse", command, proc.stdout)),
                   text=True, env=env, check=True, capture_output=True)
    assert json.loads((state / "sessions" / f"{h.sid}.json").read_text())["run"]["run_dir"] == str(h.run_dir)
    # (h.shell ran the command with CLAUDE_PLUGIN_DATA set, which may leave interpreter pointers there)
    assert not (h.data / "sessions").exists()


def test_briefs_records_the_expected_hashes(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:2])
    recorded_briefs = active.record()["run"]["briefs"]
    assert [(b["slug"], b["subtopic"], b["brief_hash"]) for b in recorded_briefs] == \
        [(i["slug"], i["subtopic"], i["brief_hash"]) for i in infos]


def test_the_findings_path_briefs_printed_is_the_one_enforced(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:2])
    printed = [dict(i) for i in infos]
    printed[0]["findings_path"] = str(active.run_dir / "findings" / f"01-{infos[0]['slug']}.md")
    printed[1]["findings_path"] = str(active.home / "outside.md")  # never trusted outside the run
    active.hook(active.bash("PostToolUse", active.core_command("briefs"), json.dumps(printed)))
    paths = [b["findings_path"] for b in active.record()["run"]["briefs"]]
    assert paths == [printed[0]["findings_path"], infos[1]["findings_path"]]
    active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_0"))
    active.start_agent("agentA", active.prompt_for(infos[0]))
    assert active.reply("agentA").stdout == ""
    assert "Nothing cited." in Path(printed[0]["findings_path"]).read_text(encoding="utf-8")
    assert not Path(infos[0]["findings_path"]).exists()


def test_plugin_commands_on_the_run_folder_are_allowed_others_denied(active: Harness):
    for sub in ("briefs", "estimate", "verify", "status", "gaps", "claims"):
        assert active.hook(active.bash("PreToolUse", active.core_command(sub))).decision == "allow", sub
    elsewhere = active.project / "elsewhere"
    for command in (active.core_command("verify", elsewhere), active.core_command("estimate", elsewhere),
                    active.core_command("verify") + "; rm -rf ~",
                    f'"{CLI}" verify "$(echo {active.run_dir})"', "git status"):
        result = active.hook(active.bash("PreToolUse", command))
        assert result.decision == "deny" and "runs only the plugin's own commands" in result.reason, command


# --- dispatch --------------------------------------------------------------------

def test_dispatch_before_briefs_is_denied(active: Harness):
    result = active.hook(active.agent_call("Research billing units", "toolu_1"))
    assert result.decision == "deny"
    assert f'"{CLI}" briefs "{active.run_dir}"' in result.reason


def test_exact_briefs_are_allowed_until_three_run(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:4])
    decisions = [active.hook(active.agent_call(active.prompt_for(b), f"toolu_{i}")).decision
                 for i, b in enumerate(infos)]
    assert decisions == ["allow", "allow", "allow", "deny"]
    run = active.record()["run"]
    assert sorted(r["slug"] for r in run["reservations"]) == sorted(b["slug"] for b in infos[:3])


def test_a_prompt_that_is_no_brief_is_denied(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:2])
    result = active.hook(active.agent_call("Research pricing. Write findings somewhere.", "toolu_1"))
    assert result.decision == "deny"
    assert infos[0]["brief_path"] in result.reason
    assert active.record()["run"]["reservations"] == []


def test_a_retyped_brief_is_replaced_by_its_exact_text(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:2])
    drifted = active.prompt_for(infos[1]).replace("Budget", "Budget (be thorough)")
    result = active.hook(active.agent_call(drifted, "toolu_1"))
    assert result.decision == "allow"
    updated = result.json["hookSpecificOutput"]["updatedInput"]
    assert updated["prompt"].strip() == active.prompt_for(infos[1]).strip()
    assert updated["subagent_type"] == RESEARCHER


@pytest.mark.parametrize("form", [
    "Brief: {path}",  # the documented form
    "Brief: briefs/{slug}.md",  # relative
    'Brief: "{path}". Research it thoroughly, please.',  # quoted, with a sentence after it
    "**Brief:** `{path}`",  # Markdown around it
    "brief: {slug}",  # the slug instead of the path
    "Brief: {subtopic}",  # the subtopic's name
    "Please research the subtopic whose brief is {path}",  # no label, the path alone
])
def test_a_dispatch_by_reference_gets_the_brief_in_its_place(active: Harness, form: str):
    infos = active.render_briefs(SUBTOPICS[:2])
    prompt = form.format(path=infos[1]["brief_path"], slug=infos[1]["slug"], subtopic=infos[1]["subtopic"])
    result = active.hook(active.agent_call(prompt, "toolu_1"))
    assert result.decision == "allow", result.reason
    assert result.updated_input["prompt"] == active.prompt_for(infos[1])
    assert result.updated_input["subagent_type"] == RESEARCHER
    assert [r["slug"] for r in active.record()["run"]["reservations"]] == [infos[1]["slug"]]


@pytest.mark.parametrize("fields", [{}, {"subagent_type": "general-purpose"}, {"run_in_background": True},
                                    {"subagent_type": None, "run_in_background": None}])
def test_a_brief_prompt_alone_names_a_foreground_researcher(active: Harness, fields: dict):
    """The orchestrator writes only `prompt: Brief: <brief_path>`: the hook sets subagent_type and
    run_in_background (the client's default is the background), whatever the call said."""
    infos = active.render_briefs(SUBTOPICS[:2])
    payload = active.agent_call(f"Brief: {infos[0]['brief_path']}", "toolu_1")
    payload["tool_input"] = {"description": "research", "prompt": f"Brief: {infos[0]['brief_path']}", **fields}
    result = active.hook(payload)
    assert result.decision == "allow", result.reason
    assert result.updated_input["subagent_type"] == RESEARCHER
    assert result.updated_input["run_in_background"] is False
    assert result.updated_input["prompt"] == active.prompt_for(infos[0])
    returned = {"status": "completed", "agentId": "agent0"}
    post = active.agent_call(f"Brief: {infos[0]['brief_path']}", "toolu_1", "PostToolUse", returned)
    post["tool_input"] = payload["tool_input"]  # the call as the model wrote it
    active.hook(post)
    assert active.record()["run"]["reservations"] == []  # its slot is freed when it returns


@pytest.mark.parametrize("lead", ["Please research this. ", "You are the pricing researcher.\n\n"])
def test_a_prompt_with_the_form_after_a_sentence_is_read_as_that_dispatch(active: Harness, lead: str):
    """What a real model wrote ("Please research this. Brief: <path>", refused before as
    "general-purpose is neither"): the form anywhere in the prompt names the researcher."""
    infos = active.render_briefs(SUBTOPICS[:2])
    payload = active.agent_call("", "toolu_1")
    payload["tool_input"] = {"description": "research", "prompt": f"{lead}Brief: {infos[1]['brief_path']}"}
    result = active.hook(payload)
    assert result.decision == "allow", result.reason
    assert result.updated_input["subagent_type"] == RESEARCHER and result.updated_input["run_in_background"] is False
    assert result.updated_input["prompt"] == active.prompt_for(infos[1])


def test_an_exact_researcher_call_is_left_as_it_is(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:1])
    result = active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_1"))
    assert result.decision == "allow" and result.updated_input is None


def test_another_agent_without_a_dispatch_form_is_still_denied(active: Harness):
    active.render_briefs(SUBTOPICS[:1])
    payload = active.agent_call("Research the pricing question yourself.", "toolu_1")
    payload["tool_input"]["subagent_type"] = "general-purpose"
    result = active.hook(payload)
    assert result.decision == "deny" and "neither" in result.reason


@pytest.mark.parametrize("form", ["Brief: nothing-like-it", "Brief: {a} and {b}", "Research the question."])
def test_a_reference_to_no_brief_or_to_two_is_denied_listing_the_forms(active: Harness, form: str):
    infos = active.render_briefs(SUBTOPICS[:2])
    result = active.hook(active.agent_call(form.format(a=infos[0]["brief_path"], b=infos[1]["brief_path"]), "t"))
    assert result.decision == "deny"
    assert all(f"Brief: {info['brief_path']}" in result.reason for info in infos), result.reason
    assert active.record()["run"]["reservations"] == []


def test_the_same_brief_cannot_run_twice_at_once(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:2])
    assert active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_1")).decision == "allow"
    second = active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_2"))
    assert second.decision == "deny" and "already running" in second.reason


def test_concurrent_dispatch_is_capped_at_three(active: Harness):
    infos = active.render_briefs(SUBTOPICS)
    procs = [active.spawn(active.agent_call(active.prompt_for(b), f"toolu_{i}"), f"p{i}")
             for i, b in enumerate(infos)]
    decisions = []
    for proc in procs:
        out, _err = proc.communicate(timeout=120)
        decisions.append(json.loads(out)["hookSpecificOutput"]["permissionDecision"])
    assert sorted(decisions) == ["allow", "allow", "allow", "deny", "deny"]
    assert len(active.record()["run"]["reservations"]) == 3


def test_a_returned_foreground_researcher_frees_its_slot(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:4])
    for i, brief in enumerate(infos[:3]):
        assert active.hook(active.agent_call(active.prompt_for(brief), f"toolu_{i}")).decision == "allow"
    response = {"status": "completed", "agentId": "agent0", "prompt": active.prompt_for(infos[0])}
    returned = active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_0", "PostToolUse", response))
    assert returned.returncode == 0 and returned.decision is None  # a result with no reply: a notice, no block
    assert active.hook(active.agent_call(active.prompt_for(infos[3]), "toolu_3")).decision == "allow"
    assert active.record()["run"]["agents"]["agent0"]["slug"] == infos[0]["slug"]


def test_a_background_launch_keeps_its_slot_until_the_researcher_stops(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:1])
    prompt = active.prompt_for(infos[0])
    active.hook(active.agent_call(prompt, "toolu_0"))
    active.hook(active.agent_call(prompt, "toolu_0", "PostToolUse", {"isAsync": True, "status": "async_launched", "agentId": "bg1"}))
    assert [r["agent_id"] for r in active.record()["run"]["reservations"]] == ["bg1"]
    active.start_agent("bg1", prompt)
    assert active.reply("bg1").stdout == ""
    assert active.record()["run"]["reservations"] == []


def test_stop_with_no_background_task_frees_leaked_slots(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:1])
    active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_0"))
    active.hook(active.stop(background_tasks=[{"id": "x"}]))
    assert len(active.record()["run"]["reservations"]) == 1
    active.hook(active.stop())
    assert active.record()["run"]["reservations"] == []


def test_expired_slots_are_freed(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:4])
    for i, brief in enumerate(infos[:3]):
        active.hook(active.agent_call(active.prompt_for(brief), f"toolu_{i}"))
    result = active.hook(active.agent_call(active.prompt_for(infos[3]), "toolu_3"),
                         WEB_RESEARCH_GUARD_SLOT_TTL="0")
    assert result.decision == "allow"


def test_retries_of_one_brief_are_limited(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:1])
    prompt = active.prompt_for(infos[0])
    for attempt in range(2):
        assert active.hook(active.agent_call(prompt, f"toolu_{attempt}")).decision == "allow"
        active.hook(active.agent_call(prompt, f"toolu_{attempt}", "PostToolUse", {"status": "completed"}))
    third = active.hook(active.agent_call(prompt, "toolu_9"))
    assert third.decision == "deny" and "Gaps" in third.reason


def test_other_agent_types_are_denied_while_a_run_is_open(active: Harness):
    active.render_briefs(SUBTOPICS[:1])
    for agent_type in ("general-purpose", "Explore", None):
        payload = active.agent_call("anything", "toolu_1")
        payload["tool_input"]["subagent_type"] = agent_type
        result = active.hook(payload)
        assert result.decision == "deny" and "web-research:researcher" in result.reason, agent_type
        assert "abandon" in result.reason


# --- inside a researcher ----------------------------------------------------------

def test_a_researcher_writes_not_even_its_own_findings_file(researcher):
    """Its final reply is its findings: the plugin writes the file (room.RESEARCHER_REFUSAL says so)."""
    h, infos = researcher
    for path in (infos[0]["findings_path"], str(h.run_dir / "scratch" / infos[0]["slug"] / "notes.md")):
        for tool in ("Write", "Edit", "MultiEdit"):
            result = h.hook(h.write_call("agentA", path, tool))
            assert (result.decision, result.reason) == ("deny", room.RESEARCHER_REFUSAL), (tool, path)


@pytest.mark.parametrize("target", [
    "{other}",
    "{run}/report.md",
    "{run}/plan.md",
    "{run}/findings/../../outside.md",
    "{home}/.bashrc",
    "{run}/scratch/{other_slug}/x.md",
])
def test_a_researcher_may_write_nothing_else(researcher, target: str):
    h, infos = researcher
    path = target.format(other=infos[1]["findings_path"], run=h.run_dir, home=h.home, other_slug=infos[1]["slug"])
    for tool in ("Write", "Edit"):
        result = h.hook(h.write_call("agentA", path, tool))
        assert result.decision == "deny", (tool, path)


def test_a_symlinked_findings_file_pointing_outside_is_denied(researcher):
    h, infos = researcher
    findings = Path(infos[0]["findings_path"])
    findings.parent.mkdir(parents=True, exist_ok=True)
    findings.unlink(missing_ok=True)  # the plugin's stub, written at dispatch
    findings.symlink_to(h.home / "victim.txt")
    assert h.hook(h.write_call("agentA", str(findings))).decision == "deny"


def test_a_symlinked_findings_folder_pointing_outside_is_denied(researcher):
    h, infos = researcher
    (h.home / "elsewhere").mkdir()
    for stub in (h.run_dir / "findings").iterdir():  # the plugin's stub, written at dispatch
        stub.unlink()
    (h.run_dir / "findings").rmdir()
    (h.run_dir / "findings").symlink_to(h.home / "elsewhere")
    assert h.hook(h.write_call("agentA", infos[0]["findings_path"])).decision == "deny"
    assert h.reply("agentA").decision == "block"  # the plugin writes no reply through the link
    assert list((h.home / "elsewhere").iterdir()) == []


def test_a_run_folder_reached_through_a_symlink_still_works(tmp_path: Path):
    h = Harness(tmp_path)
    real = tmp_path / "real-project"
    real.mkdir()
    link = tmp_path / "linked"
    link.symlink_to(real)
    h.run_dir = link / "research"
    h.start_run()
    infos = h.render_briefs(SUBTOPICS[:1])
    h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_0"))
    h.start_agent("agentA", h.prompt_for(infos[0]))
    assert h.reply("agentA").stdout == ""
    written = (real / "research" / "findings" / f"{infos[0]['slug']}.md").read_text(encoding="utf-8")
    assert "status: ok" in written and "Nothing cited." in written


def test_the_main_agent_writes_the_report_and_nothing_else_of_its_own(researcher):
    h, _infos = researcher
    assert h.hook(h.write_call(None, str(h.run_dir / "report.md"))).stdout == ""
    for path in (h.run_dir / "notes" / "anything.md", h.home / "elsewhere.md", h.project / "src.py"):
        result = h.hook(h.write_call(None, str(path)))
        assert result.decision == "deny" and "writes only" in result.reason, path


def test_nobody_but_a_researcher_writes_briefs_or_findings(researcher):
    h, infos = researcher
    for path in (infos[0]["findings_path"], infos[1]["brief_path"], str(h.run_dir / "findings" / "new.md")):
        for tool in ("Write", "Edit"):
            result = h.hook(h.write_call(None, path, tool))
            assert result.decision == "deny", (tool, path)
            assert "writes only" in result.reason
    other = h.write_call(None, infos[0]["findings_path"])
    other.update(agent_id="gp1", agent_type="general-purpose")
    assert h.hook(other).decision == "deny"


def test_a_researcher_runs_only_the_fetch_command(researcher):
    h, _infos = researcher
    fetch = f'"{CLI}" fetch "https://docs.example.test/a?b=1" --run "{h.run_dir}"'
    first_at_an_offset = h.hook(h.bash("PreToolUse", fetch + " --offset 8000", agent_id="agentA"))
    assert first_at_an_offset.decision == "deny" and "a first read starts at the top" in first_at_an_offset.reason
    assert h.hook(h.bash("PreToolUse", fetch, agent_id="agentA")).decision == "allow"
    for command in ("curl https://evil.example", f'"{CLI}" fetch "https://x.test/" --run "{h.home}"',
                    f'"{CLI}" verify "{h.run_dir}"', fetch + " > /tmp/x",
                    f'"{CLI}" fetch "https://x.test/" --run "{h.run_dir}" --allow-loopback'):
        result = h.hook(h.bash("PreToolUse", command, agent_id="agentA"))
        assert result.decision == "deny", command
        assert "fetch" in result.reason


def test_loopback_fetch_can_be_allowed_for_tests(researcher):
    h, _infos = researcher
    command = f'"{CLI}" fetch "https://127.0.0.1:4443/" --run "{h.run_dir}" --allow-loopback'
    result = h.hook(h.bash("PreToolUse", command, agent_id="agentA"), WEB_RESEARCH_GUARD_ALLOW_LOOPBACK="1")
    assert result.decision == "allow"


# --- SubagentStart ----------------------------------------------------------------

def _subagent_start(h: Harness, agent_type: str = "web-research:researcher") -> dict:
    payload = h.payload("SubagentStart", "agentA")
    payload["agent_type"] = agent_type
    return payload


def test_a_researcher_of_the_active_run_is_told_the_utc_time(researcher):
    import time

    from web_research.guard.handlers.subagent_start import CLOCK_LABEL

    h, _ = researcher
    out = h.hook(_subagent_start(h)).json["hookSpecificOutput"]
    assert out["hookEventName"] == "SubagentStart"
    stamp = out["additionalContext"].removeprefix(CLOCK_LABEL)
    told = time.mktime(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert abs(told - time.time()) < 120


def test_subagent_start_says_nothing_outside_a_run_or_to_other_agents(h: Harness, active: Harness):
    other = Harness(h.tmp / "other", session_id="00000000-0000-4000-8000-000000000000")
    assert other.hook(_subagent_start(other)).stdout == ""
    assert active.hook(_subagent_start(active, agent_type="general-purpose")).stdout == ""


# --- SubagentStop -----------------------------------------------------------------

def test_a_researcher_without_findings_is_blocked_once_then_recorded(researcher):
    """Its reply holds no findings: the stub the plugin wrote at its dispatch stays."""
    h, infos = researcher
    stub = Path(infos[0]["findings_path"]).read_text(encoding="utf-8")
    first = h.reply("agentA", f"{infos[0]['findings_path']} ok")
    assert first.decision == "block"
    # Sent once: exit 2 with the text on the client's stderr, no JSON (a JSON block reached the
    # researcher twice, as "Stop hook feedback" and as a "SubagentStop hook blocking error").
    assert (first.returncode, first.stdout) == (2, "") and first.stderr.startswith("Your findings are not usable")
    assert "closest passage" not in first.reason  # none is shown
    assert infos[0]["findings_path"] in first.reason and "does not start with your findings" in first.reason
    assert len(h.record()["run"]["reservations"]) == 1  # still running

    second = h.reply("agentA", "I am done.", stop_hook_active=True)
    assert Path(infos[0]["findings_path"]).read_text(encoding="utf-8") == stub
    assert second.decision is None
    assert f'subtopic "{infos[0]["subtopic"]}"' in second.json["systemMessage"]
    run = h.record()["run"]
    assert [f["slug"] for f in run["silent_failures"]] == [infos[0]["slug"]]
    assert run["reservations"] == []
    written = json.loads((h.run_dir / ".web-research" / "silent-failures.json").read_text())
    assert (written[0]["findings_path"], written[0]["subtopic"]) == (infos[0]["findings_path"], infos[0]["subtopic"])


def test_a_findings_file_with_a_wrong_field_is_named(researcher):
    h, infos = researcher
    result = h.reply("agentA", h.findings_reply("failed"))
    assert result.decision == "block"
    assert "reason" in result.reason and "line 1 of your reply" in result.reason
    assert not Path(infos[0]["findings_path"]).read_text(encoding="utf-8").startswith("---\nstatus: failed\n---")


def test_a_brief_hash_the_researcher_got_wrong_is_replaced_by_its_briefs(researcher):
    """The plugin fills in the hash (and subtopic and times); what a researcher typed there is not kept."""
    h, infos = researcher
    typed = h.findings_text(infos[0], brief_hash=infos[1]["brief_hash"], started_at=None, subtopic='"Other"')
    assert h.reply("agentA", typed).stdout == ""
    text = Path(infos[0]["findings_path"]).read_text(encoding="utf-8")
    assert f"brief_hash: {infos[0]['brief_hash']}\n" in text and f'subtopic: "{infos[0]["subtopic"]}"' in text
    assert "started_at: " in text and "Nothing cited." in text


def test_a_failed_reply_with_its_reason_is_accepted(researcher):
    h, infos = researcher
    assert h.reply("agentA", h.findings_reply("failed", "no source reachable")).stdout == ""
    assert 'reason: "no source reachable"' in Path(infos[0]["findings_path"]).read_text(encoding="utf-8")
    run = h.record()["run"]
    assert run["agents"]["agentA"]["state"] == "done" and run["silent_failures"] == []
    assert run["reservations"] == []


def test_a_stray_stop_with_empty_agent_type_is_attributed_by_its_prompt(researcher):
    h, infos = researcher
    result = h.hook(h.subagent_stop("agentA", agent_type=""))
    assert result.decision == "block"


def test_subagents_that_are_not_this_runs_researchers_are_ignored(researcher):
    h, _infos = researcher
    h.start_agent("agentX", "Summarise the README.")
    before = h.record()
    assert h.hook(h.subagent_stop("agentX")).stdout == ""
    assert h.hook(h.subagent_stop("agentX", agent_type="general-purpose")).stdout == ""
    assert h.record()["run"] == before["run"]


# --- Stop -------------------------------------------------------------------------

def test_stop_before_the_report_never_blocks(active: Harness):
    active.render_briefs(SUBTOPICS[:2])
    for flag in (False, True):
        assert active.hook(active.stop(stop_hook_active=flag)).stdout == ""
    assert active.record() is not None


def test_stop_waits_while_researchers_run_in_the_background(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:1])
    active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_0"))
    (active.run_dir / "report.md").write_text("# Research: premature\n")
    assert active.hook(active.stop(background_tasks=[{"id": "a"}])).stdout == ""
    assert active.hook(active.stop()).decision == "block"


def test_a_passing_report_finishes_the_run(active: Harness):
    active.copy_example_run()
    ended = active.hook(active.stop())
    assert ended.decision is None and "verified" in ended.json["systemMessage"]
    assert active.record() is None
    assert active.history()[-1]["outcome"] == "verified"
    assert active.hook(active.stop()).stdout == ""  # the run is over: later stops are not its business


@pytest.mark.parametrize("message", [
    "The research is done; the report is at research/report.md.",  # the object left out
    '{"plan": "research/plan.md", "report": "research/report.md"}',  # retyped short
])
def test_a_passing_run_without_finishs_object_is_asked_for_it_once(active: Harness, message: str):
    from web_research.run.return_object import return_object  # noqa: PLC0415

    active.copy_example_run()
    asked = active.hook(active.stop(message=message))
    assert asked.decision == "block" and json.dumps(return_object(active.run_dir)) in asked.reason
    assert active.record() is not None  # the run is not over yet
    again = active.hook(active.stop(stop_hook_active=True, message=message))  # never twice: it passes
    assert again.decision is None and active.history()[-1]["outcome"] == "verified"


def test_finishs_object_with_prose_around_it_passes_at_once(active: Harness):
    from web_research.run.return_object import return_object  # noqa: PLC0415

    active.copy_example_run()
    wrapped = f"Done.\n\n```json\n{json.dumps(return_object(active.run_dir), indent=2)}\n```\nSee the report."
    assert active.hook(active.stop(message=wrapped)).decision is None
    assert active.history()[-1]["outcome"] == "verified"


def test_the_person_sees_the_tldr_the_result_and_both_paths_at_the_end(active: Harness):
    """The Stop hook's message to the user; the model's final JSON is untouched by it."""
    active.copy_example_run()
    message = active.hook(active.stop()).json["systemMessage"]
    view = active.run_dir / "report.html"
    assert view.is_file() and 'id="wr-data"' in view.read_text(encoding="utf-8")
    assert message.startswith("web-research: the run ended, verified"), message
    assert "TL;DR:\n  - Vendors bill logs by different units: Acme splits ingestion" in message, message
    assert "[^1]" not in message  # markers and Markdown dropped
    assert f"Report: {active.run_dir / 'report.md'}" in message and f"View:   {view}" in message


def test_an_unverified_ending_lists_the_failures_and_still_writes_the_view(active: Harness):
    active.copy_example_run()
    break_report(active)
    active.hook(active.stop())
    message = active.hook(active.stop(stop_hook_active=True)).json["systemMessage"]
    assert "still fails verification" in message and "Treat it as unverified" in message
    assert f"View:   {active.run_dir / 'report.html'}" in message
    assert "fails verification" in (active.run_dir / "report.html").read_text(encoding="utf-8")


def test_a_view_that_cannot_be_written_costs_the_page_not_the_ending(active: Harness):
    active.copy_example_run()
    (active.run_dir / "report.html").mkdir()  # the page's place is taken by a folder
    ended = active.hook(active.stop())
    assert active.history()[-1]["outcome"] == "verified"
    assert "could not be written" in ended.json["systemMessage"] and "view" in ended.json["systemMessage"]


def break_report(h: Harness) -> None:
    report = h.run_dir / "report.md"
    text = report.read_text()
    report.write_text(text.replace("## Gaps & Limitations", "## Caveats"))


def test_a_broken_report_blocks_with_its_failures_then_lets_go(active: Harness):
    active.copy_example_run()
    break_report(active)
    first = active.hook(active.stop())
    assert first.decision == "block"
    assert f"{active.run_dir / 'report.md'}" in first.reason and "Gaps & Limitations" in first.reason
    assert f'"{CLI}" finish "{active.run_dir}"' in first.reason  # back to finish, which counts the rounds
    assert active.record()["run"]["stop"]["blocks"] == 1

    second = active.hook(active.stop(stop_hook_active=True))
    assert second.decision is None
    assert "report.md" in second.json["systemMessage"] and "Gaps & Limitations" in second.json["systemMessage"]
    assert active.record() is None and active.history()[-1]["outcome"] == "unverified"


def test_changed_failures_block_again_but_not_forever(active: Harness):
    active.copy_example_run()
    report = active.run_dir / "report.md"
    original = report.read_text()
    decisions = []
    for n in range(5):
        lines = original.splitlines(keepends=True)
        report.write_text(f"# Research: another question {n}\n" + "".join(lines[1:]))
        decisions.append(active.hook(active.stop(stop_hook_active=n > 0)).decision)
    assert decisions[:3] == ["block", "block", "block"]
    assert decisions[3] is None and active.record() is None


# --- failing open ---------------------------------------------------------------------

def test_the_session_is_found_wherever_its_key_sits_in_the_payload(active: Harness):
    infos = active.render_briefs(SUBTOPICS[:1])
    payload = active.agent_call("x" * 5000, "toolu_1")
    reordered = {"tool_input": payload.pop("tool_input"), **payload}
    assert json.dumps(reordered).index('"session_id"') > 5000
    result = active.hook(reordered)
    assert result.decision == "deny" and infos[0]["brief_path"] in result.reason


def test_a_bug_in_a_hook_during_a_run_fails_closed_every_time_and_is_logged(active: Harness):
    """Our own bug must not switch the Stop gate off: it blocks, names the error and the
    way out (finish, or abandon the run), and does so again at the next stop."""
    record = active.record()
    del record["run"]["run_dir"]
    active.record_path.write_text(json.dumps(record))
    for _ in range(2):
        result = active.hook(active.stop())
        assert result.returncode == 0 and result.decision == "block", result
        assert "RecordError" in result.reason and "run.run_dir is missing" in result.reason
        assert "abandon" in result.reason and " finish " in result.reason
    assert active.log().count("RecordError") >= 2


def test_a_corrupt_record_counts_as_no_run(active: Harness):
    active.record_path.write_text("{not json")
    result = active.hook(active.agent_call("x", "toolu_1"))
    assert (result.returncode, result.stdout) == (0, "")


@pytest.mark.parametrize("event,fields", [("SessionEnd", {"reason": "other"}), ("SessionStart", {"source": "resume"})])
def test_session_end_and_start_free_slots_and_keep_the_run(active: Harness, event: str, fields: dict):
    infos = active.render_briefs(SUBTOPICS[:1])
    active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_0"))
    assert len(active.record()["run"]["reservations"]) == 1
    assert active.hook(active.payload(event, **fields)).stdout == ""
    assert active.record()["run"]["reservations"] == []
    assert active.record()["run"]["run_dir"] == str(active.run_dir)


def test_the_recorded_researcher_payloads_are_handled_when_a_run_is_active(active: Harness):
    """The real client's payload shapes (recorded) go through the full path."""
    infos = active.render_briefs(SUBTOPICS[:1])
    payload = recorded("PreToolUse", "Write", in_agent=True)
    payload["tool_input"]["file_path"] = infos[0]["findings_path"]
    payload["transcript_path"] = str(active.transcript)
    active.start_agent(payload["agent_id"], active.prompt_for(infos[0]))
    assert active.hook(payload).decision == "deny"  # a researcher writes no file
    stop = recorded("SubagentStop")
    stop["agent_transcript_path"] = str(active.agent_transcript(payload["agent_id"]))
    assert active.hook(stop).decision == "block"


def test_hooks_json_runs_every_script_through_the_launcher():
    config = json.loads((REPO / "hooks" / "hooks.json").read_text())
    commands = [hook["command"] for groups in config["hooks"].values() for group in groups for hook in group["hooks"]]
    scripts = {command.split()[-1] for command in commands}
    assert scripts == set(SCRIPT_OF.values())
    assert all(command.startswith('"${CLAUDE_PLUGIN_ROOT}/hooks/run" ') for command in commands)
    assert os.access(REPO / "hooks" / "run", os.X_OK)
    assert not list((REPO / "hooks").glob("*.py")), "hooks/run execs python -m web_research.guard: no adapters"


def test_modules_in_the_project_folder_cannot_stand_in_for_the_hooks_own(researcher):
    """`python -m` puts the working directory first on sys.path: the launcher starts it
    from scripts/, so a json.py or web_research/ the orchestrator writes into the project
    cannot take over the guard; the handler still sees the session's directory."""
    h, infos = researcher
    marker = h.tmp / "hijacked"
    planted = f"open({str(marker)!r}, 'w').close()\n"
    (h.project / "json.py").write_text(planted)
    (h.project / "web_research").mkdir()
    (h.project / "web_research" / "__init__.py").write_text(planted)
    (h.project / "web_research" / "guard").mkdir()
    (h.project / "web_research" / "guard" / "__init__.py").write_text(planted)
    relative = h.write_call(None, os.path.relpath(h.run_dir / "report.md", h.project))  # the main session's
    del relative["cwd"]  # then the process's own directory resolves it: the session's, restored
    assert h.hook(relative).decision is None
    assert h.hook(h.write_call(None, str(h.project / "notes.md"))).decision == "deny"
    assert not marker.exists()


def test_each_event_name_leads_to_the_handler_of_that_name():
    """`hooks/run EVENT` -> `python -m web_research.guard EVENT` -> guard/handlers/EVENT.py's EVENT: a
    grep for the name used in hooks.json lands on its handler, in a module of that name."""
    import importlib

    from web_research.guard import adapter, events
    from web_research.guard.events import EVENTS

    assert set(EVENTS) == set(SCRIPT_OF.values())
    for name, event in EVENTS.items():
        assert SCRIPT_OF[event] == name
        module = importlib.import_module(f"web_research.guard.handlers.{name}")
        assert adapter.handler(event) is getattr(module, name), (name, adapter.handler(event).__name__)
        assert module.__file__.endswith(f"guard/handlers/{name}.py")
    assert set(events.HANDLER_NAMES) == set(EVENTS.values())
    assert adapter.handler("Notification") is None
    for (event, kind), name in events.KIND_HANDLER_NAMES.items():  # a kind of call with a handler of its own
        module = importlib.import_module(f"web_research.guard.handlers.{name}")
        assert event in EVENTS.values() and adapter.handler(event, kind) is getattr(module, name), (event, kind)


# --- SubagentStop also checks the quotes while the researcher holds the page ------------------

def _reply_with_citation(h: Harness, excerpt: str, url: str = "https://docs.acme.example/p") -> str:
    from web_research.evidence.snapshots import store_snapshot

    from web_research.commands.fetch_cmd import render_window
    from web_research.guard.effects import seals

    snap = store_snapshot(h.run_dir, requested_url=url, final_url=url, title="Pricing | Acme", status=200,
                          content_type="text/html", retrieved_at="2026-04-18T09:00:00+00:00",
                          text="Ingest is billed per GB. Indexing is billed per million events.", extractor="test")
    # Sealed as the researcher's fetch returning it (the hooks' own code).
    seals.after_fetch(h.env(), str(h.run_dir), url, 0, render_window(snap, snap.text(), h.run_dir, 0, 4000, False),
                      "agentA", None)
    return h.findings_reply(body=(
        "## Claims\n\n- Ingest is billed per GB[^1].\n\n## Sources\n\n"
        f"[^1]: **Title**: Pricing | Acme\n      **URL**: {url}\n      **Excerpt**: \"{excerpt}\"\n"))


def test_a_misquoted_excerpt_is_blocked_once_with_the_closest_passage(researcher):
    h, infos = researcher
    reply = _reply_with_citation(h, "Ingestion costs a fixed fee per GB.")
    first = h.reply("agentA", reply)
    assert first.decision == "block"
    assert "excerpt is not in the page" in first.reason and "closest passage" in first.reason
    assert "Ingest is billed per GB." in first.reason
    assert "line 11 of your reply" in first.reason  # the entry's line, counted in the reply
    assert reply.splitlines()[10].startswith("[^1]: **Title**")
    second = h.reply("agentA", reply, stop_hook_active=True)
    assert second.stdout == ""  # a quote left wrong is verify's business, not a silent failure
    assert h.record()["run"]["silent_failures"] == []


def test_a_correct_quote_passes_the_subagent_stop(researcher):
    h, infos = researcher
    assert h.reply("agentA", _reply_with_citation(h, "Ingest is billed per GB.")).stdout == ""
    assert "Ingest is billed per GB[^1]." in Path(infos[0]["findings_path"]).read_text(encoding="utf-8")


def test_the_block_message_lists_every_required_frontmatter_field(researcher):
    from web_research.core.schema_validation import load_schema

    h, infos = researcher
    result = h.reply("agentA", "done")
    fields = result.reason.split("as your brief shows: the frontmatter (", 1)[1].split(")", 1)[0]
    # the fields the researcher writes; the plugin fills in the others
    assert fields == "status, and reason when status is empty or failed"
    assert [n for n in load_schema("findings-frontmatter.schema.json")["required"] if n not in fields] == \
        list(formats.FINDINGS_PLUGIN_FIELDS)


def test_a_declared_unverified_return_ends_the_run_without_a_block(active: Harness):
    active.copy_example_run()
    break_report(active)
    answer = json.dumps({"plan": str(active.run_dir / "plan.md"), "report": str(active.run_dir / "report.md"),
                         "findings_dir": str(active.run_dir / "findings") + "/", "verified": False})
    payload = active.stop()
    payload["last_assistant_message"] = answer
    result = active.hook(payload)
    assert result.decision is None
    assert "Gaps & Limitations" in result.json["systemMessage"]
    assert active.record() is None and active.history()[-1]["outcome"] == "unverified"


# --- the orchestrator's next step (issue 38) ----------------------------------------------------

def _plan_write(active: Harness, event: str, content: str) -> dict:
    plan = str(active.run_dir / "plan.md")
    fields: dict = {"tool_name": "Write", "tool_input": {"file_path": plan, "content": content},
                              "tool_use_id": "toolu_plan"}
    if event == "PostToolUse":
        fields["tool_response"] = {"type": "create", "filePath": plan, "content": content}
    return active.payload(event, **fields)


def test_the_plans_write_renders_the_briefs_and_gives_the_agent_calls(active: Harness):
    """With auto_proceed no command is run only to read it: the Write of plan.md (completed by the
    hook with start's question and tier) renders and records the briefs, and its PostToolUse gives
    the exact Agent calls."""
    written = plan_text(SUBTOPICS[:2]).split("## Subtopics", 1)[1]
    pre = active.hook(_plan_write(active, "PreToolUse", "## Subtopics" + written))
    content = pre.updated_input["content"]
    assert content.startswith(f"## Research question\n\n{QUESTION}\n") and "\nTier: standard\n" in content
    (active.run_dir / "plan.md").write_text(content, encoding="utf-8")  # what the client then writes
    post = active.hook(_plan_write(active, "PostToolUse", content))
    context = post.json["hookSpecificOutput"]["additionalContext"]
    calls = [json.loads(line[len("Agent "):]) for line in context.splitlines() if line.startswith("Agent {")]
    briefs = sorted((active.run_dir / "briefs").glob("*.md"))
    assert [c["prompt"] for c in calls] == [f"Brief: {p}" for p in briefs] and len(briefs) == 2, context
    assert [b["slug"] for b in active.record()["run"]["briefs"]] == [p.stem for p in briefs]
    # written again after the briefs: nothing is rendered twice, no call given twice
    assert active.hook(_plan_write(active, "PostToolUse", content)).stdout == ""


def test_a_plan_with_mistakes_is_told_them_on_its_write(active: Harness):
    content = "## Subtopics\n\n### Report card\n- what it costs\n\n## Synthesis approach\n\nBy subtopic.\n"
    (active.run_dir / "plan.md").write_text(active.hook(_plan_write(active, "PreToolUse", content))
                                            .updated_input["content"], encoding="utf-8")
    post = active.hook(_plan_write(active, "PostToolUse", content))
    context = post.json["hookSpecificOutput"]["additionalContext"]
    assert "plan.md has mistakes" in context and "rename the subtopic" in context and "Agent {" not in context
    assert not (active.run_dir / "briefs").exists() or not list((active.run_dir / "briefs").glob("*.md"))
