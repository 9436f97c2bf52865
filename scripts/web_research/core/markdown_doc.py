"""One Markdown parse per file, and the questions every command asks of it.

report.md, findings files and their checks, `claims`, `status` and the coverage
check all read Markdown through `parse_markdown`: a CommonMark parser
(markdown-it-py, with tables and strikethrough) and mdit-py-plugins' footnote
plugin, so that one parser decides what is code, what is a heading and what is a
footnote. A `[^12]` in a code block, a code span or an HTML comment is text, not
a citation; a footnote label is any run of characters without whitespace, so the
`[^slug:3]` of a report draft is a reference like `[^3]`.

A parsed `Document` answers: headings and the sections they open
(`sections`), footnote references in prose (`references`) and definitions with
their source lines (`definitions`, for the `**Label**: value` fields), and the
prose blocks (paragraphs, table rows) as inline spans of text, code, HTML,
line breaks and references (`blocks`). Line numbers are file lines
(`first_line` is the file line of the text's first line).

It also lists every other form the parser found (`forms`: HTML, code blocks,
images, strikethrough, character references, links and their titles, setext headings, headings
in a list or quote, thematic breaks, nesting, a table without rows, and lines the
parser turned into nothing at all, such as a link reference definition or text past
its nesting limit), so that checks/markdown_form.py can refuse what no check reads.
A list or table that a paragraph introduces (the paragraph closes and the list or
table opens next, at the same depth) is noted in `leads`.

Footnote definitions keep their place in the document (the plugin's
"move to end" step is off) and their inline content is not parsed: a definition
is read field by field from its source lines, which must stay verbatim (an
excerpt is compared with the page), and skipping it is most of the parsing time.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.footnote.index import footnote_ref

from .text import markdown_lines

# `**Label**: value` (a field of a footnote definition)
LABELLED_FIELD = re.compile(r"^\s*\*\*([^*\n]+?)\*\*\s*:\s?(.*)$")

# Span kinds of a block's inline content.
TEXT = "text"  # prose (emphasis marks dropped, link text kept)
CODE = "code"  # a code span's content
HTML = "html"  # an inline HTML tag or comment
BREAK = "break"  # a line break inside the block
CELL = "cell"  # the boundary between two table cells
REF = "ref"  # a footnote reference: `text` is its label

# Form kinds (`Form.kind`): what the parser made of a part of the text that is no paragraph,
# table row, heading or footnote definition, or an inline form other than text, code spans,
# emphasis, line breaks and references.
FORM_HTML_BLOCK = "html_block"
FORM_HTML_INLINE = "html_inline"
FORM_FENCE = "fence"
FORM_CODE_BLOCK = "code_block"
FORM_HR = "hr"
FORM_SETEXT = "setext"  # a heading underlined with `===` or `---`
FORM_NESTED_HEADING = "nested_heading"  # a heading inside a list, quote or definition
FORM_IMAGE = "image"
FORM_STRIKETHROUGH = "strikethrough"
FORM_ENTITY = "entity"  # a character reference (`&amp;`, `&#36;`): detail is how it is written
FORM_LINK = "link"  # detail: its target
FORM_LINK_TITLE = "link_title"  # a link's title (`[text](url "title")`, a tooltip): detail is the title
FORM_CONTAINER = "container"  # a list or quote ("list" or "quote"); depth: lists, quotes and definitions around it
FORM_EMPTY_TABLE = "empty_table"  # a table with a header and no row
FORM_EXTRA_CELLS = "extra_cells"  # a row's cells beyond its header's columns (dropped): detail is their text
FORM_UNREAD = "unread"  # a line the parser turned into nothing: detail is the line


class Span(NamedTuple):
    kind: str
    text: str
    line: int
    column: int = -1  # a reference's: where its `[` stands in the file line (-1: not known)


class Block(NamedTuple):
    """A paragraph (at any depth of lists and quotes) or a table row.
    `item` is True for the first paragraph of a list item; `table` is the first
    line of the table a row belongs to (0 for a paragraph)."""

    kind: str  # "paragraph" or "row"
    line: int
    end: int
    spans: tuple[Span, ...]
    item: bool = False
    table: int = 0

    @property
    def labels(self) -> list[str]:
        return [s.text for s in self.spans if s.kind == REF]

    def text_lines(self) -> list[tuple[int, str]]:
        """`(line, prose)` per line of the block, code, HTML and references left out."""
        out: dict[int, list[str]] = {}
        for span in self.spans:
            if span.kind == TEXT:
                out.setdefault(span.line, []).append(span.text)
            elif span.kind == CELL:
                out.setdefault(span.line, []).append(" ")
        return [(line, "".join(parts)) for line, parts in out.items()]


class Heading(NamedTuple):
    level: int
    text: str  # the heading's source text, trimmed
    line: int


class Reference(NamedTuple):
    """A `[^label]` in prose (not in a definition, code or HTML). `column`: where its
    `[` stands in the file line (0-based), so it can be rewritten in place; -1 when the
    parser's view of the line cannot be matched to the file's (a tab it expanded)."""

    label: str
    line: int
    column: int = -1


class Definition(NamedTuple):
    """A `[^label]:` footnote definition. `lines` are `(line, text)` of its
    paragraphs' source lines, the first without the `[^label]:` prefix."""

    label: str
    line: int
    end: int
    lines: tuple[tuple[int, str], ...]


