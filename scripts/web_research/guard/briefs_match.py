"""Which rendered brief a researcher prompt is.

`web-research briefs` writes one brief per subtopic to `<run>/briefs/<slug>.md`;
the orchestrator dispatches each researcher with the brief's text followed by one
last line `Brief hash: <sha256 of the brief file's bytes>` (core's `briefs.compose_agent_prompt`;
see skills/web-research/references/subagent-brief.md). A prompt is that brief when
its text (`briefs.split_agent_prompt`) hashes to the file's hash and its hash line
states that hash; only whitespace around the two halves is forgiven. The same
test attributes a finished subagent (its transcript's first user message) to a
brief, so no interpretation drift between plan and researcher goes unnoticed.
"""
from __future__ import annotations

import re
from pathlib import Path

from .. import formats
from ..typing_lite import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable, Sequence




class Brief(NamedTuple):
    slug: str
    brief_path: str
    brief_hash: str
    findings_path: str
    text: str


def brief_hash(data: bytes) -> str:
    from ..brief_prompt import brief_hash as core_hash  # lazy: hook start-up

    return core_hash(data)


def load_briefs(run_dir: Path | str, only_hashes: Iterable[str] | None = None) -> list[Brief]:
    """The briefs rendered in `<run>/briefs/` (optionally only those with the given hashes)."""
    from ..fsutil import RunFileError, read_run_file  # lazy: hook start-up

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
    from ..brief_prompt import compose_agent_prompt  # lazy: hook start-up

    return compose_agent_prompt(brief.text, brief.brief_hash)


def split_hash_line(prompt: str) -> tuple[str, str | None]:
    """(brief text, stated hash or None), undoing `dispatch_prompt` (core's split)."""
    from ..brief_prompt import split_agent_prompt  # lazy: hook start-up

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
    intended = tuple(b for b in briefs if declared == b.brief_hash
                     or b.findings_path in (prompt or "")
                     or f"{formats.BRIEFS_DIR}/{b.slug}.md" in (prompt or ""))
    return PromptMatch(None, intended)


def first_user_message(transcript_path: str | Path, max_lines: int = 50) -> str | None:
    """The text of the first user message in a Claude Code JSONL transcript (a
    subagent's transcript starts with its prompt)."""
    import json  # lazy: start-up

    try:
        with open(transcript_path, encoding="utf-8") as handle:
            for _number, line in zip(range(max_lines), handle):
                try:
                    entry = json.loads(line)
                except ValueError:
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
                        return "\n".join(texts)
    except OSError:
        return None
    return None


def subagent_transcript_path(transcript_path: str | None, agent_id: str | None) -> str | None:
    """Where Claude Code keeps a subagent's transcript, derived from the session's
    (`<dir>/<session>.jsonl` -> `<dir>/<session>/subagents/agent-<id>.jsonl`): the
    PreToolUse payload of a subagent's tool call does not carry it."""
    if not transcript_path or not agent_id or not re.match(r"^[A-Za-z0-9_-]+$", agent_id):
        return None
    base = transcript_path[:-len(".jsonl")] if transcript_path.endswith(".jsonl") else transcript_path
    return str(Path(base) / "subagents" / f"agent-{agent_id}.jsonl")
