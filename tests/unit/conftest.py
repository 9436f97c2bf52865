"""Fixtures shared by the unit tests. Plain helpers live in modules of their own
(`cli_support`, `example_run`, `hook_harness`, `page_server`)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from hook_harness import SUBTOPICS, Harness, PreparedHarnesses
from web_research import formats
from page_server import PageServer


@pytest.fixture(scope="session", autouse=True)
def _the_users_folders_stay_untouched(tmp_path_factory) -> Iterator[None]:
    """A command run with the test process's environment (`cli_support.clean_env`) and no data or
    state folder of its own would keep run records in ~/.local/share/web-research and its Python
    environment (pointers, or a whole venv) in ~/.cache/web-research: point both XDG folders into
    this session's temporary folder. uv and pip keep their own download caches."""
    folders = tmp_path_factory.mktemp("user-folders")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("UV_CACHE_DIR", os.environ.get("UV_CACHE_DIR") or str(cache / "uv"))
        patch.setenv("PIP_CACHE_DIR", os.environ.get("PIP_CACHE_DIR") or str(cache / "pip"))
        patch.setenv("XDG_DATA_HOME", str(folders / "share"))
        patch.setenv("XDG_CACHE_HOME", str(folders / "cache"))
        yield


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


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> PreparedHarnesses:
    """Harness states built once per test module (hook_harness.PreparedHarnesses)."""
    return PreparedHarnesses(tmp_path_factory.mktemp("prepared"))


def _open_run(h: Harness) -> None:
    h.start_run()


def _dispatch_first_researcher(h: Harness) -> list[dict]:
    h.start_run()
    infos = h.render_briefs(SUBTOPICS[:2])
    assert h.hook(h.agent_call(h.prompt_for(infos[0]), "toolu_0")).decision == "allow"
    h.start_agent("agentA", h.prompt_for(infos[0]))
    return infos


@pytest.fixture
def active(prepared: PreparedHarnesses) -> Harness:
    """A harness with a run opened by the real `start`."""
    return prepared.get("active", _open_run)[0]


@pytest.fixture
def researcher(prepared: PreparedHarnesses):
    """A run with two briefs and the first one's researcher (agentA) dispatched and started:
    (harness, the briefs' infos)."""
    return prepared.get("researcher", _dispatch_first_researcher)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """An empty run folder holding only a plan, as `fetch` needs one."""
    run = tmp_path / "run"
    run.mkdir()
    (run / formats.PLAN_FILE).write_text("# Research plan\n", encoding="utf-8")
    return run
