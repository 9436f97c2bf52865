"""The scripted researcher: searches, snapshots a page, replies with its findings.

Everything it needs (findings path, run folder, fetch command, the frontmatter
fields it types, the `### <id> <point>` headings) is read from its brief as the
CLI delivered it; a wrong value there breaks the run. It writes no file: its last
reply is its findings, with only `status` (and `reason`) in the frontmatter; the
plugin writes the reply to the findings file with the rest filled in. A "sloppy"
researcher leaves a stale reason under `status: ok`, as a real model may.
"""
from __future__ import annotations

import functools
import json
import re
from typing import Any

from harness.request_view import RequestView
from harness.scenario import Context
from harness.sse import Reply, call, calls, say, text_block
from scripted.conversation import bash, hook_feedback
from scripted.prompt_text import PromptError, brief_frontmatter_fields, brief_line, brief_list
from scripted.topics import Subtopic, original_name

from web_research import formats


def stray_calls(run_dir: str, findings_path: str) -> list[tuple[str, dict[str, Any]]]:
    """What a researcher must not do: overwrite the plan, write even its own findings file (the
    plugin writes it from the reply), run an arbitrary command."""
    return [("Write", {"file_path": f"{run_dir}/{formats.PLAN_FILE}", "content": "# Not yours to write\n"}),
            ("Write", {"file_path": findings_path, "content": "---\nstatus: ok\n---\n"}),
            ("Bash", {"command": f"ls {run_dir}", "description": "List the run folder"})]


