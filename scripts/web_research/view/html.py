"""The report view as one self-contained HTML file (`web-research view`).

The page is the template `assets/page.html` with its slots filled: the report
rendered by markdown-it-py (CommonMark, raw HTML off, footnotes by
mdit-py-plugins), the coverage, figures and verification tables, and the
footnotes' data as JSON for the one script that opens a source panel.

Safety (every string comes from a hostile run folder or the web):
- raw HTML in report.md is shown as text (`html: False`); links keep only the targets
  markdown-it validates (no `javascript:`, `vbscript:`, `file:` or `data:` but images);
- every other string is escaped here (`html.escape`), and the script builds the panel
  with `textContent` only, linking only http(s) URLs;
- the footnote data sits in a `<script type="application/json">` block with `<`, `>`
  and `&` written as JSON escapes, so no `</script>` can close it;
- a Content-Security-Policy meta allows nothing but this page's own inline script and
  style, each by its SHA-256 hash: no network, no other script, no inline handler.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any


ASSETS = Path(__file__).with_name("assets")
_SLOT = re.compile(r"<!--slot:([a-z_]+)-->")
_SAFE_ID = re.compile(r"[^A-Za-z0-9_-]")


def esc(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def anchor_id(label: str) -> str:
    """An element id for a footnote label: only letters, digits, `_` and `-` survive."""
    return "fn-" + _SAFE_ID.sub("_", label)[:80]


def csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def json_block(data: object) -> str:
    """JSON that stays data inside `<script type="application/json">`."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# --------------------------------------------------------------------------
# The report's Markdown
# --------------------------------------------------------------------------

def _markdown():
    from markdown_it import MarkdownIt  # lazy: only the view renders Markdown to HTML
    from mdit_py_plugins.footnote import footnote_plugin  # lazy: as above

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.use(footnote_plugin).enable("table").enable("strikethrough")

    def footnote_ref(self, tokens, idx, options, env):
        label = str(tokens[idx].meta.get("label", ""))
        sub = int(tokens[idx].meta.get("subId", 0))
        hover = (env.get("titles") or {}).get(label) or f"the source of [{label}]"
        return (f'<sup class="fn-ref"><a href="#{anchor_id(label)}" id="{anchor_id(label)}-ref-{sub}" '
                f'data-fn="{esc(label)}" title="{esc(hover)}: click for the excerpt in its page">[{esc(label)}]</a></sup>')

    def footnote_block_open(self, tokens, idx, options, env):
        return '<section class="footnotes" aria-label="Footnotes"><ol class="fn-list">\n'

    def footnote_block_close(self, tokens, idx, options, env):
        return "</ol></section>\n"

    def footnote_open(self, tokens, idx, options, env):
        label = str(tokens[idx].meta.get("label", ""))
        return (f'<li id="{anchor_id(label)}" class="fn-item" data-fn="{esc(label)}">'
                f'<a class="fn-label" href="#{anchor_id(label)}" data-fn="{esc(label)}">[{esc(label)}]</a> ')

    def footnote_close(self, tokens, idx, options, env):
        return "</li>\n"

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

    def link_open(self, tokens, idx, options, env):
        tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
        tokens[idx].attrSet("target", "_blank")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    return md


def render_markdown(text: str, titles: dict[str, str] | None = None) -> tuple[str, list[int]]:
    """(HTML of the report, the source lines that start a block, ascending). `titles`: each
    footnote label's source title, shown when the pointer rests on a footnote."""
    md = _markdown()
    env = {"titles": titles or {}}
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
# The other sections
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


