"""Scenario 1: `/web-research --auto <question>`, the whole run.

Plan, briefs, three researchers dispatched in one message and running
concurrently, three findings files, the claim check of the standard tier (one
claim-checker), a report that `verify` passes, and the final return shape with
absolute paths. The scripted model runs the command
lines of SKILL.md as the CLI delivered them, so this also proves the
`${CLAUDE_PLUGIN_ROOT}` substitution and every path and flag in the prompt.
"""
from __future__ import annotations

import hashlib
import json
import statistics
import subprocess
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import REPO_ROOT, RunSpec
from scripted.prompt_text import skill_body

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"


SESSIONS = {"run": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}",
                                            scenario="scripted.research:build"))}


@pytest.fixture(scope="module")
def run(e2e_session):
    return e2e_session("run")


@pytest.fixture(scope="module")
def answer(run):
    assert run.exit_code == 0 and not run.timed_out, run.describe()
    assert run.errors == [], run.describe()
    return outcome.return_object(run)


def test_skill_body_arrives_with_the_plugin_root_substituted(run):
    body = skill_body(run.requests[0])
    assert "${CLAUDE_PLUGIN_ROOT}" not in body
    assert f'"{REPO_ROOT}/scripts/web-research" start --args-file -' in body
    (start, output), = outcome.bash_runs(run, "start")
    assert start["input"]["command"].startswith(f'"{REPO_ROOT}/scripts/web-research" start'), start
    assert QUESTION in start["input"]["command"]


def test_final_answer_is_the_success_shape_with_absolute_paths(run, answer):
    """finish's object (given by the hook after the claim-checker) has the contract's shape; a
    person ran the skill, so the final message is a short summary written from it: the verdict,
    the TL;DR, where the report and its page are (issue 38), not the JSON."""
    assert set(answer) == set(formats.RETURN_PATH_KEYS), answer
    final = run.stream.final_text()
    assert final.startswith("The research report is verified.") and "TL;DR:\n- " in final, final
    assert f"Report: {answer['report']}" in final and answer["view"] in final and "{" not in final
    run_dir = Path(answer["plan"]).parent
    assert run_dir.is_absolute() and run_dir.is_relative_to(run.cwd), run_dir
    assert run_dir.parent == run.cwd / formats.DEFAULT_ROOT
    assert answer["plan"] == str(run_dir / formats.PLAN_FILE)
    assert answer["report"] == str(run_dir / formats.REPORT_FILE)
    assert answer["findings_dir"].rstrip("/") == str(run_dir / formats.FINDINGS_DIR)
    assert Path(answer["plan"]).is_file() and Path(answer["report"]).is_file()


def test_the_person_sees_a_readable_ending_and_the_view_is_written(run, answer):
    """What the client shows the user at the end (the Stop hook's systemMessage): the result, the
    TL;DR, the paths; the model's final message stays the JSON object alone."""
    shown = run.stream.system_messages()
    assert len(shown) == 1, shown
    # The client shows each line of a Stop hook's message after "Stop says: ".
    message = "\n".join(line.removeprefix("Stop says: ") for line in shown[0].splitlines())
    assert message.startswith("web-research: the run ended, verified"), message
    assert f"Question: {QUESTION}" in message and "TL;DR:\n  - " in message, message
    tldr = Path(answer["report"]).read_text().split("## TL;DR")[1].split("##")[0]
    first = tldr.strip().splitlines()[0].lstrip("- ").split("[^")[0]
    assert first[:40] in message, (first, message)
    assert f"Report: {answer['report']}" in message and f"View:   {answer['view']}" in message
    assert answer["view"] == str(Path(answer["plan"]).parent / formats.REPORT_VIEW_FILE)
    page = Path(answer["view"]).read_text(encoding="utf-8")
    assert 'id="wr-data"' in page and "Verification passed" in page
    assert "Spent:" in message and "$" in message  # the run's measured tokens, priced


