"""Server-sent events in the shape the Messages API streams them.

The CLI only ever asks for `stream: true`, so every scripted reply has to be
turned into the event sequence the Anthropic SDK parses: message_start, one
start/delta/stop triple per content block, message_delta with the stop
reason, message_stop. Keeping this separate from the server makes the wire
format testable and the scenarios free of wire details.
"""
from __future__ import annotations

import itertools
import secrets
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Iterator

MODEL = "claude-opus-5-5"
OUTPUT_TOKENS = 10  # what every scripted reply reports as its output (tests compare metrics to it)

_ids = itertools.count(1)
_ids_lock = threading.Lock()
# Differs per session: a session that continues another (`--continue`) carries the earlier
# session's tool_use ids in its history, and the client mangles a history with repeated ids.
_SESSION_TAG = secrets.token_hex(4)


def next_id(prefix: str) -> str:
    """Unique ids: parallel subagents, and sessions continuing one another, never share a tool_use id."""
    with _ids_lock:
        return f"{prefix}_e2e_{_SESSION_TAG}_{next(_ids):05d}"


@dataclass
class Reply:
    """One assistant message: its content blocks and why it stopped."""

    blocks: list[dict[str, Any]]
    stop_reason: str = "end_turn"
    usage: dict[str, Any] = field(default_factory=dict)

    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.blocks if b.get("type") == "tool_use"]


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use_block(name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": next_id("toolu"), "name": name, "input": tool_input}


def say(text: str) -> Reply:
    """A final answer: text, then end_turn."""
    return Reply([text_block(text)], "end_turn")


def call(name: str, tool_input: dict[str, Any], *, text: str | None = None) -> Reply:
    """One tool call (optionally preceded by a line of text)."""
    blocks = [text_block(text)] if text else []
    blocks.append(tool_use_block(name, tool_input))
    return Reply(blocks, "tool_use")


def calls(*named_inputs: tuple[str, dict[str, Any]]) -> Reply:
    """Several tool calls in ONE assistant message (the CLI runs Agent calls concurrently)."""
    return Reply([tool_use_block(n, i) for n, i in named_inputs], "tool_use")


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _chunks(text: str, size: int = 400) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)] or [""]


def encode(reply: Reply, *, input_tokens: int = 100) -> Iterator[bytes]:
    """Yield the SSE events of `reply`, streaming text and tool input in pieces
    so that the client's incremental parsing is exercised as with the real API."""
    yield _event("message_start", {
        "type": "message_start",
        "message": {
            "id": next_id("msg"), "type": "message", "role": "assistant", "model": MODEL,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        },
    })
    for index, block in enumerate(reply.blocks):
        kind = block["type"]
        if kind == "text":
            yield _event("content_block_start", {"type": "content_block_start", "index": index,
                                                 "content_block": {"type": "text", "text": ""}})
            for piece in _chunks(block["text"]):
                yield _event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                     "delta": {"type": "text_delta", "text": piece}})
        elif kind in ("tool_use", "server_tool_use"):
            start = {k: v for k, v in block.items() if k != "input"}
            start["input"] = {}
            yield _event("content_block_start", {"type": "content_block_start", "index": index,
                                                 "content_block": start})
            for piece in _chunks(json.dumps(block["input"])):
                yield _event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                     "delta": {"type": "input_json_delta",
                                                               "partial_json": piece}})
        else:  # result blocks (web_search_tool_result) arrive whole
            yield _event("content_block_start", {"type": "content_block_start", "index": index,
                                                 "content_block": block})
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    usage = {"output_tokens": OUTPUT_TOKENS, **reply.usage}
    yield _event("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                                   "usage": usage})
    yield _event("message_stop", {"type": "message_stop"})
