"""What a run will cost, shown at the review gate before anything is dispatched.

The counts are upper bounds straight from the plan's effective budget
(budget.py): researchers, searches, page reads, checker agents. Tokens and
wall-clock time are ranges built from per-call averages, a "call" being one
search or one page read of a researcher (the turns around it, its share of the
stub, checkpoint and final writes included):

- low end: every researcher stops at saturation after `LOW_USE` of its calls,
  no second wave;
- high end: every researcher spends its whole budget, the second wave runs when
  the tier allows one, every checker runs.

The averages are the `DEFAULT_*` constants below until earlier runs have left
metrics in `<data>/metrics/*.json` (the fields read are defined in
schemas/run-metrics.schema.json); then the per-call averages of those
researchers replace the three `DEFAULT_*_PER_CALL` figures. Checker and
orchestrator figures stay the documented constants (metrics do not hold them).
Metrics files are input like any other: bounded in number and size, and a file
that is not a regular file, not JSON or not in the schema is skipped.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from .budget import CHECK_ROUNDS, Budget, budget_for, effective_budget
from ..core.paths import data_dir
from ..core.fsutil import newest_regular_files, read_bounded
from ..core.schema_validation import schema_validator
from ..metrics.pricing import ORCHESTRATOR_MODEL, Tokens, agent_model, cost, dollars, load_prices
from ..metrics.run_metrics import ResearcherSpend

METRICS_DIR = "metrics"
METRICS_SCHEMA = "run-metrics.schema.json"
MAX_METRICS_FILES = 50  # the newest ones
MAX_METRICS_BYTES = 1_000_000

# --- documented averages ---------------------------------------------------
# Derived, not measured: no metrics existed when they were written. A researcher
# (Sonnet, agents/researcher.md) starts with about 10k tokens of context (system
# prompt and tool schemas about 6k, its instructions about 2k, the brief about
# 1.5k). Each call adds its result (a search about 1.5k tokens; a page read, the
# fetch command's 8,000-character window, about 2.5k) and re-sends the whole
# context; with the stub, checkpoint and final-write turns that averages about
# 30k input tokens per call over a standard budget of 13 calls (most of them
# cache reads). Output: about 300 tokens per tool turn plus about 6k for the
# findings writes, about 800 per call. Time: a model turn of about 8 s plus the
# tool's 3-5 s, with the writes' share, about 15 s per call.
DEFAULT_INPUT_TOKENS_PER_CALL = 30_000
DEFAULT_OUTPUT_TOKENS_PER_CALL = 800
DEFAULT_SECONDS_PER_CALL = 15.0
# A claim-checker reads the report's claims with the excerpts they cite, in a few
# turns: about 40k input, 2k output, one minute.
CHECKER_INPUT_TOKENS = 40_000
CHECKER_OUTPUT_TOKENS = 2_000
CHECKER_SECONDS = 60.0
# The orchestrator: about 12 turns (start, plan, estimate, briefs, dispatch,
# status, reads, report, verify) over a context of about 25k tokens, growing
# with each findings file it reads; its own writes (plan, report) about 10k
# output; three minutes of its own turns.
ORCHESTRATOR_INPUT_TOKENS = 300_000
ORCHESTRATOR_OUTPUT_TOKENS = 10_000
ORCHESTRATOR_SECONDS = 180.0
# Researchers stop at saturation (agents/researcher.md, "No loops; stop in
# time"); the low end assumes they use half of their calls.
LOW_USE = 0.5
# Dollars (pricing.py): Claude Code caches each agent's growing context, so a turn
# reads the context from the cache and writes only what is new to it. Derived, not
# measured: 90% of input tokens priced as cache reads, the rest as cache writes.
# Each role at its agent file's model; the orchestrator at Opus (pricing.ORCHESTRATOR_MODEL).
CACHE_READ_SHARE = 0.9


@dataclass(frozen=True)
class CallAverages:
    """Per-call averages of a researcher, and where they come from."""

    input_tokens: float
    output_tokens: float
    seconds: float
    source: str  # "defaults" or "metrics"
    researchers: int = 0  # how many measured researchers (metrics only)
    runs: int = 0  # how many metrics files they came from


DEFAULT_AVERAGES = CallAverages(DEFAULT_INPUT_TOKENS_PER_CALL, DEFAULT_OUTPUT_TOKENS_PER_CALL,
                                DEFAULT_SECONDS_PER_CALL, "defaults")


@dataclass(frozen=True)
class Range:
    low: int
    high: int


@dataclass(frozen=True)
class Dollars:
    low: float
    high: float
    prices: str  # pricing.PriceTable.describe()
    unpriced: tuple[str, ...] = ()  # roles whose model has no price


@dataclass(frozen=True)
class Estimate:
    budget: Budget
    averages: CallAverages
    tokens: Range
    input_tokens: Range
    output_tokens: Range
    wall_seconds: Range
    cost: Dollars | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "budget": self.budget.to_json(),
            "tokens": asdict(self.tokens),
            "input_tokens": asdict(self.input_tokens),
            "output_tokens": asdict(self.output_tokens),
            "wall_seconds": asdict(self.wall_seconds),
            "averages": asdict(self.averages),
            "cost": None if self.cost is None else {"low": round(self.cost.low, 2), "high": round(self.cost.high, 2),
                                                    "currency": "USD", "prices": self.cost.prices,
                                                    "unpriced": list(self.cost.unpriced)},
        }


# --- the arithmetic (pure) ---------------------------------------------------

def _waves(agents: int, parallel: int) -> int:
    return math.ceil(agents / parallel) if agents else 0


def estimate(budget: Budget, averages: CallAverages = DEFAULT_AVERAGES, prices: Any = None) -> Estimate:
    """Token and time ranges for a budget, from per-call averages; with `prices`
    (pricing.PriceTable), a dollar range too."""
    calls_high = budget.searches_per_researcher + budget.page_reads_per_researcher
    calls_low = math.ceil(calls_high * LOW_USE)
    first, parallel = budget.first_wave_researchers, budget.max_parallel
    researchers_low, researchers_high = first, budget.researchers
    checkers_low = budget.checkers_per_round if budget.claim_check else 0  # absence statements are optional
    checkers_high = budget.checker_agents

    def roles(researchers: int, calls: int, checkers: int) -> dict[str, tuple[float, float]]:
        """(input, output) tokens of each role."""
        n = researchers * calls
        return {"researcher": (n * averages.input_tokens, n * averages.output_tokens),
                "claim-checker": (checkers * CHECKER_INPUT_TOKENS, checkers * CHECKER_OUTPUT_TOKENS),
                "orchestrator": (ORCHESTRATOR_INPUT_TOKENS, ORCHESTRATOR_OUTPUT_TOKENS)}

    low_roles, high_roles = roles(researchers_low, calls_low, checkers_low), roles(researchers_high, calls_high,
                                                                                  checkers_high)
    in_low, out_low = (sum(t[i] for t in low_roles.values()) for i in (0, 1))
    in_high, out_high = (sum(t[i] for t in high_roles.values()) for i in (0, 1))
    # Researchers and checkers run at most `max_parallel` at once; each wave
    # lasts as long as one agent's calls; a second wave waits for the first.
    research_waves_high = _waves(first, parallel) + _waves(researchers_high - first, parallel)
    wall_low = (_waves(first, parallel) * calls_low * averages.seconds
                + _waves(checkers_low, parallel) * CHECKER_SECONDS + ORCHESTRATOR_SECONDS)
    wall_high = (research_waves_high * calls_high * averages.seconds
                 + _waves(checkers_high, parallel) * CHECKER_SECONDS + ORCHESTRATOR_SECONDS)
    return Estimate(
        budget=budget,
        averages=averages,
        tokens=Range(round(in_low + out_low), round(in_high + out_high)),
        input_tokens=Range(round(in_low), round(in_high)),
        output_tokens=Range(round(out_low), round(out_high)),
        wall_seconds=Range(round(wall_low), round(wall_high)),
        cost=None if prices is None else _dollars(low_roles, high_roles, prices),
    )


def _dollars(low: dict[str, tuple[float, float]], high: dict[str, tuple[float, float]], prices: Any) -> Dollars:
    """The dollar range of the roles' tokens (CACHE_READ_SHARE of input as cache reads)."""
    models = {"researcher": agent_model("researcher"), "claim-checker": agent_model("claim-checker"),
              "orchestrator": ORCHESTRATOR_MODEL}

    def priced(spend: dict[str, tuple[float, float]]) -> Any:
        usage = []
        for role, (tokens_in, tokens_out) in spend.items():
            read = round(tokens_in * CACHE_READ_SHARE)
            usage.append((models[role], Tokens(0, round(tokens_out), read, round(tokens_in) - read)))
        return cost(usage, prices)

    a, b = priced(low), priced(high)
    return Dollars(a.dollars, b.dollars, prices.describe(), tuple(dict.fromkeys(a.unpriced + b.unpriced)))


