"""The Markdown a report or findings file may use: a closed list, every other form refused.

"Verified" says every statement the person reads is checked. A form the parser renders
and no check reads breaks that: an HTML block, a code block or an image shows text no
claim holds; `~~not~~` is struck out on screen and read by the checks; a second `# `,
a setext heading or an extra `##` section ends the section every check reads; text
past the parser's nesting limit, or in a link reference definition, is read by nothing.
So the rule is an allowlist (`formats.MARKDOWN_ALLOWED_FORMS`): paragraphs, lists and
quotes to a bounded depth, tables, code spans, emphasis, and links to cited pages, in
the places the template gives them. Each other form is refused at its line, with what
to write instead.

    report.markdown           report.md: the forms below, and its shape: the title the only
                              `# ` line, nothing before `## TL;DR`, `###` headings only in
                              Findings, no `####` or deeper, nothing in Sources but the
                              entries `finish` writes (an extra `##` section is
                              report.sections.extra's error)
    findings.<slug>.markdown  a findings file's body: the forms below, at most one `# `
                              line (its first heading), no `####` or deeper

Refused in both: HTML (block or inline), code blocks (fenced or indented), images,
strikethrough (`~~x~~`, and a pair of single `~`, which GitHub strikes out), character
references (`&amp;`), setext headings, headings in a list or quote, thematic breaks,
lists and quotes nested past `formats.MARKDOWN_MAX_DEPTH`, a table with no row, a table
header cell over a column no row fills (a row's claim is read with its header cells, so a
header over nothing is read with no claim), a link to a page the file does not cite, a
link title (`[text](url "title")`: a tooltip no check reads), and a line the parser makes
nothing of (a link reference definition, text past its nesting limit). Pure: checklist.py
and the findings gate hand in the parsed file.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Collection, Iterable, Sequence

from .. import formats
from ..core.markdown_doc import (
    CELL, CODE, REF, TEXT, FORM_CODE_BLOCK, FORM_CONTAINER, FORM_EMPTY_TABLE, FORM_ENTITY, FORM_EXTRA_CELLS, FORM_FENCE,
    FORM_HR, FORM_HTML_BLOCK, FORM_HTML_INLINE, FORM_IMAGE, FORM_LINK, FORM_LINK_TITLE, FORM_NESTED_HEADING, FORM_SETEXT,
    FORM_STRIKETHROUGH, FORM_UNREAD, Block, Document, Form,
)
from ..core.result import Check, fail, ok
from .report import Report
from ..core.clip import clip

MAX_LISTED = 6
_REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:")
_TILDES = re.compile(r"~+")

# kind -> (what was found, what to write instead)
_REFUSED = {
    FORM_HTML_BLOCK: ("an HTML block", "write it as Markdown text"),
    FORM_HTML_INLINE: ("inline HTML", "use *emphasis* or **bold**, and put markup you mean to show in a `code span`"),
    FORM_FENCE: ("a fenced code block", "put code or a command in a `code span` inside a cited sentence"),
    FORM_CODE_BLOCK: ("an indented code block (4 spaces or a tab)",
                      "start the line with at most 3 spaces; put code in a `code span`"),
    FORM_HR: ("a thematic break (`---`, `***` or `___` on its own line)",
              "leave it out: headings separate the sections"),
    FORM_SETEXT: ("a heading underlined with `===` or `---`",
                  "write `## `/`### ` headings, and leave a blank line before a line of dashes, or drop it"),
    FORM_NESTED_HEADING: ("a heading inside a list or quote", "start a heading at the beginning of a line"),
    FORM_IMAGE: ("an image", "leave it out: a picture or its alt text is read by no check"),
    FORM_STRIKETHROUGH: ("strikethrough (`~~`)", "write the words you mean: struck-out words are still read"),
    FORM_ENTITY: ("a character reference", "write the character itself (`<`, `>` or `&` in a `code span` if need be)"),
    FORM_EMPTY_TABLE: ("a table with no row under its header",
                       "give it rows, each with its reference, or write a cited sentence instead"),
    FORM_EXTRA_CELLS: ("a table row with more cells than its header has columns (GitHub and the checks drop the "
                        "cells beyond them)", "give the table a header cell for each column, or drop the extra cells"),
    FORM_LINK_TITLE: ("a link title (`[text](url \"title\")`, shown as a tooltip no check reads)",
                      "write the link as `[text](url)`, and put what the title said in a cited sentence"),
}
_HOLLOW_HEADER = ("over a column no row fills (a header names the cells below it, and is read with them)",
                  "drop the column, or fill it in the rows it names")
_TILDE_PAIR = ("a pair of `~` (GitHub and other viewers strike the words between them out)",
               "write \"about\" for an approximation")


def _refusal(line: int, what: str, instead: str) -> tuple[int, str]:
    return line, f"{what}: {instead}"


def _short(text: str, limit: int = 40) -> str:
    return clip(text, limit)


def form_problems(doc: Document, cited_urls: Collection[str]) -> list[tuple[int, str]]:
    """`(line, what was found: what to write instead)` for every refused form of `doc`.
    `cited_urls`: the pages a link may point to."""
    out: list[tuple[int, str]] = []
    for form in doc.forms:
        out.extend(_form_problem(form, cited_urls))
    for block in doc.blocks:
        line = _tilde_pair(block)
        if line is not None:
            out.append(_refusal(line, *_TILDE_PAIR))
    for heading in doc.headings:
        if _pairs(heading.text):
            out.append(_refusal(heading.line, *_TILDE_PAIR))
    out.extend(hollow_headers(doc))
    return out


def _cell_words(block: Block, references: bool = False) -> list[str]:
    """A table row's cells as their words (text and code spans; references too when asked)."""
    cells = [""]
    for span in block.spans:
        if span.kind == CELL:
            cells.append("")
        elif span.kind in (TEXT, CODE) or (references and span.kind == REF):
            cells[-1] += span.text
    return [" ".join(cell.split()) for cell in cells]


