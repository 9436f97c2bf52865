"""A finished run built from real documentation pages, quoted the way a real model quotes them.

Issue 36: on real runs the report view marked verified claims red wherever an excerpt held an
apostrophe inside a word ("won’t", "table's"). This builds such a run from pages of the
extraction benchmark (Python 3.11 and PostgreSQL 15 documentation, in the repository with their
licences): each page stored as `fetch` stores it (the plugin's extraction, `store_snapshot`,
sealed as the hooks seal), and a scripted researcher per page quoting its sentences that carry
apostrophes, quotation marks and code, retyped as a model retypes them (straight apostrophes
and quotes for the page's typographic ones). The report's claims carry code spans. `verify`
must pass on it, and the view must mark every claim verified.
"""
from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from example_run import seal_run
from web_research.checks.citation_entries import render_citation
from web_research.core.slug import slugify
from web_research.evidence import ledger
from web_research.evidence.excerpts import excerpt_parts, match_excerpt
from web_research.evidence.extraction import extract_in_process
from web_research.evidence.snapshots import store_snapshot
from web_research.evidence.transport import FetchedPage
from web_research.run.briefs import brief_hash

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "extraction"
PAGES = ("python-library-asyncio-task", "python-library-stdtypes", "postgresql-sql-set")
QUESTION = "What do the Python 3.11 and PostgreSQL 15 manuals say about tasks, built-in types and SET?"
RETRIEVED_AT = "2026-12-04T10:00:00+00:00"
# A sentence worth quoting for this test: an apostrophe inside a word, a quotation mark, or code.
_APOSTROPHE = re.compile(r"\w['\u2019]\w")
_WANTED = re.compile(r"\w['\u2019]\w|[\u201c\u201d\"]|(?<!\w)['\u2018]\w|\w\(\)|\w\.\w+\(")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_CODE = re.compile(r"\b[\w.]+\(\)")


def retyped(sentence: str) -> str:
    """A sentence as a model copies it: straight apostrophes and quotes, double quotes inside
    the excerpt's own quotes written as single ones, dashes as hyphens."""
    return (sentence.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", "'").replace("\u201d", "'")
            .replace('"', "'").replace("\u2014", "-").replace("\u2013", "-"))


def quotable_sentences(text: str, limit: int) -> list[str]:
    """Up to `limit` sentences of `text` (one line each, 6 to 45 words) with an apostrophe
    inside a word, a quotation mark or code, apostrophes first; each accepted by verify as a
    model retypes it."""
    found: list[str] = []
    for line in text.splitlines():
        for sentence in _SENTENCE.split(line.strip()):
            words = len(sentence.split())
            if 6 <= words <= 45 and _WANTED.search(sentence) and sentence.endswith(".") and sentence[0].isupper() \
                    and not re.search(r"[#*=]|: \w+ = ", sentence) \
                    and len(excerpt_parts(sentence)) == 1 and "..." not in sentence and sentence not in found:
                found.append(sentence)
    found.sort(key=lambda s: not _APOSTROPHE.search(s))
    return [s for s in found if match_excerpt(retyped(s), text).ok][:limit]


def _claim(title: str, excerpt: str) -> str:
    """A claim as a report writes one: the page's statement in its words, code as code spans."""
    said = _CODE.sub(lambda m: f"`{m.group(0)}`", excerpt.rstrip("."))
    return f"The {title} page says that {said[0].lower() + said[1:] if said[:2].istitle() else said}"


