"""The harness's own guarantees, checked through the real CLI.

If the fake web stopped working (CA not trusted, host name not mapped, wrong
WebSearch result shape), research scenarios would fail in confusing ways; if
the namespace leaked, tests could reach the internet. This session checks
both directly.
"""
from __future__ import annotations

import pytest

from harness import outcome
from harness.runner import PAGES_HOST, RunSpec
from scripted.web_probe import PAGE_TEXT

SESSIONS = {"probe": lambda run: run(RunSpec(prompt="Probe the sandbox.", scenario="scripted.web_probe:build"))}


@pytest.fixture(scope="module")
def probe(e2e_session):
    result = e2e_session("probe")
    outcome.ended_cleanly(result)
    return result


def _result_of(probe, tool: str) -> str:
    (use,) = probe.stream.tool_uses(tool)
    return probe.stream.tool_result_text(use["id"])


def test_websearch_returns_the_scripted_links(probe):
    text = _result_of(probe, "WebSearch")
    assert f"https://{PAGES_HOST}:" in text and "Probe page" in text, text


def test_webfetch_reads_the_fake_page_over_tls(probe):
    assert PAGE_TEXT in _result_of(probe, "WebFetch")
    assert [h["path"] for h in probe.page_hits if h["found"]] == ["/probe"], probe.page_hits
    assert probe.pages_origin.startswith(f"https://{PAGES_HOST}:")


def test_nothing_leaves_the_namespace(probe):
    assert probe.interfaces == ["lo"]
    out = _result_of(probe, "Bash")
    assert "BLOCKED" in out and "ESCAPED" not in out, out
