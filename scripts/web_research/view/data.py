"""What the report view shows, gathered from a run folder (`web-research view`).

One JSON-ready dict built from the modules that already own each rule, so the
page says exactly what the commands say: citation entries (citation_entries),
page snapshots and where an excerpt sits in one (snapshots, excerpts), the
seals (provenance, ledger), the claim-checker's verdicts and the figures rule
(verdicts, claims), the plan's coverage (coverage), the run's spending
(metrics.json, priced by pricing.py) and the checklist's result (checklist).
Each claim and footnote gets one state from those (`STATES`), and a footnote whose
excerpt is not in its page gets verify's closest passage with the differing words.

Everything read is hostile: files go through the run-folder readers (bounded,
regular files inside the run), page text is cut to a window around the excerpt,
counts are capped, and nothing here is ever executed or interpreted as markup
(view/html.py escapes every string). A piece that cannot be read is shown as
missing, never fatal: an old run, a run with failed subtopics or one that fails
verification still gets a page.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any, Iterable, Mapping

from .. import formats
from ..evidence.excerpts import LIST_MARKS, is_layout, normalize
from ..evidence.matcher import StoredPage, find_excerpt
from ..evidence.quote_links import live_link, text_fragment
from ..evidence.sites import site_of
from ..recheck.record import RecheckRecordError, latest_recheck
from ..checks.checklist import parse_and_check
from ..checks.claims import claim_records, plan_bullet_ids, run_page_titles
from ..checks.coverage import bullet_states, citation_key, report_coverage
from ..checks.verdicts import check_key, decide, verdict_files, verdicts_by_claim
from ..core.fsutil import RunFileError, STATE_NOT_UTF8, read_run_file
from ..core.markdown_doc import CODE, REF, TEXT
from ..core.result import passed
from ..evidence.ledger import file_sha256
from ..evidence.provenance import MAX_EVIDENCE_BYTES, load_folder_copy
from ..evidence.snapshots import SnapshotError, SnapshotIndex
from ..metrics.pricing import cost_text, load_prices, metrics_costs
from ..metrics.run_metrics import read_metrics
from ..run.budget import effective_budget
from ..checks.parsed_run import ParsedRun
from ..checks.citation_entries import Citation
from ..evidence.provenance import SealSource
from ..evidence.snapshots import Snapshot
from ..metrics.pricing import Cost, PriceTable
from .model import (ArchiveFigures, Claim, Closest, CoverageRow, FailingCheck, Figures, FindingsRow, Footnote, PageWindow,
                    Recheck, RecheckSummary, SealState, Spent, Verification, View)

CONTEXT_CHARS = 1200  # page text shown on each side of the excerpt
HEAD_CHARS = 2400  # page text shown when the excerpt is not found in it
MAX_FOOTNOTES = 600
MAX_CHECKS = 200
MAX_TLDR_CHARS = 1500
SEAL_SEALED = "sealed"  # sealed at fetch and unchanged
SEAL_CHANGED = "changed"  # changed (or unreadable) since sealed
SEAL_UNSEALED = "unsealed"  # a snapshot with no seal on record (a run before seals, a copy)
SEAL_NO_SNAPSHOT = "no-snapshot"
_TOKEN = re.compile(r"\S+")

# A claim's or footnote's state, worst first: the page marks each one in the text.
FAILING, UNSUPPORTED, PARTIAL, UNCHECKED, VERIFIED = "failing", "unsupported", "partial", "unchecked", "verified"
STATES = (FAILING, UNSUPPORTED, PARTIAL, UNCHECKED, VERIFIED)
STATE_WORDS = {FAILING: "fails a check", UNSUPPORTED: "not supported", PARTIAL: "partly supported",
               UNCHECKED: "not checked", VERIFIED: "verified"}
STATE_MARKS = {FAILING: "!", UNSUPPORTED: "\u2717", PARTIAL: "\u25d0", UNCHECKED: "?", VERIFIED: "\u2713"}
_BY_VERDICT = {formats.VERDICT_SUPPORTED: VERIFIED, formats.VERDICT_PARTIAL: PARTIAL,
               formats.VERDICT_UNSUPPORTED: UNSUPPORTED}


def worst(states: Iterable[str]) -> str:
    """The worst of `states` (VERIFIED when there are none)."""
    return min(states, key=STATES.index, default=VERIFIED)


# --------------------------------------------------------------------------
# Where an excerpt sits in its page
# --------------------------------------------------------------------------

def locate_excerpt(excerpt: str, page: str | StoredPage) -> list[tuple[int, int]] | None:
    """Spans of `page` (its own characters) holding each part of `excerpt`, in order, or None
    when verify would not find it: the one matcher (`evidence.matcher.find_excerpt`), so the
    view shows an excerpt exactly where verify found it, and only where verify found it."""
    stored = page if isinstance(page, StoredPage) else StoredPage(page)
    return list(find_excerpt(excerpt, stored).spans) or None


def live_url(url: str | None, page: str, spans: list[tuple[int, int]] | None) -> str | None:
    """The live page's URL with a text fragment to the excerpt's passage, as the stored page writes
    it (`spans`: where the one matcher placed the excerpt, `locate_excerpt`); None when the URL is
    not http(s) or the excerpt is not in the page."""
    if not url or not spans or not url.startswith(("https://", "http://")):
        return None
    start, end = spans[0][0], spans[-1][1]
    return live_link(url, text_fragment(page, start, end))


def page_window(page: str, spans: list[tuple[int, int]] | None,
                differ: list[tuple[int, int]] | None = None) -> PageWindow:
    """The stretch of `page` to show: the spans marked, with context around them.
    `segments` are [text, kind] in order, kind "" (plain), "hit" (the excerpt or the closest
    passage) or "diff" (a word of the closest passage that the excerpt writes differently)."""
    if spans:
        start = max(0, spans[0][0] - CONTEXT_CHARS)
        end = min(len(page), spans[-1][1] + CONTEXT_CHARS)
    else:
        start, end = 0, min(len(page), HEAD_CHARS)
    cuts: list[tuple[int, int, str]] = []
    for a, b in spans or []:
        inside = sorted((x, y) for x, y in differ or [] if a <= x and y <= b)
        cursor = a
        for x, y in inside:
            if x > cursor:
                cuts.append((cursor, x, "hit"))
            cuts.append((x, y, "diff"))
            cursor = y
        if b > cursor:
            cuts.append((cursor, b, "hit"))
    segments: list[list[str]] = []
    cursor = start
    for a, b, kind in cuts:
        if a > cursor:
            segments.append([page[cursor:a], ""])
        segments.append([page[a:b], kind])
        cursor = b
    if end > cursor:
        segments.append([page[cursor:end], ""])
    return {"segments": segments, "start": start, "end": end, "total": len(page)}


def closest_in_page(excerpt: str, page: str | StoredPage) -> Closest | None:
    """Where verify's closest passage to an excerpt that is not in `page` sits, and which words
    differ: {"part": the excerpt's part not found, as [token, differs] pairs; "span": the
    passage's span in the page; "differ": spans of the page's differing tokens; "similarity"}.
    None when the excerpt is in the page or nothing in it comes close."""
    stored = page if isinstance(page, StoredPage) else StoredPage(page)
    result = find_excerpt(excerpt, stored)
    if result.ok or not result.closest or result.failed_part is None:
        return None
    passage = normalize(result.closest.rstrip("\u2026"))
    at = stored.normalized.find(passage) if passage else -1
    if at < 0:
        return None
    a, b = stored.span_of(at, at + len(passage))
    page = stored.text
    theirs = [(m.start(), m.end()) for m in _TOKEN.finditer(page, a, b)]
    mine = _TOKEN.findall(result.failed_part)
    key = lambda token: normalize(token).strip(".,;:!?()[]")  # noqa: E731 - one use, read in place
    matcher = SequenceMatcher(None, [key(t) for t in mine], [key(page[x:y]) for x, y in theirs], autojunk=False)
    mine_differs = [True] * len(mine)
    theirs_differs = [True] * len(theirs)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            mine_differs[block.a + k] = False
            theirs_differs[block.b + k] = False
    for index, (x, y) in enumerate(theirs):  # a table's cell borders and a list item's mark are no words
        if is_layout(page[x:y]) or (page[x:y] in LIST_MARKS and not page[page.rfind("\n", 0, x) + 1:x].strip(" \t")):
            theirs_differs[index] = False
    return {"part": [[token, differs] for token, differs in zip(mine, mine_differs)],
            "span": [a, b], "differ": [list(s) for s, d in zip(theirs, theirs_differs) if d],
            "similarity": result.similarity}


# --------------------------------------------------------------------------
# Footnotes
# --------------------------------------------------------------------------

def _seal_state(run_dir: Path, snap: Snapshot | None, source: SealSource) -> SealState:
    if snap is None:
        return {"state": SEAL_NO_SNAPSHOT, "detail": "no snapshot of this URL in sources/: the excerpt cannot be "
                                                    "checked against the page"}
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
              pages: dict[str, StoredPage | None]) -> Footnote:
    snap = index.find(citation.url) if citation.url else None
    item: Footnote = {
        "label": str(citation.number), "line": citation.line, "title": citation.title, "url": citation.url,
        "source_type": citation.source_type, "retrieved": citation.retrieved_at, "published": citation.published_at,
        "site": site_of(citation.url) if citation.url else None,
        "excerpt": citation.excerpt, "seal": _seal_state(run_dir, snap, source), "claims": [],
        "snapshot": None, "page": None, "match": "no-snapshot" if snap is None else "no-text", "closest": None,
        "why": [], "state": UNCHECKED, "cited_by": 0, "recheck": None, "live_url": None}
    if snap is None:
        return item
    rel = f"{formats.SOURCES_DIR}/{snap.text_path.name}"
    item["snapshot"] = {"file": rel, "title": snap.title, "final_url": snap.final_url,
                        "retrieved_at": snap.retrieved_at, "chars": snap.chars, "truncated": snap.truncated,
                        "archive": archive_line(snap)}
    if rel not in pages:
        try:
            pages[rel] = StoredPage(snap.text())
        except SnapshotError:
            pages[rel] = None
    stored = pages[rel]
    if stored is None:
        return item
    spans = locate_excerpt(citation.excerpt, stored) if citation.excerpt else None
    item["match"] = "found" if spans else "not-found"
    item["live_url"] = live_url(citation.url, stored.text, spans)
    closest = closest_in_page(citation.excerpt, stored) if citation.excerpt and not spans else None
    if closest is not None:
        item["closest"] = {"part": closest["part"], "similarity": closest["similarity"]}
        item["page"] = page_window(stored.text, [tuple(closest["span"])], [tuple(s) for s in closest["differ"]])
    else:
        item["page"] = page_window(stored.text, spans)
    return item


def _claims_by_footnote(run_dir: Path, parsed: ParsedRun,
                        problems: Mapping[int, list[str]]) -> tuple[dict[int, list[Claim]], list[Claim]]:
    """Each footnote's claims in report.md, and every claim in order: the figures rule, the
    checker's verdict and the failing checks at its line (`problems`, by report.md line)."""
    if parsed.report is None or parsed.report_path is None:
        return {}, []
    records = claim_records(parsed.report_path, "report", parsed.report.doc, parsed.report.citations,
                            run_page_titles(parsed), plan_bullet_ids(parsed.plan))
    checked = parsed.plan is not None and effective_budget(parsed.plan).claim_check
    voting = checked and effective_budget(parsed.plan).voting
    known = verdicts_by_claim(verdict_files(run_dir)) if checked else {}
    out: dict[int, list[Claim]] = {}
    ordered: list[Claim] = []
    for r in records[:MAX_FOOTNOTES]:
        g = r.grounding
        entry: Claim = {"line": r.claim.line, "text": r.claim.text,
                                 "footnotes": [str(n) for n in r.claim.footnotes],
                                 "figures": None if not g.checked else ("grounded" if g.ok else "missing"),
                                 "missing": [q.text for q in g.missing], "verdict": None, "reason": None,
                                 "why": list(problems.get(r.claim.line, []))[:5], "checked": bool(checked),
                                 "state": UNCHECKED}
        if checked and r.excerpts:
            decision = decide(known.get(check_key(r), []), bool(voting))
            entry["verdict"] = decision.verdict or ("awaiting votes" if decision.votes_needed else "not checked")
            entry["reason"] = decision.reason or None
        ordered.append(entry)
        for number in r.claim.footnotes:
            out.setdefault(number, []).append(entry)
    return out, ordered


