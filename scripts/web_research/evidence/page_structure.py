"""Where a page says an excerpt, read from the page's own HTML: the structure its stored text lost.

The stored text (trafilatura's, with the blocks it left out put back) keeps a page's words but
not its structure: a Sphinx or DocBook paragraph is hard-wrapped over lines, a parameter's
description stands a line below a bare "-", a table row has lost its header, a list item its
lead-in two lines up, a deprecation its box. A checker shown "Heading: -" and "value.)" deletes
true claims and passes claims that drop a condition. So, where the run archived the page (its
WARC, evidence/archive.py), the excerpt is placed in the page's blocks (the same blocks
`page_blocks` walks to put text back) and `structure_at` reads around it:

- `path`: the headings above it, outermost first (a heading inside site furniture that does not
  also hold the excerpt, a sidebar's "Table of Contents", is none of them);
- `term`: the term each enclosing definition describes (`dt` of each `dd` around it, outermost
  first): a Sphinx function's signature, a PostgreSQL parameter's name, a field list's "Raises";
- `columns`, `column`, `row`: the header row of the table it stands in, its cell's column
  header, and the row's label (its first cell);
- `lead_in`: what introduces the list (or table) it stands in: the text just before it, however
  many items up ("None of them is true:"), or the table's caption;
- `notice`: the admonitions around it (Note, Warning, Deprecated), those of its definition, and
  notices above it in its section or above the page's first heading ("withdrawn");
- `paragraph`: the whole block it stands in (a paragraph, a list item, a cell), not wrapped lines;
  `before` and `after`: the blocks on either side.

Every piece is page text shown to a model as data: bounded, whitespace collapsed, invisible and
control characters removed (the caller cleans). lxml is the fetch extra's, so this module is
imported only by the bounded child of `structure_child.py` (and by tests); anything the HTML
does wrong there falls back to the stored text's context (excerpt_context.py).
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from lxml import etree

from .excerpts import find_at_bounds, normalize
from .notices import NOTICE_START, WITHDRAWN
from .page_blocks import BLOCK_TAGS, _furniture, _never_text, _walk_blocks, drop_invisible
from ..core.clip import clip

MAX_OCCURRENCES = 200  # places of one anchor looked at in a page
MAX_TERMS = 3  # enclosing definitions named
MAX_PATH = 6  # headings in a path
MAX_NOTICES = 3
MAX_NOTICE_SCAN = 200  # blocks above the excerpt (and above the page's first heading) looked at for notices
MAX_CELLS = 12  # header cells shown
MAX_CELL_CHARS = 80
MAX_LEAD_IN_CHARS = 300
MAX_NOTICE_CHARS = 200
MAX_PARAGRAPH_CHARS = 1200
MAX_NEIGHBOUR_CHARS = 400  # a block before or after shown whole up to this; else its nearest sentence
ANCHOR_FALLBACK_WORDS = 8  # an anchor not found whole is looked for by its first (then last) words
ANCHOR_CONTEXT_WORDS = 12  # words before an anchor compared with the stored text's, where counts differ
HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
LIST_TAGS = frozenset(("ul", "ol"))
# A box a page sets apart: Sphinx's and DocBook's admonitions, Bootstrap-style alerts and callouts,
# deprecation and withdrawal boxes. (Sphinx's versionadded / versionchanged are not: they count
# only around the excerpt itself.)
_ADMONITION_CLASS = re.compile(
    r"(?:^|[-_\s])(?:admonition|note|notice|warning|caution|important|attention|danger|tip|hint|alert|callout|"
    r"deprecated|deprecation|versionremoved|withdrawn|obsolete|outdated|retired|discontinued)(?:[-_\s]|$)",
    re.IGNORECASE)
_VERSION_CLASS = re.compile(r"(?:^|\s)(?:versionadded|versionchanged|deprecated|versionremoved)(?:\s|$)")
_ADMONITION_ROLES = frozenset(("note", "alert", "status"))
_TITLE_CLASS = re.compile(r"(?:^|\s)(?:admonition-title|title|versionmodified|alert-heading)(?:\s|$)")
MAX_NOTICE_BLOCK_CHARS = 300  # a block longer than this is prose, not a notice, unless its element is a box
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_PERMALINK = re.compile("[\u00b6#]+$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'\u201c(\[]?[A-Z0-9])")


@dataclass
class Structure:
    """What the page's HTML says around an excerpt (see the module docstring); empty where nothing."""

    path: list[str] = field(default_factory=list)
    term: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    column: str = ""
    row: str = ""
    lead_in: str = ""
    notice: list[str] = field(default_factory=list)
    paragraph: str = ""
    before: str = ""
    after: str = ""

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def parse_page(markup: str) -> etree._Element | None:
    """The page's tree as `fetch` read it (lxml's HTML parser; invisible elements dropped), or None."""
    from lxml import html as lxml_html  # lxml.html's parser modules load only when a page is parsed

    markup = _XML_DECLARATION.sub("", markup, count=1)  # lxml refuses a str that declares its encoding
    if not markup.strip():
        return None
    try:
        tree = lxml_html.document_fromstring(markup)
    except (etree.ParserError, ValueError):
        return None
    drop_invisible(tree)
    return tree


