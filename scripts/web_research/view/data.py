"""What the report view shows, gathered from a run folder (`web-research view`).

One JSON-ready dict built from the modules that already own each rule, so the
page says exactly what the commands say: citation entries (citation_entries),
page snapshots and where an excerpt sits in one (snapshots, excerpts), the
seals (provenance, ledger), the claim-checker's verdicts and the figures rule
(verdicts, claims), the plan's coverage (coverage), the run's spending
(metrics.json, priced by pricing.py) and the checklist's result (checklist).

Everything read is hostile: files go through the run-folder readers (bounded,
regular files inside the run), page text is cut to a window around the excerpt,
counts are capped, and nothing here is ever executed or interpreted as markup
(view/html.py escapes every string). A piece that cannot be read is shown as
missing, never fatal: an old run, a run with failed subtopics or one that fails
verification still gets a page.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .. import formats

if TYPE_CHECKING:
    from ..checks.parsed_run import ParsedRun
    from ..checks.citation_entries import Citation
    from ..evidence.provenance import SealSource
    from ..evidence.snapshots import Snapshot

CONTEXT_CHARS = 1200  # page text shown on each side of the excerpt
HEAD_CHARS = 2400  # page text shown when the excerpt is not found in it
MAX_FOOTNOTES = 600
MAX_CHECKS = 200
MAX_TLDR_CHARS = 1500
SEAL_SEALED = "sealed"  # sealed at fetch and unchanged
SEAL_CHANGED = "changed"  # changed (or unreadable) since sealed
SEAL_UNSEALED = "unsealed"  # a snapshot with no seal on record (a run before seals, a copy)
SEAL_NO_SNAPSHOT = "no-snapshot"
_WORD = re.compile(r"\w+")


# --------------------------------------------------------------------------
# Where an excerpt sits in its page
# --------------------------------------------------------------------------

def locate_excerpt(excerpt: str, page: str, limit: int = 64) -> list[tuple[int, int]] | None:
    """Spans of `page` (its own characters) holding each part of `excerpt`, in order, or None.

    The parts are the excerpt's parts as verify splits them (excerpts.excerpt_parts); each is
    found as its words in order with only non-word characters between them, so quote marks,
    dashes and line breaks the page writes differently do not hide it. `verify` decides whether
    the excerpt is verbatim; this only shows where it is."""
    from ..evidence.excerpts import excerpt_parts  # lazy: start-up

    spans: list[tuple[int, int]] = []
    position = 0
    for part in excerpt_parts(excerpt)[:limit]:
        words = _WORD.findall(part)[:400]
        if not words:
            continue
        found = re.search(r"\W*".join(map(re.escape, words)), page[position:])
        if found is None:
            return None
        spans.append((position + found.start(), position + found.end()))
        position += found.end()
    return spans or None


def page_window(page: str, spans: list[tuple[int, int]] | None) -> dict[str, Any]:
    """The stretch of `page` to show: the excerpt's spans marked, with context around them.
    `segments` alternate plain and marked text, in order."""
    if spans:
        start = max(0, spans[0][0] - CONTEXT_CHARS)
        end = min(len(page), spans[-1][1] + CONTEXT_CHARS)
    else:
        start, end = 0, min(len(page), HEAD_CHARS)
    segments: list[list[Any]] = []
    cursor = start
    for a, b in spans or []:
        if a > cursor:
            segments.append([page[cursor:a], False])
        segments.append([page[a:b], True])
        cursor = b
    if end > cursor:
        segments.append([page[cursor:end], False])
    return {"segments": segments, "start": start, "end": end, "total": len(page)}


# --------------------------------------------------------------------------
# Footnotes
# --------------------------------------------------------------------------

def _seal_state(run_dir: Path, snap: Snapshot | None, source: SealSource) -> dict[str, Any]:
    if snap is None:
        return {"state": SEAL_NO_SNAPSHOT, "detail": "no snapshot of this URL in sources/: the excerpt cannot be "
                                                    "checked against the page"}
    from ..evidence.ledger import file_sha256  # lazy: start-up
    from ..evidence.provenance import MAX_EVIDENCE_BYTES  # lazy: start-up

    rel = f"{formats.SOURCES_DIR}/{snap.text_path.name}"
    seal = (source.seals or {}).get(rel)
    if seal is None:
        return {"state": SEAL_UNSEALED, "detail": "snapshot present, but no seal is on record for it (a run made "
                                                  "before seals, or a copy of a run without them)"}
    digest = file_sha256(run_dir / rel, MAX_EVIDENCE_BYTES)
    if digest is None or not seal.accepts(digest):
        return {"state": SEAL_CHANGED, "detail": f"the stored page text changed after it was sealed at "
                                                 f"{seal.at or 'an unknown time'}"}
    return {"state": SEAL_SEALED, "detail": f"sealed at fetch, {seal.at or 'time unknown'}, and unchanged since"}


def _footnote(run_dir: Path, citation: Citation, index: Any, source: SealSource,
              pages: dict[str, str | None]) -> dict[str, Any]:
    from ..evidence.snapshots import SnapshotError  # lazy: start-up

    snap = index.find(citation.url) if citation.url else None
    item: dict[str, Any] = {
        "label": str(citation.number), "line": citation.line, "title": citation.title, "url": citation.url,
        "source_type": citation.source_type, "retrieved": citation.retrieved_at, "published": citation.published_at,
        "excerpt": citation.excerpt, "seal": _seal_state(run_dir, snap, source), "claims": [],
        "snapshot": None, "page": None, "match": "no-snapshot" if snap is None else "no-text"}
    if snap is None:
        return item
    rel = f"{formats.SOURCES_DIR}/{snap.text_path.name}"
    item["snapshot"] = {"file": rel, "title": snap.title, "final_url": snap.final_url,
                        "retrieved_at": snap.retrieved_at, "chars": snap.chars, "truncated": snap.truncated}
    if rel not in pages:
        try:
            pages[rel] = snap.text()
        except SnapshotError:
            pages[rel] = None
    page = pages[rel]
    if page is None:
        return item
    spans = locate_excerpt(citation.excerpt, page) if citation.excerpt else None
    item["match"] = "found" if spans else "not-found"
    item["page"] = page_window(page, spans)
    return item


def _claims_by_footnote(run_dir: Path, parsed: ParsedRun) -> dict[int, list[dict[str, Any]]]:
    """Each footnote's claims in report.md, with the figures rule and the checker's verdict."""
    from ..run.budget import effective_budget  # lazy: start-up
    from ..checks.claims import claim_records  # lazy: start-up
    from ..checks.verdicts import check_key, decide, verdict_files, verdicts_by_claim  # lazy: start-up

    if parsed.report is None or parsed.report_path is None:
        return {}
    records = claim_records(parsed.report_path, "report", parsed.report.doc, parsed.report.citations)
    checked = parsed.plan is not None and effective_budget(parsed.plan).claim_check
    voting = checked and effective_budget(parsed.plan).voting
    known = verdicts_by_claim(verdict_files(run_dir)) if checked else {}
    out: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        g = r.grounding
        entry: dict[str, Any] = {"line": r.claim.line, "text": r.claim.text,
                                 "figures": None if not g.checked else ("grounded" if g.ok else "missing"),
                                 "missing": [q.text for q in g.missing], "verdict": None, "reason": None}
        if checked and r.excerpts:
            decision = decide(known.get(check_key(r), []), bool(voting))
            entry["verdict"] = decision.verdict or ("awaiting votes" if decision.votes_needed else "not checked")
            entry["reason"] = decision.reason or None
        for number in r.claim.footnotes:
            out.setdefault(number, []).append(entry)
    return out


def footnotes(run_dir: Path, parsed: ParsedRun, source: SealSource) -> list[dict[str, Any]]:
    from ..evidence.snapshots import SnapshotIndex  # lazy: start-up

    if parsed.report is None:
        return []
    index = SnapshotIndex.build(run_dir)
    claims = _claims_by_footnote(run_dir, parsed)
    pages: dict[str, str | None] = {}
    out = []
    seen: set[int] = set()
    for citation in parsed.report.citations[:MAX_FOOTNOTES]:
        if citation.number in seen:
            continue  # a duplicate entry: verify reports it; the first one is what a reader sees
        seen.add(citation.number)
        item = _footnote(run_dir, citation, index, source, pages)
        item["claims"] = claims.get(citation.number, [])[:20]
        out.append(item)
    return out


# --------------------------------------------------------------------------
# Coverage, figures, verification
# --------------------------------------------------------------------------

def coverage(parsed: ParsedRun) -> list[dict[str, Any]]:
    """Each plan bullet: id, text, state, how the report covers it, and the sources behind it."""
    from ..checks.coverage import bullet_states, citation_key, report_coverage  # lazy: start-up

    if parsed.plan is None:
        return []
    states = bullet_states(parsed.plan, parsed.findings)
    how = {id(s): h for s, h in report_coverage(parsed.report, states)} if parsed.report is not None else {}
    by_key: dict[tuple, list[str]] = {}
    for c in parsed.report.citations if parsed.report is not None else []:
        by_key.setdefault(citation_key(c), []).append(str(c.number))
    out = []
    for s in states:
        sources = [{"title": key[0], "url": key[1], "footnotes": by_key.get(key, [])}
                   for key in sorted(s.citation_keys, key=lambda k: tuple(str(x) for x in k))]
        out.append({"id": s.bullet.id, "text": s.bullet.text, "subtopic": s.bullet.subtopic.name, "state": s.state,
                    "report": how.get(id(s)), "reason": s.reason, "sources": sources[:20]})
    return out


def figures(run_dir: Path, parsed: ParsedRun, table: Any) -> dict[str, Any]:
    """The run's spending from metrics.json, priced: per researcher, other agents, the orchestrator, totals."""
    from ..run.budget import effective_budget  # lazy: start-up
    from ..metrics.run_metrics import read_metrics  # lazy: start-up
    from ..metrics.pricing import cost_text, metrics_costs  # lazy: start-up

    metrics = read_metrics(run_dir)
    budget = (metrics or {}).get("budget") if isinstance((metrics or {}).get("budget"), dict) else None
    if budget is None and parsed.plan is not None:
        budget = effective_budget(parsed.plan).to_json()
    out: dict[str, Any] = {"recorded": metrics is not None, "budget": budget, "prices": table.describe(),
                           "researchers": [], "others": [], "orchestrator": None, "totals": None}
    if metrics is None:
        return out
    costs = metrics_costs(metrics, table)

    def spent(agent: Mapping[str, Any], c: Any) -> dict[str, Any]:
        return {"input_tokens": _int(agent.get("input_tokens")), "output_tokens": _int(agent.get("output_tokens")),
                "wall_seconds": _num(agent.get("wall_seconds")), "cost": round(c.dollars, 4), "cost_text": cost_text(c)}

    for r, c in zip(_dicts(metrics.get("researchers")), costs["researchers"]):
        out["researchers"].append({"slug": str(r.get("slug") or r.get("agent_id") or "?"), "state": r.get("state"),
                                   "searches": _int(r.get("searches")), "page_reads": _int(r.get("page_reads")),
                                   "denied": _int(r.get("denied")), **spent(r, c)})
    for r, c in zip(_dicts(metrics.get("other_agents")), costs["others"]):
        out["others"].append({"agent": str(r.get("agent_id") or "?"), **spent(r, c)})
    if costs["orchestrator"] is not None:
        out["orchestrator"] = spent(metrics["orchestrator"], costs["orchestrator"])
    totals = metrics.get("totals") if isinstance(metrics.get("totals"), dict) else {}
    total = costs["total"]
    out["totals"] = {"searches": _int(totals.get("searches")), "page_reads": _int(totals.get("page_reads")),
                     "input_tokens": _int(totals.get("input_tokens")), "output_tokens": _int(totals.get("output_tokens")),
                     "wall_seconds": _num(totals.get("wall_seconds")), "final": bool(metrics.get("final")),
                     "cost": round(total.dollars, 4), "cost_text": cost_text(total)}
    return out


