"""A scripted research run: the orchestrator (main agent) and the researchers.

`build()` is the scenario factory the sandbox loads. Which faults to inject (a
failed, silent or stray researcher, extra dispatches, a broken report) comes
in through its keyword arguments; the behaviour lives in orchestrator.py and
researcher.py, the reading of prompts in prompt_text.py.
"""
from __future__ import annotations

from harness.scenario import Context, Page, Rule, Scenario, is_main, webfetch_summarizer, websearch_backend
from scripted import checker
from scripted.orchestrator import Orchestrator
from scripted.researcher import Researcher
from scripted.topics import DEFAULT_SUBTOPICS, Subtopic

from web_research import formats

__all__ = ["DEFAULT_SUBTOPICS", "build", "topic_pages"]


def researcher_marker(plugin_root: str) -> str:
    """A line of agents/researcher.md's body: present in every researcher request's system prompt."""
    text = open(f"{plugin_root}/agents/{formats.RESEARCHER_AGENT}.md", encoding="utf-8").read()
    body = text.split("---", 2)[2] if text.startswith("---") else text
    return next(line for line in body.splitlines() if line.strip())


def topic_pages(topics: list[Subtopic]) -> list[Page]:
    """The fake web of a scripted run: one page per subtopic, stating its fact."""
    return [Page(f"/docs/{t.slug}", f"{t.name} | Example Docs", t.page_text()) for t in topics]


def build(ctx: Context, subtopics: list[dict] | None = None, report: str = "good",
          extra_dispatches: int = 0, second_wave: list[dict] | None = None,
          budget_lines: list[str] | None = None, own_search: bool = False,
          lapses: bool = False, redispatch: bool = False, reenter: bool = False) -> Scenario:
    """report: good | broken-then-fixed | broken-forever | drifted-then-fixed | forged (an
    intruder: the orchestrator tries to rewrite a snapshot and the excerpt quoting it, to leave
    background jobs, to write into the plugin's folder and to dispatch a general-purpose agent;
    each is denied, then it finishes the run) | abandoned (a broken report, then `abandon`
    instead of fixing it) | overclaimed-then-fixed (a claim says more than its excerpt; the claim
    check finds it, the Stop gate holds it, the orchestrator rewrites it) | lapsed (the report
    cites its references out of order, writes a Sources section by hand anyway, and the final
    message wraps finish's object in prose) | uncited-then-cited (a TL;DR bullet states the first
    claim's figure without a reference; finish names it, the orchestrator cites it and finishes again) |
    drifted-then-edited (the first claim's figure drifts; finish's answer quotes the failing lines and
    the orchestrator fixes them with Edits written from those quotes alone, then finishes, in one message).
    second_wave: the subtopics the orchestrator appends as plan.md's `## Second wave` when
    `gaps` leaves bullets uncovered and the tier allows it (their `establish` items are
    `<bullet id>: <angle>`).
    redispatch: the orchestrator dispatches the first brief again after its findings are sealed ok.
    reenter: then it tries to re-enter that brief's returned researcher (Agent with `resume`, then
    SendMessage).
    The plan keeps start's `Tier:` line (SKILL.md; the tier is the person's), so every run of the
    default tier ends with a claim check."""
    topics = [Subtopic(**s) for s in (subtopics or DEFAULT_SUBTOPICS)]
    follow_up = [Subtopic(**s) for s in (second_wave or [])]
    pages = topic_pages(topics + follow_up)
    marker = researcher_marker(ctx.plugin_root)
    checker_marker = checker.checker_marker(ctx.plugin_root)
    orchestrator = Orchestrator(ctx, topics, report, extra_dispatches, follow_up, budget_lines, own_search,
                                lapses, redispatch, reenter)
    researcher = Researcher(ctx, topics + follow_up)
    return Scenario([
        websearch_backend(lambda query: [(p.title, ctx.url(p.path)) for p in pages
                                         if any(w.lower() in p.title.lower() for w in query.split())]),
        webfetch_summarizer(),
        Rule("researcher", lambda req: req.is_agent(marker), researcher.step),
        Rule("claim-checker", lambda req: req.is_agent(checker_marker), checker.step),
        Rule("orchestrator", is_main, orchestrator.step),
    ], pages)
