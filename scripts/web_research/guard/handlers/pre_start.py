"""PreToolUse of the plugin's `start`, the one command that opens a run: with no run open, the
hook approves only a start that passes start's own checks (and, resuming, only a run the
plugin's own records know); with a run open, the room's rule for Bash refuses it.

A handler of its own (the entry picks it for a Bash call whose command line is our `start`,
events.handler_name): checking start's arguments loads what no other tool call needs.
"""
from __future__ import annotations

import datetime
import json
import os
from pathlib import Path

from ... import formats
from ...run.inputs import InputError
from ...run.resume import unknown_run_refusal
from ...run.runfolder import check_start_args
from ..effects.seals import ledger_knows
from .pre_tool_use import decide, pre_bash, unsandboxed
from ..rules.decision import Allow, Decision, Deny
from ..rules.room import UNSANDBOXED_REFUSAL
from ..state import Context, Run


def pre_start(ctx: Context) -> Decision:
    return decide(ctx, _start)


def _start(ctx: Context, run: Run | None) -> Decision:
    parsed, _why = ctx.command
    if run is not None or parsed is None or ctx.in_researcher:
        return pre_bash(ctx, run)
    if unsandboxed(ctx):
        return Deny(UNSANDBOXED_REFUSAL)
    refusal = _start_refusal(ctx, parsed.heredoc_body or "")
    if refusal is not None:
        return Deny((
            f"web-research start would refuse these arguments, so it was not run: {refusal} "
            "Reply with that JSON unchanged and stop."))
    return Allow("web-research: the plugin's start command.")


def _start_refusal(ctx: Context, raw_args: str) -> str | None:
    """The invalid-input JSON `start` would print for these arguments, or None when it
    may run: the hook approves only a start that passes start's own checks."""

    cwd = ctx.event.cwd
    try:
        request, run_dir = check_start_args(raw_args, Path(cwd if isinstance(cwd, str) and cwd else os.getcwd()),
                                            datetime.date.today(), ctx.env)
    except InputError as error:
        return json.dumps({"error": formats.ERROR_INVALID_INPUT, "detail": str(error)}, ensure_ascii=False)
    if request.resume:
        # Only a run the plugin's own records know is resumed: nothing is adopted.
        refusal = unknown_run_refusal(run_dir, ledger_knows(ctx.env, str(run_dir)))
        if refusal is not None:
            return json.dumps(refusal, ensure_ascii=False)
    return None
