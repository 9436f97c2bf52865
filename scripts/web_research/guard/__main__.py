"""`python -m web_research.guard EVENT`: the one entry point of every hook.

`hooks/run EVENT` (registered in hooks.json) execs this with the payload on
stdin. EVENT is the event's name in snake case, the name of its handler and of the
handler's module (`events.EVENTS`): `pre_tool_use` is PreToolUse, handled by
`handlers/pre_tool_use.pre_tool_use`. An unknown EVENT decides nothing.

`hooks/run` starts Python from `scripts/` (so `-m` puts our package, not the
user's project, first on sys.path) and passes the session's working directory
in HOOK_CWD_ENV; it is restored before anything else runs.
"""
from __future__ import annotations

import sys

from .adapter import main

if __name__ == "__main__":
    sys.exit(main(sys.argv))