def _tag(element: etree._Element) -> str:
    return element.tag.lower() if isinstance(element.tag, str) else ""


def _text(element: etree._Element) -> str:
    """An element's visible text, whitespace collapsed (scripts, styles and hidden parts left out)."""
    parts: list[str] = []
    stack: list[tuple[etree._Element, bool]] = [(element, True)]
    while stack:  # iterative: a hostile page may nest deeper than Python recurses
        node, entering = stack.pop()
        if not entering:
            parts.append(node.tail or "")
            continue
        if not isinstance(node.tag, str) or _never_text(node):
            if node is not element:
                parts.append(node.tail or "")
            continue
        if node is not element:
            stack.append((node, False))
        parts.append(node.text or "")
        stack.extend((child, True) for child in reversed(node))
    return " ".join("".join(parts).split())


def _heading_text(text: str) -> str:
    """A heading or term without its permalink mark ("Task Groups¶", "Memory #")."""
    return _PERMALINK.sub("", text.strip()).strip()


class PageIndex:
    """A page's blocks (`page_blocks._walk_blocks` over the whole body), the element each came
    from, and their normalized text joined by single spaces, where excerpts are placed."""

    def __init__(self, tree: etree._Element) -> None:
        body = tree.find(".//body")
        root = body if body is not None else tree
        self.root = root
        self.blocks: list[str] = []
        self.owners: list[etree._Element] = []
        stack: list[etree._Element] = [root]

        def entered(node: etree._Element, entering: bool) -> None:
            # The blocks taken since the last call are the innermost open block element's text.
            self.owners.extend([stack[-1]] * (len(self.blocks) - len(self.owners)))
            if _tag(node) in BLOCK_TAGS:
                if entering:
                    stack.append(node)
                elif stack[-1] is node:
                    stack.pop()

        _walk_blocks(root, _never_text, entered, self.blocks)
        self.owners.extend([root] * (len(self.blocks) - len(self.owners)))
        keys = [normalize(block) for block in self.blocks]
        self.starts: list[int] = []
        position = 0
        for key in keys:
            self.starts.append(position)
            position += len(key) + 1
        self.joined = " ".join(keys)
        self.headings = [i for i, owner in enumerate(self.owners) if _tag(owner) in HEADING_TAGS]
        self._ancestors: dict[etree._Element, set[etree._Element]] = {}
        self._furniture: dict[etree._Element, tuple[etree._Element, ...]] = {}

    def block_at(self, position: int) -> int:
        return max(0, bisect.bisect_right(self.starts, position) - 1)

    def locate(self, anchor: str, nth: int = 0, of: int = 1, before: str = "") -> tuple[int, int, int] | None:
        """(first block, last block, offset in `joined`) of the `nth` of `of` places of `anchor`
        (normalized text of the stored page where the excerpt stands) in the page's blocks:
        the same place in page order when the page holds it as often as the stored text does,
        else the place whose preceding words best match `before` (the stored text's). Tried as
        it is, then without table rows' cell marks, then by its first and its last words."""
        words = [word for word in anchor.split() if word != "|" and not set(word) <= set("|-:")]
        tries = [anchor.strip(), " ".join(words)]
        if len(words) > ANCHOR_FALLBACK_WORDS:
            tries += [" ".join(words[:ANCHOR_FALLBACK_WORDS]), " ".join(words[-ANCHOR_FALLBACK_WORDS:])]
        for key in tries:
            if not key:
                continue
            places = []
            at = find_at_bounds(self.joined, key, 0)
            while at >= 0 and len(places) < MAX_OCCURRENCES:
                places.append(at)
                at = find_at_bounds(self.joined, key, at + 1)
            if places:
                if len(places) == of or len(places) == 1:
                    start = places[max(0, min(nth, len(places) - 1))]
                else:
                    start = max(places, key=lambda place: (self._agrees(place, before), -abs(place - places[0])))
                return self.block_at(start), self.block_at(start + len(key) - 1), start
        return None

    def _agrees(self, place: int, before: str) -> int:
        """How many of the words just before `place` end the stored text's words before the anchor."""
        wanted = [w for w in before.split() if w != "|"][-ANCHOR_CONTEXT_WORDS:]
        have = [w for w in self.joined[max(0, place - 4 * len(before) - 40):place].split() if w != "|"]
        count = 0
        while count < min(len(wanted), len(have)) and wanted[-1 - count] == have[-1 - count]:
            count += 1
        return count

    def ancestors(self, element: etree._Element) -> set[etree._Element]:
        if element not in self._ancestors:
            self._ancestors[element] = {element, *element.iterancestors()}
        return self._ancestors[element]

    def structure_at(self, anchor: str, nth: int = 0, of: int = 1, before: str = "") -> Structure | None:
        """The structure around `anchor` (see `locate`), or None when the page does not hold it."""
        placed = self.locate(anchor, nth, of, before)
        if placed is None:
            return None
        first, last, _ = placed
        element = self.owners[first]
        around = self.ancestors(element)
        found = Structure()
        found.path = self._path(first, around)
        found.term = _terms(element)
        found.columns, found.column, found.row = _table(element)
        found.lead_in = _lead_in(element)
        found.notice = self._notices(first, element, around)
        cell = _cell_of(element)
        if cell is not None:  # a cell reads with its row: the row is its paragraph
            found.paragraph = " | ".join(_cut(_text(c), MAX_CELL_CHARS * 2) for c in _cells(cell.getparent()))
        else:
            found.paragraph = " ".join(self.blocks[first:last + 1])
            found.before = self._neighbour(first, -1, around)
            found.after = self._neighbour(last, 1, around)
        found.paragraph = _around(found.paragraph, anchor)
        return found

    def _furniture_around(self, node: etree._Element) -> tuple[etree._Element, ...]:
        """The site furniture (menus, sidebars: `page_blocks._furniture`) `node` stands in, once per element."""
        if node not in self._furniture:
            parent = node.getparent()
            above = self._furniture_around(parent) if parent is not None and parent is not self.root else ()
            self._furniture[node] = (*above, parent) if parent is not None and _furniture(parent) else above
        return self._furniture[node]

    def _in_furniture(self, node: etree._Element, around: set[etree._Element]) -> bool:
        """Whether `node` stands in site furniture that does not also hold the excerpt."""
        return any(parent not in around for parent in self._furniture_around(node))

    def _kept_heading(self, index: int, around: set[etree._Element]) -> bool:
        """Whether block `index` is a heading of the excerpt's page part (`_in_furniture`)."""
        owner = self.owners[index]
        return _tag(owner) in HEADING_TAGS and not self._in_furniture(owner, around)

    def _path(self, first: int, around: set[etree._Element]) -> list[str]:
        stack: list[tuple[int, str]] = []
        for index in self.headings[:bisect.bisect_left(self.headings, first)]:
            if not self._kept_heading(index, around):
                continue
            level = int(_tag(self.owners[index])[1])
            text = _heading_text(self.blocks[index])
            if not text:
                continue
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
        return [text for _, text in stack][-MAX_PATH:]

    def _notices(self, first: int, element: etree._Element, around: set[etree._Element]) -> list[str]:
        """Boxes around the excerpt (innermost first), then those of its definition and notices
        above it in its section, nearest first, then those above the page's first heading."""
        out: list[str] = []
        boxes = [node for node in [element, *element.iterancestors()] if _is_box(node, own=True)]
        out += [_box_title(node) for node in boxes]
        seen = set(boxes)
        definition = next((node for node in element.iterancestors() if _tag(node) == "dd"), None)
        if definition is not None:  # a deprecation box after the description is still the definition's
            for node in definition.iter():
                if (isinstance(node.tag, str) and node not in around and _is_box(node)
                        and seen.isdisjoint(node.iterancestors()) and not self._in_furniture(node, around)):
                    seen.add(node)
                    out.append(_box_title(node, whole=True))
        above = self.headings[:bisect.bisect_left(self.headings, first)]
        section_start = next((index + 1 for index in reversed(above) if self._kept_heading(index, around)), 0)
        first_heading = next((index for index in self.headings if self._kept_heading(index, around)), None)
        scopes = [range(first - 1, max(section_start, first - MAX_NOTICE_SCAN) - 1, -1)]
        if first_heading is not None and first_heading < section_start:
            scopes.append(range(first_heading - 1, max(0, first_heading - MAX_NOTICE_SCAN) - 1, -1))
        for scope in scopes:
            for index in scope:
                if len(out) >= MAX_NOTICES:
                    break
                owner = self.owners[index]
                if self._in_furniture(owner, around) or _in_other_unit(owner, around):
                    continue
                box = next((node for node in [owner, *owner.iterancestors()] if _is_box(node)), None)
                if box is not None and box not in around:
                    if box not in seen and seen.isdisjoint(box.iterancestors()):
                        seen.add(box)
                        out.append(_box_title(box, whole=True))
                    continue
                text = self.blocks[index]
                if len(text) <= MAX_NOTICE_BLOCK_CHARS and (NOTICE_START.match(text) or WITHDRAWN.search(text)):
                    out.append(text)
        return [_cut(text, MAX_NOTICE_CHARS) for text in out if text][:MAX_NOTICES]

    def _neighbour(self, index: int, step: int, around: set[etree._Element]) -> str:
        """The block beside block `index` (before: step -1, after: +1) in the same part of the page:
        whole when short, else its sentence nearest the excerpt; none across a heading."""
        other = index + step
        while 0 <= other < len(self.blocks) and not self.blocks[other].strip():
            other += step
        if not 0 <= other < len(self.blocks):
            return ""
        owner = self.owners[other]
        if _tag(owner) in HEADING_TAGS or _tag(owner) == "dt" or _TITLE_CLASS.search(owner.get("class") or ""):
            return ""  # the path, the term or the notice shows it
        if self._in_furniture(owner, around):
            return ""
        text = self.blocks[other]
        if len(text) <= MAX_NEIGHBOUR_CHARS:
            return text
        sentences = _SENTENCE_END.split(text)
        return _cut(sentences[-1] if step < 0 else sentences[0], MAX_NEIGHBOUR_CHARS)


