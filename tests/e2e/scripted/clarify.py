"""Clarifying questions in print mode: asked in plain text at the review gate, answered in a
second turn (`--continue`), recorded under `## Scope notes` in plan.md.

The scripted orchestrator asks only because start's output says `clarify: true`, the
client offers no AskUserQuestion (print mode), and SKILL.md says to put the questions
after the plan and the estimate at the review gate.
"""
from __future__ import annotations

import re

from harness.request_view import RequestView
from harness.scenario import Context, Page, Rule, Scenario, is_main, webfetch_summarizer, websearch_backend
from harness.sse import Reply, call, say
from scripted import checker
from scripted.conversation import bash, hook_feedback, last_calls
from scripted.orchestrator import Orchestrator
from scripted.prompt_text import PromptError, core_command
from scripted.research import researcher_marker
from scripted.researcher import Researcher
from scripted.topics import DEFAULT_SUBTOPICS, Subtopic

from web_research import formats

QUESTIONS = ["Which region should the research cover?", "Which company size should the prices fit?"]
ANSWERS = ["Region: the EU only.", "Audience: teams of 50 to 200 engineers."]
USER_ANSWER = "1. The EU only. 2. Teams of 50 to 200 engineers."
USER_CONFIRMS = "The plan is fine now: go ahead."
# SKILL.md's review gate: questions that could not be asked go after the plan and the estimate.
GATE_RULE = re.compile(r"then any clarifying questions you could not ask before")
CLARIFY_RULE = re.compile(r"If `clarify` is `true` and the question leaves scope, timeframe, region or audience open")


class ClarifyingOrchestrator(Orchestrator):
    def step(self, req: RequestView) -> Reply:
        if hook_feedback(req) is None and not last_calls(req) and USER_ANSWER in req.last_user_text:
            return self.record_answers(req)
        if hook_feedback(req) is None and not last_calls(req) and USER_CONFIRMS in req.last_user_text:
            return bash(core_command(self.body(req), "briefs", self.run(req)["output_dir"]),
                        "Render the researcher briefs")
        return super().step(req)

    def after_estimate(self, req: RequestView, text: str) -> Reply:
        run = self.run(req)
        with open(run["plan"], encoding="utf-8") as fh:
            plan = fh.read()
        shown = (f"The research plan is ready for review at {run['plan']}:\n\n{plan}\n"
                 f"What it may spend:\n\n{text.strip()}\n\n")
        if f"## {formats.PLAN_SECTION_SCOPE_NOTES}" in plan:
            return say(shown + "Confirm it, ask for changes, or stop the run.")
        body = " ".join(self.body(req).split())
        if not (run.get("clarify") and CLARIFY_RULE.search(body) and GATE_RULE.search(body)):
            raise PromptError("start did not allow clarifying questions, or SKILL.md no longer says how to ask them")
        if "AskUserQuestion" in req.tool_names:
            raise PromptError("AskUserQuestion is offered: the questions belong in one AskUserQuestion call")
        asked = "\n".join(f"{n}. {q}" for n, q in enumerate(QUESTIONS, start=1))
        return say(shown + f"Before the research starts, please answer:\n{asked}\n\n"
                   "Then confirm the plan, ask for changes, or stop the run.")

    def record_answers(self, req: RequestView) -> Reply:
        """clarifying-questions.md: the answers go under `## Scope notes`, the question stays verbatim."""
        run = self.run(req)
        with open(run["plan"], encoding="utf-8") as fh:
            plan = fh.read()
        notes = "\n".join(f"- {a}" for a in ANSWERS)
        heading = f"## {formats.PLAN_SECTION_SUBTOPICS}\n"
        return call("Write", {"file_path": run["plan"], "content": plan.replace(
            heading, f"## {formats.PLAN_SECTION_SCOPE_NOTES}\n\n{notes}\n\n{heading}", 1)})


def build(ctx: Context) -> Scenario:
    topics = [Subtopic(**s) for s in DEFAULT_SUBTOPICS]
    pages = [Page(f"/docs/{t.slug}", f"{t.name} | Example Docs",
                  f"{t.fact()}\n\nThis page is maintained by the example vendor.") for t in topics]
    return Scenario([
        websearch_backend(lambda query: [(p.title, ctx.url(p.path)) for p in pages
                                         if any(w.lower() in p.title.lower() for w in query.split())]),
        webfetch_summarizer(),
        Rule("researcher", lambda req: req.is_agent(researcher_marker(ctx.plugin_root)), Researcher(ctx, topics).step),
        Rule("claim-checker", lambda req: req.is_agent(checker.checker_marker(ctx.plugin_root)), checker.step),
        Rule("orchestrator", is_main, ClarifyingOrchestrator(ctx, topics, "good", 0).step),
    ], pages)
