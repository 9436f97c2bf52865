"""The report view as one self-contained HTML file (`web-research view`).

The page is the Jinja2 template `assets/page.html.j2` filled from view/data.gather: the report
rendered by markdown-it-py (CommonMark, raw HTML off, footnotes by mdit-py-plugins) with each
claim and footnote marked by its state, the Sources as cards, the coverage, figures and
verification tables, and the footnotes' data as JSON for the one script that opens a source.

Safety (every string comes from a hostile run folder or the web):
- raw HTML in report.md is shown as text (`html: False`); links keep only the targets
  markdown-it validates (no `javascript:`, `vbscript:`, `file:` or `data:` but images);
- only the forms the checks read are rendered (checks/markdown_form.py, `_OFF`): an image,
  a code block, strikethrough, a setext heading, a thematic break, a character reference
  or a link reference definition is shown as the text it is written as, a link to a
  page no footnote cites as its text alone, and a link's title (a tooltip) not at all, so
  the page never shows what no check read;
- the template autoescapes every value; the only markup it takes as is comes from the
  Markdown renderer (`Markup`) and from our own assets;
- the script builds the panel with `textContent` only, linking only http(s) URLs;
- the footnote data sits in a `<script type="application/json">` block with `<`, `>`
  and `&` written as JSON escapes, so no `</script>` can close it;
- a Content-Security-Policy meta allows nothing but this page's own inline script and
  style, each by its SHA-256 hash: no network, no other script, no inline handler.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
from html import escape
from pathlib import Path
from typing import Mapping

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup
from mdit_py_plugins.footnote import footnote_plugin

from .data import FAILING, RECHECK_MARKS, STATE_MARKS, STATE_WORDS, UNCHECKED, gather
from .model import Claim, Footnote, View
from .. import formats
from ..checks.citation_entries import parse_citations
from ..core.fsutil import atomic_write_text
from ..evidence.provenance import SealSource

ASSETS = Path(__file__).with_name("assets")
TEMPLATE = "page.html.j2"
MACROS = "macros.html.j2"
_SAFE_ID = re.compile(r"[^A-Za-z0-9_-]")
# Where a claim begins inside a run of text: after the previous sentence's end.
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+")
_LEAD = re.compile(r"^[\s,;:]+")


def anchor_id(label: str) -> str:
    """An element id for a footnote label: only letters, digits, `_` and `-` survive."""
    return "fn-" + _SAFE_ID.sub("_", label)[:80]


def csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def json_block(data: object) -> str:
    """JSON that stays data inside `<script type="application/json">`."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _jinja() -> Environment:
    env = Environment(loader=FileSystemLoader(str(ASSETS)), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.globals.update(anchor_id=anchor_id, state_words=STATE_WORDS, marks=STATE_MARKS, live_marks=RECHECK_MARKS,
                       tokens=_tokens, seconds=_seconds, of=_of)
    return env


# --------------------------------------------------------------------------
# The report's Markdown
# --------------------------------------------------------------------------

def _mark_claims(state) -> None:
    """Wrap the text each footnote reference closes (back to the previous reference or the
    sentence's start) in `<span class="claim st-…">`, with the state of the claim it belongs
    to; only at the inline level where the wrap stays balanced (never across `**`/`*`)."""
    claims_by_line: Mapping[int, list[Claim]] = state.env.get("claims_by_line") or {}
    for block in state.tokens:
        if block.type != "inline" or not block.children or not block.map:
            continue
        first, last = block.map[0] + 1, block.map[1]
        candidates = [c for line in range(first, last + 1) for c in claims_by_line.get(line, [])]
        children: list[Token] = []
        pending: list[Token] = []
        pointer = 0
        for token in block.children:
            if token.type != "footnote_ref":
                pending.append(token)
                continue
            label = str(token.meta.get("label", ""))
            claim, pointer = _claim_for(candidates, pointer, label, _plain(pending))
            token.meta["claim_state"] = claim["state"] if claim else None
            children.extend(_wrapped(pending, claim["state"] if claim else None,
                                     _failing_title(claim) if claim else ""))
            pending = []
            children.append(token)
        children.extend(pending)
        block.children = children


def _plain(tokens: list[Token]) -> str:
    return " ".join("".join(t.content for t in tokens if t.type in ("text", "code_inline")).split())


def _claim_for(candidates: list[Claim], pointer: int, label: str, text: str) -> tuple[Claim | None, int]:
    """The claim (from `pointer` on, in order) that cites `label` and holds `text`'s last words."""
    tail = " ".join(text.split()[-6:])
    for index in range(pointer, len(candidates)):
        claim = candidates[index]
        if label in claim["footnotes"] and tail in " ".join(claim["text"].split()):
            return claim, index
    for index in range(pointer, len(candidates)):
        if label in candidates[index]["footnotes"]:
            return candidates[index], index
    return None, pointer


def _failing_title(claim: Claim) -> str:
    """What a failing claim's mark says when pointed at: the check that fails it."""
    if claim["state"] != FAILING:
        return ""
    why = claim["why"][0] if claim["why"] else "a source it cites fails a check"
    return f"{STATE_WORDS[FAILING]}: {why}"


def _wrapped(tokens: list[Token], claim_state: str | None, title: str = "") -> list[Token]:
    """`tokens` with the stretch from the last sentence start at the top level wrapped."""
    if claim_state is None or not tokens:
        return tokens
    depth = 0
    start = len(tokens)
    cut: tuple[int, int] | None = None
    for index in range(len(tokens) - 1, -1, -1):
        token = tokens[index]
        if token.nesting == -1:
            depth += 1
        elif token.nesting == 1:
            if depth == 0:
                break  # inside an emphasis that opened before: wrap only after its opening
            depth -= 1
        start = index
        if depth == 0 and token.type == "text":
            ends = list(_SENTENCE_END.finditer(token.content))
            if ends and ends[-1].end() < len(token.content):
                cut = (index, ends[-1].end())
                break
    out = list(tokens[:start])
    inner = list(tokens[start:])
    if cut is not None:
        index, at = cut
        head, rest = tokens[index].content[:at], tokens[index].content[at:]
        before = Token("text", "", 0, content=head)
        after = Token("text", "", 0, content=rest)
        out = list(tokens[:index]) + [before]
        inner = [after] + list(tokens[index + 1:])
    if not _plain(inner):
        return tokens
    if inner[0].type == "text":  # the comma or space after the previous reference stays outside
        lead = _LEAD.match(inner[0].content)
        if lead and lead.end() < len(inner[0].content):
            out.append(Token("text", "", 0, content=lead.group()))
            inner[0] = Token("text", "", 0, content=inner[0].content[lead.end():])
    named = f' title="{escape(title, quote=True)}"' if title else ""
    opening = Token("html_inline", "", 0, content=f'<span class="claim st-{claim_state}"{named}>')
    closing = Token("html_inline", "", 0, content="</span>")
    return out + [opening, *inner, closing]


# markdown-it rules the view leaves off: the forms a report may not use (markdown_form.py)
# are shown as the characters they are written with, as `cat report.md` shows them.
_OFF = ("image", "fence", "code", "lheading", "hr", "entity", "reference", "html_block", "html_inline")


def _uncited_links(state) -> None:  # noqa: ANN001 - markdown-it's StateCore
    """Drop the link marks (not the text) of every link whose target no footnote cites."""
    cited = {note.get("url") for note in (state.env.get("notes") or {}).values() if note.get("url")}
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        kept: list[Token] = []
        open_links: list[bool] = []
        for token in block.children:
            if token.type == "link_open":
                keep = token.attrGet("href") in cited
                open_links.append(keep)
                if not keep:
                    continue
            elif token.type == "link_close" and open_links and not open_links.pop():
                continue
            kept.append(token)
        block.children = kept


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.use(footnote_plugin).enable("table").disable(list(_OFF))
    macros = _jinja().get_template(MACROS).module

    def footnote_ref(self, tokens, idx, options, env):
        label = str(tokens[idx].meta.get("label", ""))
        sub = int(tokens[idx].meta.get("subId", 0))
        note = (env.get("notes") or {}).get(label)
        state = tokens[idx].meta.get("claim_state") or (note or {}).get("state") or UNCHECKED
        return str(macros.footnote_ref(label, sub, state, note))

    def footnote_block_open(self, tokens, idx, options, env):
        return '<section class="footnotes" id="sources" aria-label="Sources"><ol class="fn-list cards">\n'

    def footnote_block_close(self, tokens, idx, options, env):
        return "</ol></section>\n"

    def footnote_open(self, tokens, idx, options, env):
        label = str(tokens[idx].meta.get("label", ""))
        return str(macros.source_card(label, (env.get("notes") or {}).get(label)))

    def footnote_close(self, tokens, idx, options, env):
        return "</div></li>\n"

    def footnote_anchor(self, tokens, idx, options, env):
        return ""

    for name, rule in (("footnote_ref", footnote_ref), ("footnote_block_open", footnote_block_open),
                       ("footnote_block_close", footnote_block_close), ("footnote_open", footnote_open),
                       ("footnote_close", footnote_close), ("footnote_anchor", footnote_anchor)):
        md.add_render_rule(name, rule)

    def line_anchors(state):
        """Every block that starts a source line gets `id="L<n>"`, so a check names its place."""
        seen: set[int] = set()
        for token in state.tokens:
            if token.map and token.nesting == 1 and token.map[0] + 1 not in seen:
                seen.add(token.map[0] + 1)
                token.attrSet("id", f"L{token.map[0] + 1}")

    md.core.ruler.push("line_anchors", line_anchors)
    md.core.ruler.push("uncited_links", _uncited_links)
    md.core.ruler.push("mark_claims", _mark_claims)

    def link_open(self, tokens, idx, options, env):
        tokens[idx].attrs.pop("title", None)  # a tooltip no check reads (markdown_form refuses it too)
        tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
        tokens[idx].attrSet("target", "_blank")
        return self.renderToken(tokens, idx, options, env)

    def table_open(self, tokens, idx, options, env):
        return '<div class="scroll">' + self.renderToken(tokens, idx, options, env)

    def table_close(self, tokens, idx, options, env):
        return self.renderToken(tokens, idx, options, env) + "</div>"

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)
    return md


