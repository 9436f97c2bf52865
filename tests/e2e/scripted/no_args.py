"""The user types "research X" and the model opens the skill through the Skill tool
without `args`: the skill body arrives with an empty heredoc in its start command.
The research script then follows SKILL.md, which says to put the user's question there.
"""
from __future__ import annotations

from harness.request_view import RequestView
from harness.scenario import Context, Rule, Scenario, is_main
from harness.sse import Reply, call
from scripted import research

SKILL = "web-research:web-research"


def build(ctx: Context) -> Scenario:
    scenario = research.build(ctx)

    def first_turn(req: RequestView) -> bool:
        return is_main(req) and not req.previous_calls()

    def open_skill(req: RequestView) -> Reply:
        return call("Skill", {"skill": SKILL})

    scenario.rules.insert(0, Rule("opens-skill-without-args", first_turn, open_skill))
    return scenario
