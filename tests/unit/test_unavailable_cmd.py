"""`web-research unavailable`: the skill's answer without web search is printed by code, never typed."""
from __future__ import annotations

import json

import pytest

from example_run import run_cli
from web_research import formats


@pytest.mark.parametrize(("tools", "detail"), [
    (["WebSearch"], "missing: WebSearch"),
    (["WebFetch", "WebSearch"], "missing: WebSearch, WebFetch"),  # the contract's order, whatever the model's
    (["WebSearch", "WebSearch", "WebFetch"], "missing: WebSearch, WebFetch"),
    (["WebSearch,", "WebFetch"], "missing: WebSearch, WebFetch"),  # a list as a model types it
    (["WebSearch,WebFetch"], "missing: WebSearch, WebFetch"),
])
def test_it_prints_the_contracts_object(tmp_path, tools, detail):
    done = run_cli("unavailable", *tools, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout) == {"error": formats.ERROR_WEB_TOOLS_UNAVAILABLE, "detail": detail}
    assert done.stdout.count("\n") == 1 and list(tmp_path.iterdir()) == []  # the object alone; nothing written


def test_a_tool_that_is_not_a_web_tool_is_refused_by_name(tmp_path):
    done = run_cli("unavailable", "Bash", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "Bash: expected the absent web tools, WebSearch and/or WebFetch" in done.stderr


def test_the_contract_shows_what_it_prints():
    from web_research.commands.unavailable_cmd import answer  # noqa: PLC0415

    contract = (formats.PLUGIN_ROOT / "skills/web-research/references/companion-contract.md").read_text()
    assert json.dumps(answer(["WebSearch", "WebFetch"])) in contract