class ListItem(NamedTuple):
    line: int
    end: int  # its last line (nested lists included)
    depth: int  # 0: an item of a list that sits in no other list or quote


class Form(NamedTuple):
    """A form the parser found (one of the FORM_ kinds) at file line `line`; `depth`: how many
    lists, quotes and definitions hold it."""

    kind: str
    line: int
    detail: str = ""
    depth: int = 0


class Lead(NamedTuple):
    """A paragraph at `line` (through `end`) right before a list or a table at the same depth,
    which runs over lines `start`..`stop`."""

    line: int
    end: int
    start: int
    stop: int


class Section(NamedTuple):
    """A heading at `line`; its body runs to `end` (inclusive)."""

    name: str
    line: int
    end: int


class Document(NamedTuple):
    headings: tuple[Heading, ...]
    references: tuple[Reference, ...]
    definitions: tuple[Definition, ...]
    blocks: tuple[Block, ...]
    items: tuple[ListItem, ...]
    first_line: int
    last_line: int  # the file line of the text's last line (first_line - 1 when empty)
    forms: tuple[Form, ...] = ()
    leads: tuple[Lead, ...] = ()

    def sections(self, level: int) -> list[Section]:
        """The sections opened by headings of `level`, each running to the line before
        the next heading of that level or above (or to the end of the text)."""
        out: list[Section] = []
        for i, heading in enumerate(self.headings):
            if heading.level != level:
                continue
            end = next((h.line - 1 for h in self.headings[i + 1:] if h.level <= level), self.last_line)
            out.append(Section(heading.text, heading.line, end))
        return out

    def blocks_in(self, start: int, end: int) -> list[Block]:
        return [b for b in self.blocks if start <= b.line <= end]

    def references_in(self, start: int, end: int) -> list[Reference]:
        return [r for r in self.references if start <= r.line <= end]


@lru_cache(maxsize=1)
def _parser() -> "MarkdownIt":
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # always_match_refs: a `[^n]` with no definition is still a reference (the "undefined" check);
    # move_to_end off: the plugin would drop definitions nothing refers to (the "orphan" check).
    md.use(footnote_plugin, inline=False, move_to_end=False, always_match_refs=True)
    md.inline.ruler.at("footnote_ref", _footnote_ref_at)
    md.core.ruler.at("inline", _inline_outside_definitions)
    return md


def _footnote_ref_at(state, silent: bool) -> bool:  # noqa: ANN001 - markdown-it's StateInline
    """The plugin's reference rule, noting where the reference starts in the inline text."""
    start = state.pos
    if not footnote_ref(state, silent, always_match=True):
        return False
    if not silent:
        state.tokens[-1].meta["offset"] = start
    return True


