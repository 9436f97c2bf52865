"""Fixtures for the end-to-end tests (this folder only).

The tests need the pinned Claude Code CLI (`WEB_RESEARCH_CLAUDE_BIN`, exported
by tests/run.sh) and a private network namespace. Without them the tests skip
on a developer machine, and fail when `WEB_RESEARCH_REQUIRE_CLI=1` (CI), so a
broken CI set-up can never pass by skipping everything.

When a run selects other tests too, the e2e tests run last and their CLI sessions start before
the first test of the run, so that they use the second core while the unit tests (one process)
use the first; see SessionPool.
"""
from __future__ import annotations

import functools
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


def _is_e2e(item) -> bool:
    return Path(str(item.fspath)).resolve().is_relative_to(E2E_DIR)


def pytest_collection_modifyitems(config, items):
    """Mark the e2e tests, and move them after every other test (in their own order)."""
    e2e = [item for item in items if _is_e2e(item)]
    for item in e2e:
        item.add_marker(pytest.mark.e2e)
    chosen = set(e2e)
    items[:] = [item for item in items if item not in chosen] + e2e


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


@functools.lru_cache(maxsize=1)
def _usable_claude() -> tuple[str | None, str]:
    """(the pinned CLI, "") when the e2e tests can run here, else (None, why not)."""
    path = claude_available()
    if path is None:
        return None, "WEB_RESEARCH_CLAUDE_BIN is unset or not executable (tests/run.sh installs the CLI)"
    version = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    if not re.match(rf"{re.escape(PINNED_VERSION)}\b", version.strip()):
        return None, f"{path} is {version.strip()!r}, the tests are pinned to {PINNED_VERSION}"
    ok, why = sandbox_available()
    if not ok:
        return None, f"cannot create a private network namespace with unshare: {why}"
    return path, ""


@pytest.fixture(scope="session")
def claude_bin() -> str:
    path, why = _usable_claude()
    if path is None:
        _unavailable(why)
    return path


_early: dict[str, Any] = {}  # the pool started before the first test, and its TLS files


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory) -> TlsFiles:
    if "tls" in _early:
        return _early["tls"]
    return make_tls(tmp_path_factory.mktemp("tls"), [PAGES_HOST], [WEB_ADDRESS])


class SessionPool:
    """Runs every e2e module's CLI sessions concurrently, started up front.

    A test module declares its sessions in a module-level dict `SESSIONS`
    (name -> job); a job gets a `run(spec, project_setup=None, project=None, home=None)`
    callable and returns whatever the tests need (a RunResult, or several for
    a multi-session scenario, which then run in order inside one job). All jobs
    are submitted before the first test of the run when other tests run first
    (pytest_runtestloop below), else when the first e2e test needs one, so the
    e2e tests take about as long as their slowest few sessions rather than their sum.

    `workers` sessions run at once, or `meanwhile` while other tests still run (`widen()`
    lifts that when the first e2e test starts): the unit tests keep one core, and no
    session runs much slower than when the e2e tests run alone (each has a timeout).
    """

    def __init__(self, claude_bin: str, tls: TlsFiles, tmp_path_factory, workers: int,
                 meanwhile: int | None = None):
        self._claude_bin, self._tls, self._factory = claude_bin, tls, tmp_path_factory
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="e2e-session")
        self._futures: dict[tuple[str, str], Future] = {}
        self._lock = threading.Lock()
        self._held = workers - min(meanwhile or workers, workers)
        self._slots = threading.Semaphore(workers - self._held)

    def widen(self) -> None:
        """Let all `workers` sessions run at once from now on."""
        with self._lock:
            held, self._held = self._held, 0
        if held:
            self._slots.release(held)

    def _runner(self, name: str) -> Callable[..., RunResult]:
        def run(spec: RunSpec, project_setup=None, project: Path | None = None,
                home: Path | None = None) -> RunResult:
            with self._lock:
                workdir = self._factory.mktemp(name)
            with self._slots:
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


def _workers() -> int:
    return int(os.environ.get("WEB_RESEARCH_E2E_WORKERS", "4"))


def _submit_all(pool: SessionPool, items) -> None:
    """Start every selected module's sessions."""
    seen = set()
    for item in items:
        module = getattr(item, "module", None)
        if module is None or module.__name__ in seen or not hasattr(module, "SESSIONS"):
            continue
        seen.add(module.__name__)
        for name, job in module.SESSIONS.items():
            pool.submit((module.__name__, name), job)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """When the run holds other tests too (they run first), start the e2e sessions now, with
    `meanwhile` sessions at once, rather than when the first e2e test needs one. Nothing
    starts when the CLI cannot run here: the e2e tests then skip or fail as claude_bin says."""
    option = session.config.option
    if session.testsfailed or option.collectonly or getattr(option, "setuponly", False) \
            or getattr(option, "setupplan", False):
        return
    e2e = [item for item in session.items if _is_e2e(item)]
    if not e2e or len(e2e) == len(session.items):
        return
    path, _why = _usable_claude()
    if path is None:
        return
    factory = session.config._tmp_path_factory  # what the tmp_path_factory fixture returns
    tls = make_tls(factory.mktemp("tls"), [PAGES_HOST], [WEB_ADDRESS])
    meanwhile = int(os.environ.get("WEB_RESEARCH_E2E_WORKERS_MEANWHILE", "2"))
    pool = SessionPool(path, tls, factory, _workers(), meanwhile=meanwhile)
    _early.update(tls=tls, pool=pool)
    _submit_all(pool, e2e)


def pytest_runtest_setup(item):
    """The first e2e test starts after every other test: all `workers` sessions may run now.
    (A conftest's runtest hooks see only the tests of its folder.)"""
    if "pool" in _early:
        _early["pool"].widen()


def pytest_sessionfinish(session):
    """A run stopped before its e2e tests (-x, Ctrl-C) cancels the early sessions not yet started."""
    pool = _early.pop("pool", None)
    if pool is not None:
        pool.shutdown()


@pytest.fixture(scope="session")
def session_pool(request, claude_bin, tls_files, tmp_path_factory):
    if "pool" in _early:
        yield _early["pool"]
        return
    pool = SessionPool(claude_bin, tls_files, tmp_path_factory, _workers())
    _submit_all(pool, request.session.items)
    yield pool
    pool.shutdown()


@pytest.fixture(scope="module")
def e2e_session(request, session_pool) -> Callable[[str], Any]:
    """`e2e_session("name")`: the result of this module's SESSIONS["name"] job."""
    module = request.module
    return lambda name: session_pool.result((module.__name__, name), module.SESSIONS[name])