def _is_box(node: etree._Element, own: bool = False) -> bool:
    """An admonition-like element; `own`: around the excerpt, where Sphinx's version notes count too."""
    if not isinstance(node.tag, str):
        return False
    classes = node.get("class") or ""
    if _tag(node) in ("body", "html", "main", "article") or _TITLE_CLASS.search(classes):
        return False
    return (_ADMONITION_CLASS.search(classes) is not None or (node.get("role") or "").lower() in _ADMONITION_ROLES
            or (own and _VERSION_CLASS.search(classes) is not None))


def _box_title(node: etree._Element, whole: bool = False) -> str:
    """A box's title ("Note", "Deprecated since version 3.10:"); `whole`: its text, for a box
    the excerpt is not in (what it says is the notice)."""
    if whole:
        return _text(node)
    for child in node.iter():
        if not isinstance(child.tag, str) or child is node:
            continue
        classes = child.get("class") or ""
        if _TITLE_CLASS.search(classes) or _tag(child) in HEADING_TAGS:
            return _cut(_text(child), MAX_NOTICE_CHARS)
        break
    text = _text(node)
    head = re.match(r"^(.{1,80}?[:!])\s", text)
    return head.group(1) if head else _cut(text, 80)


def _in_other_unit(node: etree._Element, around: set[etree._Element]) -> bool:
    """Whether `node` belongs to another definition, list item or table cell than the excerpt's."""
    return any(parent not in around and _tag(parent) in _UNITS for parent in [node, *node.iterancestors()])


