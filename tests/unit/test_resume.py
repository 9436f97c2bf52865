"""`start --resume`: the approval record, what is kept and dispatched again, refusals, and the hooks
registering the resumed run in a new session."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from hook_harness import CLI, Harness, plan_text
from web_research import formats
from web_research.evidence import ledger
from web_research.run.inputs import InputError, from_raw
from web_research.run.resume import approval_path

SUBTOPICS = ["Billing units", "Retention tiers", "Commitment discounts"]
OTHER_SESSION = "0b6a3c1e-7d2f-4e55-9a10-2c3d4e5f6a7b"


def resume_command(run_dir: Path) -> str:
    return f"\"{CLI}\" start --args-file - <<'WEB_RESEARCH_ARGS'\n--resume {run_dir}\nWEB_RESEARCH_ARGS"


def resume(h: Harness) -> tuple[int, dict]:
    """Run start --resume in session `h` and feed its PostToolUse to the hooks."""
    command = resume_command(h.run_dir)
    proc = h.shell(command)
    assert h.hook(h.bash("PostToolUse", command, proc.stdout)).returncode == 0
    return proc.returncode, json.loads(proc.stdout)


def interrupted(tmp_path: Path) -> tuple[Harness, list[dict]]:
    """A run whose first two researchers finished (sealed at SubagentStop) and whose third
    left only its stub when the session died."""
    h = Harness(tmp_path)
    h.start_run()
    infos = h.render_briefs(SUBTOPICS)
    for agent_id, info in zip(("agentone", "agenttwo"), infos[:2]):
        h.start_agent(agent_id, h.prompt_for(info))
        assert h.reply(agent_id).stdout == ""
    h.write_findings(infos[2], "failed", reason='"stopped before finishing"')
    return h, infos


def slugs(infos: list[dict]) -> list[str]:
    return [Path(i["brief_path"]).stem for i in infos]


def test_briefs_records_the_approved_plan_and_leaves_the_record_alone_while_it_is_unchanged(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    infos = h.render_briefs(SUBTOPICS)
    record = json.loads(approval_path(h.run_dir).read_text())
    assert record["plan_sha256"] == ledger.file_sha256(h.run_dir / "plan.md", 1 << 20)
    assert record["briefs"] == {Path(i["brief_path"]).stem: i["brief_hash"] for i in infos}
    before = approval_path(h.run_dir).read_bytes()
    assert h.shell(h.core_command("briefs")).returncode == 0
    assert approval_path(h.run_dir).read_bytes() == before


def test_resume_keeps_finished_subtopics_and_dispatches_the_stub(tmp_path: Path):
    h, infos = interrupted(tmp_path)
    before = {p: p.read_bytes() for p in [h.run_dir / "plan.md", approval_path(h.run_dir),
                                          *h.run_dir.glob("briefs/*.md"), *h.run_dir.glob("findings/*.md")]}
    later = Harness(tmp_path, OTHER_SESSION)
    code, out = resume(later)
    assert code == 0, out
    names = slugs(infos)
    assert out["resume"]["keep"] == names[:2] and out["resume"]["dispatch"] == names[2:]
    assert out["resume"]["approved"] is True
    assert "stopped before finishing" in out["resume"]["why"][names[2]]
    # listed as `briefs` lists them: dispatched with `Brief: <brief_path>`
    assert out["briefs"] == [{key: info[key] for key in ("subtopic", "brief_path", "findings_path")}
                             for info in infos[2:]]
    assert out["research_question"] and out["tier"] == "standard" and "error" not in out
    assert {p: p.read_bytes() for p in before} == before  # nothing rewritten
    record = later.record()
    assert record["run"]["run_dir"] == str(h.run_dir) and record["run"]["kept"] == names[:2]


def test_the_resumed_session_dispatches_only_what_is_missing(tmp_path: Path):
    h, infos = interrupted(tmp_path)
    later = Harness(tmp_path, OTHER_SESSION)
    resume(later)
    denied = json.loads(later.hook(later.agent_call(h.prompt_for(infos[0]), "toolu_a")).stdout)
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "kept when this run was resumed" in denied["hookSpecificOutput"]["permissionDecisionReason"]
    allowed = json.loads(later.hook(later.agent_call(h.prompt_for(infos[2]), "toolu_b")).stdout)
    assert allowed["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_kept_file_changed_after_its_seal_is_dispatched_again(tmp_path: Path):
    h, infos = interrupted(tmp_path)
    path = Path(infos[0]["findings_path"])
    path.write_text(path.read_text() + "\nAn added line.\n")
    code, out = resume(Harness(tmp_path, OTHER_SESSION))
    assert code == 0 and slugs(infos)[0] in out["resume"]["dispatch"]
    assert "changed after it was sealed" in out["resume"]["why"][slugs(infos)[0]]


def test_findings_written_for_another_brief_are_dispatched_again(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    infos = h.render_briefs(SUBTOPICS)
    h.write_findings(infos[0], "ok", brief_hash="sha256:" + "0" * 64)
    code, out = resume(Harness(tmp_path, OTHER_SESSION))
    assert code == 0 and out["resume"]["dispatch"] == slugs(infos)
    assert "brief_hash" in out["resume"]["why"][slugs(infos)[0]]


def _made_outside_claude_code(tmp_path: Path) -> tuple[Harness, list[dict]]:
    """A run made with the CLI alone: no hooks, no ledger, no seals."""
    h = Harness(tmp_path)
    assert h.shell(h.start_command()).returncode == 0
    (h.run_dir / "plan.md").write_text(plan_text(SUBTOPICS), encoding="utf-8")
    infos = json.loads(h.shell(h.core_command("briefs")).stdout)
    for info in infos:
        h.write_findings(info, "ok")
    return h, infos


def test_a_run_the_plugin_never_sealed_is_refused_and_nothing_is_adopted(tmp_path: Path):
    """Nothing is trusted because of where it lies: a folder the plugin has no record of is no
    run to resume (start says so, and says what to do), and no file of it gets a seal."""
    h, _infos = _made_outside_claude_code(tmp_path)
    code, out = resume(h)
    assert code == 2 and out["error"] == formats.ERROR_NOT_A_RUN, out
    assert "no record of this run's seals" in out["detail"] and "refresh: true" in out["detail"]
    assert h.record() is None
    assert ledger.seals(ledger.read(ledger.ledger_path(h.data, h.run_dir))) == {}


def test_the_hook_refuses_to_resume_a_run_its_ledger_does_not_know(tmp_path: Path):
    """A forged folder copy of the seals satisfies `start` (it cannot see the hooks' ledger from
    the Bash tool), never the hook: the PreToolUse hook denies the command before it runs."""
    h, infos = _made_outside_claude_code(tmp_path)
    forged = {"seals": {f"findings/{Path(i['findings_path']).name}": {
        "artifact": "findings", "sha256": ledger.file_sha256(Path(i["findings_path"]), 1 << 20)} for i in infos}}
    (h.run_dir / ".web-research").mkdir(exist_ok=True)
    (h.run_dir / ".web-research" / "seals.json").write_text(json.dumps(forged))
    result = h.hook(h.bash("PreToolUse", resume_command(h.run_dir)))
    assert result.decision == "deny", result
    assert formats.ERROR_NOT_A_RUN in result.reason and "no record of this run's seals" in result.reason
    assert h.record() is None


@pytest.mark.parametrize("form", ["flags", "flags=", "args"])
def test_every_form_of_resume_is_refused_on_a_folder_the_ledger_does_not_know(tmp_path: Path, form: str):
    """`start` in the Bash tool cannot see the hooks' ledger, so a forged folder copy satisfies it in
    every spelling; the hook that opens the room judges each by the same rule and opens none."""
    h, infos = _made_outside_claude_code(tmp_path)
    forged = {"seals": {f"findings/{Path(i['findings_path']).name}": {
        "artifact": "findings", "sha256": ledger.file_sha256(Path(i["findings_path"]), 1 << 20)} for i in infos}}
    (h.run_dir / ".web-research" / "seals.json").write_text(json.dumps(forged))
    command = {"flags": f'"{CLI}" start --resume --output-dir "{h.run_dir}"',
               "flags=": f'"{CLI}" start --resume --output-dir="{h.run_dir}" --auto-proceed',
               "args": f'"{CLI}" start --args "--resume {h.run_dir}"'}[form]
    proc = h.shell(command)
    assert proc.returncode == 0 and "resume" in json.loads(proc.stdout), proc.stdout + proc.stderr
    told = h.hook(h.bash("PostToolUse", command, proc.stdout))
    assert h.record() is None
    context = told.json["hookSpecificOutput"]["additionalContext"]
    assert formats.ERROR_NOT_A_RUN in context and "no record of this run's seals" in context
    assert "no run is open" in context


def test_the_hook_keeps_only_what_the_ledger_confirms(tmp_path: Path):
    """`start` in the Bash tool judges seals from the folder copy; a forger who edits a kept
    findings file and the copy to match gets it kept by `start`, but the hook, judging from the
    ledger, does not keep it and tells the orchestrator to research it again."""
    h, infos = interrupted(tmp_path)
    path = Path(infos[0]["findings_path"])
    path.write_text(path.read_text().replace("Nothing cited.", "Something else."))
    copy = h.run_dir / ".web-research" / "seals.json"
    data = json.loads(copy.read_text())
    seal = data["seals"][f"findings/{path.name}"]
    seal["sha256"] = ledger.file_sha256(path, 1 << 20)
    seal["hashes"] = [seal["sha256"]]
    copy.write_text(json.dumps(data))
    later = Harness(tmp_path, OTHER_SESSION)
    command = resume_command(h.run_dir)
    env = {k: v for k, v in later.env().items() if k != "CLAUDE_PLUGIN_DATA"}  # the Bash tool's environment
    import subprocess

    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=later.project, env=env,
                          timeout=120)
    out = json.loads(proc.stdout)
    names = slugs(infos)
    assert out["resume"]["keep"] == names[:2], out  # start trusted the copy
    told = later.hook(later.bash("PostToolUse", command, proc.stdout))
    assert later.record()["run"]["kept"] == names[1:2]
    context = told.json["hookSpecificOutput"]["additionalContext"]
    assert names[0] in context and "researched again" in context
    allowed = json.loads(later.hook(later.agent_call(h.prompt_for(infos[0]), "toolu_a")).stdout)
    assert allowed["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_run_the_ledger_knows_adopts_nothing(tmp_path: Path):
    h, infos = interrupted(tmp_path)
    stray = h.run_dir / "sources" / "0123456789abcdef.txt"
    stray.parent.mkdir(exist_ok=True)
    stray.write_text("planted page\n")
    resume(Harness(tmp_path, OTHER_SESSION))
    assert "sources/0123456789abcdef.txt" not in ledger.seals(ledger.read(ledger.ledger_path(h.data, h.run_dir)))


def test_a_plan_changed_after_approval_is_refused(tmp_path: Path):
    h, _infos = interrupted(tmp_path)
    plan = h.run_dir / "plan.md"
    plan.write_text(plan.read_text().replace("Compare", "Contrast"), encoding="utf-8")
    code, out = resume(Harness(tmp_path, OTHER_SESSION))
    assert code == 2 and out["error"] == formats.ERROR_PLAN_CHANGED
    assert str(plan) in out["detail"] and "approved" in out["detail"]
    assert Harness(tmp_path, OTHER_SESSION).record() is None


def test_a_brief_edited_after_approval_is_refused(tmp_path: Path):
    h, infos = interrupted(tmp_path)
    brief = Path(infos[1]["brief_path"])
    brief.write_text(brief.read_text() + "Also research anything else.\n", encoding="utf-8")
    code, out = resume(Harness(tmp_path, OTHER_SESSION))
    assert code == 2 and out["error"] == formats.ERROR_PLAN_CHANGED and str(brief) in out["detail"]


@pytest.mark.parametrize("plan", [None, "# not a plan\n"])
def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path, plan: str | None):
    h = Harness(tmp_path)
    h.run_dir.mkdir(parents=True)
    if plan is not None:
        (h.run_dir / "plan.md").write_text(plan)
    code, out = resume(h)
    assert code == 2 and out["error"] == formats.ERROR_NOT_A_RUN and "plan.md" in out["detail"]
    assert h.record() is None


def test_a_plan_never_approved_resumes_at_the_review_gate(tmp_path: Path):
    h = Harness(tmp_path)
    h.start_run()
    (h.run_dir / "plan.md").write_text(plan_text(SUBTOPICS), encoding="utf-8")
    code, out = resume(Harness(tmp_path, OTHER_SESSION))
    assert code == 0 and out["resume"]["approved"] is False and out["resume"]["keep"] == []
    assert len(out["resume"]["dispatch"]) == 3 and out["briefs"] == []


@pytest.mark.parametrize("raw, expected", [
    ("--resume /tmp/run", ("/tmp/run", True, False)),
    ("--auto --resume=/tmp/run", ("/tmp/run", True, True)),
    ("resume: true\noutput_dir: /tmp/run", ("/tmp/run", True, False)),
])
def test_resume_arguments(raw: str, expected: tuple):
    request = from_raw(raw)
    assert (request.output_dir, request.resume, request.auto_proceed) == expected and request.question == ""


@pytest.mark.parametrize("raw, field", [
    ("resume: true", "output_dir"),
    ("--resume /tmp/run What is new?", "research_question"),
    ("resume: true\noutput_dir: /tmp/run\nrefresh: true", "refresh"),
    ("--resume /tmp/run --out /tmp/other", "--out"),
    ("--resume", "--resume"),
])
def test_bad_resume_arguments_name_the_field(raw: str, field: str):
    with pytest.raises(InputError) as error:
        from_raw(raw)
    assert field in str(error.value)


@pytest.mark.parametrize("content", [b"no frontmatter at all\n", b"---\nstatus: ok\n", b"\xff\xfe not text\n", None])
def test_unreadable_or_hostile_findings_are_dispatched_again_with_a_reason(tmp_path: Path, content: bytes | None):
    h = Harness(tmp_path)
    h.start_run()
    infos = h.render_briefs(SUBTOPICS[:1])
    path = Path(infos[0]["findings_path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is None:  # a link to a file outside the run
        outside = tmp_path / "outside.md"
        outside.write_text(h.write_findings(infos[0], "ok").read_text())
        path.unlink()
        path.symlink_to(outside)
    else:
        path.write_bytes(content)
    code, out = resume(Harness(tmp_path, OTHER_SESSION))
    assert code == 0 and out["resume"]["dispatch"] == slugs(infos) and out["resume"]["why"][slugs(infos)[0]]
