"""Render one researcher brief per subtopic of plan.md, and hash it.

The template lives in `skills/web-research/references/subagent-brief.md` (the
single fenced ```text block), shared with the prompts; an installed wheel carries it
as package data (`formats.reference_file`). Rendering is a pure
function of the plan and the run folder, with no timestamps, so an unchanged
plan gives byte-identical briefs and the same hashes.

Hashing: `brief_hash` is `sha256:` + the hex digest of the brief file's exact
bytes. The researcher cannot read its own hash from inside the text it
hashes, so the Agent prompt is the brief text followed by one last line
`Brief hash: <brief_hash>` (`compose_agent_prompt`); hooks recover and check
both halves with `split_agent_prompt`.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..formats import (
    BRIEF_TEMPLATE,
    FIGURE_RULE,
    BRIEFS_DIR,
    FINDINGS_DIR,
    FINDINGS_MAX_WORDS,
    MAX_PARALLEL_RESEARCHERS,
    PLUGIN_ROOT,
    reference_file,
)
# The hash and the Agent prompt live in brief_prompt.py (the hooks import only that); re-exported here.
from .findings_stub import still_to_dispatch  # noqa: F401 - `briefs` lists by it; the hooks import it from there
from .brief_prompt import AGENT_PROMPT_HASH_LABEL, brief_hash, compose_agent_prompt, split_agent_prompt  # noqa: F401
from .budget import effective_budget
from ..core.fsutil import atomic_write_text, is_within, RunFileError, read_run_file
from .choices import load_run_plan
from .plan import Plan, Subtopic
from .resume import record_approval

# The fields the renderer fills; the template must use exactly these.
PLACEHOLDERS = (
    "subtopic", "question", "establish", "claims_headings", "other_subtopics", "budget", "page_reads",
    "findings_path", "run_dir", "command", "max_parallel", "max_words", "scope_notes", "figure_rule",
)
SCOPE_NOTES_LABEL = ("Scope notes (the user's answers to clarifying questions; they narrow the question "
                     "above, which stays as written):")
NO_OTHER_SUBTOPICS = "- (none: the plan has only your subtopic)"
PLACEHOLDER_PATTERN = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
TEMPLATE_FENCE_OPEN = "```text"
TEMPLATE_FENCE_CLOSE = "```"


def _command_path() -> Path:
    """The command a researcher runs `fetch` with: the plugin's launcher, or, for an installed
    package (pip, uv tool, pipx), its `web-research` console script beside this interpreter."""
    launcher = PLUGIN_ROOT / "scripts" / "web-research"
    if launcher.is_file():
        return launcher
    installed = Path(sys.executable).parent / "web-research"
    return installed if installed.is_file() else launcher


COMMAND_PATH = _command_path()


class TemplateError(ValueError):
    """The brief template file is malformed (a packaging bug, not user input)."""


@dataclass(frozen=True)
class BriefInfo:
    subtopic: str
    slug: str
    brief_path: str
    brief_hash: str
    findings_path: str
    prompt: str  # what the orchestrator dispatches, unchanged: compose_agent_prompt(brief, hash)
    wave: int = 1  # 1, or 2 for a subtopic of plan.md's `## Second wave`
    bullets: tuple[str, ...] = ()  # the bullet ids its findings are organised by

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["bullets"] = list(self.bullets)
        return data

    def listing(self) -> dict[str, str]:
        """What `briefs` prints for a brief to dispatch: the orchestrator's Agent prompt is
        `Brief: <brief_path>` (formats.DISPATCH_BRIEF_LABEL), never the brief's text."""
        return {"subtopic": self.subtopic, "brief_path": self.brief_path, "findings_path": self.findings_path}



def extract_template(markdown: str, path: Path | str = BRIEF_TEMPLATE) -> str:
    """The text inside the one ```text block of the reference file, ending with a newline."""
    lines = markdown.replace("\r\n", "\n").split("\n")
    opens = [i for i, line in enumerate(lines) if line.rstrip() == TEMPLATE_FENCE_OPEN]
    if len(opens) != 1:
        raise TemplateError(f"{path}: expected exactly one '{TEMPLATE_FENCE_OPEN}' block, found {len(opens)}")
    start = opens[0] + 1
    for end in range(start, len(lines)):
        if lines[end].rstrip() == TEMPLATE_FENCE_CLOSE:
            return "\n".join(lines[start:end]) + "\n"
    raise TemplateError(f"{path}:{opens[0] + 1}: the '{TEMPLATE_FENCE_OPEN}' block is never closed")


def load_template(path: Path | None = None) -> str:
    """The brief template's text; `TemplateError` naming the file when it cannot be read."""
    if path is None:
        path = reference_file(BRIEF_TEMPLATE.name)
    try:
        markdown = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TemplateError(f"{path}: the brief template is missing (this installation of web-research is "
                            "incomplete; reinstall it)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise TemplateError(f"{path}: the brief template cannot be read ({getattr(error, 'strerror', None) or error})"
                            ) from None
    return extract_template(markdown, path)


def template_placeholders(template: str) -> set[str]:
    return {match.group(1) for match in PLACEHOLDER_PATTERN.finditer(template)}


def findings_path(run_dir: Path, subtopic: Subtopic) -> Path:
    return Path(run_dir) / FINDINGS_DIR / f"{subtopic.slug}.md"


def brief_path(run_dir: Path, subtopic: Subtopic) -> Path:
    return Path(run_dir) / BRIEFS_DIR / f"{subtopic.slug}.md"


