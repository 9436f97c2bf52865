"""SessionEnd hook of web-research: a thin adapter over web_research.guard (see hooks/README.md)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))

from web_research.guard.runner import run_hook  # noqa: E402

sys.exit(run_hook("SessionEnd", limits=True))