def render_markdown(text: str, notes: Mapping[str, Footnote] | None = None,
                    claims: list[Claim] | None = None) -> tuple[str, list[int]]:
    """(HTML of the report, the source lines that start a block, ascending). `notes`: each
    footnote's data by label (view/data.footnotes); `claims`: every claim with its state."""
    md = _markdown()
    by_line: dict[int, list[Claim]] = {}
    for claim in claims or []:
        by_line.setdefault(int(claim["line"]), []).append(claim)
    env = {"notes": notes or {}, "claims_by_line": by_line}
    tokens = md.parse(text, env)
    starts = sorted({t.map[0] + 1 for t in tokens if t.map and t.nesting == 1})
    return md.renderer.render(tokens, md.options, env), starts


def _place(line: int | None, starts: list[int], footnote_lines: list[tuple[int, int, str]]) -> str | None:
    """The anchor of report.md's line `line`: its footnote entry, else the block it falls in."""
    if not line:
        return None
    for first, last, label in footnote_lines:
        if first <= line <= last:
            return anchor_id(label)
    before = [s for s in starts if s <= line]
    return f"L{before[-1]}" if before else None


# --------------------------------------------------------------------------
# Numbers as the tables show them
# --------------------------------------------------------------------------

def _tokens(n: object) -> str:
    if not isinstance(n, int):
        return "-"
    return f"{n / 1_000_000:.2f}M" if n >= 1_000_000 else (f"{round(n / 1000)}k" if n >= 1000 else str(n))


