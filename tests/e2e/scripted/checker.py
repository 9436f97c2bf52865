"""The scripted claim-checker: reads its numbered prompt, answers one line per claim.

Everything it needs (the claims and their numbers) is read from the prompt the CLI
delivered, i.e. what the hook put in place of the orchestrator's `Check: <output_dir>`.
It finds a claim unsupported when it states OVERCLAIM, the words the scripted
orchestrator adds to a claim that no excerpt says. A statement of absence (a Gaps line saying the
pages read do not state something, shown with the closest passages of the run's stored pages) it
finds unsupported when a passage shown under it holds every longer word of what the statement says
is missing (each word's first six letters), and supported otherwise: it answers from what it is shown. Its reasons quote the claim's words
inside double quotes, as a real model does, and its answer comes after a line of prose:
neither may break the answer the hook reads.
"""
from __future__ import annotations

import re

from harness.request_view import RequestView
from harness.sse import Reply, say
from scripted.prompt_text import PromptError

from web_research import formats

OVERCLAIM = "the lowest price any vendor offers"


def checker_marker(plugin_root: str) -> str:
    """A line of agents/claim-checker.md's body: present in every checker request's system prompt."""
    text = open(f"{plugin_root}/agents/{formats.CHECKER_AGENT}.md", encoding="utf-8").read()
    body = text.split("---", 2)[2] if text.startswith("---") else text
    return next(line for line in body.splitlines() if line.strip())


def step(req: RequestView) -> Reply:
    prompt = req.first_user_text
    if req.tool_names:
        raise PromptError(f"the claim-checker was given tools: {req.tool_names}")
    claims = re.findall(r"^## Claim (\d+) .*\nClaim: (.*)$", prompt, re.M)
    absences = re.findall(r"^## Claim (\d+) .*: a statement of absence\nStatement: (.*)\n((?:Passage.*\n?)*)", prompt, re.M)
    if not claims and not absences:
        raise PromptError(f"the checker's prompt lists no numbered claims:\n{prompt[:1500]}")
    lines = ["Here are my verdicts."]
    for number, statement, passages in absences:
        what = re.split(r"\b(?:do not|does not)\s+\w+\s+|^No page read \w+\s+", statement, maxsplit=1)[-1]
        stems = {w[:6].lower() for w in re.findall(r"[A-Za-z]{5,}", what)}
        shown = [line for line in passages.splitlines() if line.startswith("Passage ")]
        hit = next((n for n, line in enumerate(shown, 1) if stems and all(s in line.lower() for s in stems)), None)
        lines.append(f'{number} {formats.VERDICT_UNSUPPORTED}: passage {hit} says "{" ".join(sorted(stems))}"' if hit
                     else f'{number} {formats.VERDICT_SUPPORTED}: no passage shown holds "{" ".join(sorted(stems))}"')
    for number, text in claims:
        if OVERCLAIM in text:
            lines.append(f'{number} {formats.VERDICT_UNSUPPORTED}: no excerpt says "{OVERCLAIM}"')
        else:
            lines.append(f'{number} {formats.VERDICT_SUPPORTED}: the excerpt states "{" ".join(text.split()[:4])}"')
    return say("\n".join([lines[0], *sorted(lines[1:], key=lambda line: int(line.split(" ", 1)[0]))]))
