"""The guard's pure rules, called directly: dispatch cap and brief matching,
write scope, the Stop gate's state machine, transcripts, and the record lock."""
from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from web_research.run.briefs import brief_hash, compose_agent_prompt
from web_research.guard.briefs_match import briefs_of
from web_research.guard.rules import dispatch
from web_research.guard.rules import stop_gate as stopgate
from web_research.guard.briefs_match import (
    Brief,
    first_user_message,
    load_briefs,
    match_prompt,
    subagent_transcript_path,
)
from web_research.core.paths import valid_session_id
from web_research.guard.state import RenderedBrief, Run, Session, StopState, new_run


def make_briefs(run: Path, slugs: list[str]) -> list[Brief]:
    (run / "briefs").mkdir(parents=True, exist_ok=True)
    for slug in slugs:
        (run / "briefs" / f"{slug}.md").write_text(f"You research {slug}.\nFindings file: "
                                                   f"{run}/findings/{slug}.md\n", encoding="utf-8")
    return load_briefs(run)


def prompt(brief: Brief) -> str:
    return compose_agent_prompt(brief.text, brief.brief_hash)


class RunWithBriefs(Run):
    """A run and the briefs rendered in its folder."""
    __slots__ = ("briefs_objects",)


@pytest.fixture
def run(tmp_path: Path) -> RunWithBriefs:
    record = RunWithBriefs(str(tmp_path))
    record.briefs_objects = make_briefs(tmp_path, ["a", "b", "c", "d"])
    return record


def decide(run: RunWithBriefs, text: str, tool_use_id: str = "t", now: float = 1000.0, ttl: float = 60.0):
    briefs = run.briefs_objects
    return dispatch.decide_dispatch(run, {"prompt": text, "subagent_type": "x"}, tool_use_id, briefs, now, ttl)


# --- brief matching ---------------------------------------------------------------

def test_load_briefs_hashes_the_file_bytes(tmp_path: Path):
    briefs = make_briefs(tmp_path, ["a"])
    assert briefs[0].brief_hash == brief_hash((tmp_path / "briefs" / "a.md").read_bytes())
    assert briefs[0].findings_path == str(tmp_path / "findings" / "a.md")
    assert load_briefs(tmp_path, only_hashes=["sha256:other"]) == []


def test_match_prompt_exact_with_whitespace_slack(run):
    brief = run.briefs_objects[1]
    assert match_prompt(prompt(brief), run.briefs_objects).brief == brief
    assert match_prompt("\n" + prompt(brief).rstrip() + "\n\n\n", run.briefs_objects).brief == brief


def test_match_prompt_needs_both_text_and_hash(run):
    brief = run.briefs_objects[1]
    no_hash = match_prompt(brief.text, run.briefs_objects)
    assert no_hash.brief is None and no_hash.intended == (brief,)  # found by its findings path
    wrong_hash = match_prompt(compose_agent_prompt(brief.text, run.briefs_objects[0].brief_hash),
                              run.briefs_objects)
    assert wrong_hash.brief is None
    edited = match_prompt(prompt(brief).replace("You research", "Research"), run.briefs_objects)
    assert edited.brief is None and edited.intended == (brief,)


# --- dispatch --------------------------------------------------------------------

def test_three_slots_then_deny(run):
    briefs = run.briefs_objects
    actions = [decide(run, prompt(b), f"t{i}").action for i, b in enumerate(briefs)]
    assert actions == ["allow", "allow", "allow", "deny"]
    assert [r.slug for r in run.reservations] == ["a", "b", "c"]


def test_release_by_tool_use_agent_or_slug(run):
    briefs = run.briefs_objects
    for i, b in enumerate(briefs[:3]):
        decide(run, prompt(b), f"t{i}")
    run.reservations[1].agent_id = "ag"
    assert dispatch.release(run, tool_use_id="t0")
    assert dispatch.release(run, agent_id="ag")
    assert dispatch.release(run, slug="c")
    assert not dispatch.release(run, slug="c")
    assert run.reservations == []


