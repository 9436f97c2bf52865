"""The claim-checker's gate: what it is told, how its answer is read, when it may stop.

A checker's verdicts decide whether a report passes, so the orchestrator must
not be able to choose them. The hooks hold three lines:

- **Dispatch** (PreToolUse `Agent`, `web-research:claim-checker`): the orchestrator
  writes `Check: <output_dir>` and the hook puts in its place the prompt that
  `claims DIR --prompt` would print now (report/claim_checker.prompt_for_run); whatever else
  the call says is replaced the same way. The dispatch is remembered in the run
  record (`checkers`: prompt hash, verdicts path, check keys in prompt order).
- **Scope**: a checker has no tools (its agent definition) and the room denies
  it every write and command (room.py); nobody writes under `checks/` by hand.
- **Stop** (SubagentStop): its reply must judge each claim of its prompt by
  number; otherwise it is blocked once with what is missing. The plugin writes
  the verdicts file from the reply and seals it at once (effects/replies.write_verdicts),
  so a later Bash command that edits a verdict fails `verify`'s provenance check.

Pure rules here; the hook handlers do the I/O and the locking (pre_tool_use, post_tool_use,
subagent_stop).
"""
from __future__ import annotations

import hashlib
from typing import Any, Mapping

from ..state import Checker, Run
from .dispatch import Decision

MAX_CHECKER_DISPATCHES = 12  # a run needs 1 to 3 per round of fixes; the rest is a loop


def prompt_hash(prompt: str) -> str:
    return "sha256:" + hashlib.sha256(prompt.strip().encode("utf-8")).hexdigest()


def decide_checker_dispatch(run: Run, tool_input: Mapping[str, Any], tool_use_id: str | None,
                            rendered: Any, why_none: str, now: float, program: str) -> Decision:
    """Decide one claim-checker dispatch against the prompt rendered now (claim_checker.CheckerPrompt
    or None); on allow, remember it in `run.checkers`."""
    run_dir = run.run_dir
    if rendered is None:
        return Decision("deny", f"No claim-checker is needed: {why_none}. Run verify on the run folder.")
    if tool_input.get("run_in_background") is True:
        # In the background the orchestrator would run `finish` before the verdicts exist, and a
        # stop that went unseen could not be caught up when the call returns (post_tool_use).
        return Decision("deny", "Dispatch the claim-checker in the foreground (run_in_background: false): "
                        "its verdicts are sealed when it returns, before you act again.")
    prompt = tool_input.get("prompt")
    # The prompt is the plugin's, whatever the call says (`Check: <output_dir>` is the documented
    # form): the checker is always given the prompt rendered now, so no model chooses or copies it.
    updated = None if isinstance(prompt, str) and prompt_hash(prompt) == rendered.hash \
        else {**tool_input, "prompt": rendered.text}
    checkers = run.checkers
    if any(c.verdicts_path == rendered.verdicts_path and c.state == "running" for c in checkers):
        return Decision("deny", f"A claim-checker writing {rendered.verdicts_path} is already running; wait "
                        "for it to return, then run finish again.")
    if len(checkers) >= MAX_CHECKER_DISPATCHES:
        return Decision("deny", f"{len(checkers)} claim-checkers were dispatched in this run already. Dispatch "
                        "no more: put the claims still without a verdict under Gaps & Limitations, or return "
                        'the run with "verified": false.')
    checkers.append(Checker(tool_use_id, rendered.verdicts_path, rendered.hash, list(rendered.keys), rendered.round,
                            since=now))
    return Decision("allow", f"Claim-checker for {len(rendered.keys)} claim(s) of {run_dir}; its prompt is the one "
                    "the plugin rendered.", updated)


def find_checker(run: Run, agent_id: object, prompt: str | None) -> Checker | None:
    """The dispatch record of the checker in a payload: by agent id, by its prompt
    (transcript), else the only running one."""
    checkers = run.checkers
    if isinstance(agent_id, str):
        known = next((c for c in checkers if c.agent_id == agent_id), None)
        if known is not None:
            return known
    if prompt is not None:
        wanted = prompt_hash(prompt)
        matched = [c for c in checkers if c.prompt_hash == wanted]
        running = [c for c in matched if c.state == "running"]
        return (running or matched or [None])[-1]
    running = [c for c in checkers if c.state == "running"]
    return running[0] if len(running) == 1 else None
