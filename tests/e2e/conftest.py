"""Fixtures for the end-to-end tests (this folder only).

The tests need the pinned Claude Code CLI (`WEB_RESEARCH_CLAUDE_BIN`, exported
by tests/run.sh) and a private network namespace. Without them the tests skip
on a developer machine, and fail when `WEB_RESEARCH_REQUIRE_CLI=1` (CI), so a
broken CI set-up can never pass by skipping everything.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))  # prompt_commands

from harness.runner import (PAGES_HOST, WEB_ADDRESS, RunResult, RunSpec, claude_available,  # noqa: E402
                            run_cli, sandbox_available)
from harness.tls import TlsFiles, make_tls  # noqa: E402

PINNED_VERSION = "2.1.328"
E2E_DIR = Path(__file__).resolve().parent
_notes: list[str] = []


def pytest_collection_modifyitems(config, items):
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(E2E_DIR):
            item.add_marker(pytest.mark.e2e)


def pytest_terminal_summary(terminalreporter):
    if _notes:
        terminalreporter.section("web-research end-to-end notes")
        for note in _notes:
            terminalreporter.write_line(note)


@pytest.fixture(scope="session")
def report_note() -> Callable[[str], None]:
    """Add a line to the e2e section of pytest's terminal summary (e.g. hook timings)."""
    return _notes.append


def _unavailable(reason: str) -> None:
    if os.environ.get("WEB_RESEARCH_REQUIRE_CLI") == "1":
        pytest.fail(f"end-to-end tests required but cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def claude_bin() -> str:
    path = claude_available()
    if path is None:
        _unavailable("WEB_RESEARCH_CLAUDE_BIN is unset or not executable (tests/run.sh installs the CLI)")
    version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    if not re.match(rf"{re.escape(PINNED_VERSION)}\b", version.strip()):
        _unavailable(f"{path} is {version.strip()!r}, the tests are pinned to {PINNED_VERSION}")
    ok, why = sandbox_available()
    if not ok:
        _unavailable(f"cannot create a private network namespace with unshare: {why}")
    return path


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory) -> TlsFiles:
    return make_tls(tmp_path_factory.mktemp("tls"), [PAGES_HOST], [WEB_ADDRESS])


class SessionPool:
    """Runs every e2e module's CLI sessions concurrently, started up front.

    A test module declares its sessions in a module-level dict `SESSIONS`
    (name -> job); a job gets a `run(spec, project_setup=None, project=None, home=None)`
    callable and returns whatever the tests need (a RunResult, or several for
    a multi-session scenario, which then run in order inside one job). All jobs
    are submitted when the first e2e test needs one, so the suite takes about
    as long as its slowest few sessions rather than their sum.
    """

    def __init__(self, claude_bin: str, tls: TlsFiles, tmp_path_factory, workers: int):
        self._claude_bin, self._tls, self._factory = claude_bin, tls, tmp_path_factory
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="e2e-session")
        self._futures: dict[tuple[str, str], Future] = {}
        self._lock = threading.Lock()

    def _runner(self, name: str) -> Callable[..., RunResult]:
        def run(spec: RunSpec, project_setup=None, project: Path | None = None,
                home: Path | None = None) -> RunResult:
            with self._lock:
                workdir = self._factory.mktemp(name)
            return run_cli(spec, workdir, self._tls, self._claude_bin, project_setup, cwd=project, home=home)
        return run

    def submit(self, key: tuple[str, str], job: Callable[[Callable[..., RunResult]], Any]) -> None:
        with self._lock:
            if key not in self._futures:
                name = re.sub(r"\W+", "-", f"{key[0].rsplit('.', 1)[-1]}-{key[1]}")
                self._futures[key] = self._executor.submit(job, self._runner(name))

    def result(self, key: tuple[str, str], job: Callable[[Callable[..., RunResult]], Any]) -> Any:
        self.submit(key, job)
        return self._futures[key].result()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def session_pool(request, claude_bin, tls_files, tmp_path_factory):
    workers = int(os.environ.get("WEB_RESEARCH_E2E_WORKERS", "4"))
    pool = SessionPool(claude_bin, tls_files, tmp_path_factory, workers)
    seen = set()
    for item in request.session.items:  # start every selected module's sessions now
        module = getattr(item, "module", None)
        if module is None or module.__name__ in seen or not hasattr(module, "SESSIONS"):
            continue
        seen.add(module.__name__)
        for name, job in module.SESSIONS.items():
            pool.submit((module.__name__, name), job)
    yield pool
    pool.shutdown()


@pytest.fixture(scope="module")
def e2e_session(request, session_pool) -> Callable[[str], Any]:
    """`e2e_session("name")`: the result of this module's SESSIONS["name"] job."""
    module = request.module
    return lambda name: session_pool.result((module.__name__, name), module.SESSIONS[name])