def claim_state(claim: Claim, footnote_states: Iterable[str]) -> str:
    """A claim's state: failing when one of verify's checks fails on it or on a footnote it
    cites (`why` names it: a figure no excerpt states is the `claims.grounded` check); else the
    claim-checker's verdict where the tier has one (not checked until it judges); else verified
    when every excerpt it cites is in its stored page, not checked when one cannot be checked."""
    own = list(footnote_states)
    if claim["why"] or FAILING in own:
        return FAILING
    if claim["checked"]:
        return _BY_VERDICT.get(claim["verdict"] or "", UNCHECKED)
    return UNCHECKED if UNCHECKED in own else VERIFIED


def _own_state(item: Footnote, verify_failed: bool) -> str:
    """A footnote's state from its own entry: a check of verify failing at its lines fails it;
    so does an excerpt not in its page or a page changed since sealed, when verify fails (the
    check that says so may sit elsewhere: the seals, the snapshot). Where verify passes, nothing
    is marked failing: an excerpt the view cannot place is shown as not checked, with why.
    No readable stored page leaves it not checked."""
    troubled = item["match"] == "not-found" or item["seal"]["state"] == SEAL_CHANGED
    if item["why"] and (verify_failed or not troubled):
        return FAILING
    if troubled:
        return FAILING if verify_failed else UNCHECKED
    return VERIFIED if item["match"] == "found" else UNCHECKED


