"""Scenarios 3 and 4: a researcher that fails, and one that dies silently.

Partial failure: the researcher replies `status: failed` with a reason; the run
goes on and the report names the subtopic under Gaps & Limitations.
Silent failure: the researcher's reply holds no findings; SubagentStop blocks
it once, naming its findings file; when it still gives none, the plugin's stub
stays, the run goes on and Gaps names the subtopic as not finished.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.research import DEFAULT_SUBTOPICS

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"


def _with(behaviours: dict[str, str]) -> list[dict]:
    return [{**s, "behaviour": behaviours.get(s["name"], "ok")} for s in DEFAULT_SUBTOPICS]


def _gaps(report: Path) -> str:
    """The body of the Gaps & Limitations section."""
    text = report.read_text()
    heading = "## Gaps & Limitations\n"
    assert heading in text, text
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def _session(behaviours: dict[str, str]):
    return lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                                   scenario_args={"subtopics": _with(behaviours)}))


SESSIONS = {"partial": _session({"Retention tiers": "failed"}),
            "silent": _session({"Commitment discounts": "silent"})}


@pytest.fixture(scope="module")
def partial(e2e_session):
    result = e2e_session("partial")
    outcome.ended_cleanly(result)
    return result


@pytest.fixture(scope="module")
def silent(e2e_session):
    result = e2e_session("silent")
    outcome.ended_cleanly(result)
    return result


def test_failed_researcher_is_named_under_gaps(partial):
    answer = outcome.return_object(partial)
    run_dir = Path(answer["plan"]).parent
    failed = (run_dir / formats.FINDINGS_DIR / "retention-tiers.md").read_text()
    assert "status: failed" in failed and "reason:" in failed
    gaps = _gaps(Path(answer["report"]))
    assert 'Subtopic "Retention tiers"' in gaps and "failed" in gaps, gaps
    # the researcher's reason stays in its findings file, which finish's line names (issue 43)
    assert "the search backend returned no usable page" in failed and "the search backend" not in gaps, gaps
    assert "findings/retention-tiers.md gives the researcher's reason" in gaps, gaps
    assert outcome.verify(run_dir).returncode == 0
    _written_by_finish(partial, 'Subtopic "Retention tiers"')


def _written_by_finish(result, bullet: str) -> None:
    """The model's report had no such bullet (SKILL.md leaves it to finish): finish wrote it."""
    report = Path(outcome.return_object(result)["report"])
    writes = [u["input"]["content"] for u in result.stream.tool_uses("Write", main_only=True)
              if u["input"]["file_path"] == str(report)]
    assert writes and not any(bullet in w for w in writes), writes
    assert bullet in report.read_text(encoding="utf-8")


def test_failed_researcher_is_not_blocked(partial):
    # It replied with a valid status and reason: nothing to insist on.
    assert partial.stream.blocks("SubagentStop") == [], partial.describe()
    assert partial.stream.blocks("Stop") == [], partial.describe()


def test_silent_researcher_is_blocked_once_and_dispatched_once_more(silent):
    # SKILL.md: `briefs`, run again once the researchers return, still lists a researcher that did
    # not finish; it gets one more researcher, and is a gap after that. Each is blocked once.
    blocks = silent.stream.blocks("SubagentStop")
    assert len(blocks) == 2, silent.describe()
    for block in blocks:
        reason = silent.stream.decision_of(block).get("reason", "") + str(block.get("stderr", ""))
        assert "findings/commitment-discounts.md" in reason, reason
    dispatched = [u["input"]["prompt"] for u in silent.stream.tool_uses("Agent", main_only=True)]
    assert sum("commitment-discounts" in p for p in dispatched) == 2, dispatched
    # The researcher saw the hook's feedback and still gave no findings.
    feedback = [r for r in silent.requests if r.kind == "subagent" and "commitment-discounts.md" in r.last_user_text
                and "hook" in r.last_user_text.lower()]
    assert feedback, "the researcher never received the SubagentStop feedback"
    # Once (issue 42): a JSON block reached it twice, as feedback and again as a hook error; and no
    # closest passage is pointed at when none is shown.
    for request in feedback:
        sent = json.dumps(request.messages[-3:])
        assert sent.count("Your findings are not usable yet") == 1, sent[-3000:]
        assert "closest passage" not in sent


def test_silent_failure_is_recorded_and_announced(silent):
    answer = outcome.return_object(silent)
    record = Path(answer["plan"]).parent / ".web-research" / "silent-failures.json"
    assert record.is_file(), "the hooks did not record the silent failure in the run folder"
    entries = json.loads(record.read_text())
    assert [e.get("slug") for e in entries] == ["commitment-discounts"] * 2, entries  # each attempt
    # Claude Code 2.1.328 does not surface a SubagentStop systemMessage in stream-json (Stop's it
    # does), so check what the hook emitted.
    emitted = "\n".join(silent.stream.hook_system_messages("SubagentStop"))
    assert "commitment-discounts" in emitted and "silent failure" in emitted, silent.describe()


def test_silent_failure_is_named_under_gaps(silent):
    answer = outcome.return_object(silent)
    run_dir = Path(answer["plan"]).parent
    # what is left is the stub the plugin wrote at its dispatch: failed, "did not finish"
    stub = (run_dir / formats.FINDINGS_DIR / "commitment-discounts.md").read_text(encoding="utf-8")
    assert "status: failed" in stub and formats.FINDINGS_STUB_REASON in stub
    gaps = _gaps(Path(answer["report"]))
    assert 'Subtopic "Commitment discounts"' in gaps and "its researcher did not complete it" in gaps, gaps
    assert formats.FINDINGS_STUB_REASON not in gaps, gaps
    assert outcome.verify(run_dir).returncode == 0
    _written_by_finish(silent, 'Subtopic "Commitment discounts"')
