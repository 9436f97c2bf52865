"""What the pinned client (2.1.328) shows the model: the facts the orchestrator's flow rests on.

The plugin answers the orchestrator's steps with PostToolUse `additionalContext` (the briefs
after the plan's Write, coverage after the last researcher, `finish` after report.md's Write and
after the claim-checker), keeps what it prints within what the client shows, and lets the plan's
first Write go to a file that does not exist yet. A user hook (not the plugin) answers each
PostToolUse of a probe session with a context of known size; the tests read what reached the
model in the requests that followed.
"""
from __future__ import annotations

import json

import pytest

from harness import outcome
from harness.runner import RunSpec
from scripted.client_probe import EXISTING, LINE, LONG_LINES, MID

SIZES = {"Bash": 9_900, "Write": 10_100, "Agent": 2_000, "Edit": 100}
HOOK = ("import json, sys; p = json.load(sys.stdin); t = p['tool_name']; n = " + json.dumps(SIZES) + "[t]; "
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PostToolUse', 'additionalContext': "
        "'CTX-' + t + '-BEGIN ' + 'y' * n + ' CTX-' + t + '-END'}}))")
SETTINGS = {"hooks": {"PostToolUse": [{"matcher": "Bash|Write|Agent|Edit", "hooks": [
    {"type": "command", "command": "python3 -c " + json.dumps(HOOK)}]}]}}

SESSIONS = {"probe": lambda run: run(RunSpec(prompt="Probe the client.", scenario="scripted.client_probe:build",
                                             settings=SETTINGS))}


@pytest.fixture(scope="module")
def probe(e2e_session):
    return outcome.ended_cleanly(e2e_session("probe"))


def _texts(probe) -> list[str]:
    """Every message text of the last main request, tool results included, in order."""
    from harness.request_view import block_text
    req = [r for r in probe.requests if r.kind == "main"][-1]
    return [block_text(m.get("content")) for m in req.messages]


def _context(tool: str, size: int) -> str:
    return f"PostToolUse:{tool} hook additional context: CTX-{tool}-BEGIN " + "y" * size + f" CTX-{tool}-END"


def test_post_tool_use_context_reaches_the_model_whole_below_10000_characters(probe):
    """additionalContext after a Bash, Write or Agent call is a message of its own after the tool
    result, whole up to 10,000 characters."""
    texts = _texts(probe)
    for tool in ("Bash", "Agent"):
        assert any(_context(tool, SIZES[tool]) in t for t in texts), tool


def test_a_longer_context_is_put_in_a_file_and_only_previewed(probe):
    texts = [t for t in _texts(probe) if t.startswith("PostToolUse:Write hook additional context:")]
    assert texts and all("<persisted-output>" in t and "CTX-Write-END" not in t for t in texts), texts


def test_bash_output_over_about_30000_characters_is_put_in_a_file(probe):
    """A Bash result of 29,000 characters arrives whole; one of 40,000 is saved to a file and the
    model sees a preview of about 2,000 characters."""
    texts = _texts(probe)
    assert any(t.startswith("S\n" + "x" * MID + "\nE") for t in texts)
    (long,) = [t for t in texts if LINE in t]
    assert "<persisted-output>" in long and "Output too large" in long and "END" not in long
    assert len(long) < 2_500 < LONG_LINES * len(LINE)


def test_write_over_a_file_never_read_succeeds_though_the_tool_says_it_fails(probe):
    """The Write tool's description tells the model that overwriting a file it has not Read fails,
    so a model Reads first (a turn); the client does not enforce it. So the plugin never makes the
    model's first Write of a file overwrite one (start leaves plan.md for the model to create)."""
    (write,) = [t for t in probe.requests[0].body["tools"] if t["name"] == "Write"]
    assert "haven't Read will fail" in write["description"]
    uses = [u for u in probe.stream.tool_uses("Write") if u["input"]["file_path"].endswith(EXISTING)]
    assert uses and not outcome.tool_result_is_error(probe, uses[0]["id"])


def test_an_edit_after_the_file_changed_behind_the_model_succeeds_and_the_change_is_shown(probe):
    """A hook or command that rewrites a file (finish numbering report.md) costs the model no Read:
    its next Edit succeeds, and the client shows the changed lines."""
    (edit,) = probe.stream.tool_uses("Edit")
    assert not outcome.tool_result_is_error(probe, edit["id"])
    assert any("Here are the relevant changes" in t and "2\tchanged" in t for t in _texts(probe))
