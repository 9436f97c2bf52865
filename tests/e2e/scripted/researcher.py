"""The scripted researcher: searches, snapshots a page, writes its findings.

Everything it needs (findings path, run folder, fetch command, the frontmatter
fields it writes, the `### <id> <point>` headings) is read from its brief as the
CLI delivered it; a wrong value there breaks the run. It writes only `status` (and
`reason`) in the frontmatter: the plugin wrote the stub at dispatch and fills in
the rest at its stop. A "sloppy" researcher leaves the stub's reason under
`status: ok`, as a real model that edits its stub does.
"""
from __future__ import annotations

import functools
import json
import re
from typing import Any

from harness.request_view import RequestView
from harness.scenario import Context
from harness.sse import Reply, call, say
from scripted.conversation import bash, hook_feedback
from scripted.prompt_text import PromptError, brief_frontmatter_fields, brief_line, brief_list
from scripted.topics import Subtopic, original_name

from web_research import formats


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
        topic = self.topics[original_name(brief_line(brief, "Your subtopic:"))]
        findings_path = brief_line(brief, "Findings file:")
        fields = brief_frontmatter_fields(brief)
        if fields != list(formats.FINDINGS_RESEARCHER_FIELDS):
            raise PromptError(f"the brief's frontmatter fields {fields} differ from formats.FINDINGS_RESEARCHER_FIELDS")
        real = [c["name"] for c in req.previous_calls()]
        done = ["Write"] + real  # the plugin wrote the stub: the first write is done
        findings = functools.partial(self.findings, sloppy=topic.behaviour == "sloppy")
        if topic.behaviour == "silent":  # dies before its first write, twice if told to go on
            return say(f"{findings_path} ok")
        if topic.behaviour in ("greedy", "repeat"):
            return self.over_budget(req, brief, topic, findings_path, findings, done)
        if topic.behaviour == "unfetched":
            return self.unfetched(req, brief, topic, findings_path, findings, done)
        if topic.behaviour == "stray":
            strays = stray_calls(brief_line(brief, "Run folder:"))
            if len(real) < len(strays):
                return call(*strays[len(real)])
            done = ["Write"] + real[len(strays):]  # then behave
        if done == ["Write"]:
            return call("WebSearch", {"query": topic.name})
        if done == ["Write", "WebSearch"]:
            urls = re.findall(r'"url":"([^"]+)"', _result_text(req, "WebSearch"))
            if topic.behaviour == "failed" or not urls:
                return call("Write", {"file_path": findings_path, "content": findings(
                    brief, formats.STATUS_FAILED, reason="the search backend returned no usable page")})
            return bash(self.fetch_command(brief, urls[0]), "Snapshot the page")
        url = (re.findall(r'"url":"([^"]+)"', _result_text(req, "WebSearch")) or [""])[0]
        if done == ["Write", "WebSearch", "Bash"]:
            fetched = [r for r in req.all_tool_results() if r.name == "Bash"][-1]
            if fetched.is_error:  # agents/researcher.md: only fetched pages can be cited
                return call("Write", {"file_path": findings_path, "content": findings(
                    brief, formats.STATUS_FAILED, reason="the page could not be fetched")})
            return call("Write", {"file_path": findings_path, "content": findings(
                brief, formats.STATUS_OK, topic=topic, page=fetched.text, url=url)})
        status = formats.STATUS_OK if len(done) >= 4 else formats.STATUS_FAILED
        return say(f"{findings_path} {status}")

    # The calls a greedy or repeating researcher tries, in order, after its stub.
    GREEDY_QUERIES = ("", "pricing", "docs", "news")

    def over_budget(self, req: RequestView, brief: str, topic: Subtopic, findings_path: str,
                    findings: Any, done: list[str]) -> Reply:
        """greedy: four different searches (the hooks deny the last two of a budget of 2), then fetch;
        repeat: a search, the same words again, a fetch, the same fetch again. Both then write
        findings from the first page they got and end ok."""
        searches = done.count("WebSearch")
        if topic.behaviour == "greedy" and searches < len(self.GREEDY_QUERIES):
            return call("WebSearch", {"query": f"{topic.name} {self.GREEDY_QUERIES[searches]}".strip()})
        if topic.behaviour == "repeat" and searches < 2:
            return call("WebSearch", {"query": topic.name if searches == 0 else f"  {topic.name.upper()} "})
        url = re.findall(r'"url":"([^"]+)"', _first_ok_text(req, "WebSearch"))[0]
        fetches = done.count("Bash")
        if fetches < (2 if topic.behaviour == "repeat" else 1):
            return bash(self.fetch_command(brief, url), "Snapshot the page")
        if done[-1] != "Write" or done.count("Write") < 2:
            return call("Write", {"file_path": findings_path, "content": findings(
                brief, formats.STATUS_OK, topic=topic, page=_first_ok_text(req, "Bash"), url=url)})
        return say(f"{findings_path} {formats.STATUS_OK}")

    def unfetched(self, req: RequestView, brief: str, topic: Subtopic, findings_path: str, findings: Any,
                  done: list[str]) -> Reply:
        """Cites the first search result without reading it (the excerpt made up from the
        result's title); told at its stop that the page has no snapshot, it fetches the page and
        writes its findings again from what the page says."""
        if done == ["Write"]:  # the plugin's stub
            return call("WebSearch", {"query": topic.name})
        url = re.findall(r'"url":"([^"]+)"', _result_text(req, "WebSearch"))[0]
        if done == ["Write", "WebSearch"]:
            invented = f"Title: {topic.name} | Example Docs\n{topic.fact()}"
            return call("Write", {"file_path": findings_path, "content": findings(
                brief, formats.STATUS_OK, topic=topic, page=invented, url=url)})
        if done == ["Write", "WebSearch", "Write"]:
            feedback = hook_feedback(req)
            if feedback is None:
                return say(f"{findings_path} {formats.STATUS_OK}")
            if "has no page snapshot" not in feedback:
                raise PromptError(f"the stop hook did not say the cited page has no snapshot:\n{feedback[:2000]}")
            return bash(self.fetch_command(brief, url), "Snapshot the page I cited")
        if done == ["Write", "WebSearch", "Write", "Bash"]:
            return call("Write", {"file_path": findings_path, "content": findings(
                brief, formats.STATUS_OK, topic=topic, page=_result_text(req, "Bash"), url=url)})
        return say(f"{findings_path} {formats.STATUS_OK}")

    def fetch_command(self, brief: str, url: str) -> str:
        line = brief_line(brief, "Page snapshots:")
        return line.replace("<url>", url)

    def findings(self, brief: str, status: str, reason: str | None = None, topic: Subtopic | None = None,
                 page: str = "", url: str = "", sloppy: bool = False) -> str:
        if sloppy and status == formats.STATUS_OK:
            reason = formats.FINDINGS_STUB_REASON  # left over from the stub
        values = {"status": status, "reason": json.dumps(reason) if reason else None}
        head = ["---"] + [f"{k}: {values[k]}" for k in formats.FINDINGS_RESEARCHER_FIELDS if values.get(k)] + ["---", ""]
        if status != formats.STATUS_OK or topic is None:
            return "\n".join(head + ["No cited findings.", ""])
        key = topic.fact().split(" is ")[0]
        sentences = [x.strip() for line in page.splitlines() for x in re.split(r"(?<=\.)\s+", line)]
        excerpt = next((x for x in sentences if key in x), None)
        if excerpt is None:
            raise PromptError(f"the fetched page does not contain the expected fact:\n{page[:1500]}")
        title = next((line[len("Title: "):].strip() for line in page.splitlines() if line.startswith("Title: ")),
                     f"{topic.name} | Example Docs")
        # The brief's skeleton: its `### <id> <point>` headings, then the fixed sections.
        points = [line[4:] for line in brief.split("\n## Claims\n", 1)[1].split("\n## ", 1)[0].splitlines()
                  if line.startswith("### ")]
        if [p.split(" ", 1)[0] for p in points] != [p.split(" ", 1)[0] for p in brief_list(brief, "Establish:")]:
            raise PromptError(f"the brief's ### headings {points} are not its Establish points")
        stamp = re.search(r"retrieved (\d{4}-\d{2}-\d{2})", page)
        retrieved = f"      **Retrieved**: {stamp.group(1)}\n" if stamp else ""
        body = [f"# {topic.name}", "", "## Claims", "", f"### {points[0]}", "", f"- {topic.fact()}[^1]", ""]
        body += [line for point in points[1:] for line in (f"### {point}", "")]
        missing = [f"- {point.split(' ', 1)[0]}: no page found." for point in points[1:]] or ["None."]
        body += ["## Not established", "", *missing, "",
                 "## Contradictions", "", "None.", "", "## Searched and not found", "", "None.", "",
                 "## Exit reason", "", "saturated: the vendor's own page answers the first point.", "",
                 f"## {formats.FINDINGS_SOURCES_HEADING}", "",
                 f"[^1]: **Title**: {title}\n      **URL**: {url}\n      **Excerpt**: \"{excerpt}\"\n"
                 f"{retrieved}      **Source type**: official-docs", ""]
        return "\n".join(head + body)


def _result_text(req: RequestView, name: str) -> str:
    results = [r for r in req.all_tool_results() if r.name == name]
    if not results:
        raise PromptError(f"no {name} result in the researcher's conversation")
    if results[-1].is_error:
        raise PromptError(f"{name} failed: {results[-1].text[:1500]}")
    return results[-1].text


def _first_ok_text(req: RequestView, name: str) -> str:
    """The first result of `name` that is not an error (later calls may have been denied)."""
    results = [r for r in req.all_tool_results() if r.name == name and not r.is_error]
    if not results:
        raise PromptError(f"no successful {name} result in the researcher's conversation")
    return results[0].text
