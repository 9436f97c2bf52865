"""What each agent of a run has spent, folded from the run ledger (ledger.py).

The budget hooks, the metrics the hooks write and `status` all count from this
one fold, so the number a researcher is denied at is the number it is shown.

Counting rules:
- One *attempt* is one tool call. The PreToolUse hook that allows a search or
  page read appends an entry carrying the call's `tool_use_id` (`phase:
  "allowed"`), and PostToolUse appends another with the result; entries that
  share a `tool_use_id` are one attempt. This is why parallel calls in one
  message are counted before any of them returns.
- A page read that pages (`paging: true`, fetch with `--offset` of a URL the
  agent has already read) is not a new read and is not counted.
- `denied` entries are calls the hooks refused; `agent_start` / `agent_stop`
  bracket a researcher's life.
Nothing here touches files: `entries` is what `ledger.read` returned.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urldefrag
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from ..evidence.ledger import Entry


SEARCH = "search"
PAGE_READ = "page_read"
DENIED = "denied"
AGENT_START = "agent_start"
AGENT_STOP = "agent_stop"
ALLOWED = "allowed"  # the `phase` of the entry a PreToolUse hook appends when it allows a call


def normalise_query(query: object) -> str:
    """Same words: case and runs of whitespace do not make a search new."""
    return " ".join(str(query or "").split()).casefold()


def normalise_url(url: object) -> str:
    """Same page: surrounding blanks and a #fragment do not make a URL new."""
    return urldefrag(str(url or "").strip())[0]


@dataclass(slots=True)
class Attempt:
    """One search or page-read call (all ledger entries with its tool_use_id)."""

    kind: str
    tool: str | None = None
    query: str = ""
    url: str = ""
    paging: bool = False
    ok: bool | None = None  # None: no result recorded yet
    at: str = ""
    decided: bool = False  # the PreToolUse hook's entry was seen, so its `paging` is authoritative
    find: str = ""  # a page read by `fetch --find`: the words looked for


@dataclass(slots=True)
class AgentUsage:
    """One agent's searches, page reads (paging included) and refusals, in ledger order."""

    agent_id: str | None
    slug: str | None = None
    searches: list[Attempt] = field(default_factory=list)
    reads: list[Attempt] = field(default_factory=list)
    denied: int = 0
    denied_by_rule: dict[str, int] = field(default_factory=dict)
    started_at: str | None = None
    stopped_at: str | None = None

    @property
    def search_count(self) -> int:
        return len(self.searches)

    @property
    def page_read_count(self) -> int:
        return sum(1 for a in self.reads if not a.paging)

    @property
    def running(self) -> bool:
        return self.started_at is not None and self.stopped_at is None

    def earlier_search(self, query: str) -> int | None:
        """The 1-based number of an earlier search with the same words, if any."""
        wanted = normalise_query(query)
        return next((i for i, a in enumerate(self.searches, 1) if normalise_query(a.query) == wanted), None)

    def read_before(self, url: str) -> Attempt | None:
        """An earlier read of this URL that succeeded or whose result is not known (a fetch still
        running, or one whose result was never recorded); a read that failed may be tried again."""
        wanted = normalise_url(url)
        for attempt in self.reads:
            if attempt.paging or normalise_url(attempt.url) != wanted:
                continue
            if attempt.ok is True or attempt.ok is None:
                return attempt
        return None

    def to_json(self) -> dict[str, Any]:
        return {"agent_id": self.agent_id, "slug": self.slug, "searches": self.search_count,
                "page_reads": self.page_read_count, "denied": self.denied,
                "denied_by_rule": dict(sorted(self.denied_by_rule.items())),
                "started_at": self.started_at, "stopped_at": self.stopped_at, "running": self.running}


def fold(entries: Iterable[Entry]) -> dict[str | None, AgentUsage]:
    """agent_id -> AgentUsage (the main agent is None), in ledger order."""
    out: dict[str | None, AgentUsage] = {}
    attempts: dict[tuple[str | None, str, str], Attempt] = {}
    for index, item in enumerate(entries):
        kind, agent_id = item.kind, item.agent_id
        if kind not in (SEARCH, PAGE_READ, DENIED, AGENT_START, AGENT_STOP):
            continue
        usage = out.setdefault(agent_id, AgentUsage(agent_id))
        if usage.slug is None and item.slug is not None:
            usage.slug = item.slug
        at = item.at
        if kind == AGENT_START:
            usage.started_at = usage.started_at or at
            continue
        if kind == AGENT_STOP:
            usage.stopped_at = at
            continue
        if kind == DENIED:
            usage.denied += 1
            rule = item.rule or "other"
            usage.denied_by_rule[rule] = usage.denied_by_rule.get(rule, 0) + 1
            continue
        call = item.tool_use_id
        key = (agent_id, kind, call if call else f"#{index}")
        attempt = attempts.get(key)
        if attempt is None:
            attempt = attempts[key] = Attempt(kind, at=at)
            (usage.searches if kind == SEARCH else usage.reads).append(attempt)
        attempt.tool = attempt.tool or item.tool or None
        attempt.query = attempt.query or item.query or ""
        attempt.url = attempt.url or item.url or ""
        attempt.find = attempt.find or item.find or ""
        if item.phase == ALLOWED:
            attempt.paging, attempt.decided = item.paging is True, True
        elif not attempt.decided:
            attempt.paging = attempt.paging or item.paging is True
        if item.ok is not None:
            attempt.ok = item.ok
    return out