def test_plan_briefs_findings_on_disk(run, answer):
    run_dir = Path(answer["plan"]).parent
    plan = Path(answer["plan"]).read_text()
    assert QUESTION in plan
    briefs = sorted((run_dir / formats.BRIEFS_DIR).glob("*.md"))
    findings = sorted((run_dir / formats.FINDINGS_DIR).glob("*.md"))
    assert [p.name for p in briefs] == [p.name for p in findings] and len(findings) == 3, (briefs, findings)
    for brief, found in zip(briefs, findings):
        text = found.read_text()
        assert "status: ok" in text, text
        assert f"brief_hash: {outcome.sha256(brief)}" in text, "findings do not carry their brief's hash"
    assert list((run_dir / formats.SOURCES_DIR).glob("*")), "no page snapshots were stored"


def test_three_researchers_dispatched_in_one_message_and_concurrent(run, answer):
    groups = outcome.researcher_dispatches(run)
    assert len(groups) == 1 and len(groups[0]) == 3, groups
    checkers = [g for g in outcome.agent_messages(run) if g not in groups]
    assert [[u["input"]["prompt"] for u in g] for g in checkers] == [
        [f"{formats.DISPATCH_CHECK_LABEL} {Path(answer['plan']).parent}"]], checkers  # the tier's claim check
    # SKILL.md asks only for a description and `Brief: <brief_path>`: the hook set the agent type
    # (the scripted researcher answers only researcher requests) and the foreground (no async launch)
    assert all(set(u["input"]) == {"description", "prompt"} for u in groups[0]), groups[0]
    assert all("async_launched" not in run.stream.tool_result_text(u["id"]) for u in groups[0])
    spans = outcome.researcher_spans(run)
    assert len(spans) == 3, spans
    latest_start = max(first for first, _ in spans.values())
    earliest_end = min(last for _, last in spans.values())
    assert latest_start < earliest_end, f"researchers ran one after another: {spans}"


def test_each_researcher_got_its_rendered_brief_verbatim(run, answer):
    run_dir = Path(answer["plan"]).parent
    expected = {f"{p.read_text()}\nBrief hash: {outcome.sha256(p)}"
                for p in (run_dir / formats.BRIEFS_DIR).glob("*.md")}
    firsts = {}
    for req in run.requests:
        if req.kind == "subagent" and req.agent_id not in firsts and req.agent_id in outcome.researcher_spans(run):
            firsts[req.agent_id] = req.first_user_text
    got = {next((e for e in expected if e in prompt), None) for prompt in firsts.values()}
    assert got == expected, "each researcher's prompt must be one rendered brief plus its hash line"


def test_report_passes_verify_in_session_and_independently(run, answer):
    """The orchestrator ran no command after `start`: the hooks ran briefs and finish (after
    report.md's Write: the claim-checker to dispatch; after the checker: the final message)."""
    assert [u["input"]["command"].split('" ', 1)[1].split()[0] for u in run.stream.tool_uses("Bash", main_only=True)] \
        == ["start"]
    first, second = [t for t in run.stream.hook_contexts() if "web-research ran finish" in t]
    assert "need a verdict" in first and formats.DISPATCH_CHECK_LABEL in first, first
    assert json.dumps(answer) in second and "report.md passes verification" in second, second
    done = outcome.verify(Path(answer["plan"]).parent)
    assert done.returncode == 0, done.stdout + done.stderr
    report = Path(answer["report"]).read_text()
    assert report.startswith(f"{formats.REPORT_TITLE_PREFIX}{QUESTION}\n")
    # Findings in the brief's skeleton, with Retrieved copied from the fetch stamp: no warnings either.
    assert "0 warning(s)" in done.stdout, done.stdout


def test_hooks_allowed_the_run_without_blocking(run, answer, report_note):
    assert run.stream.denials() == [], run.describe()
    for event in ("Stop", "SubagentStop"):
        assert run.stream.blocks(event) == [], run.describe()
    dispatch_decisions = [run.stream.decision_of(e).get("hookSpecificOutput", {}).get("permissionDecision")
                          for e in run.stream.hook_responses("PreToolUse") if e.get("hook_name") == "PreToolUse:Agent"]
    assert dispatch_decisions == ["allow"] * 4, dispatch_decisions  # three researchers and a claim-checker
    timings = run.stream.hook_timings()
    report_note(f"research run: {len(timings)} hook runs took {sum(t for _, t in timings) * 1000:.0f} ms "
                f"(max {max(t for _, t in timings) * 1000:.0f} ms) in a {run.duration_s:.2f} s session")
    by_hook: dict[str, list[float]] = {}
    for name, seconds in timings:
        by_hook.setdefault(name, []).append(seconds * 1000)
    report_note(f"research run: hook median {statistics.median(t for _, t in timings) * 1000:.0f} ms; "
                + ", ".join(f"{name} {len(ms)}x median {statistics.median(ms):.0f} max {max(ms):.0f}"
                            for name, ms in sorted(by_hook.items())))


