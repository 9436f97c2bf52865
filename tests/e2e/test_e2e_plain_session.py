"""The plugin installed in a session that never researches.

Also the smoke test that the client loads the plugin under the names the
prompts use: a skill or agent file that fails to parse, or a renamed plugin,
silently drops out of these listings.
"""
from __future__ import annotations

import os
import statistics
import subprocess

import pytest

from harness import outcome
from harness.runner import REPO_ROOT, RunSpec, unshare_prefix
from scripted.plain import ANSWER

SKILL = "web-research:web-research"
AGENT = "web-research:researcher"


SESSIONS = {"plain": lambda run: run(RunSpec(prompt="What is 6 times 7? Keep a note of it.",
                                              scenario="scripted.plain:build"))}


@pytest.fixture(scope="module")
def plain(e2e_session):
    return e2e_session("plain")


def test_sandbox_has_only_loopback(plain):
    assert plain.interfaces == ["lo"], plain.describe()


def test_plugin_skill_and_agent_are_listed_in_first_request(plain):
    first = plain.requests[0]
    assert first.kind == "main"
    listing = first.all_text()
    assert f"- {SKILL}:" in listing, "the skill is missing from the Skill tool's listing"
    assert f"- {AGENT}:" in listing, "the researcher is missing from the Agent tool's listing"
    init = next(e for e in plain.stream.events if e.get("subtype") == "init")
    assert SKILL in init.get("slash_commands", []), init.get("slash_commands")


def test_plugin_validates_strictly(claude_bin, tmp_path):
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    done = subprocess.run(unshare_prefix() + [claude_bin, "plugin", "validate", str(REPO_ROOT), "--strict"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_plain_session_completes(plain):
    assert plain.exit_code == 0 and not plain.timed_out, plain.describe()
    assert plain.errors == [], plain.describe()
    assert plain.stream.final_text() == ANSWER
    assert (plain.cwd / "notes.txt").read_text() == "multiply 6 by 7\n42 (checked)\n"


def test_hooks_run_but_never_block_or_speak(plain):
    timings = plain.stream.hook_timings()
    assert timings, "no plugin hook ran at all: hooks/hooks.json is missing or not loaded"
    for event in ("PreToolUse", "PostToolUse", "Stop"):
        assert plain.stream.blocks(event) == [], plain.describe()
    assert plain.stream.denials() == [], plain.describe()
    assert plain.stream.system_messages() == [], plain.describe()
    failed = [e for e in plain.stream.hook_responses() if e.get("exit_code") not in (0, None)]
    assert failed == [], failed


def test_hooks_write_nothing(plain):
    # $CLAUDE_PLUGIN_DATA lives under plugins/data; the per-user fallback under ~/.local/share.
    for data in (plain.home / ".claude" / "plugins" / "data", plain.home / ".local" / "share" / "web-research"):
        written = sorted(outcome.tree_bytes(data))
        assert written == [], f"hooks wrote state in a session that never researched: {data}: {written}"
    project = sorted(p.name for p in plain.cwd.iterdir())
    assert project == ["notes.txt"], project


def test_hooks_added_time_is_small(plain, report_note):
    timings = plain.stream.hook_timings()
    assert timings, "no hook timings (no hooks ran)"
    seconds = [t for _, t in timings]
    total = sum(seconds)
    report_note(f"plain session: {len(seconds)} hook runs added {total * 1000:.0f} ms in total "
                f"(median {statistics.median(seconds) * 1000:.0f} ms, max {max(seconds) * 1000:.0f} ms) "
                f"to a {plain.duration_s:.2f} s session")
    slowest = max(timings, key=lambda x: x[1])
    # A hook with no active run should cost about one interpreter start; 1 s is a loud failure
    # even on a loaded 2-core CI machine.
    assert slowest[1] < 1.0, f"slowest hook {slowest[0]} took {slowest[1]:.2f} s"