def test_slots_expire(run):
    briefs = run.briefs_objects
    for i, b in enumerate(briefs[:3]):
        decide(run, prompt(b), f"t{i}", now=1000.0)
    assert decide(run, prompt(briefs[3]), "t3", now=1030.0).action == "deny"
    assert decide(run, prompt(briefs[3]), "t3", now=1061.0).action == "allow"


def test_drifted_prompt_is_corrected_to_the_exact_brief(run):
    brief = run.briefs_objects[2]
    decision = decide(run, prompt(brief).replace("You research", "Please research"))
    assert decision.action == "allow"
    assert decision.updated_input == {"prompt": prompt(brief), "subagent_type": "x"}


def test_ambiguous_or_foreign_prompts_are_denied(run):
    a, b = run.briefs_objects[:2]
    assert decide(run, "Research everything.").action == "deny"
    both = f"Do {a.findings_path} and {b.findings_path}"
    assert decide(run, both).action == "deny"
    assert run.reservations == []


def test_no_briefs_means_no_dispatch(tmp_path: Path):
    record = new_run(str(tmp_path), {})
    decision = dispatch.decide_dispatch(record, {"prompt": "x"}, "t", [], 0.0)
    assert decision.action == "deny" and "briefs" in decision.reason


def test_expected_briefs_prefers_what_briefs_printed(tmp_path: Path):
    briefs = make_briefs(tmp_path, ["a", "b"])
    record = new_run(str(tmp_path), {})
    assert [b.slug for b in briefs_of(record)] == ["a", "b"]
    record.briefs = [RenderedBrief("", "", briefs[1].brief_hash, None, "")]
    assert [b.slug for b in briefs_of(record)] == ["b"]
    # the findings path `briefs` printed is the one a researcher must write
    record.briefs = [RenderedBrief("", "", briefs[1].brief_hash, None, f"{tmp_path}/findings/02-b.md")]
    assert [b.findings_path for b in briefs_of(record)] == [f"{tmp_path}/findings/02-b.md"]


# --- Stop gate -----------------------------------------------------------------------

def test_stop_gate_state_machine():
    state = StopState()
    assert stopgate.decide_stop(state, None, False).action == "wait"
    assert stopgate.decide_stop(state, [], True).action == "pass"
    assert stopgate.decide_stop(state, ["x"], False).action == "block"
    assert stopgate.decide_stop(state, ["x"], True).action == "release"  # same failures again
    state = StopState()
    actions = [stopgate.decide_stop(state, [f"f{n}"], n > 0).action for n in range(5)]
    assert actions == ["block", "block", "block", "release", "release"]
    # a fresh user turn (stop_hook_active false) with the same failures blocks again, within the cap
    state = StopState()
    stopgate.decide_stop(state, ["x"], False)
    assert stopgate.decide_stop(state, ["x"], False).action == "block"


def test_stop_gate_messages_name_every_failure():
    failures = ["/r/report.md:3: bad [report.title]", "/r/report.md:9: worse [report.tldr.bullets]"]
    reason = stopgate.block_reason("/r", failures)
    assert all(f in reason for f in failures) and 'finish "/r" again' in reason
    many = [f"/r/report.md:{n}: x" for n in range(30)]
    assert "and 10 more" in stopgate.release_message("/r", many)


# --- transcripts ---------------------------------------------------------------------

def test_first_user_message_reads_string_and_block_content(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    lines = [{"type": "system", "content": "x"}, "not json",
             {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "brief"}]}},
             {"type": "user", "message": {"role": "user", "content": "later"}}]
    path.write_text("\n".join(json.dumps(x) if not isinstance(x, str) else x for x in lines) + "\n")
    assert first_user_message(path) == "brief"
    assert first_user_message(tmp_path / "missing.jsonl") is None


def test_subagent_transcript_path_follows_the_clients_layout():
    assert subagent_transcript_path("/p/abc.jsonl", "a1") == "/p/abc/subagents/agent-a1.jsonl"
    assert subagent_transcript_path("/p/abc.jsonl", "../x") is None
    assert subagent_transcript_path(None, "a1") is None


# --- registry --------------------------------------------------------------------------