def footnotes(run_dir: Path, parsed: ParsedRun, source: SealSource,
              problems: Mapping[int, list[str]] | None = None,
              verify_failed: bool | None = None) -> tuple[list[Footnote], list[Claim]]:
    """(each footnote with its source, page window, claims and state; every claim with its
    state). `problems`: the failing error checks' messages by report.md line; `verify_failed`:
    whether verify fails the run (by default, whether any problem is given)."""
    if parsed.report is None:
        return [], []
    problems = problems or {}
    if verify_failed is None:
        verify_failed = bool(problems)
    index = SnapshotIndex.build(run_dir)
    claims, ordered = _claims_by_footnote(run_dir, parsed, problems)
    pages: dict[str, StoredPage | None] = {}
    out = []
    seen: set[int] = set()
    for citation in parsed.report.citations[:MAX_FOOTNOTES]:
        if citation.number in seen:
            continue  # a duplicate entry: verify reports it; the first one is what a reader sees
        seen.add(citation.number)
        item = _footnote(run_dir, citation, index, source, pages)
        item["why"] = [m for line in range(citation.line, max(citation.line, citation.end_line) + 1)
                       for m in problems.get(line, [])][:5]
        if item["match"] == "not-found" and not item["why"]:
            item["why"] = ["the excerpt is not in the stored page text" if verify_failed else
                           "the view cannot place the excerpt in the stored page text, although verify finds it"]
        if item["seal"]["state"] == SEAL_CHANGED:
            item["why"].append(item["seal"]["detail"])
        item["state"] = _own_state(item, verify_failed)
        item["cited_by"] = len(claims.get(citation.number, []))
        item["claims"] = claims.get(citation.number, [])[:20]
        out.append(item)
    own = {f["label"]: f["state"] for f in out}
    for claim in ordered:
        claim["state"] = claim_state(claim, (own.get(n, UNCHECKED) for n in claim["footnotes"]))
    for item in out:
        item["state"] = worst([item["state"], *(c["state"] for c in item["claims"])])
    return out, ordered


