"""`web-research estimate`: upper bounds from the plan, ranges from per-call averages,
measured averages from earlier runs' metrics, and `start` carrying the tier."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_support import clean_env, plan_text, run_cli
from web_research.run import estimate as est
from web_research import formats
from web_research.formats import MAX_VERIFY_ROUNDS
from web_research.run.budget import budget_for

THREE = {"Pricing models": ["Billing units"], "Enterprise discounts": ["Volume discounts"],
         "Retention": ["Retention periods"]}
UNIT = est.CallAverages(input_tokens=1000, output_tokens=10, seconds=6, source="defaults")


def _researcher(**values: float) -> dict[str, float]:
    entry = {"input_tokens": 40_000, "output_tokens": 400, "searches": 2, "page_reads": 2, "wall_seconds": 40}
    entry.update(values)
    return entry


# --- the arithmetic -------------------------------------------------------------------------

def test_standard_range_is_half_the_calls_to_all_of_them() -> None:
    result = est.estimate(budget_for("standard", 3), UNIT)  # 5 searches + 8 page reads = 13 calls
    low_calls, high_calls = 3 * 7, 3 * 13  # ceil(13 * LOW_USE) = 7
    low_checkers, checkers = 1, 4  # one checker on the report's claims; at most one a round, 4 rounds
    assert result.input_tokens.low == low_calls * 1000 + low_checkers * est.CHECKER_INPUT_TOKENS + est.ORCHESTRATOR_INPUT_TOKENS
    assert result.input_tokens.high == high_calls * 1000 + checkers * est.CHECKER_INPUT_TOKENS + est.ORCHESTRATOR_INPUT_TOKENS
    assert result.output_tokens.high == high_calls * 10 + checkers * est.CHECKER_OUTPUT_TOKENS + est.ORCHESTRATOR_OUTPUT_TOKENS
    assert result.tokens.high == result.input_tokens.high + result.output_tokens.high
    # three researchers run at once: one wave; four checkers: two waves of at most three
    assert result.wall_seconds.low == round(7 * 6 + est.CHECKER_SECONDS + est.ORCHESTRATOR_SECONDS)
    assert result.wall_seconds.high == round(13 * 6 + 2 * est.CHECKER_SECONDS + est.ORCHESTRATOR_SECONDS)


def test_more_than_three_researchers_take_another_wave_and_deep_counts_its_second_wave() -> None:
    five = est.estimate(budget_for("standard", 5), UNIT)
    assert five.wall_seconds.high == round(2 * 13 * 6 + 2 * est.CHECKER_SECONDS + est.ORCHESTRATOR_SECONDS)
    deep = est.estimate(budget_for("deep", 3), UNIT)  # 20 calls; a second wave of 3; 3 checkers a round, 4 rounds
    assert deep.input_tokens.high == 6 * 20 * 1000 + 12 * est.CHECKER_INPUT_TOKENS + est.ORCHESTRATOR_INPUT_TOKENS
    assert deep.input_tokens.low == 3 * 10 * 1000 + 3 * est.CHECKER_INPUT_TOKENS + est.ORCHESTRATOR_INPUT_TOKENS
    assert deep.wall_seconds.high == round(2 * 20 * 6 + 4 * est.CHECKER_SECONDS + est.ORCHESTRATOR_SECONDS)


def test_no_tier_line_has_checkers_only_for_statements_of_absence() -> None:
    """No cited claim is judged, but a report's statements of absence are (checks/absence.py): one
    checker a round at most, none at least (a report may have none)."""
    result = est.estimate(budget_for(None, 2), UNIT)
    assert result.budget.checker_agents == 1 + formats.MAX_VERIFY_ROUNDS
    assert result.input_tokens.high == 2 * 13 * 1000 + result.budget.checker_agents * est.CHECKER_INPUT_TOKENS \
        + est.ORCHESTRATOR_INPUT_TOKENS


def test_tiers_order_by_cost_with_the_documented_averages() -> None:
    quick, standard, deep = (est.estimate(budget_for(t, 2)) for t in ("quick", "standard", "deep"))
    for result in (quick, standard, deep):
        assert 0 < result.tokens.low <= result.tokens.high and 0 < result.wall_seconds.low <= result.wall_seconds.high
    assert quick.tokens.high < standard.tokens.high < deep.tokens.high


def test_readme_shows_the_typical_costs_the_code_computes() -> None:
    from web_research.formats import PLUGIN_ROOT

    assert est.render_typical_costs() in (PLUGIN_ROOT / "README.md").read_text(encoding="utf-8"), (
        "README.md: paste estimate.render_typical_costs()'s output as its cost table")


# --- metrics of earlier runs --------------------------------------------------------------------

def test_measured_averages_are_per_call_over_every_researcher() -> None:
    averages = est.averages_from_researchers(
        [_researcher(), _researcher(input_tokens=80_000, searches=4, page_reads=4, wall_seconds=80),
         _researcher(searches=0, page_reads=0)], runs=2)  # one that never searched tells nothing
    assert (averages.source, averages.researchers, averages.runs) == ("metrics", 2, 2)
    assert averages.input_tokens == 120_000 / 12 and averages.seconds == 120 / 12
    assert est.averages_from_researchers([], runs=0) == est.DEFAULT_AVERAGES


def _write(data: Path, name: str, value: object) -> Path:
    path = data / est.METRICS_DIR / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def test_metrics_files_are_read_with_bounds_and_bad_ones_skipped(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert est.load_averages(data) == (est.DEFAULT_AVERAGES, 0)  # no metrics folder at all
    _write(data, "good.json", {"run": "x", "researchers": [_researcher(input_tokens=8_000)]})
    _write(data, "not-json.json", "{")
    _write(data, "wrong-shape.json", {"researchers": [{"input_tokens": "many"}]})
    _write(data, "negative.json", {"researchers": [_researcher(searches=-1)]})
    _write(data, "huge.json", " " * (est.MAX_METRICS_BYTES + 1) + "{}")
    _write(data, "notes.txt", {"researchers": [_researcher(input_tokens=10**9)]})  # not *.json: not read
    outside = _write(tmp_path, "outside.json", {"researchers": [_researcher(input_tokens=10**9)]})
    os.symlink(outside, data / est.METRICS_DIR / "link.json")  # never followed
    (data / est.METRICS_DIR / "dir.json").mkdir()
    averages, skipped = est.load_averages(data)
    assert (averages.source, averages.researchers, averages.runs) == ("metrics", 1, 1)
    assert averages.input_tokens == 8_000 / 4
    assert skipped == 4


def test_only_the_newest_metrics_files_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setattr(est, "MAX_METRICS_FILES", 2)
    for i, tokens in enumerate((4_000_000, 4_000, 4_000)):
        path = _write(data, f"run-{i}.json", {"researchers": [_researcher(input_tokens=tokens)]})
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
    averages, _ = est.load_averages(data)
    assert averages.runs == 2 and averages.input_tokens == 1_000


# --- the command ----------------------------------------------------------------------------------

def _run_dir(tmp_path: Path, budget_line: str | None, subtopics=None) -> Path:
    run = tmp_path / "run"
    (run / "findings").mkdir(parents=True)
    (run / "plan.md").write_text(plan_text(subtopics=subtopics, budget_line=budget_line), encoding="utf-8")
    return run


def _env(data: Path) -> dict[str, str]:
    env = clean_env(WEB_RESEARCH_STATE_DIR=str(data))
    env.pop("CLAUDE_PLUGIN_DATA", None)
    return env


def test_estimate_prints_the_upper_bounds_and_ranges(tmp_path: Path) -> None:
    run = _run_dir(tmp_path, "Tier: deep", THREE)
    result = run_cli(["estimate", str(run)], tmp_path, env=_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"Estimate for {run} (tier: deep)"
    text = result.stdout
    assert "researchers     at most 6 (3 subtopics, at most 3 at once;" in text
    assert "searches        at most 48 (8 per researcher)" in text
    assert "page reads      at most 72 (12 per researcher)" in text
    assert "checker agents  at most 12 (the report's claims: 1 checker and 2 voters a round, 4 rounds at most)" in text
    assert "second wave     allowed: up to 3 more researchers" in text
    expected = est.estimate(budget_for("deep", 3))
    assert f"wall clock      about {round(expected.wall_seconds.low / 60)} to {round(expected.wall_seconds.high / 60)} minutes" in text
    assert "Ranges from documented per-call averages (no run metrics yet)." in text


def test_estimate_json_and_measured_averages(tmp_path: Path) -> None:
    run = _run_dir(tmp_path, "Searches per subagent: 2")
    data = tmp_path / "data"
    _write(data, "earlier.json", {"researchers": [_researcher(), _researcher()]})
    _write(data, "broken.json", "[")
    result = run_cli(["estimate", str(run), "--json"], tmp_path, env=_env(data))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["run_dir"] == str(run)
    assert out["budget"]["tier"] is None and out["budget"]["claim_check"] is False
    assert out["budget"]["searches"] == 4 and out["budget"]["checker_agents"] == 1 + MAX_VERIFY_ROUNDS
    assert out["averages"] == {"input_tokens": 10_000, "output_tokens": 100, "seconds": 10, "source": "metrics",
                               "researchers": 2, "runs": 1}
    assert out["metrics_files_skipped"] == 1
    text = run_cli(["estimate", str(run)], tmp_path, env=_env(data)).stdout
    assert f"Ranges from averages of 2 researchers in 1 earlier runs ({data / 'metrics'})." in text
    assert "Skipped 1 unreadable or malformed metrics file(s)" in text


def test_estimate_names_the_plan_line_or_the_missing_folder(tmp_path: Path) -> None:
    run = _run_dir(tmp_path, "Tier: quick", THREE)
    result = run_cli(["estimate", str(run)], tmp_path, env=_env(tmp_path / "data"))
    assert result.returncode == 2 and result.stdout == ""
    assert f"{run / 'plan.md'}:" in result.stderr and "'Tier: quick' allows at most 2" in result.stderr
    missing = run_cli(["estimate", str(tmp_path / "nope")], tmp_path, env=_env(tmp_path / "data"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    (run / "plan.md").unlink()
    gone = run_cli(["estimate", str(run)], tmp_path, env=_env(tmp_path / "data"))
    assert gone.returncode == 2 and "not a run folder (it holds neither plan.md nor report.md)" in gone.stderr


@pytest.mark.parametrize("args,tier", [
    (["start", "--question", "Q"], "standard"),
    (["start", "--question", "Q", "--tier", "deep"], "deep"),
    (["start", "--args", "--tier quick Q"], "quick"),
    (["start", "--args", "research_question: Q\ntier: deep"], "deep"),
])
def test_start_prints_the_tier(tmp_path: Path, args: list[str], tier: str) -> None:
    result = run_cli([*args[:1], *args[1:], *(["--output-dir", "out"] if "--question" in args else [])], tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["tier"] == tier


def test_start_refuses_an_unknown_tier_or_a_mixed_input(tmp_path: Path) -> None:
    bad = run_cli(["start", "--question", "Q", "--tier", "fast"], tmp_path)
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"] == "invalid-input"
    assert "tier" in json.loads(bad.stdout)["detail"]
    mixed = run_cli(["start", "--args", "Q", "--tier", "deep"], tmp_path)
    assert mixed.returncode == 2 and "--tier" in json.loads(mixed.stdout)["detail"]
    assert not (tmp_path / ".beagle").exists()


def test_the_estimate_has_a_dollar_range_from_the_price_table(tmp_path):
    import json

    from web_research.run.budget import budget_for
    from web_research.metrics import pricing
    from web_research.metrics.pricing import PRICES_ENV, load_prices

    budget = budget_for("standard", 3)
    packaged = est.estimate(budget, prices=load_prices({}))
    assert 0 < packaged.cost.low < packaged.cost.high, packaged.cost
    double = tmp_path / "prices.json"
    table = json.loads((Path(pricing.__file__).with_name("prices.json")).read_text())
    for model in table["models"].values():
        for field in model:
            model[field] *= 2
    double.write_text(json.dumps(table))
    doubled = est.estimate(budget, prices=load_prices({PRICES_ENV: str(double)})).cost
    assert doubled.low == pytest.approx(2 * packaged.cost.low) and doubled.high == pytest.approx(2 * packaged.cost.high)
    lines = "\n".join(est.estimate_lines(tmp_path, packaged, tmp_path, 0))
    assert "  cost            about $" in lines and table["as_of"] in lines
    assert est.estimate(budget).cost is None  # no table, no dollars
