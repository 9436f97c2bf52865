"""Scenario 8: WebSearch denied by settings (`permissions.deny`).

The client drops a denied tool from the deferred-tool listing, so the skill's
step 0 (ToolSearch `select:WebSearch,WebFetch`) finds it absent: the answer is
`web-tools-unavailable` (printed by the `unavailable` command) and nothing is
written, not even plan.md.
"""
from __future__ import annotations

import pytest

from harness import outcome
from harness.runner import RunSpec

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"

SESSIONS = {"denied": lambda run: run(RunSpec(prompt=f"/web-research --auto {QUESTION}",
                                               scenario="scripted.research:build",
                                               settings={"permissions": {"deny": ["WebSearch"]}}))}


@pytest.fixture(scope="module")
def run(e2e_session):
    result = e2e_session("denied")
    outcome.ended_cleanly(result)
    return result


def test_answer_is_web_tools_unavailable(run):
    answer = outcome.final_json(run)
    assert answer == {"error": formats.ERROR_WEB_TOOLS_UNAVAILABLE, "detail": "missing: WebSearch"}


def test_nothing_is_written(run):
    assert outcome.tree_bytes(run.cwd) == {}
    # the one command is SKILL.md's `unavailable`, which printed the answer
    assert [u["input"]["command"].split()[-2:] for u in run.stream.tool_uses("Bash")] == [["unavailable", "WebSearch"]]
    assert run.stream.tool_uses("Write") == []
    data = run.home / ".claude" / "plugins" / "data"
    # Running the command leaves only the launcher's interpreter pointer (env/) and an empty hook
    # log: no session record, no ledger
    recorded = {name: content for name, content in outcome.tree_bytes(data).items()
                if "/env/" not in name and not (name.endswith("/logs/hooks.log") and content == b"")}
    assert recorded == {}, "hooks recorded a run that never started"


def test_websearch_really_was_hidden_from_the_model(run):
    first = run.requests[0]
    assert "WebSearch" not in first.tool_names
    assert "\nWebSearch\n" not in first.all_text()