def hollow_headers(doc: Document) -> list[tuple[int, str]]:
    """A table header cell with words over a column that no row of its table fills (with words or a
    reference: a row's claim reads each cell that has either with its header)."""
    headers: dict[int, list[str]] = {}
    filled: dict[int, set[int]] = {}
    for block in doc.blocks:
        if block.kind != "row":
            continue
        if block.line == block.table:
            headers[block.table] = _cell_words(block)
        else:
            filled.setdefault(block.table, set()).update(
                i for i, words in enumerate(_cell_words(block, references=True)) if words)
    out = []
    for table, cells in headers.items():
        for index, words in enumerate(cells):
            if words and index not in filled.get(table, {index}):
                what, instead = _HOLLOW_HEADER
                out.append(_refusal(table, f"a table header cell `{_short(words)}` {what}", instead))
    return out


def _form_problem(form: Form, cited_urls: Collection[str]) -> list[tuple[int, str]]:
    kind = form.kind
    if kind in _REFUSED:
        what, instead = _REFUSED[kind]
        detail = f" `{_short(form.detail)}`" if kind in (FORM_ENTITY, FORM_HTML_INLINE, FORM_LINK_TITLE, FORM_EXTRA_CELLS) \
            and form.detail else ""
        return [_refusal(form.line, what + detail, instead)]
    if kind == FORM_CONTAINER:
        if form.depth != formats.MARKDOWN_MAX_DEPTH + 1:
            return []  # within the bound, or inside one past it (reported once, at its outermost)
        return [_refusal(form.line, f"a {form.detail} nested {form.depth} deep",
                         f"keep lists and quotes at most {formats.MARKDOWN_MAX_DEPTH} deep")]
    if kind == FORM_LINK:
        if form.detail in cited_urls:
            return []
        return [_refusal(form.line, f"a link to {_short(form.detail, 80) or 'nothing'}, a page no entry cites",
                         "cite the page by reference; a link may only point to a page the Sources cite")]
    if kind == FORM_UNREAD:
        if _REFERENCE_DEFINITION.match(form.detail):
            return [_refusal(form.line, f"a link reference definition `{_short(form.detail)}`, which shows nothing",
                             "cite pages by reference, and leave it out")]
        return [_refusal(form.line, f"text the Markdown parser reads as nothing `{_short(form.detail)}` "
                                    "(past its nesting limit)",
                         f"keep lists and quotes at most {formats.MARKDOWN_MAX_DEPTH} deep")]
    return []


def _tilde_pair(block: Block) -> int | None:
    """The line of a block's first pair of single or double `~` that GitHub's Markdown would
    strike out (markdown-it, our parser, strikes out only `~~`), cell by cell in a table row."""
    parts: list[str] = []
    lines: list[int] = []
    for span in block.spans:
        if span.kind == CELL:
            if _pairs("".join(parts)):
                return lines[0] if lines else block.line
            parts, lines = [], []
            continue
        piece = span.text if span.kind == TEXT else "x" if span.kind in (CODE, REF) else " "
        if "~" in piece:
            lines.append(span.line)
        parts.append(piece)
    if _pairs("".join(parts)):
        return lines[0] if lines else block.line
    return None