def coverage_html(items: list[dict[str, Any]]) -> str:
    if not items:
        return '<p class="muted">No plan bullets to show (plan.md missing or unreadable).</p>'
    rows = []
    for b in items:
        sources = []
        for s in b["sources"]:
            refs = " ".join(f'<a href="#{anchor_id(n)}" data-fn="{esc(n)}">[{esc(n)}]</a>' for n in s["footnotes"])
            sources.append(f'<li>{esc(s["title"] or s["url"] or "untitled")} {refs}</li>')
        detail = f'<ul class="plain">{"".join(sources)}</ul>' if sources else ""
        if b.get("reason") and b["state"] != "covered":
            detail += f'<p class="muted">{esc(b["reason"])}</p>'
        report = {"cited": "cited in the report", "gaps": "named under Gaps & Limitations"}.get(b.get("report") or "", "")
        rows.append(f'<tr class="state-{esc(b["state"])}"><td class="id">{esc(b["id"])}</td>'
                    f'<td>{esc(b["text"])}<div class="muted">{esc(b["subtopic"])}</div></td>'
                    f'<td><span class="badge {esc(b["state"])}">{esc(b["state"])}</span>'
                    f'<div class="muted">{esc(report)}</div></td><td>{detail}</td></tr>')
    return ('<table class="grid"><thead><tr><th>Bullet</th><th>What it asks</th><th>State</th>'
            f'<th>Sources</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def figures_html(f: dict[str, Any]) -> str:
    if not f["recorded"]:
        return ('<p class="muted">No metrics.json in this run: the hooks record spending while a run is active '
                '(a run made by hand, or before metrics, has none).</p>')
    budget = f.get("budget") or {}
    rows = []
    for r in f["researchers"]:
        rows.append(f'<tr><td>{esc(r["slug"])}</td><td>{esc(r.get("state") or "-")}</td>'
                    f'<td class="num">{esc(_of(r["searches"], budget.get("searches_per_researcher")))}</td>'
                    f'<td class="num">{esc(_of(r["page_reads"], budget.get("page_reads_per_researcher")))}</td>'
                    f'<td class="num">{esc(_tokens(r["input_tokens"]))} / {esc(_tokens(r["output_tokens"]))}</td>'
                    f'<td class="num">{esc(_seconds(r["wall_seconds"]))}</td><td class="num">{esc(r["cost_text"])}</td></tr>')
    for r in f["others"]:
        rows.append(f'<tr><td>{esc(r["agent"])} (other agent)</td><td>-</td><td class="num">-</td><td class="num">-</td>'
                    f'<td class="num">{esc(_tokens(r["input_tokens"]))} / {esc(_tokens(r["output_tokens"]))}</td>'
                    f'<td class="num">{esc(_seconds(r["wall_seconds"]))}</td><td class="num">{esc(r["cost_text"])}</td></tr>')
    o = f.get("orchestrator")
    if o:
        rows.append(f'<tr><td>orchestrator</td><td>-</td><td class="num">-</td><td class="num">-</td>'
                    f'<td class="num">{esc(_tokens(o["input_tokens"]))} / {esc(_tokens(o["output_tokens"]))}</td>'
                    f'<td class="num">{esc(_seconds(o["wall_seconds"]))}</td><td class="num">{esc(o["cost_text"])}</td></tr>')
    t = f.get("totals") or {}
    table = ('<table class="grid"><thead><tr><th>Agent</th><th>State</th><th>Searches</th><th>Page reads</th>'
             f'<th>Tokens in / out</th><th>Time</th><th>Cost</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
    summary = (f'<p class="totals"><strong>Run:</strong> {esc(t.get("searches"))} searches, {esc(t.get("page_reads"))} '
               f'page reads, tokens {esc(_tokens(t.get("input_tokens")))} in / {esc(_tokens(t.get("output_tokens")))} '
               f'out, wall time {esc(_seconds(t.get("wall_seconds")))}, estimated cost '
               f'<strong id="total-cost">{esc(t.get("cost_text"))}</strong>'
               f'{"" if t.get("final") else " (so far)"}.</p>')
    return summary + table + f'<p class="muted">Cost at {esc(f["prices"])}; input tokens are mostly cache reads.</p>'


def verification_html(v: dict[str, Any], starts: list[int], footnote_lines: list[tuple[int, int, str]]) -> str:
    if v["passed"] and not v["failing"]:
        return '<p class="verdict pass" id="verify-result">Verification passed: every check holds.</p>'
    head = (f'<p class="verdict {"pass" if v["passed"] else "fail"}" id="verify-result">Verification '
            f'{"passed" if v["passed"] else "failed"}: {v["errors"]} error(s), {v["warnings"]} warning(s).</p>')
    items = []
    for c in v["failing"]:
        where = esc(c["file"] or "")
        if c["line"]:
            where += f":{esc(c['line'])}"
        target = _place(c["line"], starts, footnote_lines) if c["file"] == "report.md" else None
        place = f'<a href="#{target}" class="goto">{where}</a>' if target else where
        items.append(f'<li class="{esc(c["severity"])}"><span class="badge {esc(c["severity"])}">{esc(c["severity"])}'
                     f'</span> <code>{esc(c["id"])}</code> {place}<div>{esc(c["message"])}</div></li>')
    more = f'<li class="muted">and {v["more"]} more</li>' if v.get("more") else ""
    return head + f'<ul class="checks">{"".join(items)}{more}</ul>'


def findings_html(items: list[dict[str, Any]]) -> str:
    if not items:
        return ""
    cells = "".join(f'<li><code>{esc(f["slug"])}</code> <span class="badge {esc(f["status"])}">{esc(f["status"])}</span>'
                    + (f' <span class="muted">{esc(f["reason"])}</span>' if f.get("reason") else "") + "</li>"
                    for f in items)
    return f'<h3>Findings files</h3><ul class="plain">{cells}</ul>'


# --------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------

def render_page(view: dict[str, Any]) -> str:
    """The whole HTML document for `view` (view_data.gather)."""
    from ..checks.citation_entries import parse_citations  # lazy: start-up

    template = (ASSETS / "page.html").read_text(encoding="utf-8")
    style = (ASSETS / "view.css").read_text(encoding="utf-8")
    script = (ASSETS / "view.js").read_text(encoding="utf-8")
    if view["report_markdown"] is not None:
        titles = {f["label"]: f"{f['title'] or 'untitled'} ({f['url'] or 'no URL'})" for f in view["footnotes"]}
        report_html, starts = render_markdown(view["report_markdown"], titles)
        footnote_lines = [(c.line, c.end_line, str(c.number)) for c in parse_citations(view["report_markdown"])]
    else:
        report_html, starts, footnote_lines = '<p class="verdict fail">report.md is missing or unreadable.</p>', [], []
    v = view["verification"]
    data = {"footnotes": view["footnotes"]}
    slots = {
        "csp": esc(f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(style)}; "
                   "img-src data:; base-uri 'none'; form-action 'none'"),
        "title": esc(view.get("title") or view.get("question") or "web-research report"),
        "style": style,
        "script": script,
        "data": json_block(data),
        "question": esc(view.get("question") or "(plan.md missing or unreadable)"),
        "run_dir": esc(view["run_dir"]),
        "verdict": (f'<a href="#verification" class="badge {"pass" if v["passed"] else "fail"}">'
                    f'{"verified" if v["passed"] else "fails verification"}</a>'),
        "cost": esc((view["figures"].get("totals") or {}).get("cost_text") or "no metrics"),
        "report": report_html,
        "coverage": coverage_html(view["coverage"]) + findings_html(view["findings"]),
        "figures": figures_html(view["figures"]),
        "verification": verification_html(v, starts, footnote_lines),
    }
    return _SLOT.sub(lambda m: slots[m.group(1)], template)


def write_view(run_dir: Path, seal_source: Any = None, env: Any = None, data_dir: Path | None = None) -> Path:
    """Gather, render and write `<run>/report.html` atomically; returns its path."""
    from .. import formats  # lazy: start-up
    from ..core.fsutil import atomic_write_text  # lazy: start-up
    from .data import gather  # lazy: start-up

    path = Path(run_dir) / formats.REPORT_VIEW_FILE
    atomic_write_text(path, render_page(gather(Path(run_dir), seal_source, env, data_dir)))
    return path
