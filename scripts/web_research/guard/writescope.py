"""Which path a write targets: the key each write tool really writes, and nothing ambiguous.

Who may write what is room.py's (no subagent writes at all; the main session plan.md and
report.md), decided on the path resolved there (room.resolve_write).
"""
from __future__ import annotations


# The key each write tool really writes to (Claude Code 2.1.328 tool inputs).
TARGET_KEY = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}


def _path_like(key: str) -> bool:
    lowered = key.lower()
    return lowered.endswith("path") or lowered.endswith("_file") or lowered in ("file", "filename", "path")


def write_target(tool: object, tool_input: dict) -> tuple[str | None, str | None]:
    """(the path this tool call writes, or None and why it cannot be trusted).

    Only the key the tool really uses counts, and any other path-like key naming a
    different place makes the call ambiguous: a guard that checked `file_path`
    while NotebookEdit writes `notebook_path` would allow a write anywhere."""
    key = TARGET_KEY.get(str(tool), "file_path")
    target = tool_input.get(key)
    if not isinstance(target, str) or not target:
        return None, f"The {tool} call names no {key}."
    for other, value in tool_input.items():
        if other != key and _path_like(other) and value not in (None, "", target):
            return None, (f"The {tool} call writes {key} {target} but also names {other} {value!r}; "
                          f"name only {key}.")
    return target, None
