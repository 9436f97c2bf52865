"""The main agent may stop with a broken report only after it was told what is broken.

Before report.md exists the gate stays open (the review gate waits for the
user with no report yet). Once it exists, the verifier runs: a passing report
finishes the run; failing error checks block the stop with the list. The gate
never loops: a repeated stop (`stop_hook_active`) with the same failures, or a
third block, lets the agent stop and shows the user what is still wrong; the
run is then closed as unverified so later turns are not nagged again. A final
message that returns the run's paths with `"verified": false` (SKILL.md, after
its bounded fix rounds) is that stop, declared: released at once, not blocked.
A passing run whose final message does not hold `finish`'s return object (a
path retyped wrong, the object left out) is blocked once with the object to
return; the next stop passes whatever the message says.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple, Sequence

from ... import formats
from ...core.message_fit import escaped_len, fit
from ..state import StopState

MAX_STOP_BLOCKS = formats.MAX_VERIFY_ROUNDS  # one block per round of fixes SKILL.md allows


class StopDecision(NamedTuple):
    action: str  # "wait" (no report yet) | "pass" | "block" | "release"
    failures: tuple[str, ...] = ()


MAX_MESSAGE_CHARS = 20_000  # a return object is a few hundred characters; prose around it is bounded too


def _objects(message: object) -> Iterator[dict[str, object]]:
    """The JSON objects in an agent's message: alone, in a code fence, or with prose around them."""
    if not isinstance(message, str) or len(message) > MAX_MESSAGE_CHARS:
        return
    decoder = json.JSONDecoder()
    start = message.find("{")
    while start >= 0:
        try:
            value, _end = decoder.raw_decode(message, start)
        except (ValueError, RecursionError):  # model-written: 3,000 nested `[` raise RecursionError
            value = None
        if isinstance(value, dict):
            yield value
        start = message.find("{", start + 1)


def declares_unverified(message: object) -> bool:
    """True when the agent's last message holds the return object with `"verified": false`:
    alone, in a code fence, or with a sentence around it (a lapse a real model makes)."""
    return any(value.get(formats.RETURN_VERIFIED_KEY) is False and isinstance(value.get("report"), str)
               for value in _objects(message))


def returns_object(message: object, expected: Mapping[str, Any]) -> bool:
    """True when the agent's last message holds `expected` (finish's return object), key for key."""
    return any(value == expected for value in _objects(message))


def return_reason(expected: Mapping[str, Any]) -> str:
    return ("report.md passes verification, but your final message does not hold the object finish printed. "
            "Your final message is this object, unchanged, and nothing else:\n"
            + json.dumps(expected, ensure_ascii=False))


def decide_stop(state: StopState, failures: Sequence[str] | None, stop_hook_active: bool,
                declared_unverified: bool = False) -> StopDecision:
    """`failures` is None while report.md does not exist. Updates `state` (the run's Stop memory).
    `declared_unverified`: the agent returned `"verified": false` (see `declares_unverified`)."""
    if failures is None:
        return StopDecision("wait")
    if not failures:
        return StopDecision("pass")
    current = list(failures)
    repeated = stop_hook_active and current == state.last_failures
    if declared_unverified or repeated or state.blocks >= MAX_STOP_BLOCKS:
        return StopDecision("release", tuple(current))
    state.blocks += 1
    state.last_failures = current
    return StopDecision("block", tuple(current))


MAX_REASON = 8_500  # escaped characters: within what the client shows whole (core/message_fit.CLIENT_LIMIT)


def block_reason(run_dir: str | Path, failures: Sequence[str],
                 program: str = "<plugin root>/scripts/web-research") -> str:
    """What to do first, then every failure, each shortened in its middle when they do not all fit."""
    lead = (f"The research report in {run_dir} fails verification ({len(failures)} error(s)). Fix each one in "
            "report.md, or, where the evidence is missing, remove the claim and record it under Gaps & "
            "Limitations. Do not edit plan.md, briefs or findings files. Then run "
            f'"{program}" finish "{run_dir}" again and do what it prints; its JSON object is your final message '
            f'(after {formats.MAX_VERIFY_ROUNDS} rounds of fixes it says "verified": false).')
    listed = fit([("", item, "") for item in failures], MAX_REASON - escaped_len(lead),
                 [f"- {len(failures)} failures: run finish for them"])
    return "\n".join([lead, *listed])


def release_message(run_dir: str | Path, failures: Sequence[str]) -> str:
    lines = "\n".join(f"- {item}" for item in failures[:20])
    more = f"\n- ... and {len(failures) - 20} more" if len(failures) > 20 else ""
    return (f"web-research: the report in {run_dir} still fails verification:\n{lines}{more}\n"
            "Treat it as unverified.")
