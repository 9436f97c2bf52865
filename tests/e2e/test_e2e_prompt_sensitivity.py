"""Negative controls: the harness must notice a broken prompt.

The scripted model runs whatever command lines the skill body holds, so a
wrong flag or an unsubstituted variable in SKILL.md has to make the run fail.
Each case copies the plugin, breaks one thing in the copy's SKILL.md, and
checks that the research run does not come back with the success shape.
Without these, a harness that quietly used its own copy of the commands would
pass every scenario.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness import outcome
from harness.runner import REPO_ROOT, RunSpec

from web_research import formats

QUESTION = "How do enterprise observability vendors price their logs tier in 2026?"
PLUGIN_PARTS = (".claude-plugin", "skills", "agents", "hooks", "scripts")


def broken_plugin(old: str, new: str) -> Path:
    """A copy of the plugin whose SKILL.md has `old` replaced by `new` (must occur)."""
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="web-research-broken-"))
    for part in PLUGIN_PARTS:
        shutil.copytree(REPO_ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".venv").symlink_to(REPO_ROOT / ".venv", target_is_directory=True)
    skill = root / "skills" / "web-research" / "SKILL.md"
    text = skill.read_text()
    assert old in text, f"{old!r} is no longer in SKILL.md; update this control"
    skill.write_text(text.replace(old, new))
    return root


def _job(old: str, new: str):
    def job(run):
        plugin = broken_plugin(old, new)
        try:
            return run(RunSpec(prompt=f"/web-research --auto {QUESTION}", scenario="scripted.research:build",
                               plugin_dirs=[plugin]))
        finally:
            shutil.rmtree(plugin, ignore_errors=True)
    return job


# The standard run's orchestrator runs one command, `start` (the hooks run the rest for it and
# give their answers as context): the controls break that command, and the rule that the plugin
# gives each next step.
SESSIONS = {
    "wrong-subcommand": _job('/scripts/web-research" start --args-file', '/scripts/web-research" begin --args-file'),
    "unsubstituted-root": _job('"${CLAUDE_PLUGIN_ROOT}/scripts/web-research" start',
                               '"${CLAUDE_PLUGIN_HOME}/scripts/web-research" start'),
    "no-next-step": _job("**The plugin tells you each next step.**", "**Run each command yourself.**"),
}


@pytest.mark.parametrize("case", sorted(SESSIONS))
def test_broken_skill_md_fails_the_run(e2e_session, case):
    result = e2e_session(case)
    assert not result.timed_out, result.describe()
    try:
        answer = outcome.return_object(result)
    except AssertionError:
        answer = {}
    assert result.errors or set(answer) != set(formats.RETURN_PATH_KEYS), (
        f"a SKILL.md broken by {case} still produced a successful run:\n{result.describe()}")
