"""The path of one hook stays short (hooks/README.md, "The path of one hook"): a denied command
of the orchestrator goes from the entry through the adapter, the handler, its run record and
one rule, and through no other module of ours."""
from __future__ import annotations

import json
import subprocess
import sys

from hook_harness import REPO, Harness

PROBE = r"""
import io, json, sys
sys.path.insert(0, {scripts!r})
called = set()

def profile(frame, event, arg):
    if event != "call" or not frame.f_code.co_flags & 1:  # functions only, not module bodies
        return
    back = frame
    while back is not None:  # calls made while importing a module are not the path
        if back.f_globals.get("__name__", "").startswith("importlib"):
            return
        back = back.f_back
    name = frame.f_globals.get("__name__", "")
    if name.startswith("web_research"):
        called.add(name)

from web_research.guard import adapter
out = io.StringIO()
sys.stdout, real = out, sys.stdout
sys.setprofile(profile)
adapter.main(["x", "pre_tool_use"])
sys.setprofile(None)
sys.stdout = real
print(json.dumps({{"decision": out.getvalue(), "called": sorted(called)}}))
"""

# The entry and adapter (payload -> typed event -> the handler -> decision -> JSON), the handler,
# the run's state (the record read once), the rule (the event and the decision are types: no code
# of theirs runs); for a Bash call, the reader of our command lines; the data folder's rule, which
# lives in core/paths.py with every other path.
PATH = {"guard.adapter", "guard.handlers.pre_tool_use", "guard.state", "guard.rules.room",
        "guard.commandline", "core.paths"}


def test_a_denied_command_of_the_orchestrator_passes_through_the_entry_adapter_handler_and_one_rule(tmp_path):
    h = Harness(tmp_path)
    h.start_run()
    payload = h.bash("PreToolUse", "ls -la /")
    proc = subprocess.run([sys.executable, "-c", PROBE.format(scripts=str(REPO / "scripts"))],
                          input=json.dumps(payload), capture_output=True, text=True, env=h.env(), cwd=h.project,
                          check=True)
    found = json.loads(proc.stdout)
    assert json.loads(found["decision"])["hookSpecificOutput"]["permissionDecision"] == "deny"
    called = {name.removeprefix("web_research.") for name in found["called"]}
    assert called == PATH, f"not on the path: {sorted(called - PATH)}; missing: {sorted(PATH - called)}"
