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
from pathlib import Path
from typing import Callable

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


@pytest.fixture(scope="module")
def run_module_session(claude_bin, tls_files, tmp_path_factory) -> Callable[..., RunResult]:
    """Like run_session, for a session several tests of a module assert on."""

    def run(spec: RunSpec, project_setup=None, project: Path | None = None) -> RunResult:
        workdir = tmp_path_factory.mktemp("session")
        return run_cli(spec, workdir, tls_files, claude_bin, project_setup, cwd=project)

    return run


@pytest.fixture
def run_session(claude_bin, tls_files, tmp_path) -> Callable[..., RunResult]:
    """Run one sandboxed CLI session; call it again for a second session in the
    same project (it keeps the project folder and gives each session its own log)."""
    counter = {"n": 0}

    def run(spec: RunSpec, project_setup=None, project: Path | None = None) -> RunResult:
        counter["n"] += 1
        workdir = tmp_path / f"session-{counter['n']}"
        return run_cli(spec, workdir, tls_files, claude_bin, project_setup, cwd=project)

    return run