def averages_from_researchers(entries: Iterable[ResearcherSpend], runs: int) -> CallAverages:
    """Per-call averages of measured researchers; the defaults when none made a call."""
    calls = tokens_in = tokens_out = seconds = 0.0
    counted = 0
    for entry in entries:
        n = entry["searches"] + entry["page_reads"]
        if n <= 0:
            continue  # a researcher that never searched tells nothing per call
        counted += 1
        calls += n
        tokens_in += entry["input_tokens"]
        tokens_out += entry["output_tokens"]
        seconds += entry["wall_seconds"]
    if not calls:
        return DEFAULT_AVERAGES
    return CallAverages(tokens_in / calls, tokens_out / calls, seconds / calls, "metrics", counted, runs)


# --- reading the metrics of earlier runs (I/O) --------------------------------

def metrics_files(data: Path) -> list[str]:
    """The newest `MAX_METRICS_FILES` regular `*.json` files of `<data>/metrics/`."""
    return newest_regular_files(Path(data) / METRICS_DIR, lambda name: name.endswith(".json"), MAX_METRICS_FILES)


def load_averages(data: Path) -> tuple[CallAverages, int]:
    """(per-call averages from `<data>/metrics/`, number of files skipped as unusable)."""
    researchers: list[ResearcherSpend] = []
    runs = skipped = 0
    for path in metrics_files(data):
        read = read_bounded(path, MAX_METRICS_BYTES)
        raw = read[0] if read is not None and not read[1] else None  # a file too big is skipped
        try:
            value = json.loads(raw.decode("utf-8")) if raw is not None else None
        except (UnicodeDecodeError, ValueError, RecursionError):
            value = None
        if value is None or not schema_validator(METRICS_SCHEMA).is_valid(value):
            skipped += 1
            continue
        runs += 1
        researchers.extend(value["researchers"])
    return averages_from_researchers(researchers, runs), skipped


