"""After `abandon`, until the turn ends: the room stays shut.

A run is abandoned by the orchestrator, a model that has read everything the run read. Were
the session free at once, that model could plant pages and seals for a new folder and start a
run on them in the same turn. So from a successful `abandon` until the Stop hook of that turn
(the person speaks next), the session may only read (room.FREE_TOOLS) or run a new `start`,
which opens a new room. The rule is pure: the PreToolUse handler brings the tool, whether the
call is the plugin's own `start` and the abandoned run's folder.
"""
from __future__ import annotations

from .room import FREE_TOOLS


def refusal_after_abandon(tool: str, is_start: bool, run_dir: object, program: str) -> str | None:
    """Why this tool call is refused in a turn whose run was abandoned, or None when allowed:
    a read-only tool, or the plugin's `start` as SKILL.md writes it (`is_start`)."""
    if tool in FREE_TOOLS or (tool == "Bash" and is_start):
        return None
    where = f" in {run_dir}" if isinstance(run_dir, str) and run_dir else ""
    return (f"The research run{where} was abandoned in this turn, so until the turn ends only the read-only "
            f"tools ({', '.join(sorted(FREE_TOOLS))}) and a new start, exactly as SKILL.md writes it "
            f'("{program}" start --args-file - <<\'WEB_RESEARCH_ARGS\' ...), are allowed; {tool} is not. Tell the '
            "person the run was abandoned and not verified, and end your turn.")
