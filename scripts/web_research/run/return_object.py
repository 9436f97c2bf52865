"""The object the skill returns (companion-contract.md): the run's four paths and, once the
fix rounds are spent, `"verified": false` with the ids of the checks that still fail.

`finish` prints it and the Stop hook holds the final message to it, so both build it here.
"""
from __future__ import annotations

import os
from pathlib import Path

from .. import formats


def return_object(run_dir: Path, failed: list[str] | None = None) -> dict:
    """The return object with `start`'s path shapes (the findings folder ends with a separator)."""
    answer: dict = {"plan": str(run_dir / formats.PLAN_FILE), "report": str(run_dir / formats.REPORT_FILE),
                    "findings_dir": f"{run_dir / formats.FINDINGS_DIR}{os.sep}",
                    "view": str(run_dir / formats.REPORT_VIEW_FILE)}
    if failed is not None:
        answer[formats.RETURN_VERIFIED_KEY] = False
        answer[formats.RETURN_FAILED_CHECKS_KEY] = failed
    return answer
