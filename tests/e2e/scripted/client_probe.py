"""A session that measures what the pinned client shows the model (test_e2e_client_limits.py).

The main agent prints a long Bash output, writes over a file it never read, writes a new file
and dispatches a general-purpose agent; a user hook (settings.json, not the plugin) answers each
PostToolUse with an `additionalContext` of known size and markers. The test reads, in the
requests that follow, what of each reached the model and where.
"""
from __future__ import annotations

from harness.scenario import Context, Scenario, both, is_main, turn
from harness.sse import call, say

LONG_LINES = 400
LINE = "0123456789" * 10  # 100 characters, and the newline
EXISTING = "probe/existing.txt"
NEW = "probe/new.txt"
MID = 29_000


def build(ctx: Context) -> Scenario:
    s = Scenario()
    s.add("long-output", both(is_main, turn(0)), lambda r: call("Bash", {
        "command": f"mkdir -p probe && printf 'old\\n' > {EXISTING} && "
                   f"python3 -c \"print('START'); [print('{LINE}') for _ in range({LONG_LINES})]; print('END')\"",
        "description": "Print a long output"}))
    s.add("write-unread", both(is_main, turn(1)), lambda r: call("Write", {
        "file_path": f"{ctx.cwd}/{EXISTING}", "content": "new\n"}))
    s.add("write-new", both(is_main, turn(2)), lambda r: call("Write", {
        "file_path": f"{ctx.cwd}/{NEW}", "content": "fresh\n"}))
    s.add("agent", both(is_main, turn(3)), lambda r: call("Agent", {
        "description": "Say hello", "prompt": "Reply with the word hello.",
        "subagent_type": "general-purpose", "run_in_background": False}))
    s.add("subagent", lambda r: r.kind == "subagent", lambda r: say("hello"))
    s.add("changed-behind", both(is_main, turn(4)), lambda r: call("Bash", {
        "command": f"sleep 1; printf 'fresh\\nchanged\\n' > {NEW}; python3 -c \"print('S'); print('x' * {MID}); print('E')\"",
        "description": "Change the file behind the model's back"}))
    s.add("edit-stale", both(is_main, turn(5)), lambda r: call("Edit", {
        "file_path": f"{ctx.cwd}/{NEW}", "old_string": "fresh", "new_string": "edited"}))
    s.add("write-stale", both(is_main, turn(6)), lambda r: call("Write", {
        "file_path": f"{ctx.cwd}/{NEW}", "content": "rewritten\n"}))
    s.add("done", both(is_main, turn(7)), lambda r: say("probe finished"))
    return s
