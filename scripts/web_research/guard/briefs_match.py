"""Which rendered brief a researcher prompt is.

`web-research briefs` writes one brief per subtopic to `<run>/briefs/<slug>.md`;
the orchestrator dispatches each researcher with the brief's text followed by one
last line `Brief hash: <sha256 of the brief file's bytes>` (core's `briefs.compose_agent_prompt`;
see skills/web-research/references/subagent-brief.md). A prompt is that brief when
its text (`briefs.split_agent_prompt`) hashes to the file's hash and its hash line
states that hash; only whitespace around the two halves is forgiven. The same
test attributes a finished subagent (its transcript's first user message) to a
brief, so no interpretation drift between plan and researcher goes unnoticed (`attribute`).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, NamedTuple, Sequence

from .. import formats
from ..core.fsutil import RunFileError, read_run_file
from ..core.slug import slugify
from ..run.brief_prompt import brief_hash as core_hash
from ..run.brief_prompt import compose_agent_prompt, split_agent_prompt
from .adapter import read_named_file

if TYPE_CHECKING:
    from .events import HookEvent
    from .state import Run


class Brief(NamedTuple):
    slug: str
    brief_path: str
    brief_hash: str
    findings_path: str
    text: str


def brief_hash(data: bytes) -> str:
    return core_hash(data)


def load_briefs(run_dir: Path | str, only_hashes: Iterable[str] | None = None) -> list[Brief]:
    """The briefs rendered in `<run>/briefs/` (optionally only those with the given hashes)."""
    run = Path(run_dir)
    folder = run / formats.BRIEFS_DIR
    wanted = set(only_hashes) if only_hashes is not None else None
    found: list[Brief] = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.md")):
        try:
            data = read_run_file(path, run)
        except RunFileError:
            continue  # not a regular file inside the run, or too large: no researcher can be given it
        digest = brief_hash(data)
        if wanted is not None and digest not in wanted:
            continue
        found.append(Brief(
            slug=path.stem,
            brief_path=str(path),
            brief_hash=digest,
            findings_path=str(run / formats.FINDINGS_DIR / f"{path.stem}.md"),
            text=data.decode("utf-8", errors="replace"),
        ))
    return found


def dispatch_prompt(brief: Brief) -> str:
    """The exact prompt a researcher for `brief` is dispatched with (core's composition)."""
    return compose_agent_prompt(brief.text, brief.brief_hash)


def split_hash_line(prompt: str) -> tuple[str, str | None]:
    """(brief text, stated hash or None), undoing `dispatch_prompt` (core's split)."""
    return split_agent_prompt(prompt)


class PromptMatch(NamedTuple):
    brief: Brief | None  # the brief the prompt is, exactly (modulo trailing whitespace)
    intended: tuple[Brief, ...]  # briefs the prompt points at when it is not exact


def match_prompt(prompt: str, briefs: Sequence[Brief]) -> PromptMatch:
    body, declared = split_hash_line(prompt or "")
    body_hash = brief_hash(body.encode("utf-8"))
    for brief in briefs:
        if declared == brief.brief_hash and (body_hash == brief.brief_hash
                                             or body.strip() == brief.text.strip()):
            return PromptMatch(brief, (brief,))
    named = referenced_slugs(prompt or "")
    intended = tuple(b for b in briefs if declared == b.brief_hash or b.slug in named
                     or b.findings_path in (prompt or ""))
    return PromptMatch(None, intended)


def resolve_prompt(prompt: str, briefs: Sequence[Brief]) -> Brief | None:
    """The one brief a dispatch prompt is or points at (`Brief: <path>`, or a near-copy), else None."""
    match = match_prompt(prompt, briefs)
    return match.brief or (match.intended[0] if len(match.intended) == 1 else None)


# `briefs/<slug>.md` or `findings/<slug>.md`, absolute, relative or bare, inside quotes or not.
_PATH_REFERENCE = re.compile(r"(?:^|[^\w.-])(?:" + re.escape(formats.BRIEFS_DIR) + "|"
                             + re.escape(formats.FINDINGS_DIR) + r")[/\\]([^/\\\s\"'`<>()\[\]]+?)\.md\b")
_LABEL_LINE = re.compile(r"(?:^|(?<=\s))[\s*_`>#-]*" + re.escape(formats.DISPATCH_BRIEF_LABEL.rstrip(":"))
                         + r"[\s*_`]*:(.*)$", re.IGNORECASE | re.MULTILINE)
_QUOTES = " \t\"'`*_<>()[]{}.,;:!?\u201c\u201d\u2018\u2019"


def referenced_slugs(prompt: str) -> set[str]:
    """The slugs a dispatch prompt names: every `briefs/<slug>.md` or `findings/<slug>.md` in it,
    and the value after a `Brief:` label taken as a slug, a file name or a subtopic name.

    What a real model does with `Brief: <brief_path>`: it quotes it, makes it relative, adds a
    sentence, or writes the slug or the subtopic's name instead of the path. The caller decides
    whether the slugs it finds name exactly one brief."""
    found = {m.group(1) for m in _PATH_REFERENCE.finditer(prompt)}
    for line in _LABEL_LINE.finditer(prompt):
        value = line.group(1).strip().strip(_QUOTES)
        if not value or found:
            continue
        for candidate in (value, value.split()[0].strip(_QUOTES)):  # a name, or a slug then more words
            name = candidate.rsplit("/", 1)[-1]
            name = name[:-3] if name.endswith(".md") else name
            found.update({name, slugify(name)})
    return found


def first_user_message(transcript_path: str | Path, max_lines: int = 50) -> str | None:
    """The text of the first user message in a Claude Code JSONL transcript (a
    subagent's transcript starts with its prompt). The path comes from a payload: only
    a bounded prefix of a regular file is read (payload.read_named_file), never a FIFO
    or a device."""
    data = read_named_file(str(transcript_path))
    if data is None:
        return None
    for line in data.decode("utf-8", errors="replace").split("\n", max_lines)[:max_lines]:
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(entry, dict):
            continue
        message = entry.get("message") if isinstance(entry.get("message"), dict) else entry
        if entry.get("type") != "user" and message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [part.get("text", "") for part in content
                     if isinstance(part, dict) and part.get("type") == "text"]
            if texts:
                return "\n".join(t for t in texts if isinstance(t, str))
    return None


def subagent_transcript_path(transcript_path: str | None, agent_id: str | None) -> str | None:
    """Where Claude Code keeps a subagent's transcript, derived from the session's
    (`<dir>/<session>.jsonl` -> `<dir>/<session>/subagents/agent-<id>.jsonl`): the
    PreToolUse payload of a subagent's tool call does not carry it."""
    if not transcript_path or not agent_id or not re.match(r"^[A-Za-z0-9_-]+$", agent_id):
        return None
    base = transcript_path[:-len(".jsonl")] if transcript_path.endswith(".jsonl") else transcript_path
    return str(Path(base) / "subagents" / f"agent-{agent_id}.jsonl")


def last_assistant_text(transcript_path: str | Path, max_bytes: int = 512 * 1024) -> str | None:
    """The text of the last assistant message in a Claude Code JSONL transcript (its tail
    only, bounded), or None: what a subagent last replied, when its stop payload lacks it."""
    try:
        with open(transcript_path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - max_bytes))
            lines = handle.read(max_bytes).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [
            part.get("text", "") for part in content or [] if isinstance(part, dict) and part.get("type") == "text"]
        if any(t.strip() for t in texts):
            return "\n".join(texts)
    return None