def _pairs(text: str) -> bool:
    """Whether `text` holds a run of one or two `~` that can open (a character that is no space
    after it) and a later run of the same length that can close (no space before it)."""
    if text.count("~") < 2:
        return False
    openers: set[int] = set()
    for m in _TILDES.finditer(text):
        size = len(m.group())
        if size > 2:
            continue
        before = text[m.start() - 1] if m.start() else " "
        after = text[m.end()] if m.end() < len(text) else " "
        if size in openers and not before.isspace():
            return True
        if not after.isspace():
            openers.add(size)
    return False


def _listed(check_id: str, path: Path, problems: Sequence[tuple[int, str]], passed: str) -> Check:
    if not problems:
        return ok(check_id, passed, path)
    problems = sorted(problems)
    shown = "; ".join(f"line {line}: {what}" for line, what in problems[:MAX_LISTED])
    more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
    return fail(check_id, f"{len(problems)} form(s) no check reads ({shown}{more}). Write only "
                f"{formats.allowed_forms()}", path, problems[0][0])


# --------------------------------------------------------------------------
# report.md
# --------------------------------------------------------------------------

def report_form_problems(report: Report, cited_urls: Collection[str]) -> list[tuple[int, str]]:
    """The refused forms of report.md, and what stands outside the template's shape."""
    doc = report.doc
    out = form_problems(doc, cited_urls)
    tldr, findings, _gaps, sources = (report.section(name) for name in formats.REPORT_SECTIONS)
    first = min((s.line for s in report.sections), default=doc.last_line + 1)
    start = tldr.line if tldr is not None else first
    for heading in doc.headings:
        if heading.level == 1 and heading.line != report.title_line:
            out.append(_refusal(heading.line, "a second `# ` heading",
                                "the title is the only `# ` line; group Findings under `### ` headings"))
        elif heading.level > 3:
            out.append(_refusal(heading.line, f"a `{'#' * heading.level} ` heading", "use a `### ` heading in Findings"))
        elif heading.level == 3 and (findings is None or not findings.line < heading.line <= findings.end):
            out.append(_refusal(heading.line, "a `### ` heading outside Findings",
                                "`### ` headings group the Findings; elsewhere write a list or a paragraph"))
    title = report.title_line or 0
    before = [b.line for b in doc.blocks if b.line < start and b.line != title]
    before += [d.line for d in doc.definitions if d.line < start]
    out += [_refusal(line, "text before `## TL;DR`",
                     "the title line comes first, then `## TL;DR`; write everything in the four sections")
            for line in sorted(set(before))]
    if sources is not None:
        out += [_refusal(b.line, "text in Sources that is no entry",
                         "Sources holds only the entries `finish` writes; write text in Findings or "
                         "Gaps & Limitations, before `## Sources`")
                for b in doc.blocks_in(sources.line + 1, sources.end)
                if _words(b) != formats.REPORT_NO_SOURCES]
    return out


def _words(block: Block) -> str:
    return " ".join("".join(s.text for s in block.spans if s.kind == TEXT).split())


def report_form_check(path: Path, report: Report, cited_urls: Iterable[str] = ()) -> Check:
    """`report.markdown`: report.md holds only the allowed forms, in the template's shape."""
    urls = set(cited_urls) | {c.url for c in report.citations if c.url}
    return _listed("report.markdown", path, report_form_problems(report, urls),
                   "the report holds only the template's sections and forms")


# --------------------------------------------------------------------------
# findings files
# --------------------------------------------------------------------------

def findings_form_problems(doc: Document, cited_urls: Collection[str]) -> list[tuple[int, str]]:
    """The refused forms of a findings file's body, and headings past `###` or a second `# `."""
    out = form_problems(doc, cited_urls)
    titles = [h for h in doc.headings if h.level == 1]
    for heading in titles[1:] + [h for h in titles[:1] if h is not doc.headings[0]]:
        out.append(_refusal(heading.line, "a `# ` heading after the first heading",
                            "the title is the only `# ` line, above `## Claims`; use `### ` under Claims"))
    out += [_refusal(h.line, f"a `{'#' * h.level} ` heading", "use a `### ` heading under Claims")
            for h in doc.headings if h.level > 3]
    return out


def findings_form_check(scope: str, path: Path, doc: Document, cited_urls: Iterable[str]) -> Check:
    """`findings.<slug>.markdown`: a findings file's body holds only the allowed forms."""
    return _listed(f"{scope}.markdown", path, findings_form_problems(doc, set(cited_urls)),
                   "the findings hold only the allowed Markdown forms")
