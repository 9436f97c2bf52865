"""A person's session after a finished run: "is this report still true?".

No run is open. The model finds the skill by its description (the Skill tool's listing must
say it covers a finished report that may no longer be true), loads it, follows SKILL.md's
pointer to the reference that names the recheck command, reads that file, runs the command
it shows (its placeholders filled: the plugin root from the skill's base directory, the run
folder from the person's words) and replies with what it printed. The scripted model holds no
copy of the command line: a wrong pointer, file or command in the prompts breaks the session.

The fake web has changed since the run: `build(changed=...)`'s page states its figure plus
`BUMP`, `gone=...`'s page answers 404, and every other page is as it was.
"""
from __future__ import annotations

import re
from pathlib import Path

from harness.request_view import RequestView
from harness.scenario import Context, Page, Rule, Scenario, is_main
from harness.sse import Reply, call, say
from scripted.prompt_text import PromptError, core_command, read_tool_text, skill_body
from scripted.research import topic_pages
from scripted.topics import DEFAULT_SUBTOPICS, Subtopic

from prompt_commands import expand

SKILL = "web-research:web-research"
# What the skill's description must cover for a model to load it for this question.
ASKED = "whether a finished report is still true"
BUMP = 5
_LINK = re.compile(r"\[[^\]]+\]\((references/[\w.-]+\.md)\)")


def changed_fact(text: str) -> str:
    """The page's fact with its figure raised by BUMP (`39 units` -> `44 units`)."""
    return re.sub(r"\b(\d+) units", lambda m: f"{int(m.group(1)) + BUMP} units", text, count=1)


class Person:
    """The main agent of a session with no run: one step per turn, decided from the request."""

    def __init__(self, run_dir: str) -> None:
        self.run_dir = run_dir

    def step(self, req: RequestView) -> Reply:
        done = req.previous_calls()
        if not done:
            listing = req.all_text()
            if f"- {SKILL}:" not in listing or ASKED not in " ".join(listing.split()):
                raise PromptError(f"the skill's listing does not say it covers {ASKED!r}")
            return call("Skill", {"skill": SKILL, "args": req.first_user_text})
        last = done[-1]["name"]
        if last == "Skill":
            body = skill_body(req)
            base = body.strip().splitlines()[0].strip()
            flat = " ".join(body.split())
            after = flat.split("still true", 1)
            link = _LINK.search(after[1][:200]) if len(after) == 2 else None
            if link is None:
                raise PromptError("SKILL.md does not point to a reference for a report that may no longer be true")
            return call("Read", {"file_path": f"{base}/{link.group(1)}"})
        result = req.last_tool_results()[0]
        if result.is_error and last != "Bash":  # recheck exits 1 when a citation changed: still its answer
            raise PromptError(f"{last} failed: {result.text[:500]}")
        if last == "Read":
            reference = read_tool_text(result.text)
            base = Path(result.input["file_path"]).parents[1]  # <root>/skills/web-research
            command = expand(core_command(reference, "recheck"),
                             {"<plugin root>": str(base.parents[1]), "<output_dir>": self.run_dir})
            return call("Bash", {"command": command, "description": "Recheck the report's citations"})
        if last == "Bash":
            return say(result.text.strip())
        raise PromptError(f"nothing scripted after {last}")


def build(ctx: Context, run_dir: str, changed: str, gone: str) -> Scenario:
    pages = []
    for page in topic_pages([Subtopic(**s) for s in DEFAULT_SUBTOPICS]):
        if page.path == f"/docs/{gone}":
            continue  # the server answers 404
        if page.path == f"/docs/{changed}":
            page = Page(page.path, page.title, changed_fact(page.body_text))
        pages.append(page)
    return Scenario([Rule("person", is_main, Person(run_dir).step)], pages)


__all__ = ["BUMP", "build", "changed_fact"]
