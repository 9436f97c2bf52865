"""A scripted research run: the orchestrator (main agent) and the researchers.

The orchestrator follows SKILL.md step by step, deciding each turn from what
the last tool call returned, so the same script serves every scenario: the
normal run, the review gate, refusals, hook denials and hook feedback. Which
faults to inject (a failed or silent researcher, extra dispatches, a broken
report) comes in through `build()`'s keyword arguments.

All command lines come from the skill body in the request, all brief facts
(findings path, fetch command, frontmatter fields, brief hash) from the
researcher's first message; see prompt_text.py.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from harness.request_view import RequestView, ToolResult
from harness.scenario import Context, Page, Rule, Scenario, is_main, webfetch_summarizer, websearch_backend
from harness.sse import Reply, call, calls, say
from scripted.prompt_text import (PromptError, brief_frontmatter_fields, brief_line, core_command,
                                  json_in, read_tool_text, skill_body)

from web_research import formats
from web_research.slug import slugify



@dataclass
class Subtopic:
    name: str
    establish: list[str]
    behaviour: str = "ok"  # ok | failed | silent | stray (first tries to write and run outside its scope)

    @property
    def slug(self) -> str:
        return slugify(self.name)

    def fact(self) -> str:
        return f"The {self.name.lower()} figure published for 2026 is {len(self.name) * 3} units per month."


DEFAULT_SUBTOPICS = [
    {"name": "Billing units", "establish": ["Which unit each vendor bills log ingestion by"]},
    {"name": "Retention tiers", "establish": ["How retention length changes the price per GB"]},
    {"name": "Commitment discounts", "establish": ["What discount a committed annual volume earns"]},
]


def researcher_marker(plugin_root: str) -> str:
    """A line of agents/researcher.md's body: present in every researcher request's system prompt."""
    text = open(f"{plugin_root}/agents/{formats.RESEARCHER_AGENT}.md", encoding="utf-8").read()
    body = text.split("---", 2)[2] if text.startswith("---") else text
    return next(line for line in body.splitlines() if line.strip())


def build(ctx: Context, subtopics: list[dict] | None = None, report: str = "good",
          extra_dispatches: int = 0) -> Scenario:
    """report: good | broken-then-fixed | broken-forever."""
    topics = [Subtopic(**s) for s in (subtopics or DEFAULT_SUBTOPICS)]
    pages = [Page(f"/docs/{t.slug}", f"{t.name} | Example Docs",
                  f"{t.fact()}\n\nThis page is maintained by the example vendor.") for t in topics]
    marker = researcher_marker(ctx.plugin_root)
    orchestrator = Orchestrator(ctx, topics, report, extra_dispatches)
    researcher = Researcher(ctx, topics)
    return Scenario([
        websearch_backend(lambda query: [(p.title, ctx.url(p.path)) for p in pages
                                         if any(w.lower() in p.title.lower() for w in query.split())]),
        webfetch_summarizer(),
        Rule("researcher", lambda req: req.is_agent(marker), researcher.step),
        Rule("orchestrator", is_main, orchestrator.step),
    ], pages)


# --- helpers -------------------------------------------------------------------
def _last_calls(req: RequestView) -> list[dict[str, Any]]:
    for m in reversed(req.messages):
        if m.get("role") == "assistant":
            content = m.get("content")
            return [b for b in content if b.get("type") == "tool_use"] if isinstance(content, list) else []
    return []


def _raw_last_results(req: RequestView) -> list[dict[str, Any]]:
    last = req.messages[-1] if req.messages else {}
    content = last.get("content")
    return [b for b in content if b.get("type") == "tool_result"] if isinstance(content, list) else []


def _hook_feedback(req: RequestView) -> str | None:
    """The text of a Stop/SubagentStop hook's block, when that is what arrived
    since the assistant last spoke (as a user message, plus a system note)."""
    tail: list[dict[str, Any]] = []
    for m in reversed(req.messages):
        if m.get("role") == "assistant":
            break
        tail.append(m)
    for m in reversed(tail):
        content = m.get("content")
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            continue
        texts = [content] if isinstance(content, str) else [
            b.get("text", "") for b in content or [] if b.get("type") == "text"]
        for text in texts:
            if "hook feedback:" in text.lower():
                return text
    return None


def _bash(command: str, description: str) -> Reply:
    return call("Bash", {"command": command, "description": description})


def _subcommand(tool_use: dict[str, Any]) -> str | None:
    if tool_use.get("name") != "Bash":
        return None
    match = re.search(r"/scripts/web-research\"?\s+(\w+)", tool_use["input"].get("command", ""))
    return match.group(1) if match else None


def _result_for(req: RequestView, name: str) -> ToolResult | None:
    results = [r for r in req.last_tool_results() if r.name == name]
    return results[-1] if results else None


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the orchestrator --------------------------------------------------------------
class Orchestrator:
    def __init__(self, ctx: Context, topics: list[Subtopic], report: str, extra_dispatches: int):
        """extra_dispatches: Agent calls added to the dispatch message beyond one per brief."""
        self.ctx = ctx
        self.topics = topics
        self.report_mode = report
        self.extra_dispatches = extra_dispatches

    # Each request is answered from the conversation alone (no state kept here),
    # so a re-sent or concurrent request gets the same answer.
    def step(self, req: RequestView) -> Reply:
        feedback = _hook_feedback(req)
        if feedback is not None:
            return self.on_stop_feedback(req, feedback)
        last = _last_calls(req)
        if not last or last[0]["name"] == "Skill":
            return call("ToolSearch", {"query": "select:WebSearch,WebFetch", "max_results": 5})
        name = last[0]["name"]
        sub = _subcommand(last[0])
        if name == "ToolSearch":
            return self.after_tool_search(req)
        if sub == "start":
            return self.after_start(req)
        if name == "Write" and last[0]["input"]["file_path"].endswith("/" + formats.PLAN_FILE):
            return self.after_plan(req)
        if sub == "briefs":
            return self.after_briefs(req)
        if name == "Read" and "/briefs/" in last[0]["input"]["file_path"]:
            return self.dispatch(req)
        if name == "Agent":
            return _bash(core_command(self.body(req), "status", self.run(req)["output_dir"]),
                         "Show the run's status")
        if sub == "status":
            return calls(*[("Read", {"file_path": b["findings_path"]}) for b in self.briefs(req)])
        if name == "Read" and "/findings/" in last[0]["input"]["file_path"]:
            broken = self.report_mode != "good"
            return call("Write", {"file_path": self.run(req)["report"],
                                  "content": self.report_text(req, broken=broken)})
        if name == "Write" and last[0]["input"]["file_path"].endswith("/" + formats.REPORT_FILE):
            return _bash(core_command(self.body(req), "verify", self.run(req)["output_dir"]),
                         "Verify the run folder")
        if sub == "verify":
            result = _result_for(req, "Bash")
            if result is not None and result.is_error and self.report_mode == "good":
                raise PromptError(f"`verify` failed on a report written to pass:\n{result.text[:3000]}")
            return say(self.final_json(req))
        raise PromptError(f"orchestrator has no step after {name} {sub or ''}")

    # --- what came back ----------------------------------------------------
    def body(self, req: RequestView) -> str:
        return skill_body(req)

    def run(self, req: RequestView) -> dict[str, Any]:
        for r in reversed(req.all_tool_results()):
            if _subcommand({"name": r.name, "input": r.input}) == "start":
                value = json_in(r.text)
                if "error" in value:
                    continue
                return value
        raise PromptError("no successful `start` output in the conversation")

    def briefs(self, req: RequestView) -> list[dict[str, Any]]:
        for r in reversed(req.all_tool_results()):
            if _subcommand({"name": r.name, "input": r.input}) == "briefs":
                return json_in(r.text)
        raise PromptError("no `briefs` output in the conversation")

    # --- steps -----------------------------------------------------------------
    def after_tool_search(self, req: RequestView) -> Reply:
        raw = _raw_last_results(req)
        found = {b.get("tool_name") for r in raw for b in (r.get("content") or [])
                 if isinstance(b, dict) and b.get("type") == "tool_reference"}
        direct = set(req.tool_names)
        missing = [t for t in ("WebSearch", "WebFetch") if t not in found | direct]
        if "WebSearch" in missing:
            return say(json.dumps({"error": formats.ERROR_WEB_TOOLS_UNAVAILABLE,
                                   "detail": "missing: " + ", ".join(missing)}))
        return _bash(core_command(self.body(req), "start"), "Open the research run folder")

    def after_start(self, req: RequestView) -> Reply:
        result = _result_for(req, "Bash")
        value = json_in(result.text) if result else {}
        if "error" in value:
            return say(json.dumps(value))
        return call("Write", {"file_path": value["plan"], "content": self.plan_text(value["research_question"])})

    def after_plan(self, req: RequestView) -> Reply:
        run = self.run(req)
        if not run.get("auto_proceed"):
            return say(f"The research plan is ready for review at {run['plan']}. "
                       "Confirm it, ask for changes, or stop the run.")
        return _bash(core_command(self.body(req), "briefs", run["output_dir"]), "Render the researcher briefs")

    def after_briefs(self, req: RequestView) -> Reply:
        result = _result_for(req, "Bash")
        if result is None or result.is_error:
            raise PromptError(f"`briefs` failed: {result.text if result else 'no result'}")
        return calls(*[("Read", {"file_path": b["brief_path"]}) for b in json_in(result.text)])

    def dispatch(self, req: RequestView) -> Reply:
        texts = {r.input["file_path"]: read_tool_text(r.text) for r in req.last_tool_results() if r.name == "Read"}
        agents = []
        for b in self.briefs(req):
            brief = texts[b["brief_path"]]
            with open(b["brief_path"], encoding="utf-8") as fh:
                if fh.read() != brief:
                    raise PromptError(f"Read returned {b['brief_path']} differently from the file on disk")
            agents.append(("Agent", {"description": b["subtopic"], "subagent_type": formats.RESEARCHER_SUBAGENT_TYPE,
                                     "run_in_background": False,
                                     "prompt": f"{brief}\nBrief hash: {b['brief_hash']}"}))
        for i in range(self.extra_dispatches):  # alternately a duplicate and a free-form prompt
            if i % 2 == 0:
                agents.append(agents[i // 2 % len(agents)])
            else:
                agents.append(("Agent", {"description": "More research", "run_in_background": False,
                                         "subagent_type": formats.RESEARCHER_SUBAGENT_TYPE,
                                         "prompt": "Research anything else that seems relevant to the question."}))
        return calls(*agents)

    def on_stop_feedback(self, req: RequestView, feedback: str) -> Reply:
        if self.report_mode == "broken-then-fixed":
            last = _last_calls(req)
            if not (last and last[0]["name"] == "Write"):
                return call("Write", {"file_path": self.run(req)["report"],
                                      "content": self.report_text(req, broken=False)})
        return say(self.final_json(req))

    def final_json(self, req: RequestView) -> str:
        run = self.run(req)
        return json.dumps({"plan": run["plan"], "report": run["report"], "findings_dir": run["findings_dir"]})

    # --- the files it writes ------------------------------------------------------
    def plan_text(self, question: str) -> str:
        parts = ["# Research plan", "", f"## {formats.PLAN_SECTION_QUESTION}", "", question, "",
                 f"## {formats.PLAN_SECTION_SUBTOPICS}", ""]
        for t in self.topics:
            parts += [f"### {t.name}"] + [f"- {e}" for e in t.establish] + [""]
        parts += [f"## {formats.PLAN_SECTION_SYNTHESIS}", "",
                  "Compare the subtopics' findings side by side, grouped by subtopic.", "",
                  f"## {formats.PLAN_SECTION_BUDGET}", "",
                  f"{formats.PLAN_BUDGET_LINE}: {formats.DEFAULT_SEARCH_BUDGET}", ""]
        return "\n".join(parts)

    def report_text(self, req: RequestView, broken: bool) -> str:
        """report.md from the findings files the orchestrator read (their Read results)."""
        read = {r.input["file_path"]: r for r in req.all_tool_results()
                if r.name == "Read" and "/findings/" in r.input.get("file_path", "")}
        question = self.run(req)["research_question"]
        findings_sections, gaps, sources, tldr = [], [], [], []
        for b in self.briefs(req):
            topic = next(t for t in self.topics if t.name == b["subtopic"])
            result = read.get(b["findings_path"])
            text = read_tool_text(result.text) if result and not result.is_error else ""
            meta, claims, entries = parse_findings(text)
            status = meta.get("status")
            if not text:
                gaps.append(f'- **Subtopic "{topic.name}"** (no findings file): the researcher returned '
                            f"without writing one. It was to establish {'; '.join(topic.establish)}.")
                continue
            if status != formats.STATUS_OK:
                gaps.append(f'- **Subtopic "{topic.name}"** (status: {status}): "{meta.get("reason", "none given")}". '
                            f"It was to establish {'; '.join(topic.establish)}.")
                continue
            lines = [f"### {topic.name}", ""]
            for claim, old in claims:
                number = len(sources) + 1
                sources.append(re.sub(r"^\[\^\d+\]:", f"[^{number}]:", entries[old]))
                lines.append(re.sub(r"\[\^\d+\]", f"[^{number}]", claim))
                tldr.append(re.sub(r"\[\^\d+\]", f"[^{number}]", claim.lstrip("- ")))
            findings_sections.append("\n".join(lines))
        gaps.append("- Independent sources confirming each vendor's own figures would sharpen the answer.")
        while len(tldr) < formats.TLDR_MIN_BULLETS:
            tldr.append("The remaining subtopics could not be established; see Gaps & Limitations.")
        sections = [f"{formats.REPORT_TITLE_PREFIX}{question}", "",
                    "## TL;DR", "", *[f"- {t}" for t in tldr[:formats.TLDR_MAX_BULLETS]], "",
                    "## Findings", "", "\n\n".join(findings_sections) or "No subtopic produced cited findings.", ""]
        if not broken:
            sections += ["## Gaps & Limitations", "", *gaps, ""]
        sections += ["## Sources", "", "\n\n".join(sources)]
        if broken:  # plus an orphan: a Sources entry no footnote uses
            n = len(sources) + 1
            sections += ["", f'[^{n}]: **Title**: Orphan page\n      **URL**: {self.ctx.url("/orphan")}\n'
                             f'      **Excerpt**: "Nothing cites this."']
        return "\n".join(sections) + "\n"


def parse_findings(text: str) -> tuple[dict[str, str], list[tuple[str, int]], dict[int, str]]:
    """(frontmatter, [(claim line, footnote number)], {number: Sources entry}) of a findings file
    in the shape the scripted researcher writes."""
    meta: dict[str, str] = {}
    body = text
    if text.startswith("---\n"):
        head, _, body = text[4:].partition("\n---\n")
        for line in head.splitlines():
            if ":" in line:
                key, value = line.split(":", 1)
                meta[key.strip()] = value.strip().strip('"')
    claims = [(line, int(m.group(1))) for line in body.splitlines()
              if line.startswith("- ") and (m := re.search(r"\[\^(\d+)\]", line))]
    entries: dict[int, str] = {}
    for chunk in re.split(r"\n(?=\[\^\d+\]:)", body):
        m = re.match(r"\[\^(\d+)\]:", chunk)
        if m:
            entries[int(m.group(1))] = chunk.strip()
    return meta, claims, entries


# --- the researchers ---------------------------------------------------------------
def stray_calls(run_dir: str) -> list[tuple[str, dict[str, Any]]]:
    """What a researcher must not do: overwrite the plan, run an arbitrary command. (Not report.md:
    the CLI itself refuses subagent writes to report*/summary*/findings*/analysis* .md files.)"""
    return [("Write", {"file_path": f"{run_dir}/{formats.PLAN_FILE}", "content": "# Not yours to write\n"}),
            ("Bash", {"command": f"ls {run_dir}", "description": "List the run folder"})]


class Researcher:
    """Writes a stub first, searches, reads the best page with the brief's fetch
    command, then writes the findings file as the brief lays it out."""

    def __init__(self, ctx: Context, topics: list[Subtopic]):
        self.ctx = ctx
        self.topics = {t.name: t for t in topics}

    def step(self, req: RequestView) -> Reply:
        brief = req.first_user_text
        topic = self.topics[brief_line(brief, "Your subtopic:")]
        findings_path = brief_line(brief, "Findings file:")
        fields = brief_frontmatter_fields(brief)
        if fields != list(formats.FINDINGS_FIELDS):
            raise PromptError(f"the brief's frontmatter fields {fields} differ from formats.FINDINGS_FIELDS")
        done = [c["name"] for c in req.previous_calls()]
        if topic.behaviour == "silent":  # dies before its first write, twice if told to go on
            return say(f"{findings_path} ok")
        if topic.behaviour == "stray":
            strays = stray_calls(brief_line(brief, "Run folder:"))
            if len(done) < len(strays):
                return call(*strays[len(done)])
            done = done[len(strays):]  # then behave
        if not done:
            return call("Write", {"file_path": findings_path, "content": self.findings(
                brief, formats.STATUS_FAILED, reason="stopped before finishing")})
        if done == ["Write"]:
            return call("WebSearch", {"query": topic.name})
        if done == ["Write", "WebSearch"]:
            urls = re.findall(r'"url":"([^"]+)"', _result_text(req, "WebSearch"))
            if topic.behaviour == "failed" or not urls:
                return call("Write", {"file_path": findings_path, "content": self.findings(
                    brief, formats.STATUS_FAILED, reason="the search backend returned no usable page")})
            return _bash(self.fetch_command(brief, urls[0]), "Snapshot the page")
        url = (re.findall(r'"url":"([^"]+)"', _result_text(req, "WebSearch")) or [""])[0]
        if done == ["Write", "WebSearch", "Bash"]:
            fetched = [r for r in req.all_tool_results() if r.name == "Bash"][-1]
            if fetched.is_error:  # the agent prompt's fallback: WebFetch, quoting verbatim
                return call("WebFetch", {"url": url, "prompt": "Give the page title and quote verbatim "
                                                                "the sentences about " + topic.name})
            return call("Write", {"file_path": findings_path, "content": self.findings(
                brief, formats.STATUS_OK, topic=topic, page=fetched.text, url=url)})
        if done == ["Write", "WebSearch", "Bash", "WebFetch"]:
            return call("Write", {"file_path": findings_path, "content": self.findings(
                brief, formats.STATUS_OK, topic=topic, page=_result_text(req, "WebFetch"), url=url)})
        status = formats.STATUS_OK if len(done) >= 4 else formats.STATUS_FAILED
        return say(f"{findings_path} {status}")

    def fetch_command(self, brief: str, url: str) -> str:
        line = brief_line(brief, "Page snapshots:")
        return line.replace("<url>", url)

    def findings(self, brief: str, status: str, reason: str | None = None, topic: Subtopic | None = None,
                 page: str = "", url: str = "") -> str:
        values = {"status": status, "subtopic": json.dumps(brief_line(brief, "Your subtopic:")),
                  "brief_hash": brief_line(brief, "Brief hash:"), "started_at": _now(),
                  "finished_at": _now(), "reason": json.dumps(reason) if reason else None}
        head = ["---"] + [f"{k}: {values[k]}" for k in formats.FINDINGS_FIELDS if values.get(k)] + ["---", ""]
        if status != formats.STATUS_OK or topic is None:
            return "\n".join(head + ["No cited findings.", ""])
        key = topic.fact().split(" is ")[0]
        sentences = [x.strip() for line in page.splitlines() for x in re.split(r"(?<=\.)\s+", line)]
        excerpt = next((x for x in sentences if key in x), None)
        if excerpt is None:
            raise PromptError(f"the fetched page does not contain the expected fact:\n{page[:1500]}")
        title = next((line[len("Title: "):].strip() for line in page.splitlines() if line.startswith("Title: ")),
                     f"{topic.name} | Example Docs")
        body = [f"# {topic.name}", "", "## Claims", "", f"- {topic.fact()}[^1]", "",
                f"## {formats.FINDINGS_SOURCES_HEADING}", "",
                f"[^1]: **Title**: {title}\n      **URL**: {url}\n      **Excerpt**: \"{excerpt}\"\n"
                f"      **Source type**: official-docs", ""]
        return "\n".join(head + body)


def _result_text(req: RequestView, name: str) -> str:
    results = [r for r in req.all_tool_results() if r.name == name]
    if not results:
        raise PromptError(f"no {name} result in the researcher's conversation")
    if results[-1].is_error:
        raise PromptError(f"{name} failed: {results[-1].text[:1500]}")
    return results[-1].text
