"""Cost tiers and the effective budget of a run: the one table of defaults.

A plan's `## Budget` section names a tier (`Tier: quick | standard | deep`);
the tier sets every knob below, and explicit lines (`Searches per subagent: N`,
`Page reads per subagent: N`) override it. `effective_budget(plan)` is the one
pure function that turns a parsed plan into the numbers a run may spend: the
brief states them, `web-research estimate` prices them, and hooks that enforce
them call the same function. The Markdown table in README.md and in
skills/web-research/references/budget-tiers.md is `render_tier_table()`'s
output; a test keeps them equal.

A plan without a `Tier:` line (written before tiers existed, or by hand) keeps
the behaviour it had: the stated searches per subagent (default 5), no claim
check, no voting, no second wave (`UNTIERED`). A plan's `Deepen: yes` line (the
caller's `deepen: true`) grants a second wave whatever the tier.

Upper bounds that later stages must respect, stated here so that the estimate
and those stages agree:
- a second wave is at most `MAX_SECOND_WAVE_SUBTOPICS` (3) more researchers,
  with the same per-researcher budget;
- the claim check judges report.md's cited claims: one `claim-checker` agent per
  round, and with voting `VOTERS - 1` more on the claims it found partial or
  unsupported; a round for the first check and one after each of the
  `MAX_VERIFY_ROUNDS` rounds of fixes at most. A tier without a claim check still
  has one checker a round judge the report's statements of absence, when it has any
  (checks/absence.py).
Nothing here imports more than formats.py: hooks may call it on a hot path.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..formats import (DEFAULT_SEARCH_BUDGET, MAX_PARALLEL_RESEARCHERS, MAX_SECOND_WAVE_SUBTOPICS, MAX_SUBTOPICS,
                      MAX_VERIFY_ROUNDS, RUN_STATE_DIR, START_RECORD_FILE)

if TYPE_CHECKING:  # pragma: no cover
    from typing import Protocol, Sized

    class PlanBudgetLines(Protocol):
        """What `effective_budget` reads of a parsed plan (plan.Plan has it). A structural
        type, so that this module, which plan.py imports, does not import plan.py back."""

        @property
        def tier(self) -> str | None: ...
        @property
        def subtopics(self) -> Sized: ...
        @property
        def searches_per_subagent(self) -> int | None: ...
        @property
        def page_reads_per_subagent(self) -> int | None: ...
        @property
        def deepen(self) -> bool: ...

TIER_QUICK = "quick"
TIER_STANDARD = "standard"
TIER_DEEP = "deep"
DEFAULT_TIER = TIER_STANDARD
PLAN_TIER_LINE = "Tier"
PLAN_PAGE_READS_LINE = "Page reads per subagent"
VOTERS = 3  # claim-checkers per round when the tier votes (a majority of 3)
CHECK_ROUNDS = 1 + MAX_VERIFY_ROUNDS  # the first check, and one after each round of fixes


class TierDefaults(NamedTuple):
    """What one tier allows each run and each researcher."""

    name: str
    max_subtopics: int
    searches: int  # web searches per researcher
    page_reads: int  # pages read per researcher (a `fetch` of a new URL)
    claim_check: bool  # a claim-checker agent checks each findings file
    voting: bool  # VOTERS checkers vote instead of one
    second_wave: bool  # follow-up researchers after the first findings are in


TIERS: dict[str, TierDefaults] = {
    # quick: a fast look; two angles, a few pages each, nothing checked twice. Its claims are
    # judged all the same: a cited claim no model reads would reach the person unread (issue 43).
    TIER_QUICK: TierDefaults(TIER_QUICK, max_subtopics=2, searches=3, page_reads=4,
                             claim_check=True, voting=False, second_wave=False),
    # standard: the default run (3 subtopics is typical, up to 5 allowed); every
    # findings file gets one model check.
    TIER_STANDARD: TierDefaults(TIER_STANDARD, max_subtopics=MAX_SUBTOPICS, searches=DEFAULT_SEARCH_BUDGET,
                                page_reads=8, claim_check=True, voting=False, second_wave=False),
    # deep: the widest budget; checks are voted and gaps may get a second wave.
    TIER_DEEP: TierDefaults(TIER_DEEP, max_subtopics=MAX_SUBTOPICS, searches=8, page_reads=12,
                            claim_check=True, voting=True, second_wave=True),
}
TIER_NAMES = tuple(TIERS)

# A plan with no Tier line: the budget it had before tiers. It stated no
# page-read cap; the standard tier's applies, so that every bound is finite.
UNTIERED = TierDefaults("none", max_subtopics=MAX_SUBTOPICS, searches=DEFAULT_SEARCH_BUDGET,
                        page_reads=TIERS[TIER_STANDARD].page_reads,
                        claim_check=False, voting=False, second_wave=False)


class Budget(NamedTuple):
    """What one run may spend: the plan's tier, with its explicit lines applied."""

    tier: str | None  # None: the plan has no Tier line
    subtopics: int
    max_subtopics: int
    searches_per_researcher: int
    page_reads_per_researcher: int
    claim_check: bool
    voting: bool
    second_wave: bool
    max_parallel: int = MAX_PARALLEL_RESEARCHERS

    @property
    def first_wave_researchers(self) -> int:
        return self.subtopics

    @property
    def researchers(self) -> int:
        """Upper bound on researchers, second wave included (retries of a missing findings file aside)."""
        return self.subtopics + (MAX_SECOND_WAVE_SUBTOPICS if self.second_wave else 0)

    @property
    def searches(self) -> int:
        return self.researchers * self.searches_per_researcher

    @property
    def page_reads(self) -> int:
        return self.researchers * self.page_reads_per_researcher

    @property
    def checkers_per_round(self) -> int:
        """Checkers of one round at most: one, and with voting the voters it calls. Without a claim
        check, the one that judges statements of absence (none when the report has none)."""
        return VOTERS if self.claim_check and self.voting else 1

    @property
    def checker_agents(self) -> int:
        return CHECK_ROUNDS * self.checkers_per_round

    def to_json(self) -> dict[str, Any]:
        data = dict(self._asdict())
        for name in ("researchers", "searches", "page_reads", "checkers_per_round", "checker_agents"):
            data[name] = getattr(self, name)
        return data


