"""A brief's hash and the Agent prompt that carries it: the part of briefs.py the hooks need.

`brief_hash` is `sha256:` + the hex digest of the brief file's exact bytes. The
researcher cannot read its own hash from inside the text it hashes, so the Agent
prompt is the brief text followed by one last line `Brief hash: <brief_hash>`
(`compose_agent_prompt`); hooks recover and check both halves with
`split_agent_prompt`. Kept apart from the renderer (briefs.py: plan parsing,
budgets, templates) so that a hook matching a researcher's prompt imports none of it.
"""
from __future__ import annotations

import hashlib
import re

from ..formats import BRIEF_HASH_PREFIX

AGENT_PROMPT_HASH_LABEL = "Brief hash: "
_HASH_LINE = re.compile(r"^" + re.escape(AGENT_PROMPT_HASH_LABEL) + r"(" + re.escape(BRIEF_HASH_PREFIX) + r"[0-9a-f]{64})$")


def brief_hash(data: bytes) -> str:
    """`sha256:<hex>` of exactly these bytes."""
    return BRIEF_HASH_PREFIX + hashlib.sha256(data).hexdigest()


def compose_agent_prompt(brief_text: str, hash_value: str) -> str:
    """The Agent prompt for a brief: its text, a blank line, then `Brief hash: <hash>`."""
    return f"{brief_text.rstrip()}\n\n{AGENT_PROMPT_HASH_LABEL}{hash_value}\n"


def split_agent_prompt(prompt: str) -> tuple[str, str | None]:
    """Undo `compose_agent_prompt`: (brief text ending in one newline, stated hash or None).

    Tolerates surrounding whitespace that a model may add or drop; hash the
    returned text's UTF-8 bytes and compare with the stated hash and with the
    files under briefs/.
    """
    body = prompt.replace("\r\n", "\n").rstrip()
    head, _, last = body.rpartition("\n")
    match = _HASH_LINE.match(last.strip())
    if not match:
        return body + "\n", None
    return head.rstrip() + "\n", match.group(1)
