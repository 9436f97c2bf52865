"""The shape of what the report view shows: the records view/data.py gathers and view/html.py renders.

Each is a TypedDict, so it stays the plain JSON-ready dict the template reads and the page's
script receives (the footnotes go to it as JSON), while both sides name the same fields. The
run's budget and the figures read from metrics.json are JSON as the files hold it.
"""
from __future__ import annotations

from typing import Any, TypedDict


class SealState(TypedDict):
    state: str  # data.SEAL_*
    detail: str


class SnapshotInfo(TypedDict):
    file: str  # sources/<name>, relative to the run
    title: str | None
    final_url: str | None
    retrieved_at: str | None
    chars: int | None
    truncated: bool | None
    archive: str  # the page's WARC and its size, or "never archived" (view/data.archive_line)


class PageWindow(TypedDict):
    """The stretch of a page shown: `segments` are [text, kind] in order (kind "", "hit" or "diff")."""

    segments: list[list[str]]
    start: int
    end: int
    total: int


class Closest(TypedDict):
    """Where verify's closest passage to an excerpt sits in its page, and which words differ."""

    part: list[list[Any]]  # the excerpt's part not found, as [token, differs] pairs
    span: list[int]  # the passage in the page, [start, end]
    differ: list[list[int]]  # spans of the page's tokens that differ
    similarity: float


class ClosestShown(TypedDict):
    part: list[list[Any]]
    similarity: float


class Claim(TypedDict):
    """A cited claim of report.md with the figures rule, the checker's verdict and its state."""

    line: int
    text: str
    footnotes: list[str]
    figures: str | None  # "grounded", "missing", or None when not checked
    missing: list[str]
    verdict: str | None
    reason: str | None
    why: list[str]  # failing checks at its line
    checked: bool  # the tier has a claim check
    state: str  # data.STATES


class Recheck(TypedDict):
    """A footnote's state in the latest `web-research recheck`."""

    state: str
    date: str
    note: str
    moved_to: str | None
    closest: str | None
    similarity: float | None
    differences: list[list[str]]
    mark: str


class RecheckSummary(TypedDict, total=False):
    """The latest recheck as a whole; only `problem` when its record cannot be used."""

    date: str
    summary: str
    problem: str | None
    file: str | None


class Footnote(TypedDict):
    """A footnote of report.md: its source, its page window, its claims and its state."""

    label: str
    line: int
    title: str | None
    url: str | None
    source_type: str | None
    retrieved: str | None
    published: str | None
    site: str | None
    excerpt: str | None
    seal: SealState
    claims: list[Claim]
    snapshot: SnapshotInfo | None
    page: PageWindow | None
    match: str  # "found", "not-found", "no-snapshot", "no-text"
    closest: ClosestShown | None
    why: list[str]
    state: str
    cited_by: int
    recheck: Recheck | None
    live_url: str | None  # the live page with a text fragment to the excerpt (quote_links.py), when found


class CoverageSource(TypedDict):
    title: str | None
    url: str | None
    footnotes: list[str]


class CoverageRow(TypedDict):
    id: str
    text: str
    subtopic: str
    state: str
    report: str | None
    reason: str | None
    sources: list[CoverageSource]


class FindingsRow(TypedDict):
    slug: str
    status: str
    reason: str | None


class Spent(TypedDict):
    input_tokens: int | None
    output_tokens: int | None
    wall_seconds: float | None
    cost: float
    cost_text: str


class ResearcherSpent(Spent):
    slug: str
    state: Any  # as metrics.json holds it
    searches: int | None
    page_reads: int | None
    denied: int | None


class AgentSpent(Spent):
    agent: str


class Totals(TypedDict):
    searches: int | None
    page_reads: int | None
    input_tokens: int | None
    output_tokens: int | None
    wall_seconds: float | None
    final: bool
    cost: float
    cost_text: str


class Figures(TypedDict):
    """The run's spending from metrics.json, priced."""

    recorded: bool
    budget: dict[str, Any] | None  # JSON: metrics.json's, or the plan's effective budget
    prices: str
    researchers: list[ResearcherSpent]
    others: list[AgentSpent]
    orchestrator: Spent | None
    totals: Totals | None
    why_none: str | None


class ArchiveFigures(TypedDict):
    """The run's WARC files (evidence/archive.py): how many pages, their size, what archiving added."""

    pages: int  # page snapshots in the run
    archived: int  # of them with a WARC
    bytes: int  # the WARC files' size, summed
    text: str  # the sentence the page and the closing note show


class FailingCheck(TypedDict):
    id: str
    severity: str
    message: str
    file: str | None  # relative to the run where it can be
    line: int | None


class Verification(TypedDict):
    passed: bool
    errors: int
    warnings: int
    failing: list[FailingCheck]
    more: int


class View(TypedDict):
    """Everything the page shows (data.gather)."""

    run_dir: str
    question: str | None
    plan_problem: str | None
    title: str | None
    report_markdown: str | None
    report_problem: str | None
    tldr: list[str]
    footnotes: list[Footnote]
    claims: list[Claim]
    recheck: RecheckSummary | None
    coverage: list[CoverageRow]
    findings: list[FindingsRow]
    figures: Figures
    archive: ArchiveFigures
    verification: Verification
