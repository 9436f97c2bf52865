"""The scripted claim-checker: reads its prompt, judges each claim, writes one verdicts file.

Everything it needs (the claim keys, their text, the verdicts file) is read from
the prompt the CLI delivered, i.e. what `claims --prompt` printed and the hooks
accepted. It finds a claim unsupported when it states OVERCLAIM, the words the
scripted orchestrator adds to a claim that no excerpt says.
"""
from __future__ import annotations

import json
import re

from harness.request_view import RequestView
from harness.sse import Reply, call, say
from scripted.prompt_text import PromptError, brief_line

from web_research import formats

OVERCLAIM = "the lowest price any vendor offers"


def checker_marker(plugin_root: str) -> str:
    """A line of agents/claim-checker.md's body: present in every checker request's system prompt."""
    text = open(f"{plugin_root}/agents/{formats.CHECKER_AGENT}.md", encoding="utf-8").read()
    body = text.split("---", 2)[2] if text.startswith("---") else text
    return next(line for line in body.splitlines() if line.strip())


def step(req: RequestView) -> Reply:
    prompt = req.first_user_text
    path = brief_line(prompt, "Verdicts file:")
    if [c["name"] for c in req.previous_calls()]:
        return say(path)
    claims = re.findall(r"^## Claim ([0-9a-f]{16}) .*\nClaim: (.*)$", prompt, re.M)
    if not claims:
        raise PromptError(f"the checker's prompt lists no claims:\n{prompt[:1500]}")
    verdicts = [{"claim": key, "verdict": "unsupported" if OVERCLAIM in text else "supported",
                 "reason": "no excerpt says it is the lowest price" if OVERCLAIM in text else "the excerpt states it"}
                for key, text in claims]
    return call("Write", {"file_path": path, "content": json.dumps({"verdicts": verdicts}, indent=2)})
