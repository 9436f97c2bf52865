"""Dollars for tokens: the price table and what a run's tokens cost.

The table is package data (`prices.json`: dollars per million tokens per model,
with the date the prices were taken); a person overrides it with a JSON file of
the same shape, named by `WEB_RESEARCH_PRICES` or placed at `<data dir>/prices.json`
(the plugin's data folder, where the metrics are). An override's models are laid
over the packaged ones, its `as_of` and `source` replace theirs. A file that
cannot be used is not silently ignored: `load_prices` returns the packaged table
and a problem naming the file and the field, which every display shows.

A model id is priced by the longest table name that starts it, so dated ids
(`claude-sonnet-4-5-20250929`) and unknown versions of a known family
(`claude-opus-5-5` -> `claude-opus`, the newest price known for Opus) find a price;
an id no name starts is unpriced, and its tokens are left out of a total that then
says so. Pure but for `load_prices`.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

from typing import Any, Iterable, Mapping, NamedTuple

from ..core.fsutil import read_bounded


PRICES_FILE = "prices.json"
PRICES_ENV = "WEB_RESEARCH_PRICES"
MAX_PRICES_BYTES = 256 * 1024
PRICE_FIELDS = ("input", "output", "cache_read", "cache_write")
MILLION = 1_000_000


class Price(NamedTuple):
    """Dollars per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float


class PriceTable(NamedTuple):
    models: dict  # name -> Price
    aliases: dict  # short name -> table name
    as_of: str
    source: str
    origin: str  # "packaged" or the override file's path
    problem: str | None = None  # why an override could not be used

    def price_of(self, model: str | None) -> tuple[str, Price] | None:
        """(table name, price) of a model id, or None when no name starts it."""
        if not model:
            return None
        name = model.strip().lower()
        name = self.aliases.get(name, name)
        best = max((key for key in self.models if name.startswith(key)), key=len, default=None)
        return (best, self.models[best]) if best is not None else None

    def describe(self) -> str:
        """One line for people: where the prices come from, and any problem with an override."""
        where = "packaged table" if self.origin == "packaged" else self.origin
        line = f"prices of {self.as_of} ({where})"
        return line + (f"; {self.problem}" if self.problem else "")