def build(root: Path, per_page: int = 6) -> tuple[Path, dict]:
    """The run folder, and what it holds: {"excerpts": [...], "with_apostrophe": n, "claims": n}."""
    run = root / "real-pages"
    (run / "findings").mkdir(parents=True)
    (run / "briefs").mkdir()
    manifest = {e["name"]: e for e in json.loads((BENCHMARK / "manifest.json").read_text(encoding="utf-8"))["pages"]}
    subtopics = []
    quoted: list[tuple[str, dict, bool]] = []  # (claim, citation fields, first of its page)
    seals = []
    excerpts: list[str] = []
    number = 0
    for name in PAGES:
        entry = manifest[name]
        url = entry["origin_url"]
        body = gzip.decompress((BENCHMARK / entry["html"]).read_bytes())
        page = extract_in_process(FetchedPage(requested_url=url, final_url=url, status=200,
                                              content_type="text/html", charset="utf-8", body=body))
        snap = store_snapshot(run, requested_url=url, final_url=url, title=page.title, status=200,
                              content_type="text/html; charset=utf-8", retrieved_at=RETRIEVED_AT, text=page.text,
                              extractor=page.extractor)
        for path, artifact in ((snap.text_path, ledger.SNAPSHOT), (snap.meta_path, ledger.SNAPSHOT_META)):
            seals.append(ledger.entry(ledger.SEAL, "agent", None, artifact=artifact, path=f"sources/{path.name}",
                                      sha256=ledger.file_sha256(path, 1 << 26), url=url))
        topic = page.title.split(" \u2014 ")[0].strip()
        subtopic = f"What the manual's {topic} page says"
        subtopics.append(subtopic)
        slug = slugify(subtopic)
        brief = f"Brief for {subtopic}\n".encode()
        (run / "briefs" / f"{slug}.md").write_bytes(brief)
        claims, entries = [], []
        for local, sentence in enumerate(quotable_sentences(page.text, per_page), start=1):
            number += 1
            excerpt = retyped(sentence)
            excerpts.append(excerpt)
            fields = {"title": page.title, "url": url, "excerpt": excerpt, "retrieved_at": RETRIEVED_AT[:10],
                      "source_type": "official-docs"}
            claim = _claim(topic, excerpt)
            claims.append(f"- {claim}[^{local}].")
            entries.append(render_citation(local, fields, indent="      "))
            quoted.append((claim, fields, local == 1))
        frontmatter = (f'---\nstatus: ok\nsubtopic: "{subtopic}"\nbrief_hash: {brief_hash(brief)}\n'
                       "started_at: 2026-12-04T10:00:00Z\nfinished_at: 2026-12-04T10:10:00Z\n---\n")
        text = (f"\n# {subtopic}\n\n## Claims\n\n" + "\n".join(claims) + "\n\n## Not established\n\nNone.\n\n"
                "## Contradictions\n\nNone.\n\n## Searched and not found\n\nNone.\n\n## Exit reason\n\n"
                "saturated: the manual's page answers it.\n\n## Sources\n\n" + "\n\n".join(entries) + "\n")
        (run / "findings" / f"{slug}.md").write_text(frontmatter + text, encoding="utf-8")
    plan = ["# Research plan", "", "## Research question", "", QUESTION, "", "## Subtopics", ""]
    for subtopic in subtopics:
        plan += [f"### {subtopic}", f"- {subtopic}, in its own words", ""]
    plan += ["## Synthesis approach", "", "Quote each manual where it says it.", "", "## Budget", "",
             "- Researchers: 3", "- Searches per subagent: 5", ""]
    (run / "plan.md").write_text("\n".join(plan), encoding="utf-8")
    # The TL;DR states each page's first claim; footnotes are numbered by first use, as finish numbers them.
    first = [index for index, (_c, _f, lead) in enumerate(quoted) if lead]
    order = first + [index for index in range(len(quoted)) if index not in first]
    label = {index: position + 1 for position, index in enumerate(order)}
    tldr = "\n".join(f"- {quoted[i][0]}[^{label[i]}]." for i in first)
    findings_lines = "\n".join(f"- {claim}[^{label[i]}]." for i, (claim, _f, _l) in enumerate(quoted))
    report_entries = [render_citation(label[i], quoted[i][1], indent="      ") for i in order]
    report = (f"# Research: {QUESTION}\n\n## TL;DR\n\n{tldr}\n\n## Findings\n\n" + findings_lines
              + "\n\n## Gaps & Limitations\n\n- Only the pages listed under Sources were read.\n\n"
              + "## Sources\n\n" + "\n\n".join(report_entries) + "\n")
    (run / "report.md").write_text(report, encoding="utf-8")
    seal_run(run, seals)
    return run, {"excerpts": excerpts, "with_apostrophe": sum(1 for e in excerpts if _APOSTROPHE.search(e)),
                 "claims": number}
