"""Reading pages' structure (page_structure.py) in a bounded child process, all pages at once.

The HTML is the site's and hostile: a page under fetch's size bound can still be built to make a
parser take gigabytes or minutes. So, as extraction does (extraction.py), the work runs in
`python -m web_research.evidence.structure_child` with an address-space limit and a wall-clock
limit, one child for every page a checker prompt or a recheck needs (one interpreter start,
about 0.1 s, for the lot). The child reads each archived page itself (its WARC, digests and body
checked against the record: archive.read_warc / check_body) or takes a live page's body on stdin,
and answers, for each excerpt's place, the structure around it (`Structure.as_dict`) or null: one
JSON line per page as soon as it is read, so the pages read before a timeout still count.

Anything that goes wrong (lxml or warcio absent in this Python, a timeout, the memory limit, a
broken archive, a page that does not hold the excerpt) gives None for that page or excerpt, and
the caller shows the stored text's context instead (excerpt_context.py): never a traceback,
never a check left open.
"""
from __future__ import annotations

import importlib.util
import json
import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

TIMEOUT_S = 10.0  # the whole batch: a hook's budget is 30 s and it has other work
MEMORY_BYTES = 1024 * 1024 * 1024
MAX_PAGES = 200
MAX_ANCHORS = 2000
MAX_ANCHOR_CHARS = 2000
MAX_REPLY_BYTES = 20 * 1024 * 1024
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(frozen=True)
class Anchor:
    """Where an excerpt stands in a page's stored text: the normalized text there, and which of
    the stored text's `of` places of that text it is (`nth`, from 0)."""

    text: str
    nth: int = 0
    of: int = 1
    before: str = ""  # the normalized words just before it in the stored text: which place it is, where counts differ


@dataclass(frozen=True)
class PageRequest:
    """One page: its WARC in a run (with the body SHA-256 its record names), or a body in hand."""

    anchors: tuple[Anchor, ...]
    warc: Path | None = None
    run_dir: Path | None = None
    body_sha256: str | None = None
    body: bytes | None = None
    charset: str | None = None


def available() -> bool:
    """Whether this Python has what the child needs (lxml, warcio: the fetch extra)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in ("lxml", "warcio"))
    except (ImportError, ValueError):
        return False


def page_structures(requests: Sequence[PageRequest], timeout_s: float = TIMEOUT_S,
                    memory_bytes: int = MEMORY_BYTES) -> list[list[dict | None]] | None:
    """For each request, the structure at each of its anchors (None where none was found); None
    when the child cannot run or did not answer (the caller falls back to the stored text)."""
    requests = list(requests)[:MAX_PAGES]
    if not requests or not available():
        return None
    pages, bodies = [], []
    for request in requests:
        entry = {"anchors": [[a.text[:MAX_ANCHOR_CHARS], a.nth, a.of, a.before[-MAX_ANCHOR_CHARS:]]
                             for a in request.anchors[:MAX_ANCHORS]],
                 "charset": request.charset}
        if request.body is not None:
            entry["body"] = len(bodies)
            bodies.append(request.body)
        else:
            entry.update(warc=str(request.warc), run_dir=str(request.run_dir), body_sha256=request.body_sha256)
        pages.append(entry)
    header = json.dumps({"pages": pages, "sizes": [len(b) for b in bodies], "memory_bytes": memory_bytes,
                         "cpu_s": int(timeout_s) + 1})
    env = dict(os.environ)
    env["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        done = subprocess.run([sys.executable, "-m", "web_research.evidence.structure_child"],
                              input=header.encode("utf-8") + b"\n" + b"".join(bodies),
                              capture_output=True, timeout=timeout_s, env=env)
        stdout = done.stdout
    except subprocess.TimeoutExpired as exc:  # the pages answered before the time ran out still count
        stdout = exc.stdout or b""
    except OSError:
        return None
    reply = []
    for line in stdout[:MAX_REPLY_BYTES].split(b"\n")[:len(requests)]:  # one line per page, in order
        try:
            reply.append(json.loads(line.decode("utf-8")))
        except ValueError:
            break  # cut off: this page and those after it have no structure
    if not reply:
        return None
    out: list[list[dict | None]] = []
    for index, request in enumerate(requests):
        answers = reply[index] if index < len(reply) else None
        if not isinstance(answers, list) or len(answers) != len(request.anchors[:MAX_ANCHORS]):
            answers = [None] * len(request.anchors[:MAX_ANCHORS])
        out.append([a if isinstance(a, dict) else None for a in answers])
    return out


# --- The child ---------------------------------------------------------------------------


def _markup(entry: dict, bodies: list[bytes]) -> str | None:
    """The page's HTML as text: the body given, or the archived one read back and checked."""
    from .archive import ArchiveError, check_body, read_warc  # warcio: fetch's libraries, only in the child
    from .extraction import decode_html  # lxml: fetch's libraries, only in the child

    charset = entry.get("charset")
    if "body" in entry:
        body = bodies[int(entry["body"])]
    else:
        path, run_dir = Path(entry["warc"]), Path(entry["run_dir"])
        try:
            replayed = read_warc(path, run_dir)
            if entry.get("body_sha256"):
                check_body(replayed, str(entry["body_sha256"]), path)
        except ArchiveError:
            return None
        body, charset = replayed.page.body, replayed.page.charset or charset
        if replayed.page.content_type not in ("text/html", "application/xhtml+xml", ""):
            head = body[:1024].lstrip().lower()
            if not head.startswith((b"<!doctype html", b"<html")):
                return None  # a PDF or plain text: its stored text is all the structure there is
    if body.startswith(b"%PDF-"):
        return None
    return decode_html(body, charset)


def _answer(entry: dict, bodies: list[bytes]) -> list[dict | None]:
    from .page_structure import PageIndex, parse_page  # lxml: fetch's libraries, only in the child

    anchors = entry.get("anchors") or []
    markup = _markup(entry, bodies)
    tree = parse_page(markup) if markup is not None else None
    if tree is None:
        return [None] * len(anchors)
    index = PageIndex(tree)
    out: list[dict | None] = []
    for text, nth, of, before in anchors:
        found = index.structure_at(str(text), int(nth), int(of), str(before))
        out.append(found.as_dict() if found is not None else None)
    return out


def _child_main() -> int:
    header = json.loads(sys.stdin.buffer.readline())
    memory = int(header.get("memory_bytes") or MEMORY_BYTES)
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(header.get("cpu_s") or TIMEOUT_S)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    sys.setrecursionlimit(5000)
    bodies = [sys.stdin.buffer.read(int(size)) for size in header.get("sizes", [])]
    for entry in header.get("pages", []):  # one line per page, written as soon as it is read
        try:
            answer: list | None = _answer(entry, bodies)
        except (MemoryError, RecursionError):
            answer = None
        except Exception:  # a parser failing on odd input: that page has no structure, the rest still do
            answer = None
        sys.stdout.buffer.write(json.dumps(answer, ensure_ascii=True).encode("ascii") + b"\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