RECHECK_MARKS = {"unchanged": "=", "changed": "\u2260", "moved": "\u2192", "gone": "\u2205", "unreachable": "\u2026"}


def rechecks(run_dir: Path) -> tuple[dict[str, Recheck], RecheckSummary | None]:
    """(each footnote's state in the latest `web-research recheck`, by label; the recheck as a
    whole: date, summary, or why its record cannot be used). Nothing when never rechecked."""
    try:
        record = latest_recheck(run_dir)
    except RecheckRecordError as exc:
        return {}, {"problem": f"{exc}; run web-research recheck again to replace it"}
    except OSError as exc:
        return {}, {"problem": f"{formats.CHECKS_DIR}/: cannot be read ({exc.strerror or exc})"}
    if record is None:
        return {}, None
    out: dict[str, Recheck] = {}
    for c in record.citations[:MAX_FOOTNOTES]:
        out[str(c.number)] = {"state": c.state, "date": c.checked_at[:10], "note": c.note, "moved_to": c.moved_to,
                              "closest": c.closest, "similarity": c.similarity,
                              "differences": [[d.was, d.now] for d in c.differences[:20]],
                              "mark": RECHECK_MARKS.get(c.state, "?")}
    return out, {"date": record.date, "summary": record.summary_line(), "problem": None,
                 "file": record.path.name if record.path else None}


