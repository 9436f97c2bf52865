"""A normal install works: the wheel (built from the sdist, as an index would serve it) carries
every file the commands read, so `pip install`, `uv tool install` and `pipx` give a working
`web-research` that runs `briefs`, `verify` and `status` on the example from outside the
checkout."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from web_research import formats

REPO = formats.PLUGIN_ROOT
EXAMPLE = REPO / "examples" / "observability-pricing"


def _uv() -> str:
    found = Path(sys.executable).with_name("uv")
    if found.is_file():
        return str(found)
    on_path = shutil.which("uv")
    if on_path is None:
        pytest.fail("uv is not installed: tests/run.sh installs the test tools (requirements-test.lock)")
    return on_path


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """(the wheel, the clean environment's bin folder, an environment without the checkout on any path)."""
    tmp = tmp_path_factory.mktemp("wheel")
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "WEB_RESEARCH_PYTHON")}
    env["UV_PYTHON_DOWNLOADS"] = "never"
    # The source is copied first: the build leaves build/ and *.egg-info where it runs.
    source = tmp / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache", ".hypothesis", ".ruff_cache"))
    built = _run([_uv(), "build", "--quiet", "--out-dir", str(tmp / "dist"), str(source)], tmp, env)
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp / "dist").glob("*.whl")
    venv = tmp / "venv"
    made = _run([_uv(), "venv", "--quiet", "--python", sys.executable, str(venv)], tmp, env)
    assert made.returncode == 0, made.stderr
    python = str(venv / "bin" / "python")
    for args in (["--require-hashes", "-r", str(REPO / "requirements.lock")], ["--no-deps", str(wheel)]):
        done = _run([_uv(), "pip", "install", "--quiet", "--python", python, *args], tmp, env)
        assert done.returncode == 0, done.stderr
    return wheel, venv / "bin", env


def test_the_wheel_holds_every_package_and_the_files_the_commands_read(installed):
    wheel, _bin, _env = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = sorted(str(init.parent.relative_to(REPO / "scripts")).replace(os.sep, "/")
                      for init in (REPO / "scripts" / "web_research").rglob("__init__.py"))
    missing = [p for p in packages if f"{p}/__init__.py" not in names]
    assert not missing, f"packages left out of the wheel (list them in pyproject.toml): {missing}"
    for schema in (REPO / "scripts" / "web_research" / "schemas").glob("*.json"):
        assert f"web_research/schemas/{schema.name}" in names
    assert f"web_research/references/{formats.BRIEF_TEMPLATE.name}" in names


def test_the_installed_command_runs_verify_status_and_briefs_on_the_example(installed, tmp_path: Path):
    _wheel, bin_dir, env = installed
    run = tmp_path / "observability-pricing"
    shutil.copytree(EXAMPLE, run)
    command = str(bin_dir / "web-research")
    verify = _run([command, "verify", str(run)], tmp_path, env, timeout=120)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "PASSED" in verify.stdout
    status = _run([command, "status", str(run)], tmp_path, env, timeout=120)
    assert status.returncode == 0, status.stderr
    assert "Verify: passes" in status.stdout
    briefs = _run([command, "briefs", str(run)], tmp_path, env, timeout=120)
    assert briefs.returncode == 0, briefs.stderr
    brief = (run / "briefs" / "billing-units-and-retention-tiers.md").read_text(encoding="utf-8")
    # The researcher's fetch command is the installed one, not a path into a checkout.
    assert f'"{bin_dir / "web-research"}" fetch' in brief


def test_a_missing_template_is_named(installed, tmp_path: Path):
    """An installation that lost its brief template says which file is missing, not the run folder."""
    _wheel, bin_dir, env = installed
    site = subprocess.run([str(bin_dir / "python"), "-c", "import web_research, os; print(os.path.dirname("
                           "web_research.__file__))"], capture_output=True, text=True, env=env, check=True)
    template = Path(site.stdout.strip()) / "references" / formats.BRIEF_TEMPLATE.name
    aside = template.with_name("aside.md")
    template.rename(aside)
    try:
        run = tmp_path / "run"
        shutil.copytree(EXAMPLE, run)
        briefs = _run([str(bin_dir / "web-research"), "briefs", str(run)], tmp_path, env, timeout=120)
    finally:
        aside.rename(template)
    assert briefs.returncode == 2
    assert str(template) in briefs.stderr and "brief template is missing" in briefs.stderr, briefs.stderr
