"""`python -m web_research.guard EVENT`: the one entry point of every hook.

`hooks/run EVENT` (registered in hooks.json) execs this with the payload on
stdin. EVENT is the event's name in snake case, the name of its handler and of the
handler's module (`events.EVENTS`): `pre_tool_use` is PreToolUse, handled by
`pre_tool_use.pre_tool_use`. An unknown EVENT decides nothing.

`hooks/run` starts Python from `scripts/` (so `-m` puts our package, not the
user's project, first on sys.path) and passes the session's working directory
in HOOK_CWD_ENV; it is restored before anything else runs.
"""
from __future__ import annotations

import os
import sys

from .events import EVENTS

HOOK_CWD_ENV = "WEB_RESEARCH_HOOK_CWD"


def main(argv: list[str]) -> int:
    cwd = os.environ.pop(HOOK_CWD_ENV, None)
    if cwd:
        try:
            os.chdir(cwd)
        except OSError:  # gone or unreadable: the payload's own cwd still says where the session is
            pass
    event = EVENTS.get(argv[1]) if len(argv) == 2 else None
    if event is None:
        return 0
    from .runner import run_hook  # lazy: start-up

    return run_hook(event, limits=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
