"""A sibling skill calling web-research through the Skill tool.

The first turn reads the YAML arguments from the sibling skill's body as the
CLI delivered it (its `$ARGUMENTS` already filled in) and passes them to the
Skill tool; from then on the research script plays the orchestrator.
"""
from __future__ import annotations

import re

from harness.request_view import RequestView
from harness.scenario import Context, Rule, Scenario, is_main
from harness.sse import Reply, call
from scripted import research
from scripted.prompt_text import PromptError, skill_body

SKILL = "web-research:web-research"


def contract_args(req: RequestView) -> str:
    body = skill_body(req, "/skills/gather-evidence")
    match = re.search(r"```yaml\n(.*?)```", body, re.S)
    if match is None:
        raise PromptError("the sibling skill body has no yaml block")
    return match.group(1)


def build(ctx: Context) -> Scenario:
    scenario = research.build(ctx)

    def first_turn(req: RequestView) -> bool:
        return is_main(req) and not req.previous_calls()

    def call_skill(req: RequestView) -> Reply:
        return call("Skill", {"skill": SKILL, "args": contract_args(req)})

    scenario.rules.insert(0, Rule("sibling-calls-skill", first_turn, call_skill))
    return scenario
