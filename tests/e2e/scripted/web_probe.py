"""A session that checks the sandbox itself: the fake web and the isolation.

The main agent searches with WebSearch, reads a page with WebFetch (over TLS,
trusting the throwaway CA), and tries to open a connection to a real public
address from Bash, which must fail inside the private network namespace.
"""
from __future__ import annotations

from harness.scenario import Context, Page, Scenario, both, is_main, turn, webfetch_summarizer, websearch_backend
from harness.sse import call, say

PAGE_TEXT = "The probe page says the sandbox web answers over TLS."
ESCAPE = ("python3 -c \"import socket\ntry:\n    socket.create_connection(('1.1.1.1', 443), timeout=3)\n"
          "    print('ESCAPED')\nexcept OSError as e:\n    print('BLOCKED', e)\"")


def build(ctx: Context) -> Scenario:
    page = Page("/probe", "Probe page", PAGE_TEXT)
    s = Scenario(pages=[page])
    s.rules += [websearch_backend(lambda q: [(page.title, ctx.url(page.path))]), webfetch_summarizer()]
    s.add("load-web-tools", both(is_main, turn(0)), lambda r: call("ToolSearch", {"query": "select:WebSearch,WebFetch"}))
    s.add("search", both(is_main, turn(1)), lambda r: call("WebSearch", {"query": "sandbox probe"}))
    s.add("fetch", both(is_main, turn(2)), lambda r: call("WebFetch", {"url": ctx.url(page.path),
                                                                        "prompt": "Quote the page."}))
    s.add("escape", both(is_main, turn(3)), lambda r: call("Bash", {"command": ESCAPE,
                                                                     "description": "Try to reach the internet"}))
    s.add("done", both(is_main, turn(4)), lambda r: say("probe finished"))
    return s