def tier_defaults(tier: str | None) -> TierDefaults:
    """The defaults of a tier name (None: a plan without a Tier line)."""
    return UNTIERED if tier is None else TIERS[tier]


def budget_for(tier: str | None, subtopics: int, searches: int | None = None,
               page_reads: int | None = None, deepen: bool = False) -> Budget:
    """The budget of `subtopics` researchers under `tier`, with explicit numbers winning."""
    defaults = tier_defaults(tier)
    return Budget(
        tier=tier,
        subtopics=subtopics,
        max_subtopics=defaults.max_subtopics,
        searches_per_researcher=defaults.searches if searches is None else searches,
        page_reads_per_researcher=defaults.page_reads if page_reads is None else page_reads,
        claim_check=defaults.claim_check,
        voting=defaults.voting,
        second_wave=defaults.second_wave or deepen,
    )


def effective_budget(plan: "PlanBudgetLines") -> Budget:
    """The budget a parsed plan grants: its tier's defaults, its explicit lines winning."""
    return budget_for(plan.tier, len(plan.subtopics), plan.searches_per_subagent, plan.page_reads_per_subagent,
                      deepen=getattr(plan, "deepen", False))


def tier_refusal(plan_tier: str | None, plan_deepen: bool, recorded_tier: str | None,
                 recorded_deepen: bool | None) -> str | None:
    """Why a plan's budget is not the one the person asked for at `start` (and what to write), or
    None when it is or nothing was recorded. The plan refines subtopics; the tier, and whether a
    second wave is granted, stay the person's (run/choices.py)."""
    record = f"{RUN_STATE_DIR}/{START_RECORD_FILE}"
    if recorded_tier is not None and plan_tier != recorded_tier:
        stated = f"'{PLAN_TIER_LINE}: {plan_tier}'" if plan_tier else f"no '{PLAN_TIER_LINE}:' line"
        return (f"the Budget has {stated}, but the person asked for tier {recorded_tier} at start ({record}); "
                f"write '{PLAN_TIER_LINE}: {recorded_tier}' under '## Budget'. The plan refines subtopics, never "
                "the tier: a different tier is a new run")
    if recorded_deepen is not None and plan_deepen != recorded_deepen:
        return (f"the Budget {'has' if plan_deepen else 'lacks'} 'Deepen: yes', but the person asked for "
                f"deepen: {str(recorded_deepen).lower()} at start ({record}); "
                + ("write 'Deepen: yes' under '## Budget'" if recorded_deepen else "remove the 'Deepen: yes' line")
                + ". A different choice is a new run")
    return None


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def render_tier_table() -> str:
    """The tier table as Markdown, exactly as README.md and budget-tiers.md show it."""
    rows = [
        ("subtopics (at most)", lambda t: str(t.max_subtopics)),
        ("searches per researcher", lambda t: str(t.searches)),
        ("page reads per researcher", lambda t: str(t.page_reads)),
        ("claim check", lambda t: _yes_no(t.claim_check)),
        ("voting", lambda t: _yes_no(t.voting)),
        ("second wave", lambda t: _yes_no(t.second_wave)),
    ]
    columns = [*TIERS.values(), UNTIERED]
    header = ["setting", *(f"`{t.name}`" if t is not UNTIERED else "no `Tier:` line" for t in columns)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, cell in rows:
        lines.append("| " + " | ".join([label, *(cell(t) for t in columns)]) + " |")
    return "\n".join(lines) + "\n"