def test_the_plugin_keeps_each_researchers_frontmatter(run, answer):
    """A model has no clock and should copy no hash: the researchers wrote no file and typed only
    `status` in their replies; the hooks wrote the stub at dispatch and, at each stop, the reply as
    the findings file with subtopic, brief hash and times filled in."""
    import time

    from web_research.core.frontmatter_reader import read_frontmatter

    run_dir = Path(answer["plan"]).parent
    assert [u for u in run.stream.tool_uses("Write") if "/findings/" in u["input"]["file_path"]] == []
    for path in sorted((run_dir / formats.FINDINGS_DIR).glob("*.md")):
        (reply,) = outcome.researcher_replies(run, path.stem)
        assert "brief_hash" not in reply and reply.startswith("---\nstatus: ok\n---\n")
        text = path.read_text(encoding="utf-8")
        assert text.endswith(reply.split("\n---\n", 1)[1])  # the reply's body, byte for byte
        meta = read_frontmatter(text).data
        assert meta["brief_hash"] == outcome.sha256(run_dir / formats.BRIEFS_DIR / path.name)
        assert meta["started_at"] <= meta["finished_at"] and "reason" not in meta
        stamp = time.mktime(time.strptime(meta["finished_at"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
        assert abs(time.time() - stamp) < 3600


def test_each_page_is_archived_as_sent_and_extracts_again_to_its_text(run, answer):
    """The WARC of every snapshot replays the bytes the page server sent (read back with warcio,
    digests checked), and `verify --deep` extracts each page again to its stored text."""
    from urllib.parse import urlsplit

    from warcio.archiveiterator import ArchiveIterator

    run_dir = Path(answer["plan"]).parent
    sent = {(urlsplit(hit["path"]).path, hit["sha256"]) for hit in run.page_hits if hit["found"]}
    records = sorted((run_dir / formats.SOURCES_DIR).glob("*.json"))
    assert records
    for record in records:
        meta = json.loads(record.read_text(encoding="utf-8"))
        warc = run_dir / formats.SOURCES_DIR / meta["archive"]["file"]
        assert outcome.sha256(warc) == meta["archive"]["sha256"]
        with warc.open("rb") as handle:
            [response] = [(r.rec_headers.get_header("WARC-Target-URI"), r.content_stream().read())
                          for r in ArchiveIterator(handle, check_digests="raise") if r.rec_type == "response"]
        target, body = response
        digest = hashlib.sha256(body).hexdigest()
        assert target == meta["final_url"] and (urlsplit(target).path, digest) in sent, (target, sent)
        assert meta["archive"]["body_sha256"] == f"sha256:{digest}"
    done = subprocess.run([str(outcome.CORE), "verify", str(run_dir), "--deep", "--json"], capture_output=True,
                          text=True, timeout=300)
    checks = [c for c in json.loads(done.stdout)["checks"] if c["id"] == "archive.reextracted"]
    assert [c["ok"] for c in checks] == [True], checks
    assert checks[0]["message"].startswith(f"archive: {len(records)} of {len(records)} page(s) extracted again"), checks


def test_turns_and_tokens_per_role(run, answer, report_note):
    """What the standard run costs each role (issue 38): turns and input tokens as the fake API
    counted them. The orchestrator takes a turn only where it decides: start, the plan, the
    dispatch, the report, the claim-checker, the final message (at most 8; 12 before the hooks
    ran the commands)."""
    from web_research.report.claim_checker import PROMPT_HEAD

    roles = outcome.turns_by_role(run, PROMPT_HEAD)
    report_note("research run, turns / input tokens per role: " + ", ".join(
        f"{role} {v['turns']} / {v['input_tokens']:,}" for role, v in sorted(roles.items())))
    assert roles["researchers"]["turns"] >= 3 and roles["claim-checkers"]["turns"] >= 1, roles
    assert roles["orchestrator"]["turns"] <= 8, roles