def _inline_outside_definitions(state) -> None:  # noqa: ANN001 - markdown-it's StateCore
    """markdown-it's inline step, skipping the content of footnote definitions."""
    md = state.md
    depth = 0
    for token in state.tokens:
        kind = token.type
        if kind == "footnote_reference_open":
            depth += 1
        elif kind == "footnote_reference_close":
            depth -= 1
        elif kind == "inline" and not depth:
            md.inline.parse(token.content, md, state.env, token.children)
            # A character reference is joined to the text around it later (text_join): note it
            # now, with the index of its line in the inline text.
            line = 0
            for child in token.children:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type == "text_special" and child.info == "entity":
                    token.meta.setdefault("entities", []).append((line, child.markup))


@lru_cache(maxsize=16)
def parse_markdown(text: str, first_line: int = 1) -> Document:
    """Parse `text` once (cached by content: 16 holds a run's report and its findings files)."""
    tokens = _parser().parse(text, {})
    lines = markdown_lines(text)  # the lines markdown-it numbers (str.splitlines also breaks at \f, \u2028...)
    offset = first_line
    headings: list[Heading] = []
    references: list[Reference] = []
    definitions: list[Definition] = []
    blocks: list[Block] = []
    items: list[ListItem] = []
    forms: list[Form] = []
    leads: list[Lead] = []
    covered: set[int] = set()  # 0-based lines some block holds
    containers: list[str] = []  # open list/quote/definition tokens
    definition: list | None = None  # [label, line, end, lines] of the open definition
    row: list[Span] | None = None
    row_line = table_line = rows = columns = 0
    item_paragraph = False
    paragraph: tuple[int, int, int] | None = None  # (level, first, last) of a paragraph that just closed
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        index += 1
        before, paragraph = paragraph, None
        if kind in _LEAF_BLOCKS and token.map:
            covered.update(range(token.map[0], token.map[1]))
        if kind == "heading_open":
            inline = tokens[index]
            line = token.map[0] + offset
            if token.markup in ("=", "-"):
                forms.append(Form(FORM_SETEXT, line, inline.content.strip(), len(containers)))
            if token.level == 0:  # a heading in a list, quote or definition opens no section
                headings.append(Heading(int(token.tag[1:]), inline.content.strip(), line))
            else:
                forms.append(Form(FORM_NESTED_HEADING, line, inline.content.strip(), len(containers)))
            if definition is None:
                spans = _spans(inline.children or [], line, inline.content, lines, token.map[0])
                references.extend(Reference(s.text, s.line, s.column) for s in spans if s.kind == REF)
                forms.extend(_inline_forms(inline, line, len(containers)))
            index += 2
        elif kind == "footnote_reference_open":
            definition = [token.meta["label"], token.map[0] + offset, token.map[0] + offset, []]
            containers.append(kind)
            covered.add(token.map[0])
        elif kind == "footnote_reference_close":
            label, line, end, found = definition
            definitions.append(Definition(label, line, end, tuple(found)))
            definition = None
            containers.pop()
        elif kind in ("bullet_list_open", "ordered_list_open", "blockquote_open"):
            containers.append(kind)
            forms.append(Form(FORM_CONTAINER, token.map[0] + offset, "quote" if kind == "blockquote_open" else "list",
                              len(containers)))
            if kind != "blockquote_open" and before is not None and before[0] == token.level:
                leads.append(Lead(before[1], before[2], token.map[0] + offset, _last_line(token, lines) + offset))
        elif kind in ("bullet_list_close", "ordered_list_close", "blockquote_close"):
            containers.pop()
        elif kind == "list_item_open" and definition is None:
            items.append(ListItem(token.map[0] + offset, _last_line(token, lines) + offset, len(containers) - 1))
            item_paragraph = True
        elif kind == "paragraph_open":
            inline = tokens[index]
            first = token.map[0] + offset
            last = token.map[1] - 1 + offset
            if definition is not None:
                # The source lines (container marks and indentation to the definition's removed;
                # the first line starts after `[^label]:`), one per file line.
                definition[3].extend((first + i, part) for i, part in enumerate(inline.content.split("\n")))
                definition[2] = last
            else:
                spans = _spans(inline.children or [], first, inline.content, lines, token.map[0])
                blocks.append(Block("paragraph", first, last, spans, item=item_paragraph))
                references.extend(Reference(s.text, s.line, s.column) for s in spans if s.kind == REF)
                forms.extend(_inline_forms(inline, first, len(containers)))
                paragraph = (token.level, first, last)
            item_paragraph = False
            index += 2
        elif kind == "table_open":
            table_line, rows = token.map[0] + offset, 0
            if before is not None and before[0] == token.level:
                leads.append(Lead(before[1], before[2], table_line, _last_line(token, lines) + offset))
        elif kind == "table_close" and rows < 2:
            forms.append(Form(FORM_EMPTY_TABLE, table_line, "", len(containers)))
        elif kind == "tr_open":
            row, row_line, cursor, cells = [], token.map[0] + offset, 0, 0
            rows += 1
        elif kind == "inline" and row is not None:
            if cells:  # a border before every cell but the first, an empty first cell's too
                row.append(Span(CELL, "", row_line))
            cells += 1
            raw = lines[row_line - offset] if row_line - offset < len(lines) else ""
            at = raw.find(token.content, cursor) if token.content else -1
            cursor = at + len(token.content) if at >= 0 else cursor
            row.extend(_spans(token.children or [], row_line, token.content, lines, row_line - offset, at))
            if definition is None:
                forms.extend(_inline_forms(token, row_line, len(containers)))
        elif kind == "tr_close" and row is not None:
            if rows == 1:
                columns = cells
            elif row_line - offset < len(lines):
                extra = [c for c in _row_cells(lines[row_line - offset])[columns:] if c.strip()]
                if extra:
                    forms.append(Form(FORM_EXTRA_CELLS, row_line, " | ".join(extra)[:80], len(containers)))
            if definition is None:
                blocks.append(Block("row", row_line, row_line, tuple(row), table=table_line))
                references.extend(Reference(s.text, s.line, s.column) for s in row if s.kind == REF)
            row = None
        elif kind in _BLOCK_FORMS:
            forms.append(Form(_BLOCK_FORMS[kind], token.map[0] + offset, token.content[:80], len(containers)))
        if kind not in ("list_item_open", "paragraph_open") and kind.endswith("_open"):
            item_paragraph = False
    for number, raw in enumerate(lines):
        if number not in covered and raw.strip() and not _MARKS_ONLY.match(raw):
            forms.append(Form(FORM_UNREAD, number + offset, raw.strip()[:80]))
    forms.sort(key=lambda f: f.line)
    return Document(tuple(headings), tuple(references), tuple(definitions), tuple(blocks), tuple(items),
                    first_line, first_line + len(lines) - 1, tuple(forms), tuple(leads))