# --- presentation ------------------------------------------------------------

def _tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    return f"{round(n / 1000)}k"


def _minutes(seconds: int) -> str:
    return str(max(1, round(seconds / 60)))


def estimate_lines(run_dir: Path, result: Estimate, data: Path, skipped: int) -> list[str]:
    """The estimate as people read it at the review gate."""
    b = result.budget
    tier = f"tier: {b.tier}" if b.tier else "no Tier line in plan.md: the budget of plans written before tiers"
    checks = ("no claim check; 1 checker a round for statements of absence, only if the report has any"
              if not b.claim_check else
              f"the report's claims: 1 checker and {b.checkers_per_round - 1} voters a round" if b.voting
              else "the report's claims: 1 checker a round") + f", {CHECK_ROUNDS} rounds at most"
    wave = (f"allowed: up to {b.researchers - b.first_wave_researchers} more researchers after the first findings"
            if b.second_wave else "not allowed")
    a = result.averages
    source = (f"averages of {a.researchers} researchers in {a.runs} earlier runs ({data / METRICS_DIR})"
              if a.source == "metrics" else "documented per-call averages (no run metrics yet)")
    lines = [
        f"Estimate for {run_dir} ({tier})",
        f"  researchers     at most {b.researchers} ({b.first_wave_researchers} subtopics, "
        f"at most {b.max_parallel} at once; each may be dispatched once more if it leaves no findings file)",
        f"  searches        at most {b.searches} ({b.searches_per_researcher} per researcher)",
        f"  page reads      at most {b.page_reads} ({b.page_reads_per_researcher} per researcher)",
        f"  checker agents  at most {b.checker_agents} ({checks})",
        f"  second wave     {wave}",
        f"  tokens          about {_tokens(result.tokens.low)} to {_tokens(result.tokens.high)} "
        f"(input {_tokens(result.input_tokens.low)} to {_tokens(result.input_tokens.high)}, mostly cached; "
        f"output {_tokens(result.output_tokens.low)} to {_tokens(result.output_tokens.high)})",
        f"  wall clock      about {_minutes(result.wall_seconds.low)} to {_minutes(result.wall_seconds.high)} minutes",
        *_cost_lines(result.cost),
        f"Ranges from {source}.",
    ]
    if skipped:
        lines.append(f"Skipped {skipped} unreadable or malformed metrics file(s) in {data / METRICS_DIR}.")
    return lines


def _cost_lines(cost: Dollars | None) -> list[str]:
    if cost is None:
        return []
    unpriced = f"; no price for {', '.join(cost.unpriced)}" if cost.unpriced else ""
    return [f"  cost            about {dollars(cost.low)} to {dollars(cost.high)} ({cost.prices}{unpriced})"]


# What README.md shows as typical costs: (tier, subtopics) per row.
TYPICAL_RUNS = (("quick", 2), ("standard", 3), ("standard", 5), ("deep", 5))


def render_typical_costs(averages: CallAverages = DEFAULT_AVERAGES) -> str:
    """README's cost table: the estimate of a few typical plans, with the documented averages."""
    lines = ["| tier | subtopics | tokens | wall clock |", "|---|---|---|---|"]
    for tier, subtopics in TYPICAL_RUNS:
        result = estimate(budget_for(tier, subtopics), averages)
        lines.append(f"| `{tier}` | {subtopics} | {_tokens(result.tokens.low)} to {_tokens(result.tokens.high)} "
                     f"| {_minutes(result.wall_seconds.low)} to {_minutes(result.wall_seconds.high)} min |")
    return "\n".join(lines) + "\n"


def estimate_text(run_dir: Path, plan: Any, env: Mapping[str, str]) -> str:
    """What `estimate` prints for a parsed plan (plan.Plan; the command, and the hook at the review gate)."""
    data = data_dir(env)
    averages, skipped = load_averages(data)
    result = estimate(effective_budget(plan), averages, load_prices(env, data))
    return "\n".join(estimate_lines(run_dir, result, data, skipped))