def problems_by_line(run_dir: Path, checks: list) -> dict[int, list[str]]:
    """The failing error checks on report.md by line, each as "<check id>: <message>" so a
    failing mark names the check that fails."""
    report = {str(Path(run_dir) / formats.REPORT_FILE), str((Path(run_dir) / formats.REPORT_FILE).resolve())}
    out: dict[int, list[str]] = {}
    for c in checks:
        if not c.ok and c.severity == "error" and c.line and c.path and str(c.path) in report:
            out.setdefault(c.line, []).append(f"{c.id}: {c.message}")
    return out


# --------------------------------------------------------------------------
# Coverage, figures, verification
# --------------------------------------------------------------------------

def coverage(parsed: ParsedRun) -> list[CoverageRow]:
    """Each plan bullet: id, text, state, how the report covers it, and the sources behind it."""
    if parsed.plan is None:
        return []
    states = bullet_states(parsed.plan, parsed.findings)
    how = {id(s): h for s, h in report_coverage(parsed.report, states)} if parsed.report is not None else {}
    by_key: dict[tuple, list[str]] = {}
    for c in parsed.report.citations if parsed.report is not None else []:
        by_key.setdefault(citation_key(c), []).append(str(c.number))
    out: list[CoverageRow] = []
    for s in states:
        sources = [{"title": key[0], "url": key[1], "footnotes": by_key.get(key, [])}
                   for key in sorted(s.citation_keys, key=lambda k: tuple(str(x) for x in k))]
        out.append({"id": s.bullet.id, "text": s.bullet.text, "subtopic": s.bullet.subtopic.name, "state": s.state,
                    "report": how.get(id(s)), "reason": s.reason, "sources": sources[:20]})
    return out


def figures(run_dir: Path, parsed: ParsedRun, table: PriceTable) -> Figures:
    """The run's spending from metrics.json, priced: per researcher, other agents, the orchestrator, totals."""
    metrics = read_metrics(run_dir)
    budget = (metrics or {}).get("budget") if isinstance((metrics or {}).get("budget"), dict) else None
    if budget is None and parsed.plan is not None:
        budget = effective_budget(parsed.plan).to_json()
    out: Figures = {"recorded": metrics is not None, "budget": budget, "prices": table.describe(),
                           "researchers": [], "others": [], "orchestrator": None, "totals": None,
                           "why_none": None}
    if metrics is None:
        path = Path(run_dir) / formats.METRICS_FILE
        out["why_none"] = (f"{formats.METRICS_FILE} in this folder cannot be read as a JSON object; "
                           f"`web-research status` shows the run's files" if path.exists() or path.is_symlink() else
                           f"this run has no {formats.METRICS_FILE}. The hooks record what a run spends while it "
                           "is active, so a run made by hand, or before the plugin recorded metrics, has none")
        return out
    costs = metrics_costs(metrics, table)

    def spent(agent: Mapping[str, Any], c: Cost) -> Spent:
        return {"input_tokens": _int(agent.get("input_tokens")), "output_tokens": _int(agent.get("output_tokens")),
                "wall_seconds": _num(agent.get("wall_seconds")), "cost": round(c.dollars, 4), "cost_text": cost_text(c)}

    for r, c in zip(_dicts(metrics.get("researchers")), costs.researchers):
        out["researchers"].append({"slug": str(r.get("slug") or r.get("agent_id") or "?"), "state": r.get("state"),
                                   "searches": _int(r.get("searches")), "page_reads": _int(r.get("page_reads")),
                                   "denied": _int(r.get("denied")), **spent(r, c)})
    for r, c in zip(_dicts(metrics.get("other_agents")), costs.others):
        out["others"].append({"agent": str(r.get("agent_id") or "?"), **spent(r, c)})
    if costs.orchestrator is not None:
        out["orchestrator"] = spent(metrics["orchestrator"], costs.orchestrator)
    totals = metrics.get("totals") if isinstance(metrics.get("totals"), dict) else {}
    total = costs.total
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


def verification(run_dir: Path, checks: list) -> Verification:
    failing = [c for c in checks if not c.ok]
    items: list[FailingCheck] = []
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