# Blocks that hold text of their own: a line none of them holds is read by nothing.
_LEAF_BLOCKS = frozenset({"paragraph_open", "heading_open", "table_open", "fence", "code_block", "html_block",
                          "hr"})
_BLOCK_FORMS = {"html_block": FORM_HTML_BLOCK, "fence": FORM_FENCE, "code_block": FORM_CODE_BLOCK, "hr": FORM_HR}
# A line of nothing but list and quote marks (an empty item, a blank line inside a quote).
_MARKS_ONLY = re.compile(r"^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])(?:[ \t>]+|$))*[ \t>]*$")


_ROW_PREFIX = re.compile(r"^[ \t>]*")  # a quote's markers and indentation before a table row
_CELL_BORDER = re.compile(r"(?<!\\)\|")  # a pipe no backslash escapes (one in a code span splits too, as in GFM)


def _row_cells(raw: str) -> list[str]:
    """A table row's cells as GFM splits its line: at each unescaped pipe, the pipes that open
    and close the row dropped. markdown-it drops the cells beyond the header's columns, as GitHub
    does; this counts them (a cell a viewer shows in the source, or another viewer renders, no check read)."""
    text = _ROW_PREFIX.sub("", raw).strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return _CELL_BORDER.split(text)


def _last_line(token, lines: list[str]) -> int:  # noqa: ANN001 - a markdown-it Token
    """The 0-based last line of a list, item or table: its map, less blank lines at the end."""
    last = token.map[1] - 1
    while last > token.map[0] and last < len(lines) and not lines[last].strip():
        last -= 1  # the map of a list's last item takes in the blank line after it
    return last