class Researcher:
    """Searches, reads the best page with the brief's fetch command, then replies with its
    findings as the brief lays them out (it writes no file: the plugin writes the reply)."""

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
        done = [c["name"] for c in req.previous_calls()]
        findings = functools.partial(self.findings, sloppy=topic.behaviour == "sloppy")
        if topic.behaviour == "silent":  # never gives its findings, twice if told to go on
            return say(f"{findings_path} ok")
        if topic.behaviour in ("greedy", "repeat"):
            return self.over_budget(req, brief, topic, findings, done)
        if topic.behaviour == "unfetched":
            return self.unfetched(req, brief, topic, findings, done)
        if topic.behaviour == "stray":
            strays = stray_calls(brief_line(brief, "Run folder:"), findings_path)
            if len(done) < len(strays):
                return call(*strays[len(done)])
            done = done[len(strays):]  # then behave
        if done == []:
            return call("WebSearch", {"query": topic.name})
        if done == ["WebSearch"]:
            urls = re.findall(r'"url":"([^"]+)"', _result_text(req, "WebSearch"))
            if topic.behaviour == "failed" or not urls:
                return say(findings(brief, formats.STATUS_FAILED, reason="the search backend returned no usable page"))
            if topic.behaviour == "long-find":  # agents/researcher.md: look inside a long page with --find
                return bash(f'{self.fetch_command(brief, urls[0])} --find "{topic.find_words()}"', "Find it in the page")
            return bash(self.fetch_command(brief, urls[0]), "Snapshot the page")
        url = (re.findall(r'"url":"([^"]+)"', _result_text(req, "WebSearch")) or [""])[0]
        fetched = [r for r in req.all_tool_results() if r.name == "Bash"][-1]
        if fetched.is_error:  # agents/researcher.md: only fetched pages can be cited
            return say(findings(brief, formats.STATUS_FAILED, reason="the page could not be fetched"))
        more = re.search(r"continue with --offset (\d+)", fetched.text)
        if topic.behaviour == "long" and topic.fact() not in fetched.text and more:  # read on, window by window
            return bash(f"{self.fetch_command(brief, url)} --offset {more.group(1)}", "Read on in the page")
        reply = findings(brief, formats.STATUS_OK, topic=topic, page=fetched.text, url=url)
        if topic.behaviour == "sources-list":  # the WebSearch tool's reminder, obeyed after the findings
            reply = reply.rstrip("\n") + f"\n\nSources:\n- [{topic.name} | Example Docs]({url})\n"
        if topic.behaviour == "split":  # one message, two text blocks: the client keeps the last one
            head, heading, tail = reply.partition(f"## {formats.FINDINGS_SOURCES_HEADING}")
            return Reply([text_block(head), text_block(heading + tail)], "end_turn")
        return say(reply)

    # The searches a greedy researcher sends, two to a message.
    GREEDY_QUERIES = ("", "pricing", "docs", "news")

    def over_budget(self, req: RequestView, brief: str, topic: Subtopic, findings: Any, done: list[str]) -> Reply:
        """greedy: four different searches, two in each of two messages (the hooks deny the second
        message's two on a budget of 2), then a fetch; repeat: a search, the same words again, a
        fetch, the same fetch again. Both then reply with findings from the first page they got."""
        searches = done.count("WebSearch")
        if topic.behaviour == "greedy" and searches < len(self.GREEDY_QUERIES):
            pair = self.GREEDY_QUERIES[searches:searches + 2]
            return calls(*[("WebSearch", {"query": f"{topic.name} {q}".strip()}) for q in pair])
        if topic.behaviour == "repeat" and searches < 2:
            return call("WebSearch", {"query": topic.name if searches == 0 else f"  {topic.name.upper()} "})
        url = re.findall(r'"url":"([^"]+)"', _first_ok_text(req, "WebSearch"))[0]
        if done.count("Bash") < (2 if topic.behaviour == "repeat" else 1):
            return bash(self.fetch_command(brief, url), "Snapshot the page")
        return say(findings(brief, formats.STATUS_OK, topic=topic, page=_first_ok_text(req, "Bash"), url=url))

    def unfetched(self, req: RequestView, brief: str, topic: Subtopic, findings: Any, done: list[str]) -> Reply:
        """A wrong reply, blocked and corrected: it cites the first search result without reading it
        (the excerpt made up from the result's title); told at its stop that the page has no
        snapshot, it fetches the page and replies again in full from what the page says."""
        if done == []:
            return call("WebSearch", {"query": topic.name})
        url = re.findall(r'"url":"([^"]+)"', _result_text(req, "WebSearch"))[0]
        if done == ["WebSearch"] and not replied(req):
            invented = f"Title: {topic.name} | Example Docs\n{topic.fact()}"
            return say(findings(brief, formats.STATUS_OK, topic=topic, page=invented, url=url))
        if done == ["WebSearch"]:
            feedback = hook_feedback(req)
            if feedback is None or "has no page snapshot" not in feedback:
                raise PromptError(f"the stop hook did not say the cited page has no snapshot:\n{(feedback or '')[:2000]}")
            return bash(self.fetch_command(brief, url), "Snapshot the page I cited")
        return say(findings(brief, formats.STATUS_OK, topic=topic, page=_result_text(req, "Bash"), url=url))

    def fetch_command(self, brief: str, url: str) -> str:
        line = brief_line(brief, "Page snapshots:")
        return line.replace("<url>", url)

    def findings(self, brief: str, status: str, reason: str | None = None, topic: Subtopic | None = None,
                 page: str = "", url: str = "", sloppy: bool = False) -> str:
        if sloppy and status == formats.STATUS_OK:
            reason = formats.FINDINGS_STUB_REASON  # a stale reason under ok: the plugin drops it
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
        # partly: the quotes' claims establish the second point in part; the rest of it is not found
        partly = topic.behaviour == "partly" and len(points) > 1
        quote_claims = [f"- {claim}[^{n}]" for n, (_said, claim) in enumerate(topic.quotes, start=2)]
        body = [f"# {topic.name}", "", "## Claims", "", f"### {points[0]}", "", f"- {topic.fact()}[^1]",
                *([] if partly else quote_claims), ""]
        quoted = []
        for n, (said, _claim) in enumerate(topic.quotes, start=2):
            if said not in page:
                raise PromptError(f"the fetched page does not state {said!r}:\n{page[:1500]}")
            quoted.append(f"[^{n}]: **Title**: {title}\n      **URL**: {url}\n      **Excerpt**: \"{retyped(said)}\"\n"
                          f"{retrieved}      **Source type**: official-docs")
        body += [line for i, point in enumerate(points[1:]) for line in
                 (f"### {point}", "", *(quote_claims + [""] if partly and i == 0 else []))]
        missing = [f"- {point.split(' ', 1)[0]}: " + ("the rest of this point is stated on no page found."
                                                      if partly and i == 0 else "no page found.")
                   for i, point in enumerate(points[1:])] or ["None."]
        body += ["## Not established", "", *missing, "",
                 "## Contradictions", "", "None.", "", "## Searched and not found", "", "None.", "",
                 "## Exit reason", "", "saturated: the vendor's own page answers the first point.", "",
                 f"## {formats.FINDINGS_SOURCES_HEADING}", "",
                 f"[^1]: **Title**: {title}\n      **URL**: {url}\n      **Excerpt**: \"{excerpt}\"\n"
                 f"{retrieved}      **Source type**: official-docs", "", *(f"{entry}\n" for entry in quoted)]
        return "\n".join(head + body)


def retyped(sentence: str) -> str:
    """A page's sentence as a model copies it into an excerpt: straight apostrophes, and the
    page's quotation marks as single quotes inside the excerpt's double ones."""
    return (sentence.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", "'")
            .replace("\u201d", "'").replace('"', "'"))


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


def replied(req: RequestView) -> int:
    """How many replies (assistant messages with no tool call) the researcher already gave."""
    return sum(1 for m in req.messages if m.get("role") == "assistant" and isinstance(m.get("content"), list)
               and not any(b.get("type") == "tool_use" for b in m["content"]))