def _seconds(s: object) -> str:
    if not isinstance(s, (int, float)):
        return "-"
    s = round(s)
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


def _of(used: object, limit: object) -> str:
    if used is None:
        return "-"
    return f"{used} / {limit}" if isinstance(limit, int) else str(used)


def page_title(view: View) -> str:
    """The tab's title: the report's title without its Markdown heading mark."""
    title = (view.get("title") or "").lstrip("#").strip()
    return title or view.get("question") or "web-research report"


# --------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------

def render_page(view: View) -> str:
    """The whole HTML document for `view` (view/data.gather)."""
    style = (ASSETS / "view.css").read_text(encoding="utf-8")
    script = (ASSETS / "view.js").read_text(encoding="utf-8")
    notes = {f["label"]: f for f in view["footnotes"]}
    if view["report_markdown"] is not None:
        report_html, starts = render_markdown(view["report_markdown"], notes, view.get("claims"))
        footnote_lines = [(c.line, c.end_line, str(c.number)) for c in parse_citations(view["report_markdown"])]
    else:
        report_html, starts, footnote_lines = None, [], []
    failing = [{**c, "target": _place(c["line"], starts, footnote_lines) if c["file"] == "report.md" else None}
               for c in view["verification"]["failing"]]
    counts = {state: 0 for state in STATE_WORDS}
    for claim in view.get("claims") or []:
        counts[claim["state"]] = counts.get(claim["state"], 0) + 1
    csp = (f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(style)}; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    return _jinja().get_template(TEMPLATE).render(
        view=view, csp=csp, title=page_title(view), style=Markup(style), script=Markup(script),
        data=Markup(json_block({"footnotes": view["footnotes"], "words": STATE_WORDS, "marks": STATE_MARKS})),
        report=Markup(report_html) if report_html is not None else None, failing=failing, counts=counts,
        seals=_seal_summary(view["footnotes"]))


def _seal_summary(notes: list[Footnote]) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in notes:
        out[f["seal"]["state"]] = out.get(f["seal"]["state"], 0) + 1
    return out


def write_view(run_dir: Path, seal_source: SealSource | None = None, env: Mapping[str, str] | None = None,
               data_dir: Path | None = None) -> Path:
    """Gather, render and write `<run>/report.html` atomically; returns its path."""
    path = Path(run_dir) / formats.REPORT_VIEW_FILE
    atomic_write_text(path, render_page(gather(Path(run_dir), seal_source, env, data_dir)))
    return path