def establish_lines(plan: Plan, subtopic: Subtopic) -> list[str]:
    """The brief's Establish list: each point with its bullet id (`- 2.1 <text>`). A second-wave
    subtopic lists the first-wave bullets it targets, with the plan's approach for each."""
    if not subtopic.second_wave:
        return [f"- {bullet_id} {item}" for bullet_id, item in zip(subtopic.bullet_ids, subtopic.establish)]
    texts = {bullet.id: bullet.text for bullet in plan.bullets}
    return [f"- {target} {texts[target]}" + (f" (approach: {approach})" if approach else "")
            for target, approach in zip(subtopic.targets, subtopic.establish)]


CLAIM_LINE = "- <one claim per bullet, with its footnote[^1]; under a point you could not establish, none>"


def claims_headings(plan: Plan, subtopic: Subtopic) -> list[str]:
    """The findings body's `### <id> <point>` headings, one per point under Establish, each
    with the claim line under it: the researcher fills them in, never retypes them."""
    texts = {bullet.id: bullet.text for bullet in plan.bullets}
    ids = subtopic.targets if subtopic.second_wave else subtopic.bullet_ids
    items = [texts[i] for i in ids] if subtopic.second_wave else subtopic.establish
    return [f"### {bullet_id} {text}\n\n{CLAIM_LINE}" for bullet_id, text in zip(ids, items)]


def other_subtopic_names(plan: Plan, subtopic: Subtopic) -> list[str]:
    """The subtopics a brief says are not its own. A first-wave brief names only the first wave,
    so that appending a second wave to plan.md leaves its bytes (and hash) unchanged."""
    pool = plan.all_subtopics if subtopic.second_wave else plan.subtopics
    return [other.name for other in pool if other.slug != subtopic.slug]


def brief_values(plan: Plan, subtopic: Subtopic, run_dir: Path) -> dict[str, str]:
    budget = effective_budget(plan)
    return {
        "subtopic": subtopic.name,
        "question": plan.question,
        "establish": "\n".join(establish_lines(plan, subtopic)),
        "claims_headings": "\n\n".join(claims_headings(plan, subtopic)),
        "other_subtopics": "\n".join(f"- {name}" for name in other_subtopic_names(plan, subtopic))
                           or NO_OTHER_SUBTOPICS,
        "budget": str(budget.searches_per_researcher),
        "page_reads": str(budget.page_reads_per_researcher),
        "findings_path": str(findings_path(run_dir, subtopic)),
        "run_dir": str(run_dir),
        "command": str(COMMAND_PATH),
        "max_parallel": str(MAX_PARALLEL_RESEARCHERS),
        "max_words": f"{FINDINGS_MAX_WORDS:,}",
        "scope_notes": scope_notes_block(plan.scope_notes),
        "figure_rule": FIGURE_RULE,
    }


def scope_notes_block(notes: str | None) -> str:
    """The brief's scope-notes lines: nothing without notes (so older plans render the same
    bytes as before), else a blank line, the label and the notes."""
    return f"\n{SCOPE_NOTES_LABEL}\n{notes}\n" if notes else ""


def render_brief(plan: Plan, subtopic: Subtopic, run_dir: Path, template: str | None = None) -> str:
    """Fill the template in one pass (values are never re-scanned for placeholders)."""
    text = load_template() if template is None else template
    values = brief_values(plan, subtopic, Path(run_dir))
    unknown = template_placeholders(text) - set(values)
    if unknown:
        raise TemplateError(f"unknown placeholder(s) in the brief template: {', '.join(sorted(unknown))}")
    return PLACEHOLDER_PATTERN.sub(lambda match: values[match.group(1)], text)


def write_briefs(run_dir: Path) -> list[BriefInfo]:
    """Render, write (atomically; untouched when unchanged) and hash every brief of the plan,
    second wave included (its briefs come after the first wave's, which do not change)."""
    run_dir = Path(os.path.abspath(run_dir))  # same spelling as `start` printed (symlinks kept)
    plan = load_run_plan(run_dir)
    template = load_template()
    infos: list[BriefInfo] = []
    for subtopic in plan.all_subtopics:
        target = brief_path(run_dir, subtopic)
        if not is_within(target, run_dir / BRIEFS_DIR):  # slugs cannot hold '/' or '.'; belt and braces
            raise ValueError(f"brief path escapes the run folder: {target}")
        data = render_brief(plan, subtopic, run_dir, template).encode("utf-8")
        if _current_bytes(target, run_dir) != data:
            atomic_write_text(target, data.decode("utf-8"))
        infos.append(BriefInfo(
            subtopic=subtopic.name,
            slug=subtopic.slug,
            brief_path=str(target),
            brief_hash=brief_hash(data),
            findings_path=str(findings_path(run_dir, subtopic)),
            prompt=compose_agent_prompt(data.decode("utf-8"), brief_hash(data)),
            wave=2 if subtopic.second_wave else 1,
            bullets=subtopic.bullet_ids,
        ))
    return infos


def _current_bytes(path: Path, run_dir: Path) -> bytes | None:
    """What a brief file holds now, or None when it is missing or not a usable file
    (then it is simply written anew)."""
    try:
        return read_run_file(path, run_dir)
    except RunFileError:
        return None


def render_and_approve(run_dir: Path) -> list[dict[str, str]]:
    """What `briefs` does, for the command and for the hook that runs it when plan.md is written:
    render every brief, record the plan as approved with them (going past the review gate is what
    renders briefs), and list the briefs still to dispatch. Raises what write_briefs raises
    (PlanError, TemplateError, RunFileError, OSError)."""
    run_dir = Path(run_dir)
    infos = write_briefs(run_dir)
    record_approval(run_dir, {info.slug: info.brief_hash for info in infos})
    return [info.listing() for info in infos if still_to_dispatch(run_dir, info.findings_path)]

