"""ToolResult.agent_reply: the subagent's reply read from an Agent call's result, in the shape
the pinned client returns it (tests/fixtures/agent-results.json, recorded from the real CLI), and
nothing from any other shape."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from hook_harness import AGENT_RESULTS
from web_research.guard.events import ToolResult


def returned(response: Any) -> ToolResult:
    return ToolResult("PostToolUse", "s", tool="Agent", tool_input={}, tool_use_id="toolu_1", response=response)


def case(name: str) -> dict[str, Any]:
    return copy.deepcopy(next(c for c in AGENT_RESULTS if c["case"] == name))


@pytest.mark.parametrize("name", ["researcher", "researcher-blocked-once", "checker"])
def test_the_recorded_result_gives_the_last_reply_whole(name):
    recorded = case(name)
    assert returned(recorded["payload"]["tool_response"]).agent_reply == recorded["reply"]


def test_the_clients_note_is_not_part_of_the_reply():
    response = case("researcher")["payload"]["tool_response"]
    note = response["content"][0]["text"]
    assert response["harnessNoteCount"] == 1 and note.startswith("<tools-used-before-summary>")
    reply = returned(response).agent_reply
    assert reply is not None and reply.startswith("---\nstatus: ok\n") and note not in reply


def _changed(change) -> dict[str, Any]:
    response = case("researcher")["payload"]["tool_response"]
    change(response)
    return response


@pytest.mark.parametrize("response", [
    None,
    "a string",
    {"isAsync": True, "status": "async_launched", "agentId": "a1"},  # a background launch
    _changed(lambda r: r.update(status="failed")),
    _changed(lambda r: r.pop("harnessNoteCount")),
    _changed(lambda r: r.pop("harnessTailCount")),
    _changed(lambda r: r.update(harnessNoteCount="1")),
    _changed(lambda r: r.update(harnessNoteCount=True)),
    _changed(lambda r: r.update(harnessNoteCount=-1)),
    _changed(lambda r: r.update(harnessNoteCount=2)),  # nothing left between the notes and the tail
    _changed(lambda r: r.update(harnessTailCount=1)),
    _changed(lambda r: r.update(content="---\nstatus: ok\n---\n")),
    _changed(lambda r: r["content"].append({"type": "image", "source": {}})),
    _changed(lambda r: r["content"][1].update(text=None)),
], ids=lambda r: str(r)[:40])
def test_any_other_shape_gives_no_reply(response):
    assert returned(response).agent_reply is None


def test_a_tail_block_is_not_part_of_the_reply():
    response = _changed(lambda r: (r["content"].append({"type": "text", "text": "tail"}), r.update(harnessTailCount=1)))
    assert returned(response).agent_reply == case("researcher")["reply"]
