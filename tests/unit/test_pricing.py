"""Dollars for tokens: the dated price table, a person's override, and the arithmetic."""
from __future__ import annotations

import json

import pytest

from web_research.metrics import pricing
from web_research.metrics.pricing import Tokens, cost, load_prices, packaged_table


def test_packaged_table_is_dated_and_prices_every_agent_model():
    table = packaged_table()
    assert table.as_of and table.as_of[:2] == "20" and table.origin == "packaged"
    for name in ("researcher", "claim-checker"):
        model = pricing.agent_model(name)
        assert model and table.price_of(model) is not None, (name, model)
    assert table.price_of(pricing.ORCHESTRATOR_MODEL) is not None


@pytest.mark.parametrize("model, expected", [
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),  # a dated id: its version's price
    ("claude-opus-4-1-20250805", "claude-opus-4-1"),
    ("claude-opus-5-5", "claude-opus"),  # an unknown version of a known family: the family's newest price
    ("sonnet", "claude-sonnet"),  # an agent file's alias
    ("CLAUDE-HAIKU-4-5", "claude-haiku-4-5"),
])
def test_a_model_is_priced_by_the_longest_name_that_starts_it(model, expected):
    assert packaged_table().price_of(model)[0] == expected


def test_an_unknown_model_is_unpriced_and_named():
    result = cost([("gpt-9", Tokens(1000, 1000)), ("claude-haiku-4-5", Tokens(1_000_000, 0))], packaged_table())
    assert result.unpriced == ("gpt-9",)
    assert result.dollars == pytest.approx(1.0)
    assert "unpriced: gpt-9" in pricing.cost_text(result)


def test_each_kind_of_token_has_its_price():
    table = packaged_table()
    price = table.price_of("claude-sonnet-4-5")[1]
    tokens = Tokens(input=2_000_000, output=1_000_000, cache_read=10_000_000, cache_write=1_000_000)
    expected = 2 * price.input + price.output + 10 * price.cache_read + price.cache_write
    assert cost([("claude-sonnet-4-5", tokens)], table).dollars == pytest.approx(expected)


def test_input_without_a_cache_split_is_an_upper_bound_at_the_dearest_input_rate():
    table = packaged_table()
    price = table.price_of("claude-opus-4-5")[1]
    result = cost([("claude-opus-4-5", Tokens(input=1_000_000, split=False))], table)
    assert result.upper_bound and result.dollars == pytest.approx(max(price.input, price.cache_write))
    assert pricing.cost_text(result).startswith("at most $")


def test_metrics_without_a_breakdown_are_priced_at_the_agent_files_model():
    agent = {"input_tokens": 1_000_000, "output_tokens": 0}
    [(model, tokens)] = pricing.agent_tokens(agent, "sonnet")
    assert model == "sonnet" and tokens.split is False
    with_models = {"models": {"claude-haiku-4-5": {"input_tokens": 5, "cache_read_input_tokens": 7,
                                                   "cache_creation_input_tokens": 11, "output_tokens": 13}}}
    assert pricing.agent_tokens(with_models) == [("claude-haiku-4-5", Tokens(5, 13, 7, 11))]


def test_an_override_file_replaces_prices_and_date(tmp_path):
    override = tmp_path / "prices.json"
    override.write_text(json.dumps({"as_of": "2030-01-01", "models": {
        "claude-sonnet": {"input": 1, "output": 2, "cache_read": 0.1, "cache_write": 1.5}}}))
    table = load_prices({pricing.PRICES_ENV: str(override)})
    assert table.as_of == "2030-01-01" and table.origin == str(override) and table.problem is None
    assert table.price_of("claude-sonnet-9")[1].output == 2  # the override's family price wins
    assert table.price_of("claude-sonnet-4-5")[1].output == 15  # a longer packaged name still wins for its ids
    assert table.price_of("claude-opus-4-5")[1].output == 25  # the packaged rest stays
    assert "2030-01-01" in table.describe() and str(override) in table.describe()


def test_the_data_dir_file_is_the_override_when_no_variable_names_one(tmp_path):
    (tmp_path / pricing.PRICES_FILE).write_text(json.dumps({"as_of": "2031-02-03", "models": {}}))
    assert load_prices({}, tmp_path).as_of == "2031-02-03"
    assert load_prices({}, tmp_path / "elsewhere").origin == "packaged"


@pytest.mark.parametrize("content, field", [
    ('{"as_of": "2030-01-01", "models": {"claude-x": {"input": "cheap", "output": 1, "cache_read": 1, '
     '"cache_write": 1}}}', "models.claude-x.input"),
    ('{"models": {}}', "as_of"),
    ("not json", "not JSON"),
])
def test_a_bad_override_names_the_file_and_field_and_keeps_the_packaged_prices(tmp_path, content, field):
    override = tmp_path / "prices.json"
    override.write_text(content)
    table = load_prices({pricing.PRICES_ENV: str(override)})
    assert table.origin == "packaged" and table.as_of == packaged_table().as_of
    assert str(override) in table.problem and field in table.problem, table.problem
    assert table.problem in table.describe()


def test_a_missing_override_file_is_a_problem_not_a_crash(tmp_path):
    table = load_prices({pricing.PRICES_ENV: str(tmp_path / "nope.json")})
    assert table.origin == "packaged" and "cannot be read" in table.problem


def test_the_models_kept_for_an_installed_wheel_are_the_agent_files():
    from web_research import formats

    for name, model in pricing.AGENT_FILE_MODELS.items():
        text = (formats.PLUGIN_ROOT / "agents" / f"{name}.md").read_text(encoding="utf-8")
        assert f"\nmodel: {model}\n" in text, name