class Tokens(NamedTuple):
    """Tokens of one model. `input` is uncached input only, unless `split` is False:
    then it holds every input token (cache reads and writes included, as older metrics
    recorded them) and is priced at the dearest input rate (cache writes): an upper bound."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    split: bool = True


class Cost(NamedTuple):
    dollars: float  # priced tokens only
    unpriced: tuple[str, ...] = ()  # models no table name starts
    upper_bound: bool = False  # some input had no cache split: priced at the dearest input rate


def _price(value: object, where: str) -> Price:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected an object with {', '.join(PRICE_FIELDS)}")
    numbers = []
    for field in PRICE_FIELDS:
        number = value.get(field)
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0 <= number < 10_000:
            raise ValueError(f"{where}.{field}: expected a number of dollars per million tokens (0 to 10000), "
                             f"got {json.dumps(number)[:40]}")
        numbers.append(float(number))
    return Price(*numbers)


def parse_table(data: object, origin: str) -> PriceTable:
    """A price table from parsed JSON; ValueError names the bad field."""
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object with 'models'")
    models = data.get("models")
    if not isinstance(models, dict) or not models:
        raise ValueError("models: expected an object of model name -> prices")
    table = {str(name).lower(): _price(value, f"models.{name}") for name, value in models.items()}
    aliases = data.get("aliases", {})
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        raise ValueError("aliases: expected an object of short name -> model name")
    as_of = data.get("as_of")
    if not isinstance(as_of, str) or not as_of.strip():
        raise ValueError("as_of: expected the date the prices were taken (YYYY-MM-DD)")
    source = data.get("source", "")
    return PriceTable(table, {k.lower(): v.lower() for k, v in aliases.items()}, as_of.strip(),
                      source if isinstance(source, str) else "", origin)


def packaged_table() -> PriceTable:
    text = (Path(__file__).with_name(PRICES_FILE)).read_text(encoding="utf-8")
    return parse_table(json.loads(text), "packaged")


def override_path(env: Mapping[str, str], data_dir: Path | None) -> Path | None:
    """The override file: `WEB_RESEARCH_PRICES`, else `<data dir>/prices.json` when it exists."""
    named = env.get(PRICES_ENV)
    if named:
        return Path(named).expanduser()
    if data_dir is not None and (Path(data_dir) / PRICES_FILE).is_file():
        return Path(data_dir) / PRICES_FILE
    return None


def load_prices(env: Mapping[str, str] | None = None, data_dir: Path | None = None) -> PriceTable:
    """The packaged table, with a person's override laid over it."""
    env = os.environ if env is None else env
    base = packaged_table()
    path = override_path(env, data_dir)
    if path is None:
        return base
    try:
        read = read_bounded(str(path), MAX_PRICES_BYTES)
        if read is None:
            raise ValueError("cannot be read (missing, or not a regular file)")
        if read[1]:
            raise ValueError(f"larger than {MAX_PRICES_BYTES} bytes")
        try:
            data = json.loads(read[0].decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ValueError(f"not JSON ({str(exc)[:120]})") from None
        if isinstance(data, dict) and "models" in data:
            merged = {**{k: dict(v._asdict()) for k, v in base.models.items()}, **(data.get("models") or {})} \
                if isinstance(data.get("models"), dict) else data.get("models")
            aliases = {**base.aliases, **data["aliases"]} if isinstance(data.get("aliases"), dict) \
                else data.get("aliases", base.aliases)
            data = {**data, "models": merged, "aliases": aliases}
        override = parse_table(data, str(path))
    except ValueError as exc:
        return base._replace(problem=f"{path}: {exc}; using the packaged prices of {base.as_of}")
    return override


def cost(usage: Iterable[tuple[str | None, Tokens]], table: PriceTable) -> Cost:
    """What (model, tokens) pairs cost under `table`."""
    dollars = 0.0
    unpriced: list[str] = []
    upper = False
    for model, tokens in usage:
        found = table.price_of(model)
        if found is None:
            if tokens.input or tokens.output or tokens.cache_read or tokens.cache_write:
                unpriced.append(model or "unknown model")
            continue
        price = found[1]
        rate = price.input if tokens.split else max(price.input, price.cache_write)
        dollars += (tokens.input * rate + tokens.output * price.output
                    + tokens.cache_read * price.cache_read + tokens.cache_write * price.cache_write) / MILLION
        upper = upper or (not tokens.split and tokens.input > 0)
    return Cost(dollars, tuple(dict.fromkeys(unpriced)), upper)


def agent_tokens(agent: Mapping[str, Any], default_model: str | None = None) -> list[tuple[str | None, Tokens]]:
    """(model, tokens) of one agent entry of metrics.json: its per-model `models` breakdown when the
    hooks recorded one, else its totals under `default_model`, priced as uncached input."""
    models = agent.get("models")
    if isinstance(models, dict) and models:
        out = []
        for model, t in models.items():
            if isinstance(t, dict):
                out.append((str(model), Tokens(_count(t.get("input_tokens")), _count(t.get("output_tokens")),
                                               _count(t.get("cache_read_input_tokens")),
                                               _count(t.get("cache_creation_input_tokens")))))
        return out
    return [(default_model, Tokens(_count(agent.get("input_tokens")), _count(agent.get("output_tokens")), split=False))]


# The model an agent is priced as when metrics recorded no per-model breakdown (older metrics):
# the agent file's `model:` line; the orchestrator is the session's own model, priced as Claude
# Code's default, Opus.
ORCHESTRATOR_MODEL = "opus"
# What agents/*.md say, for an installed wheel, which ships no agents/ (a test holds them equal).
AGENT_FILE_MODELS = {"researcher": "sonnet", "claim-checker": "haiku"}


def agent_model(name: str) -> str | None:
    """The `model:` of the plugin's agents/<name>.md (AGENT_FILE_MODELS where the file is absent)."""
    path = Path(__file__).resolve().parents[3] / "agents" / f"{name}.md"
    try:
        head = path.read_text(encoding="utf-8")[:2000]
    except OSError:
        return AGENT_FILE_MODELS.get(name)
    found = re.search(r"^model:\s*([\w.-]+)\s*$", head, re.M)
    return found.group(1) if found else None


class Costs(NamedTuple):
    """What each agent of a metrics.json cost: researchers and other agents in the file's
    order, the orchestrator (None when the file has none) and the total."""

    researchers: list[Cost]
    others: list[Cost]
    orchestrator: Cost | None
    total: Cost


def metrics_costs(metrics: Mapping[str, Any], table: PriceTable) -> Costs:
    """What each agent of a metrics.json (JSON as read) cost."""
    researcher, checker = agent_model("researcher"), agent_model("claim-checker")

    def agents(key: str) -> list:
        value = metrics.get(key)
        return [a for a in value[:100] if isinstance(a, dict)] if isinstance(value, list) else []

    researchers = [cost(agent_tokens(a, researcher), table) for a in agents("researchers")]
    others = [cost(agent_tokens(a, checker), table) for a in agents("other_agents")]
    orchestrator = cost(agent_tokens(metrics["orchestrator"], ORCHESTRATOR_MODEL), table) \
        if isinstance(metrics.get("orchestrator"), dict) else None
    every = [*researchers, *others, *([orchestrator] if orchestrator else [])]
    total = Cost(sum(c.dollars for c in every), tuple(dict.fromkeys(m for c in every for m in c.unpriced)),
                 any(c.upper_bound for c in every))
    return Costs(researchers, others, orchestrator, total)


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def dollars(amount: float) -> str:
    """$0.42, $12.30, $1,234: cents below $100."""
    if amount >= 100:
        return f"${amount:,.0f}"
    return f"${amount:,.2f}"


def about(text: str) -> str:
    """A cost_text in a sentence: 'about $1.23', but 'at most $1.95' as it stands (never both)."""
    return text if text.startswith("at most") else f"about {text}"


def cost_text(c: Cost) -> str:
    """'$1.23', 'at most $1.23' (no cache split), '+ unpriced: m' when a model has no price."""
    text = ("at most " if c.upper_bound else "") + dollars(c.dollars)
    if c.unpriced:
        text += f" (+ unpriced: {', '.join(c.unpriced)})"
    return text