def briefs_of(run: Run) -> list[Brief]:
    """The run's briefs: those `briefs` reported when it last succeeded (with the findings
    path it printed), or else all in the folder."""
    if not run.briefs:
        return load_briefs(run.run_dir)
    paths = {b.brief_hash: b.findings_path for b in run.briefs}
    return [brief._replace(findings_path=paths.get(brief.brief_hash) or brief.findings_path)
            for brief in load_briefs(run.run_dir, paths)]


def attribute(run: Run, agent_id: str | None, briefs: list[Brief],
              transcript: str | None) -> tuple[Brief | None, bool]:
    """(the brief of the subagent `agent_id`, whether it was learned just now and should be
    remembered in the run's agents): remembered there, read from the subagent's transcript,
    or else found by elimination. Reads files: call it before taking the session lock."""
    slug = run.slug_of(agent_id)
    if slug is not None:
        return next((b for b in briefs if b.slug == slug), None), False
    prompt = first_user_message(transcript) if transcript else None
    brief = match_prompt(prompt, briefs).brief if prompt is not None else None
    if brief is None:
        slug = run.by_elimination(agent_id)
        brief = next((b for b in briefs if b.slug == slug), None) if slug else None
    return brief, brief is not None and isinstance(agent_id, str)


def checker_prompt(event: HookEvent) -> str | None:
    """The prompt a claim-checker was given: the first message of its transcript."""
    transcript = getattr(event, "agent_transcript_path", None) or subagent_transcript_path(
        event.transcript_path, event.agent_id)
    return first_user_message(transcript) if transcript else None
