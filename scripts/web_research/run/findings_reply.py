"""A researcher's final reply is its findings: the text the plugin writes as findings/<slug>.md.

A researcher writes no file. Its brief shows what its last reply holds: a frontmatter block
with `status` (and `reason` unless ok), then the findings sections. At its stop the plugin
takes that document from the reply, fills in the fields no model copies (subtopic, brief
hash, times: `completed_text`), checks it and writes it, or sends the reasons
back so the researcher replies again in full.

What a real model does around such a reply is tolerated here, and nothing more: a line of
prose before the frontmatter, one code fence around the whole document, and a trailing
"Sources:" list of links (`trailing_links`), which the client's WebSearch tool tells every agent
to end its answer with. That list is dropped, not kept: the findings' own `## Sources` footnotes
already name every page a claim rests on (with the excerpt a bare link lacks), a link no footnote
names backs nothing, and every page the researcher read stays in the run's ledger and snapshots.
Kept, it would sit inside `## Sources`, where the checks and the report read only footnotes. Problems found
in the written text are told by the line of the reply they came from (`reply_line`), since
the researcher never sees the file.

Pure functions of text; the hooks read the reply and write the file (guard/handlers/subagent_stop.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.frontmatter_reader import read_frontmatter
from ..formats import MAX_MARKDOWN_BYTES, STATUS_OK
from .findings_stub import render_frontmatter

_FENCE = re.compile(r"^[ \t]*(```|~~~)[\w-]*[ \t]*$")
_STATUS_LINE = re.compile(r"^status[ \t]*:", re.IGNORECASE)
# The client's own "Sources:" block: a label line (not our `## Sources` heading), then list items
# that are each one link (markdown or bare), to the end of the reply.
_LINKS_LABEL = re.compile(r"^[ \t]*(\*\*|__)?sources?[ \t]*:?[ \t]*(\*\*|__)?[ \t]*:?[ \t]*$", re.IGNORECASE)
_LINK_ITEM = re.compile(r"^[ \t]*([-*+]|\d+[.)])[ \t]+(\[[^\]\n]*\]\([ \t]*<?https?://[^\s)>]+>?[ \t]*\)"
                        r"|<?https?://\S+?>?)[ \t]*[.,;]?[ \t]*$", re.IGNORECASE)
MAX_PROSE_LINES = 5  # lines of prose a reply may hold before its frontmatter
MAX_FRONTMATTER_LINES = 40


def completed_text(text: str, subtopic: str, brief_hash: str, started_at: str, finished_at: str) -> str | None:
    """`text` with the plugin's fields filled in (they replace whatever the researcher wrote for
    them) and the reason dropped under `status: ok`; the body is kept byte for byte. None when
    the text has no frontmatter mapping to complete (the findings checks then say what is missing)."""
    text = text.removeprefix("\ufeff")
    front = read_frontmatter(text)
    if front.data is None:
        return None
    fields = dict(front.data)
    fields.update({"subtopic": subtopic, "brief_hash": brief_hash, "started_at": started_at,
                   "finished_at": finished_at})
    if fields.get("status") == STATUS_OK:
        fields.pop("reason", None)
    body = "".join(text.splitlines(keepends=True)[front.body_first_line - 1:])
    return render_frontmatter(fields) + body


@dataclass(frozen=True, slots=True)
class ReplyDocument:
    """The findings file to write (`text`), and where its body sat in the reply."""

    text: str
    body_first_line: int  # first body line in `text` (1-based)
    reply_body_first_line: int  # the same line in the reply
    reply_first_line: int  # the reply line of the frontmatter's opening `---`

    def reply_line(self, line: int | None) -> int:
        """The reply line a line of `text` came from (a frontmatter line: the block's first)."""
        if line is None or line < self.body_first_line:
            return self.reply_first_line
        return line - self.body_first_line + self.reply_body_first_line


def _start(lines: list[str]) -> int | None:
    """Index of the `---` line that opens the reply's frontmatter (a `status:` line inside it,
    closed by `---`), within the first few lines; None when the reply opens with no such block."""
    for index, line in enumerate(lines[: MAX_PROSE_LINES + 2]):
        if line.strip() != "---":
            continue
        block = lines[index + 1: index + 1 + MAX_FRONTMATTER_LINES]
        close = next((i for i, item in enumerate(block) if item.strip() in ("---", "...")), None)
        if close is not None and any(_STATUS_LINE.match(item) for item in block[:close]):
            return index
        return None
    return None


def trailing_links(lines: list[str]) -> int:
    """How many lines at the end of `lines` are the client's "Sources:" list (0: none): a label
    line `Sources:` then only list items of one link each (blank lines allowed), at least one."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    index, items = end, 0
    while index and (not lines[index - 1].strip() or _LINK_ITEM.match(lines[index - 1])):
        items += bool(lines[index - 1].strip())
        index -= 1
    if items == 0 or index == 0 or not _LINKS_LABEL.match(lines[index - 1]):
        return 0
    return len(lines) - (index - 1)


def reply_document(reply: str, subtopic: str, brief_hash: str, started_at: str,
                   finished_at: str) -> tuple[ReplyDocument | None, str | None]:
    """(the findings document a researcher's reply holds, completed with the plugin's fields, or
    None and why the reply holds none)."""
    if len(reply.encode("utf-8", errors="replace")) > MAX_MARKDOWN_BYTES:
        return None, f"your reply is over {MAX_MARKDOWN_BYTES // 1024} KiB; findings are far shorter"
    lines = reply.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    start = _start(lines)
    if start is None:
        return None, ("your reply does not start with your findings: its first line must be the frontmatter's "
                      "`---`, then `status: ...`, `---`, then the sections your brief shows")
    body = lines[start:]
    fenced = any(_FENCE.match(line) for line in lines[:start])
    if fenced:  # the whole document inside one code fence: drop the closing one
        last = max((i for i, line in enumerate(body) if line.strip()), default=0)
        if _FENCE.match(body[last]):
            body = body[:last]
    links = trailing_links(body)
    if links:  # the client's list of links, after the findings: dropped (see the module's docstring)
        body = body[:len(body) - links]
    document = "\n".join(body).rstrip("\n") + "\n"
    front = read_frontmatter(document)
    completed = completed_text(document, subtopic, brief_hash, started_at, finished_at)
    if front.data is None or completed is None:
        why = "; ".join(f"line {p.line + start} of your reply: {p.message}" for p in front.problems)
        return None, (why or "your reply's frontmatter cannot be read") + (
            "; write it as `---`, `status: ...`, `---`")
    reply_body = front.body_first_line
    written_body = read_frontmatter(completed).body_first_line
    return ReplyDocument(completed, written_body, reply_body + start, start + 1), None