def _inline_forms(inline, line: int, depth: int) -> list[Form]:  # noqa: ANN001 - a markdown-it Token
    """The inline forms of an inline token whose first line is file line `line`."""
    out = [Form(FORM_ENTITY, line + at, markup, depth) for at, markup in inline.meta.get("entities", ())]
    for child in inline.children or ():
        kind = child.type
        if kind in ("softbreak", "hardbreak"):
            line += 1
        elif kind == "image":
            out.append(Form(FORM_IMAGE, line, child.content, depth))
        elif kind == "html_inline":
            out.append(Form(FORM_HTML_INLINE, line, child.content[:80], depth))
            line += child.content.count("\n")
        elif kind == "s_open":
            out.append(Form(FORM_STRIKETHROUGH, line, "", depth))
        elif kind == "link_open":
            out.append(Form(FORM_LINK, line, str(child.attrGet("href") or ""), depth))
            if child.attrGet("title"):
                out.append(Form(FORM_LINK_TITLE, line, str(child.attrGet("title"))[:80], depth))
    return out


def _spans(children: list, line: int, content: str, lines: list[str], index: int,
           cell_at: int | None = None) -> tuple[Span, ...]:
    """A block's inline tokens as spans, each with its file line. `content` is the inline
    text the tokens come from, whose first line is `lines[index]` (a table cell: found at
    `cell_at` in that line); references get their line and column from their offset in it."""
    out: list[Span] = []
    first = line
    # Where the last reference was, so that each newline and each line is looked at once however
    # many references share a line (per reference it was quadratic: 8,000 `[^1]` on one line).
    scanned = before = start = 0
    line_at: dict[int, int] = {}  # index in `content`'s lines -> where that line starts in its file line
    for child in children:
        kind = child.type
        if kind == "text":
            out.append(Span(TEXT, child.content, line))
        elif kind in ("softbreak", "hardbreak"):
            line += 1
            out.append(Span(BREAK, "", line))
        elif kind == "footnote_ref":
            label = child.meta["label"]
            offset = child.meta.get("offset", -1)
            if offset < 0:
                out.append(Span(REF, label, line))
                continue
            if offset < scanned:  # out of order (not seen from markdown-it): count from the start
                scanned = before = start = 0
            newlines = content.count("\n", scanned, offset)
            if newlines:
                before += newlines
                start = content.rfind("\n", scanned, offset) + 1
            scanned = offset
            raw = lines[index + before] if index + before < len(lines) else ""
            if before not in line_at:
                end = content.find("\n", offset)
                piece = content[start:end if end >= 0 else len(content)]
                # A line of the inline text is the end of its file line (container marks and
                # indentation removed; the last line's trailing spaces too): its last occurrence.
                line_at[before] = cell_at if cell_at is not None else raw.rfind(piece)
            at = line_at[before]
            column = at + offset - start if at >= 0 else -1
            if column >= 0 and not raw.startswith(f"[^{label}]", column):
                column = -1
            line = first + before
            out.append(Span(REF, label, line, column))
        elif kind == "code_inline":
            out.append(Span(CODE, child.content, line))
        elif kind == "html_inline":
            out.append(Span(HTML, child.content, line))
            line += child.content.count("\n")
        elif kind == "image":
            out.append(Span(TEXT, child.content, line))  # its alt text
        # emphasis, strikethrough and link open/close tokens carry no text
    return tuple(out)


def definition_content(definition: Definition) -> str:
    """The definition's source text after `[^label]:`, lines joined by newlines."""
    return "\n".join(text for _line, text in definition.lines)
