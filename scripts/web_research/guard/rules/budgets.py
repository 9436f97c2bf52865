"""The budget rules the hooks hold (pure): searches, page reads, loops, dispatches, the
orchestrator's web calls. ../budgets.py brings what the ledger says each agent has spent
(usage.AgentUsage) and the run's limits, and records the call with the verdict.

- a researcher's WebSearch beyond `searches_per_researcher` is denied;
- a page read (the plugin's `fetch` of a new URL: researchers read pages with nothing
  else, pre_web.py denies their WebFetch) beyond `page_reads_per_researcher` is
  denied; `fetch --offset N` of a URL the researcher already read is paging, never
  counted nor refused, and so is one of a page the run already stored (another researcher's read,
  an earlier attempt's: reading it again downloads nothing); an `--offset N` on any other URL is
  refused (a first read starts at the top of the page); `fetch --find WORDS` is one page read of a URL not read yet, however
  many windows it prints, and paging on one already read; a read from the top of a page read so
  far only by `--find` is paging too (its top was never shown);
- a search with the same words (case and spacing ignored) as an earlier one of the
  same researcher is denied as a loop, as is a second read of a URL it already read
  (unless that read failed: it may be fetched again);
- outside researchers, WebSearch and WebFetch are denied while a run is active;
- researcher dispatches per run stay within twice the subtopics (one retry each),
  second-wave subtopics included when the tier allows a second wave.
"""
from __future__ import annotations

from typing import NamedTuple

from ...metrics.usage import AgentUsage, normalise_url

RETRIES_PER_SUBTOPIC = 1

# Rule ids, as they appear in `denied` ledger entries and in metrics.
SEARCH_BUDGET = "search-budget"
PAGE_BUDGET = "page-budget"
SEARCH_LOOP = "search-repeated"
PAGE_LOOP = "page-repeated"
OFFSET_FIRST = "offset-first-read"
ORCHESTRATOR_WEB = "orchestrator-web"


class Verdict(NamedTuple):
    allowed: bool
    rule: str = ""  # why it was denied (a rule id above)
    reason: str = ""
    paging: bool = False


class RunLimits(NamedTuple):
    """The numbers of a run's plan the hooks enforce."""

    searches: int
    page_reads: int
    max_dispatches: int | None  # None: the plan cannot be read, only the per-brief cap holds


def decide_search(usage: AgentUsage, limit: int, query: str) -> Verdict:
    earlier = usage.earlier_search(query)
    if earlier is not None:
        return Verdict(False, SEARCH_LOOP, (
            f'You already searched for "{" ".join(query.split())}" (your search {earlier}); the same words bring '
            "the same results, so it was not run again. Read the pages it found, search with different words, "
            "or reply with your findings now."))
    if usage.search_count >= limit:
        return Verdict(False, SEARCH_BUDGET, (
            f"Search budget spent: you have used {usage.search_count} of your {limit} web searches (the "
            "brief's budget, held by the web-research hooks). No more searches will run. Reply with your "
            "findings now, from the pages you have read; name what is still open under Not established and give "
            '"budget spent" as the exit reason.'))
    return Verdict(True)


def is_paging(usage: AgentUsage, url: str, offset: int, find: bool = False) -> bool:
    """`fetch --offset N` (N > 0) or `fetch --find WORDS` of a URL this researcher already read, or
    a read from the top of one it read only with --find: reading on, not a new read."""
    earlier = usage.read_before(url)
    return earlier is not None and (offset > 0 or find or bool(earlier.find))


def decide_page_read(usage: AgentUsage, limit: int, url: str, offset: int = 0, find: bool = False,
                     stored: bool = False) -> Verdict:
    """A researcher's `fetch` of `url` (at `offset`, or `find`: around some words; `stored`: the run
    holds a snapshot of it already)."""
    if is_paging(usage, url, offset, find) or (offset > 0 and stored):
        return Verdict(True, paging=True)
    if offset > 0:  # a first read starts at the top, or the page's opening text is never seen
        return Verdict(False, OFFSET_FIRST, (
            f"You have not read {normalise_url(url)} yet, so --offset {offset} was refused: a first read starts "
            "at the top of the page. Run the page-snapshot command without --offset; --offset N reads on in a "
            "page you already read."))
    if usage.read_before(url) is not None:
        return Verdict(False, PAGE_LOOP, (
            f"You already read {normalise_url(url)}, so it was not read again. Use the text you have (read on "
            "in its snapshot with the page-snapshot command and --offset N), read another page, or reply with your "
            "findings now."))
    if usage.page_read_count >= limit:
        return Verdict(False, PAGE_BUDGET, (
            f"Page-read budget spent: you have read {usage.page_read_count} of your {limit} pages (the "
            "brief's budget, held by the web-research hooks; reading on in a snapshot with --offset is not a "
            "new read). No new page will be read. Reply with your findings now, from the pages you have read; "
            'name what is still open under Not established and give "budget spent" as the exit reason.'))
    return Verdict(True)


ORCHESTRATOR_REASON = (
    "A web-research run is active, and in it the researchers do the searching: the orchestrator does not "
    "call WebSearch or WebFetch (their pages would never be snapshotted, counted or checked). Dispatch the "
    "subtopic's researcher, or record what is missing under Gaps & Limitations.")


def orchestrator_verdict() -> Verdict:
    return Verdict(False, ORCHESTRATOR_WEB, ORCHESTRATOR_REASON)


def max_dispatches(subtopics: int, second_wave: int) -> int:
    """Researcher dispatches a run may make: each subtopic (and second-wave subtopic) once, plus one retry."""
    return (subtopics + second_wave) * (1 + RETRIES_PER_SUBTOPIC)
