"""A run cut off after two researchers finished, and the same run resumed in a new session.

`build(ctx, phase="interrupted")`: the normal scripted run, except that the researcher
of the last subtopic writes its stub and then never hears back from the model: its
request waits until the hooks have sealed the other two findings files, then kills
the client (SIGKILL to its process group, as a crash or a closed terminal would), so
the session dies while two findings files are done and sealed. `build(ctx, phase="resumed")`: the orchestrator runs the
skill with `--resume DIR`, dispatches exactly the briefs `start` lists, and goes on
to the report and verify as SKILL.md says.
"""
from __future__ import annotations

import json
import os
import re
import signal
import time
from typing import Any

from harness.request_view import RequestView
from harness.scenario import Context, Page, Rule, Scenario, is_main, webfetch_summarizer, websearch_backend
from harness.sse import Reply, calls, say
from scripted import checker
from scripted.conversation import result_for
from scripted.orchestrator import Orchestrator
from scripted.prompt_text import PromptError, brief_line, json_in
from scripted.research import researcher_marker
from scripted.researcher import Researcher
from scripted.topics import DEFAULT_SUBTOPICS, Subtopic, original_name

from web_research import formats

HANG_SECONDS = 900  # longer than any session: the client is dead long before
SEALED_WAIT_SECONDS = 120
# SKILL.md's rule that sends a resumed run to references/resume.md.
RESUME_RULE = re.compile(r"With a `resume` key, go on as \[resume\.md\]")


class HangingResearcher(Researcher):
    """The last subtopic's researcher (whose stub the plugin wrote at dispatch) never returns
    from its first request."""

    def __init__(self, ctx: Context, topics: list[Subtopic], hang: str):
        super().__init__(ctx, topics)
        self.hang = hang

    def step(self, req: RequestView) -> Reply:
        name = original_name(brief_line(req.first_user_text, "Your subtopic:"))
        if name == self.hang and not req.previous_calls():
            run_dir = brief_line(req.first_user_text, "Run folder:")
            others = [f"{formats.FINDINGS_DIR}/{t.slug}.md" for t in self.topics.values() if t.name != self.hang]
            _wait_until_sealed(run_dir, others)
            _kill_client()
            time.sleep(HANG_SECONDS)
            return say("too late")
        return super().step(req)


def _wait_until_sealed(run_dir: str, paths: list[str]) -> None:
    """Until the hooks' folder copy of the seals lists every path (their SubagentStop ran)."""
    deadline = time.monotonic() + SEALED_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            with open(os.path.join(run_dir, formats.RUN_STATE_DIR, "seals.json"), encoding="utf-8") as fh:
                sealed = json.load(fh).get("seals", {})
        except (OSError, ValueError):
            sealed = {}
        if all(p in sealed for p in paths):
            return
        time.sleep(0.2)
    raise PromptError(f"the other researchers' findings were not sealed within {SEALED_WAIT_SECONDS} s")


def _kill_client() -> None:
    """SIGKILL the Claude Code process this fake API serves: the child of this process
    (harness/inside.py starts it in a session of its own, so its group goes with it)."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                stat = fh.read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == me:
            os.killpg(int(entry), signal.SIGKILL)


class ResumingOrchestrator(Orchestrator):
    """The main agent of the second session: SKILL.md's start, then resume.md."""

    def after_start(self, req: RequestView) -> Reply:
        result = result_for(req, "Bash")
        value = json_in(result.text) if result else {}
        if "error" in value or "resume" not in value:
            return super().after_start(req)
        if not RESUME_RULE.search(" ".join(self.body(req).split())):
            raise PromptError("SKILL.md no longer says what to do with start's `resume` output")
        if not value["resume"]["approved"]:
            raise PromptError(f"the interrupted run's plan was not approved: {value['resume']}")
        return calls(*[("Agent", {"description": b["subtopic"], "subagent_type": formats.RESEARCHER_SUBAGENT_TYPE,
                                  "run_in_background": False,
                                  "prompt": f"{formats.DISPATCH_BRIEF_LABEL} {b['brief_path']}"})
                       for b in value["briefs"]])

    def briefs(self, req: RequestView) -> list[dict[str, Any]]:
        """Every subtopic of the resumed run: the kept ones and those dispatched again."""
        run = self.run(req)
        if "resume" not in run:
            return super().briefs(req)
        by_slug = {t.slug: t.name for t in self.topics}
        dispatched = {os.path.basename(b["brief_path"])[:-len(".md")]: b for b in run["briefs"]}
        return [dispatched.get(slug) or {"subtopic": by_slug[slug],
                                         "findings_path": f"{run['findings_dir']}{slug}.md"}
                for slug in [t.slug for t in self.topics] if slug in dispatched or slug in run["resume"]["keep"]]


def build(ctx: Context, phase: str = "interrupted") -> Scenario:
    topics = [Subtopic(**s) for s in DEFAULT_SUBTOPICS]
    pages = [Page(f"/docs/{t.slug}", f"{t.name} | Example Docs",
                  f"{t.fact()}\n\nThis page is maintained by the example vendor.") for t in topics]
    marker = researcher_marker(ctx.plugin_root)
    if phase == "interrupted":
        orchestrator: Orchestrator = Orchestrator(ctx, topics, "good", 0)
        researcher: Researcher = HangingResearcher(ctx, topics, topics[-1].name)
    else:
        orchestrator = ResumingOrchestrator(ctx, topics, "good", 0)
        researcher = Researcher(ctx, topics)
    return Scenario([
        websearch_backend(lambda query: [(p.title, ctx.url(p.path)) for p in pages
                                         if any(w.lower() in p.title.lower() for w in query.split())]),
        webfetch_summarizer(),
        Rule("researcher", lambda req: req.is_agent(marker), researcher.step),
        Rule("claim-checker", lambda req: req.is_agent(checker.checker_marker(ctx.plugin_root)), checker.step),
        Rule("orchestrator", is_main, orchestrator.step),
    ], pages)

