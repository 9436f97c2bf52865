"""Installing the plugin with the real client: what lands in its plugin cache.

The client copies a marketplace added from a local path whole (it does not read .gitignore), so a
developer's .venv and test caches would ride along; README says to add a clean clone instead (or
use --plugin-dir, which copies nothing). These tests hold both: the client's behaviour that makes
the advice necessary, and that the advice gives a cache with the plugin and no build output.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from web_research import formats

REPO = formats.PLUGIN_ROOT
BUILD_OUTPUTS = (".venv", ".hypothesis", ".pytest_cache", ".ruff_cache", "build", "dist")

pytestmark = pytest.mark.e2e


def _claude(claude_bin: str, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "DISABLE_AUTOUPDATER": "1"}
    return subprocess.run([claude_bin, *args], capture_output=True, text=True, env=env, timeout=180)


def _install(claude_bin: str, home: Path, source: Path) -> Path:
    home.mkdir()
    added = _claude(claude_bin, home, "plugin", "marketplace", "add", str(source))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = _claude(claude_bin, home, "plugin", "install", "web-research@web-research")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    (cache,) = (home / ".claude" / "plugins" / "cache" / "web-research" / "web-research").iterdir()
    return cache


def _checkout_with_build_outputs(tmp_path: Path) -> Path:
    """A clone of this repository's committed files, plus what a developer's set-up leaves."""
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(checkout)], check=True,
                   capture_output=True)
    for name in BUILD_OUTPUTS:
        (checkout / name).mkdir(exist_ok=True)
        (checkout / name / "marker").write_text("build output\n")
    return checkout


def test_a_local_path_is_copied_whole_build_outputs_included(claude_bin: str, tmp_path: Path):
    cache = _install(claude_bin, tmp_path / "home", _checkout_with_build_outputs(tmp_path))
    assert (cache / "hooks" / "run").is_file()
    assert (cache / ".venv" / "marker").is_file()  # why README gives the advice below


def test_a_clean_clone_as_readme_says_carries_no_build_output(claude_bin: str, tmp_path: Path):
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert ("git clone /path/to/web-research /tmp/web-research && /plugin marketplace add /tmp/web-research"
            in readme)
    clean = tmp_path / "clean"
    subprocess.run(["git", "clone", "--quiet", str(_checkout_with_build_outputs(tmp_path)), str(clean)], check=True,
                   capture_output=True)
    cache = _install(claude_bin, tmp_path / "home", clean)
    assert (cache / "hooks" / "run").is_file() and (cache / "scripts" / "web-research").is_file()
    assert not [name for name in BUILD_OUTPUTS if (cache / name).exists()]
    shutil.rmtree(tmp_path / "home")