def _text_despite_bytes(run_dir: Path, parsed: ParsedRun) -> str | None:
    """report.md's text with each byte that is not UTF-8 shown as U+FFFD, when that is all that
    keeps it from being read (verify fails it and the page says where); else None."""
    path = Path(run_dir) / formats.REPORT_FILE
    error = next((e for p, e in parsed.unreadable.items() if Path(p).name == formats.REPORT_FILE), None)
    if error is None or getattr(error, "state", None) != STATE_NOT_UTF8:
        return None
    try:
        return read_run_file(path, Path(run_dir), formats.MAX_MARKDOWN_BYTES).decode("utf-8", errors="replace")
    except (RunFileError, OSError):
        return None


def file_problem(run_dir: Path, checks: list, name: str) -> str:
    """What the first failing check on run file `name` says, with its place (`plan.md:12: …`)."""
    target = Path(run_dir) / name
    for c in checks:
        if not c.ok and c.path and Path(c.path).name == name and Path(c.path).parent.resolve() == target.parent.resolve():
            where = f"{name}:{c.line}" if c.line else name
            return f"{where}: {c.message.removeprefix(name).lstrip(': ')}"
    return f"{name} cannot be read"


def tldr(parsed: ParsedRun) -> list[str]:
    """The TL;DR bullets as plain text (footnote markers and Markdown dropped), bounded:
    the top-level list items of the section, from the one Markdown parse (markdown_doc)."""
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
           data_dir: Path | None = None) -> View:
    """Everything the page shows. `seal_source`: the seals to show (default the folder copy,
    as standalone verify uses; the Stop hook passes the ledger's)."""
    run_dir = Path(run_dir)
    source = seal_source if seal_source is not None else load_folder_copy(run_dir)
    parsed, checks = parse_and_check(run_dir, seal_source=seal_source)
    notes, claims = footnotes(run_dir, parsed, source, problems_by_line(run_dir, checks),
                              verify_failed=not passed(checks))
    live, recheck = rechecks(run_dir)
    for note in notes:
        note["recheck"] = live.get(note["label"])
    report_text = "\n".join(parsed.report.lines) if parsed.report is not None else None
    report_problem = None
    if parsed.report is None:
        report_problem = file_problem(run_dir, checks, formats.REPORT_FILE)
        report_text = _text_despite_bytes(run_dir, parsed)
    findings: list[FindingsRow] = [{"slug": slug, "status": f.status or "invalid", "reason": f.reason}
                for slug, f in sorted(parsed.findings.items())]
    return {
        "run_dir": str(run_dir),
        "question": " ".join(parsed.plan.question.split()) if parsed.plan is not None else None,
        "plan_problem": file_problem(run_dir, checks, formats.PLAN_FILE) if parsed.plan is None else None,
        "title": parsed.report.title if parsed.report is not None else None,
        "report_markdown": report_text,
        "report_problem": report_problem,
        "tldr": tldr(parsed),
        "footnotes": notes,
        "claims": claims,
        "recheck": recheck,
        "coverage": coverage(parsed),
        "findings": findings,
        "figures": figures(run_dir, parsed, load_prices(env, data_dir)),
        "archive": archive_figures(SnapshotIndex.build(run_dir)),
        "verification": verification(run_dir, checks),
    }


def archive_line(snap: Snapshot) -> str:
    """What the panel says of a page's WARC: its file and size, or that it was never archived."""
    if snap.archive is None:
        return "never archived (fetched before fetch kept the page's WARC)"
    return (f"{formats.SOURCES_DIR}/{snap.archive.file} (WARC, {_size(snap.archive.bytes)}: the page as the site "
            "sent it)")


def archive_figures(index: SnapshotIndex) -> ArchiveFigures:
    """The WARC files of the run's snapshots: their number and size, and the milliseconds archiving
    added to each fetch (median and most), as each snapshot record states them."""
    snaps = list({id(s): s for s in index.by_key.values()}.values())
    archived = [s.archive for s in snaps if s.archive is not None]
    size = sum(a.bytes for a in archived)
    if not snaps:
        text = "no page snapshots"
    elif not archived:
        text = f"none of the {len(snaps)} page(s) was archived (fetched before fetch kept a WARC)"
    else:
        times = sorted(a.ms for a in archived)
        text = (f"{len(archived)} of {len(snaps)} page(s) archived as fetched (WARC, {_size(size)} in all); "
                f"archiving added {times[len(times) // 2]} ms to a fetch (median, at most {times[-1]} ms)")
    return {"pages": len(snaps), "archived": len(archived), "bytes": size, "text": text}


def _size(count: int) -> str:
    for unit, scale in (("MB", 1024 * 1024), ("KB", 1024)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"
