"""`claude plugin validate --strict` accepts the plugin and its marketplace.

Uses the pinned Claude Code CLI named by $WEB_RESEARCH_CLAUDE_BIN (tests/run.sh exports it).
Without it the tests skip, unless $WEB_RESEARCH_REQUIRE_CLI=1 (CI), where they fail.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from web_research import formats

ROOT = formats.PLUGIN_ROOT
PINNED_VERSION = "2.1.328"


@pytest.fixture(scope="module")
def claude_bin() -> str:
    path = os.environ.get("WEB_RESEARCH_CLAUDE_BIN", "")
    if not path:
        if os.environ.get("WEB_RESEARCH_REQUIRE_CLI") == "1":
            pytest.fail("WEB_RESEARCH_REQUIRE_CLI=1 but WEB_RESEARCH_CLAUDE_BIN is not set")
        pytest.skip("WEB_RESEARCH_CLAUDE_BIN is not set (tests/run.sh sets it)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"WEB_RESEARCH_CLAUDE_BIN={path} is not an executable file")
    return path


def validate(claude_bin: str, target: Path, home: Path) -> subprocess.CompletedProcess[str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(home),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    return subprocess.run([claude_bin, "plugin", "validate", "--strict", "--json", str(target)],
                          env=env, capture_output=True, text=True, timeout=120)


def report(result: subprocess.CompletedProcess[str]) -> dict:
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"validate printed no JSON (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")


def test_cli_is_the_pinned_version(claude_bin, tmp_path):
    out = subprocess.run([claude_bin, "--version"], capture_output=True, text=True, timeout=60,
                         env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)})
    assert out.stdout.startswith(f"{PINNED_VERSION} "), out.stdout


@pytest.mark.parametrize("target", [".", ".claude-plugin/plugin.json"])
def test_plugin_and_marketplace_validate_strictly(claude_bin, tmp_path, target):
    result = validate(claude_bin, ROOT / target, tmp_path / "home")
    data = report(result)
    assert result.returncode == 0 and data["success"], json.dumps(data["manifest"], indent=2)
    assert data["manifest"]["errors"] == [] and data["manifest"]["warnings"] == []
    assert data["provides"]["skills"] == [f"{formats.PLUGIN_NAME}:{formats.SKILL_NAME}"]
    assert sorted(data["provides"]["agents"]) == sorted([formats.RESEARCHER_SUBAGENT_TYPE, formats.CHECKER_SUBAGENT_TYPE])
    # The plugin directory's advice (an icon, declared network hosts) is followed.
    assert data["directory"]["findings"] == [], json.dumps(data["directory"], indent=2)
    assert data["hosts"]["declared"]["plugin"] is True


def test_marketplace_lists_this_plugin():
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    (entry,) = market["plugins"]
    assert entry["name"] == plugin["name"] == formats.PLUGIN_NAME
    assert (ROOT / entry["source"]).resolve() == ROOT.resolve()
    assert entry["version"] == plugin["version"] == "0.1.0"
    assert plugin["license"] == "MIT" and plugin["keywords"]
    # No repository or homepage until the project has a real home (a dead link misleads users).
    assert "repository" not in plugin and "homepage" not in plugin
    assert plugin["author"]["name"] and plugin["description"]


def test_the_icon_is_a_square_png_of_the_accepted_size():
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    data = (ROOT / plugin["icon"]).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == height and 512 <= width <= 2048 and len(data) < 2 * 1024 * 1024


def test_the_declared_hosts_are_the_package_index_the_first_use_installs_from():
    """The hooks and commands reach no host except the Python package index when the first use
    builds the environment (`fetch` reaches the pages researchers cite, which no list can name)."""
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert plugin["network"]["hosts"] == ["pypi.org", "files.pythonhosted.org"]


def test_validate_catches_a_broken_manifest(claude_bin, tmp_path):
    """The check above can fail: an unknown field in plugin.json is rejected under --strict."""
    copy = tmp_path / "plugin"
    for part in (".claude-plugin", "skills", "agents"):
        shutil.copytree(ROOT / part, copy / part)
    manifest = copy / ".claude-plugin" / "plugin.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["not_a_field"] = True
    manifest.write_text(json.dumps(data), encoding="utf-8")
    result = validate(claude_bin, copy, tmp_path / "home")
    assert result.returncode != 0
    assert "not_a_field" in result.stdout
