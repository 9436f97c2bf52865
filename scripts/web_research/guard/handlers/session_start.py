"""SessionStart: a session that comes back frees the slots it left."""
from __future__ import annotations

from ..rules.decision import Decision
from .session_end import session_end
from ..state import Context


def session_start(ctx: Context) -> Decision:
    """A crashed session never sent SessionEnd: free its slots when it comes back."""
    return session_end(ctx)
