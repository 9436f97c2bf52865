"""Fixtures shared by the unit tests. Plain helpers live in modules of their own
(`cli_support`, `example_run`, `hook_harness`, `page_server`)."""
from __future__ import annotations

from typing import Iterator

import pytest

from hook_harness import SUBTOPICS, Harness
from page_server import PageServer


@pytest.fixture(scope="module")
def http_server() -> Iterator[PageServer]:
    """A loopback web server with the test pages (see page_server.py), one per test module."""
    with PageServer() as server:
        yield server


@pytest.fixture(scope="module")
def https_server() -> Iterator[PageServer]:
    """The same pages over TLS, with a certificate of a private test CA."""
    with PageServer(tls=True) as server:
        yield server


@pytest.fixture
def h(tmp_path) -> Harness:
    """A hook harness (tests/unit/hook_harness.py) with no run open."""
    return Harness(tmp_path)


@pytest.fixture
def active(h: Harness) -> Harness:
    """The harness with a run opened by the real `start`."""
    h.start_run()
    return h


@pytest.fixture
def researcher(active: Harness):
    """A run with two briefs and the first one's researcher (agentA) dispatched and started:
    (harness, the briefs' infos)."""
    infos = active.render_briefs(SUBTOPICS[:2])
    assert active.hook(active.agent_call(active.prompt_for(infos[0]), "toolu_0")).decision == "allow"
    active.start_agent("agentA", active.prompt_for(infos[0]))
    return active, infos
