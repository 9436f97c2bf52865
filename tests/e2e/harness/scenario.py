"""Scenarios: ordered rules that play a scripted conversation.

A rule pairs a predicate on the request (main agent or which subagent, turn
number, which tool result just came back) with a responder that builds the
reply. The first matching rule answers. A request no rule matches is logged as
unscripted and answered with a short end_turn, so the run ends quickly and the
test fails with the request in hand instead of hanging.

Responders may raise; the error is recorded (and shown by the test) and the
CLI gets an end_turn, for the same reason.
"""
from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from .request_view import WEBSEARCH_PREFIX, RequestView
from .sse import Reply, say

Predicate = Callable[[RequestView], bool]
Responder = Callable[[RequestView], Reply]


@dataclass
class Rule:
    name: str
    when: Predicate
    reply: Responder


@dataclass
class Page:
    """A web page the TLS server serves at `path`."""

    path: str
    title: str
    body_text: str

    def html(self) -> str:
        paragraphs = "".join(f"<p>{p}</p>" for p in self.body_text.split("\n\n"))
        return (f"<!doctype html><html><head><meta charset='utf-8'><title>{self.title}</title></head>"
                f"<body><main><h1>{self.title}</h1>{paragraphs}</main></body></html>")


@dataclass
class Context:
    """What a scenario knows about its sandbox once the servers are listening."""

    pages_origin: str  # e.g. https://docs.example.test:41234 (203.0.114.10 in the sandbox)
    cwd: str
    home: str
    plugin_root: str
    extra: dict[str, Any] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return self.pages_origin + path


class Scenario:
    def __init__(self, rules: list[Rule] | None = None, pages: list[Page] | None = None):
        self.rules: list[Rule] = list(rules or [])
        self.pages: dict[str, Page] = {p.path: p for p in pages or []}
        self.matched: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def add(self, name: str, when: Predicate, reply: Responder) -> "Scenario":
        self.rules.append(Rule(name, when, reply))
        return self

    def respond(self, req: RequestView) -> Reply:
        for rule in self.rules:
            try:
                hit = rule.when(req)
            except Exception:  # a broken predicate is a test bug: record it, keep looking
                self._record_error(req, rule.name, traceback.format_exc())
                continue
            if not hit:
                continue
            try:
                reply = rule.reply(req)
            except Exception:
                self._record_error(req, rule.name, traceback.format_exc())
                return say("[fake model] responder failed; see the scenario errors.")
            with self._lock:
                self.matched.append({**req.summary(), "rule": rule.name,
                                     "calls": [b.get("name") for b in reply.tool_uses()]})
            return reply
        self._record_error(req, None, "no rule matched")
        return say("[fake model] unscripted request.")

    def _record_error(self, req: RequestView, rule: str | None, error: str) -> None:
        with self._lock:
            self.errors.append({**req.summary(), "rule": rule, "error": error,
                                "last_user_text": req.last_user_text[-2000:]})


# --- predicates ------------------------------------------------------------
def is_main(req: RequestView) -> bool:
    return req.kind == "main"


def is_websearch(req: RequestView) -> bool:
    return req.kind == "websearch"


def is_webfetch(req: RequestView) -> bool:
    return req.kind == "webfetch"


def agent(system_marker: str) -> Predicate:
    return lambda req: req.is_agent(system_marker)


def turn(n: int) -> Predicate:
    return lambda req: req.turn == n


def both(*preds: Predicate) -> Predicate:
    return lambda req: all(p(req) for p in preds)


def last_result_from(tool_name: str) -> Predicate:
    return lambda req: any(r.name == tool_name for r in req.last_tool_results())


# --- the CLI's own helper calls ---------------------------------------------
def websearch_backend(results: Callable[[str], list[tuple[str, str]]]) -> Rule:
    """Answer the CLI's WebSearch backend call with a server_tool_use block, a
    web_search_tool_result listing `results(query)` as (title, url) pairs, and a
    one-line text, exactly the shape the real API returns."""
    from .sse import next_id, text_block

    def reply(req: RequestView) -> Reply:
        text = req.first_user_text
        query = text.split(WEBSEARCH_PREFIX, 1)[-1].strip()
        tool_id = next_id("srvtoolu")
        items = [{"type": "web_search_result", "url": url, "title": title,
                  "encrypted_content": "e2e", "page_age": None} for title, url in results(query)]
        return Reply([
            {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": query}},
            {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": items},
            text_block(f"Found {len(items)} results for: {query}"),
        ], "end_turn", usage={"server_tool_use": {"web_search_requests": 1}})

    return Rule("websearch-backend", is_websearch, reply)


def webfetch_summarizer() -> Rule:
    """Answer WebFetch's summarising call by quoting the page text back, so the
    tool result a researcher sees is traceable to the page it fetched."""

    def reply(req: RequestView) -> Reply:
        text = req.first_user_text
        page = text.split("---", 2)[1] if text.count("---") >= 2 else text
        return say("Page says: " + " ".join(page.split())[:1500])

    return Rule("webfetch-summarizer", is_webfetch, reply)