_UNITS = frozenset(("dd", "dt", "li", "td", "th"))


def _cell_of(element: etree._Element) -> etree._Element | None:
    """The table cell (in a row) the element stands in, if any."""
    cell = next((node for node in [element, *element.iterancestors()] if _tag(node) in ("td", "th")), None)
    return cell if cell is not None and _tag(cell.getparent()) == "tr" else None


def _around(text: str, anchor: str) -> str:
    """`text` bounded to MAX_PARAGRAPH_CHARS, keeping the stretch around the anchor's first words."""
    text = " ".join(text.split())
    if len(text) <= MAX_PARAGRAPH_CHARS:
        return text
    head = " ".join(anchor.split()[:4])
    at = normalize(text).find(head) if head else -1
    at = max(0, min(at, len(text)))  # normalized offsets are close to the text's: a window, not a span
    start = max(0, min(at - MAX_PARAGRAPH_CHARS // 3, len(text) - MAX_PARAGRAPH_CHARS))
    window = text[start:start + MAX_PARAGRAPH_CHARS - 2].strip()
    return ("\u2026" if start > 0 else "") + window + ("\u2026" if start + MAX_PARAGRAPH_CHARS - 2 < len(text) else "")


def _terms(element: etree._Element) -> list[str]:
    """The `dt` each `dd` around `element` describes, outermost first (at most MAX_TERMS)."""
    terms: list[str] = []
    for node in [element, *element.iterancestors()]:
        if _tag(node) == "dt":
            return []  # the excerpt is a term itself
        if _tag(node) != "dd":
            continue
        term = node.getprevious()
        while term is not None and _tag(term) != "dt":
            term = term.getprevious()
        if term is not None:
            text = _heading_text(_text(term))
            if text:
                terms.append(_cut(text, MAX_LEAD_IN_CHARS))
        if len(terms) >= MAX_TERMS:
            break
    return terms[::-1]


def _own_rows(table: etree._Element) -> list[etree._Element]:
    """The rows of `table` itself (not of a table nested in it), bounded."""
    rows = []
    for row in table.iter("tr"):
        if next((node for node in row.iterancestors() if _tag(node) == "table"), None) is table:
            rows.append(row)
            if len(rows) >= 2000:
                break
    return rows


def _cells(row: etree._Element) -> list[etree._Element]:
    return [cell for cell in row if _tag(cell) in ("td", "th")]


def _table(element: etree._Element) -> tuple[list[str], str, str]:
    """(header row's cells, the excerpt cell's column header, its row's label) of the table cell
    the excerpt stands in; empty when it stands in no cell, or in the header row. A table with no
    header row nested in another's cell takes the enclosing table's (a layout of tables)."""
    for _ in range(MAX_TABLE_NESTING):
        cell = _cell_of(element)
        if cell is None:
            return [], "", ""
        found = _table_of_cell(cell, element)
        if found is not None:
            return found
        element = next((node for node in cell.iterancestors() if _tag(node) == "table"), cell)
    return [], "", ""


MAX_TABLE_NESTING = 3


def _table_of_cell(cell: etree._Element, element: etree._Element) -> tuple[list[str], str, str] | None:
    """`_table` for one cell (`element`: where in it the excerpt stands); None when its table has
    no header row. The row's label is its first cell; in a row of one cell holding several blocks
    (PostgreSQL's catalog tables: "context text" above its description), the cell's first block."""
    row = cell.getparent()
    table = next((node for node in row.iterancestors() if _tag(node) == "table"), None)
    if table is None:
        return None
    rows = _own_rows(table)
    header = next((r for r in rows if _tag(r.getparent()) == "thead"), None)
    if header is None and rows and _cells(rows[0]) and all(_tag(c) == "th" for c in _cells(rows[0])):
        header = rows[0]
    if header is row:
        return [], "", ""
    if header is None:
        return None
    columns, column = [], ""
    cells = _cells(row)
    if header is not None:
        heads = _cells(header)
        columns = [_cut(_text(c), MAX_CELL_CHARS) for c in heads[:MAX_CELLS]]
        spans = []  # the column each header cell starts at
        at = 0
        for head in heads:
            spans.append(at)
            at += _span(head)
        position = sum(_span(c) for c in cells[:cells.index(cell)])
        index = bisect.bisect_right(spans, position) - 1
        if 0 <= index < len(heads):
            column = _cut(_text(heads[index]), MAX_CELL_CHARS)
    label = _cut(_text(cells[0]), MAX_CELL_CHARS) if cells and cells[0] is not cell else ""
    if not label and len(cells) == 1:
        head = next((child for child in cell if isinstance(child.tag, str) and _tag(child) in BLOCK_TAGS), None)
        if head is not None and head is not element and head not in set(element.iterancestors()):
            label = _cut(_text(head), MAX_CELL_CHARS)
    return columns, column, label


def _span(cell: etree._Element) -> int:
    try:
        return max(1, min(int(cell.get("colspan") or 1), 100))
    except ValueError:
        return 1


MAX_LIST_DEPTH = 4  # enclosing lists whose lead-ins are read


def _lead_in(element: etree._Element) -> str:
    """What introduces the list (or table) the excerpt stands in: the text just before the list,
    or a table's caption or the paragraph before it when that ends with a colon. In a nested
    list, each enclosing list's lead-in too, outermost first ("The following claims are false:
    Retention"): the outer one says what the items are."""
    item = next((node for node in [element, *element.iterancestors()] if _tag(node) == "li"), None)
    holder = item.getparent() if item is not None and _tag(item.getparent()) in LIST_TAGS else None
    if holder is not None:
        leads = []
        for node in [holder, *holder.iterancestors()]:
            if _tag(node) in LIST_TAGS and len(leads) < MAX_LIST_DEPTH:
                text = _before(node)
                if text:
                    leads.append(_tail(text))
        return " ".join(reversed(leads))
    table = None
    if holder is None:
        table = next((node for node in [element, *element.iterancestors()] if _tag(node) == "table"), None)
        if table is None:
            return ""
        caption = next((child for child in table if _tag(child) == "caption"), None)
        if caption is not None and _text(caption):
            return _tail(_text(caption))
        holder = table
    text = _before(holder)
    if table is not None and not text.endswith(":"):
        return ""
    return _tail(text)


def _before(node: etree._Element) -> str:
    """The text just before `node`: a text run before it, the previous element with text (not a
    heading: the path shows it), or the text its parent opens with."""
    previous = node.getprevious()
    while previous is not None:
        if (previous.tail or "").strip():
            return " ".join(previous.tail.split())
        if isinstance(previous.tag, str) and not _never_text(previous):
            if _tag(previous) in HEADING_TAGS:
                return ""
            text = _text(previous)
            if text:
                return text
        previous = previous.getprevious()
    parent = node.getparent()
    if parent is not None and (parent.text or "").strip():
        return " ".join(parent.text.split())
    return ""


def _tail(text: str) -> str:
    """The end of `text`, bounded: what leads into what follows."""
    if len(text) <= MAX_LEAD_IN_CHARS:
        return text
    return "\u2026" + text[-(MAX_LEAD_IN_CHARS - 1):].lstrip()


def _cut(text: str, limit: int) -> str:
    return clip(text, limit)