def _dicts(value: object) -> Iterable[dict]:
    return [v for v in value[:100] if isinstance(v, dict)] if isinstance(value, list) else []


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _num(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def verification(run_dir: Path, checks: list) -> dict[str, Any]:
    from ..core.result import passed  # lazy: start-up

    failing = [c for c in checks if not c.ok]
    items = []
    roots = (Path(run_dir), Path(run_dir).resolve())
    for c in failing[:MAX_CHECKS]:
        rel = None
        if c.path:
            rel = str(c.path)
            for root in roots:  # a check names the run as it was given, or resolved
                try:
                    rel = str(Path(c.path).relative_to(root))
                    break
                except ValueError:
                    continue
        items.append({"id": c.id, "severity": c.severity, "message": c.message, "file": rel, "line": c.line})
    return {"passed": passed(checks), "errors": sum(1 for c in failing if c.severity == "error"),
            "warnings": sum(1 for c in failing if c.severity == "warning"), "failing": items,
            "more": max(0, len(failing) - MAX_CHECKS)}


def tldr(parsed: ParsedRun) -> list[str]:
    """The TL;DR bullets as plain text (footnote markers and Markdown dropped), bounded:
    the top-level list items of the section, from the one Markdown parse (markdown_doc)."""
    from ..core.markdown_doc import CODE, REF, TEXT  # lazy: start-up

    if parsed.report is None:
        return []
    section = parsed.report.section(formats.REPORT_SECTIONS[0])
    if section is None:
        return []
    doc = parsed.report.doc
    bullets: list[str] = []
    for item in doc.items:
        if item.depth or not section.line < item.line <= section.end:
            continue
        parts: list[str] = []
        for block in doc.blocks_in(item.line, item.end):
            parts.extend(span.text if span.kind in (TEXT, CODE) else "" if span.kind == REF else " "
                         for span in block.spans)
            parts.append(" ")
        bullets.append(" ".join("".join(parts).split()))
    out, used = [], 0
    for b in bullets:
        if used + len(b) > MAX_TLDR_CHARS:
            out.append("\u2026")
            break
        out.append(b)
        used += len(b)
    return out


# --------------------------------------------------------------------------
# The whole view
# --------------------------------------------------------------------------

def gather(run_dir: Path, seal_source: SealSource | None = None, env: Mapping[str, str] | None = None,
           data_dir: Path | None = None) -> dict[str, Any]:
    """Everything the page shows. `seal_source`: the seals to show (default the folder copy,
    as standalone verify uses; the Stop hook passes the ledger's)."""
    from ..checks.checklist import parse_and_check  # lazy: start-up
    from ..metrics.pricing import load_prices  # lazy: start-up
    from ..evidence.provenance import load_folder_copy  # lazy: start-up

    run_dir = Path(run_dir)
    source = seal_source if seal_source is not None else load_folder_copy(run_dir)
    parsed, checks = parse_and_check(run_dir, seal_source=seal_source)
    report_text = "\n".join(parsed.report.lines) if parsed.report is not None else None
    findings = [{"slug": slug, "status": f.status or "invalid", "reason": f.reason}
                for slug, f in sorted(parsed.findings.items())]
    return {
        "run_dir": str(run_dir),
        "question": " ".join(parsed.plan.question.split()) if parsed.plan is not None else None,
        "title": parsed.report.title if parsed.report is not None else None,
        "report_markdown": report_text,
        "tldr": tldr(parsed),
        "footnotes": footnotes(run_dir, parsed, source),
        "coverage": coverage(parsed),
        "findings": findings,
        "figures": figures(run_dir, parsed, load_prices(env, data_dir)),
        "verification": verification(run_dir, checks),
    }