def test_session_ids_must_be_plain():
    assert valid_session_id("5650be0e-2909-4fcc-bf5a-3f789e9bb873")
    for bad in ("", "../x", "a/b", None, "x" * 200):
        assert not valid_session_id(bad)
    with pytest.raises(ValueError):
        Session(Path("/tmp"), "../../etc")


def _bump(args):
    data, n = args
    session = Session(Path(data), "s1")
    for _ in range(n):
        with session.locked():
            record = session.read()
            record.dispatches["x"] = record.dispatches.get("x", 0) + 1
            session.write(record)


def test_the_lock_serialises_concurrent_updates(tmp_path: Path):
    session = Session(tmp_path, "s1")
    with session.locked():
        session.open_run(new_run(str(tmp_path / "run"), {}))
    with multiprocessing.get_context("fork").Pool(4) as pool:
        pool.map(_bump, [(str(tmp_path), 25)] * 4)
    assert session.read().dispatches["x"] == 100


def test_a_stuck_lock_holder_makes_the_waiter_give_up(tmp_path: Path):
    import fcntl

    session = Session(tmp_path, "s1")
    session.dir.mkdir(parents=True)
    with open(session.lock_path, "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(TimeoutError):
            with session.locked(timeout=0.2):
                pass
    with session.locked(timeout=0.2):
        pass


def test_the_session_lock_is_never_taken_through_a_symbolic_link(tmp_path: Path):
    """A link planted where the lock file goes is refused, and creates nothing where it points."""
    session = Session(tmp_path, "s1")
    session.dir.mkdir(parents=True)
    target = tmp_path / "elsewhere"
    session.lock_path.symlink_to(target)
    with pytest.raises(OSError):
        with session.locked(timeout=0.2):
            pass
    assert not target.exists()


def test_open_run_archives_the_previous_one(tmp_path: Path):
    session = Session(tmp_path, "s1")
    session.open_run(new_run("/r1", {}))
    session.open_run(new_run("/r2", {}))
    assert session.read().run_dir == "/r2"
    assert [(r["run_dir"], r["outcome"]) for r in session.history()] == [("/r1", "replaced")]
    session.archive(session.read(), "verified")
    assert not session.has_active_run() and not os.path.exists(session.record_path)
    assert [r["outcome"] for r in session.history()] == ["replaced", "verified"]


def test_the_orchestrator_writes_only_plan_and_report(tmp_path):
    from web_research.guard.rules.room import orchestrator_write_refusal

    run = str(tmp_path)
    for name in ("briefs/x.md", "findings/x.md", "sources/x.txt", "checks/verdicts-1.json",
                 ".web-research/seals.json", "notes.md"):
        refusal = orchestrator_write_refusal(f"{run}/{name}", run, False, None, "wr")
        assert refusal and "writes only" in refusal and "abandon" in refusal, name
    assert orchestrator_write_refusal(f"{run}/report.md", run, True, None, "wr") is None
    assert orchestrator_write_refusal(f"{run}/plan.md", run, False, None, "wr") is None
    assert "This path, outside the run folder," in orchestrator_write_refusal("/etc/x", run, False, None, "wr")
    assert "This path is not" in orchestrator_write_refusal(None, run, False, None, "wr")


def test_only_the_return_object_with_verified_false_declares_an_unverified_stop():
    from web_research.guard.rules import stop_gate as stopgate

    paths = '"plan": "/r/plan.md", "report": "/r/report.md", "findings_dir": "/r/findings/"'
    assert stopgate.declares_unverified("{" + paths + ', "verified": false}')
    assert stopgate.declares_unverified("```json\n{" + paths + ', "verified": false}\n```')
    # prose around the object, a lapse a real model makes, still declares it
    assert stopgate.declares_unverified("The run ends unverified:\n{" + paths + ', "verified": false}\nSee Gaps.')
    assert not stopgate.declares_unverified("x" * stopgate.MAX_MESSAGE_CHARS + "{" + paths + ', "verified": false}')
    for message in ("{" + paths + "}", "{" + paths + ', "verified": true}', "verified: false", None, 3,
                    '{"verified": false}'):
        assert not stopgate.declares_unverified(message), message
    state = StopState()
    assert stopgate.decide_stop(state, ["x"], False, declared_unverified=True).action == "release"
    assert state == StopState()
