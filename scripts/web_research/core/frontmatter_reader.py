"""The one reader of YAML frontmatter in run files (findings/<slug>.md).

A researcher writes its own findings file, so the frontmatter is hostile input
to every hook and to the verifier. YAML can make a kilobyte expand into
gigabytes (anchors and aliases: "billion laughs"), build arbitrary objects
(tags) or nest deep enough to exhaust the stack. This reader refuses all of
that before anything is constructed, so a check of such a file fails within
milliseconds and bounded memory:

- the block must close within MAX_FRONTMATTER_CHARS characters;
- the YAML events are scanned first (libyaml when present): any anchor
  (`&a`), alias (`*a`), explicit tag (`!x`, `!!python/...`) or nesting deeper
  than MAX_DEPTH is a problem on its line, and nothing is composed;
- only then is the block composed and constructed by a safe loader that keeps
  timestamps as the strings written (the schema checks what was typed).

python-frontmatter splits the block from the body (a YAMLHandler whose
boundary is a `---` line, or `...` as the closing line); the line numbers of
keys and of the body come from a separate scan of the text.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

import yaml
from frontmatter.default_handlers import YAMLHandler

MAX_FRONTMATTER_CHARS = 16_384
MAX_DEPTH = 16
_OPENING = re.compile(r"[ \t]*---[ \t]*\r?")


class FrontmatterProblem(NamedTuple):
    line: int
    message: str


class Frontmatter(NamedTuple):
    """`data` is None when there is no usable mapping (then `problems` says why)."""

    data: dict[str, Any] | None
    key_lines: dict[str, int]
    body_first_line: int
    problems: list[FrontmatterProblem]


class RefusedYAML(Exception):
    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


_HANDLER = None
_LOADER = None


def _handler():
    """python-frontmatter's YAML handler, splitting on one exact boundary line and
    loading with the refusing loader below."""
    global _HANDLER
    if _HANDLER is None:
        class SafeYAMLHandler(YAMLHandler):
            FM_BOUNDARY = re.compile(r"^[ \t]*(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)

            def load(self, fm: str, **_kwargs: object) -> Any:
                return load_yaml_mapping(fm)[0]

        _HANDLER = SafeYAMLHandler()
    return _HANDLER


def _loader_class():
    """A safe loader (libyaml when available) that keeps timestamps as strings."""
    global _LOADER
    if _LOADER is None:
        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class Loader(base):  # type: ignore[misc, valid-type]
            pass

        Loader.yaml_implicit_resolvers = {
            first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for first, resolvers in base.yaml_implicit_resolvers.items()
        }
        _LOADER = Loader
    return _LOADER


def _refuse_dangerous_events(block: str, first_line: int) -> None:
    """Raise RefusedYAML at the first anchor, alias, explicit tag or too deep nesting."""
    depth = 0
    for event in yaml.parse(block, Loader=_loader_class()):
        line = first_line + event.start_mark.line
        if isinstance(event, yaml.AliasEvent):
            raise RefusedYAML(line, f"aliases (*{event.anchor}) are not allowed in frontmatter; write the value")
        if getattr(event, "anchor", None) is not None:
            raise RefusedYAML(line, f"anchors (&{event.anchor}) are not allowed in frontmatter")
        if isinstance(event, yaml.NodeEvent) and getattr(event, "tag", None) is not None:
            raise RefusedYAML(line, f"tags ({event.tag}) are not allowed in frontmatter; write plain values")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise RefusedYAML(line, f"frontmatter nests deeper than {MAX_DEPTH} levels")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def load_yaml_mapping(block: str, first_line: int = 2) -> tuple[Any, Any]:
    """(constructed value, its root node) of a YAML block, refusing anchors, aliases,
    tags and deep nesting. `first_line` is the file line of the block's first line.
    Raises RefusedYAML or yaml.YAMLError."""
    if len(block) > MAX_FRONTMATTER_CHARS:
        raise RefusedYAML(first_line, f"frontmatter is longer than {MAX_FRONTMATTER_CHARS} characters")
    _refuse_dangerous_events(block, first_line)
    loader = _loader_class()(block)
    try:
        node = loader.get_single_node()
        return (loader.construct_document(node) if node is not None else None), node
    finally:
        loader.dispose()


def _closing_line(lines: list[str]) -> tuple[int | None, bool]:
    """(0-based index of the closing `---`/`...` line, whether the block ran past the size cap)."""
    size = 0
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return index, False
        size += len(lines[index]) + 1
        if size > MAX_FRONTMATTER_CHARS:
            return None, True
    return None, False


def read_frontmatter(text: str) -> Frontmatter:
    """Split and parse the frontmatter at the start of `text` (a byte-order mark is
    ignored). Never raises for anything the text contains."""
    text = text.removeprefix("\ufeff")
    head = text[:MAX_FRONTMATTER_CHARS + 4096]
    lines = head.split("\n", 1)
    if not text or not _OPENING.fullmatch(lines[0]):
        return Frontmatter(None, {}, 1, [FrontmatterProblem(1, "no frontmatter: the file must start with a "
                                                               "'---' line, then the YAML fields, then '---'")])
    head_lines = head.splitlines()
    end, too_long = _closing_line(head_lines)
    if end is None:
        message = (f"frontmatter is longer than {MAX_FRONTMATTER_CHARS} characters; keep it to the fields "
                   "the brief gives" if too_long else "frontmatter is not closed: expected a second '---' line")
        return Frontmatter(None, {}, 1, [FrontmatterProblem(1, message)])
    block_text = "\n".join(head_lines[:end + 1]) + "\n"
    fm, _body = _handler().split(block_text)
    fm = fm.removeprefix("\r").removeprefix("\n")
    body_first = end + 2
    try:
        data, node = load_yaml_mapping(fm.rstrip("\r\n"), first_line=2)
    except RefusedYAML as exc:
        return Frontmatter(None, {}, body_first, [FrontmatterProblem(exc.line, exc.message)])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc)
        return Frontmatter(None, {}, body_first, [FrontmatterProblem(line, f"frontmatter is not valid YAML: {problem}")])
    if not isinstance(data, dict):
        return Frontmatter(None, {}, body_first,
                           [FrontmatterProblem(2, "frontmatter must be a mapping of 'field: value' lines")])
    key_lines = {str(key_node.value): 2 + key_node.start_mark.line for key_node, _value in node.value}
    return Frontmatter({str(k): v for k, v in data.items()}, key_lines, body_first, [])
