"""A session that never researches: the model edits a note and answers.

It exercises the tools every session uses (Write, Bash, Read, Edit) so that
each of the plugin's PreToolUse/PostToolUse hooks fires on something that has
nothing to do with research, plus Stop at the end.
"""
from __future__ import annotations

from harness.scenario import Context, Scenario, both, is_main, turn
from harness.sse import call, say

ANSWER = "6 times 7 is 42; the note is saved in notes.txt."


def build(ctx: Context) -> Scenario:
    note = f"{ctx.cwd}/notes.txt"
    s = Scenario()
    s.add("write-note", both(is_main, turn(0)),
          lambda r: call("Write", {"file_path": note, "content": "multiply 6 by 7\n"}))
    s.add("compute", both(is_main, turn(1)),
          lambda r: call("Bash", {"command": "echo $((6*7)) >> notes.txt && cat notes.txt",
                                  "description": "Compute the product"}))
    s.add("read-note", both(is_main, turn(2)), lambda r: call("Read", {"file_path": note}))
    s.add("edit-note", both(is_main, turn(3)),
          lambda r: call("Edit", {"file_path": note, "old_string": "42", "new_string": "42 (checked)"}))
    s.add("answer", both(is_main, turn(4)), lambda r: say(ANSWER))
    return s
